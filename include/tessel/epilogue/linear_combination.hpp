#pragma once
// The linear combination, D = act(alpha * acc + beta * C): the epilogue of every tessel GEMM that
// is not given another fusion, written once and used by every kernel.
//
// Two kernels' views of the one type:
//  - Kernels that visit D's elements and let the epilogue read C (the Hopper kernel, and every
//    fusion of epilogue/fusion.hpp): the fusion contract. Arguments (alpha, beta, C and its
//    strides, the device pointers), Params, to_params, can_implement, name, and Callbacks with
//    visit, visit_unrounded (the value before its rounding to D, so that the kernel can round two
//    neighbours with one instruction), reads_source and finish.
//  - Kernels that load C themselves, in D's type and layout (the Sm75 / Sm80 kernels of
//    gemm/device/gemm.hpp): OutputOp, alpha and beta by value (Scalars) with reads_source() and
//    the call operators op(acc, c) and op(acc).
// Both compute through combine(), so they agree to the bit on the same inputs.
//
// alpha is multiplied by *ptr_scale_a and *ptr_scale_b where those are set (torch._scaled_mm's
// per-tensor scales of FP8 A and B: the real A is scale_a * A; or an alpha that lives on the
// device), read on the device once per thread, so that a training loop may update them without a
// host round trip or a CUDA-graph recapture. beta is a value: a beta in device memory is the
// fusion tree's (MultiplyAdd<Scalar, Accumulator, SourceC<C>>, whose SourceC takes ptr_beta),
// since two more pointers here moved the Hopper kernel's code for every caller. With beta == 0, C is never read and may be null (a NaN in C does not leak
// into D, as BLAS promises). Act is a stateless functor of epilogue/fusion/activation_fn.hpp
// (Identity: the plain linear combination; ReLU, GeluErf, SiLU, ...); it adds nothing to the
// parameters, so every Act shares one parameter block and a launcher that fills the plain
// linear combination's fills them all. The accumulator and all arithmetic are f32.
//
// Example: LinearCombination<bfloat16_t, bfloat16_t, fusion::ReLU> with alpha 2 and beta 0 stores
// bf16(0) for an accumulator of -1.5 and bf16(3) for 1.5; with beta 1 and C = 0.5 there, bf16(3.5).

#include <cstdint>

#include "tessel/epilogue/fusion/activation_fn.hpp"
#include "tessel/numeric.hpp"
#if !defined(__CUDACC_RTC__)  // host-only checks and names; NVRTC compiles the device side
#include <string>

#include "tessel/epilogue/fusion/detail.hpp"
#include "tessel/status.hpp"
#endif

namespace tessel::epilogue {

#if !defined(__CUDACC_RTC__)
/// The rule every kernel's C argument shares: a nonzero beta reads C, so C must be there. Kernels
/// that take C apart from the epilogue's parameters (the Sm80 handle, the front door) check their
/// own C with it.
inline StatusInfo check_source_present(float beta, void const* ptr_C) {
  if (beta != 0.f && ptr_C == nullptr)
    return {Status::kErrorInvalidProblem, "beta is nonzero but C is null: pass C, or set beta to 0"};
  return {};
}
#endif

template <class ElementD, class ElementC = ElementD, class Act = fusion::Identity>
struct LinearCombination {
#if !defined(__CUDACC_RTC__)
  static_assert(requires { Act::name(); },
                "LinearCombination<ElementD, ElementC, Act>: the third parameter is an activation functor "
                "(epilogue::fusion::ReLU, GeluErf, SiLU, ...); the accumulator and the arithmetic are always float");
#endif
  using ElementOutput = ElementD;
  using ElementSource = ElementC;
  using Activation = Act;
  static constexpr bool kActivation = !std::is_same_v<Act, fusion::Identity>;
  /// visit() reads no memory but C (and only where reads_source()), writes none and keeps nothing
  /// from one element to the next: a kernel may visit elements past D's edge and drop their values
  /// (the Hopper epilogue's TMA stores of edge tiles, which TMA clips to D's extents).
  static constexpr bool kPointwise = true;

  /// act(alpha * acc + beta * c), where source() gives C's element and is called only when beta
  /// is nonzero: the formula, here only.
  // NOTES: one call of the activation whether or not C is read; with one per branch, the Hopper
  // store loops inlined GELU twice (23% more SASS).
  template <class Source>
  TESSEL_HD static float combine(float alpha, float acc, float beta, Source const& source) {
    float v = alpha * acc;
    if (beta != 0.f) v += beta * source();
    return Act{}(v);
  }

  // ---- The fusion contract (kernels that visit D's elements) ------------------------------------
  struct Arguments {
    float alpha = 1.f, beta = 0.f;
    ElementC const* ptr_C = nullptr;
    std::int64_t ldc = 0, batch_stride_C = 0;  // C row-major M x N per batch; ldc 0 repeats one row (a bias)
    float const* ptr_scale_a = nullptr;        // one float each, multiplied into alpha; null for 1
    float const* ptr_scale_b = nullptr;
  };
  using Params = Arguments;
  static Params to_params(Arguments const& a) { return a; }
#if !defined(__CUDACC_RTC__)
  static StatusInfo can_implement(Arguments const& a, int m, int n, int l) {
    if (a.beta == 0.f) return {};
    if (auto s = check_source_present(a.beta, a.ptr_C); !s.ok()) return s;
    return fusion::detail::check_matrix("source C", a.ldc, a.batch_stride_C, m, n, l, /*written=*/false);
  }
  static std::string name() { return kActivation ? std::string("lincomb_") + Act::name() : std::string("lincomb"); }
#endif

  struct Callbacks {
    Params p;
    TESSEL_HD explicit Callbacks(Params const& params) : p(params) {
      if (p.ptr_scale_a) p.alpha *= *p.ptr_scale_a;
      if (p.ptr_scale_b) p.alpha *= *p.ptr_scale_b;
    }
    TESSEL_HD float visit_unrounded(int row, int col, int batch, float acc) const {
      return combine(p.alpha, acc, p.beta,
                     [&] { return float(p.ptr_C[batch * p.batch_stride_C + std::int64_t(row) * p.ldc + col]); });
    }
    TESSEL_HD ElementOutput visit(int row, int col, int batch, float acc) const {
      return numeric_cast<ElementOutput>(visit_unrounded(row, col, batch, acc));
    }
    /// Whether visit() reads C: the kernel runs a copy of its store loop without it when not.
    TESSEL_HD bool reads_source() const { return p.beta != 0.f; }
    TESSEL_HD void finish() {}
  };

  // ---- The output operator (kernels that load C themselves, in D's type and layout) -------------
  struct Scalars {
    float alpha = 1.f, beta = 0.f;
  };
  struct OutputOp {
    static_assert(std::is_same_v<ElementC, ElementD>, "OutputOp: kernels that load C themselves read it in D's type");
    using Output = ElementD;
    Scalars params;
    TESSEL_HD bool reads_source() const { return params.beta != 0.f; }
    TESSEL_HD ElementOutput operator()(float acc, ElementC source) const {
      return numeric_cast<ElementOutput>(combine(params.alpha, acc, params.beta, [&] { return numeric_cast<float>(source); }));
    }
    TESSEL_HD ElementOutput operator()(float acc) const {
      return numeric_cast<ElementOutput>(combine(params.alpha, acc, 0.f, [] { return 0.f; }));
    }
  };
};

}  // namespace tessel::epilogue
