#pragma once
// Epilogue fusion: what a GEMM does with each accumulator on its way to D, written as a tree of
// small nodes composed as types. Bias, activation, amax and the FP8 cast are applied while the
// accumulators are still in registers, instead of D going through memory to a second kernel.
//
// ---- The contract ---------------------------------------------------------------------------------
// Every node, every tree of nodes and every prebuilt fusion F provides:
//
//   F::ElementOutput                       what visit returns (D's type at the root, f32 inside)
//   F::Arguments                           host-side, filled by the user
//   F::Params                              trivially copyable; the kernel takes it by value
//   F::to_params(Arguments)                -> Params (host)
//   F::can_implement(Arguments, m, n, l)   -> StatusInfo naming what is wrong (host)
//   F::name()                              -> "lincomb_bias_gelu_amax_e4m3", part of kernel names
//   F::Callbacks                           per thread, in registers, host and device:
//       explicit Callbacks(Params const&)  reads what is read once (scalars behind pointers)
//       ElementOutput visit(row, col, batch, acc)
//                                          the value of output element (row, col) of batch
//                                          `batch`, whose accumulator is `acc`; only for
//                                          in-bounds elements
//       void finish()                      joins per-thread reductions to memory; once per
//                                          thread at the end, by all 32 lanes of a warp together
//       bool reads_source() const          optional: false when visit() will not read C (beta
//                                          == 0 in every SourceC); the Hopper kernel then runs a
//                                          copy of its store loop without the C loads. Nodes
//                                          with children answer for them; leaves without it
//                                          count as not reading C (detail::reads_source)
//
// A kernel's epilogue is then, for each thread:
//
//   typename Fusion::Callbacks cb(params.fusion);
//   for (each in-bounds output element (r, c) of batch b that this thread holds)
//     D[b * batch_stride_D + r * ldd + c] = cb.visit(r, c, b, acc(r, c));
//   cb.finish();
//
// The kernel never sees C, bias or aux tensors: the leaves read them from pointers in Params
// (row-major M x N with a leading dimension and a batch stride; vectors with a batch stride).
// All arithmetic inside a tree is f32. The same Callbacks run on the host, which is how the tests
// check every node against a double-precision model.
//
// ---- The nodes ------------------------------------------------------------------------------------
//   leaves      Accumulator, Scalar, SourceC<E> (beta * C), RowBroadcast<E>, ColumnBroadcast<E>,
//               AuxLoad<E>
//   compute     Elementwise<Fn, A[, B[, C]]>, Add, Multiply, MultiplyAdd, Activation<Act, X>
//               with ReLU, GeluErf, GeluTanh, SiLU, Sigmoid, Clamp, Identity
//   side effects AuxStore<E, X>, ScalarReduction<Op, X> (Amax<X>), RowReduction<Op, X>,
//               ColumnReduction<Op, X>, with Op = ReduceSum, ReduceMax, ReduceAbsMax
//   cast        Convert<E, X>; to float_e4m3_t / float_e5m2_t it saturates
//   prebuilt    LinCombBias, LinCombActivation, LinCombBiasActivation,
//               LinCombBiasGeluAmaxFp8; and the plain D = act(alpha * acc + beta * C), which
//               every kernel runs by default, is epilogue::LinearCombination<D, C, Act>
//               (epilogue/linear_combination.hpp, included here)
//
// ---- Writing your own ------------------------------------------------------------------------------
// A tree is a type; no kernel changes. Say D = clamp(alpha * acc + R, -1, 1) in half precision,
// with R a residual tensor, and the per-row sums of the value before the clamp:
//
//   using namespace tessel::epilogue::fusion;
//   using MyFusion =
//       Convert<half_t,
//               Activation<Clamp,
//                          RowReduction<ReduceSum,
//                                       MultiplyAdd<Scalar, Accumulator, AuxLoad<half_t>>>>>;
//
//   MyFusion::Arguments args{                      // Convert passes its child's arguments through
//       .first = {                                 // Clamp's one child: the row sum
//           .child = {                             // the row sum's child: alpha * acc + R
//               .first = {.value = 0.5f},          //   alpha
//               .second = {},                      //   acc
//               .third = {.ptr = R, .ld = n, .batch_stride = m * n},
//               .fn = {}},
//           .ptr = row_sums},                      // M floats per batch, zeroed
//       .fn = {.lo = -1.f, .hi = 1.f}};            // the clamp's bounds
//
// With alpha = 0.5, acc = 4 and R = 1 at an element: the row sum gains 3, and D = half(1).
// Elementwise names its children first, second, third and its functor fn; the single-child
// nodes (stores, reductions) name theirs child. A functor of your own
//
//   struct Softplus {
//     static constexpr const char* name() { return "softplus"; }
//     TESSEL_HD float operator()(float x) const { return log1pf(expf(x)); }
//   };
//
// plugs into Elementwise or Activation like the built-in ones. To give a tree a short name, derive
// from it: `struct Mine : MyFusion { static std::string name() { return "mine"; } };`.

#include "tessel/epilogue/fusion/accumulator.hpp"
#include "tessel/epilogue/fusion/activation.hpp"
#include "tessel/epilogue/fusion/aux_load.hpp"
#include "tessel/epilogue/fusion/aux_store.hpp"
#include "tessel/epilogue/fusion/broadcast.hpp"
#include "tessel/epilogue/fusion/compute.hpp"
#include "tessel/epilogue/fusion/convert.hpp"
#include "tessel/epilogue/fusion/lincomb.hpp"
#include "tessel/epilogue/fusion/lincomb_fp8.hpp"
#include "tessel/epilogue/fusion/reduce_ops.hpp"
#include "tessel/epilogue/fusion/scalar.hpp"
#include "tessel/epilogue/fusion/scalar_reduction.hpp"
#include "tessel/epilogue/fusion/source.hpp"
#include "tessel/epilogue/fusion/vector_reduction.hpp"
#include "tessel/epilogue/linear_combination.hpp"
