#pragma once
// ScalarReduction: reduce the child's value over the whole output (every row, column and batch)
// to one float in memory, and pass the value on unchanged. Amax<Child> is the absolute maximum,
// the statistic FP8 delayed scaling keeps per tensor.
//
//   ScalarReduction<Op, Child>(r, c, b) = v = Child(r, c, b);   *ptr = Op over all v
//
// Each thread keeps its partial result in a register; finish() joins it to *ptr. On the device
// the 32 lanes of a warp first combine theirs with shuffles, and lane 0 joins with one atomic, so
// a kernel issues one atomic per warp, not one per element. Every lane of a warp must therefore
// call finish() together (a thread that visited nothing still calls it); on the host it is a
// plain update. *ptr must hold the identity before the kernel (0 for amax; see reduce_ops.hpp).
//
// Example: Amax<Accumulator> over accumulators {-3, 2, 0.5} leaves *ptr = 3 (from 0).

#include <string>

#include "tessel/epilogue/fusion/detail.hpp"
#include "tessel/epilogue/fusion/reduce_ops.hpp"

#if defined(__CUDACC__)
#include "tessel/arch/util.hpp"
#endif

namespace tessel::epilogue::fusion {

template <class Op, class Child>
struct ScalarReduction {
  using ElementOutput = typename Child::ElementOutput;
  struct Arguments {
    typename Child::Arguments child{};
    float* ptr = nullptr;
  };
  struct Params {
    typename Child::Params child;
    float* ptr;
  };
  static_assert(std::is_trivially_copyable_v<Params>, "a kernel takes Params by value: they must be trivially copyable");

  static Params to_params(Arguments const& a) { return {Child::to_params(a.child), a.ptr}; }
  static StatusInfo can_implement(Arguments const& a, int m, int n, int l) {
    if (auto s = detail::check_not_null(a.ptr, std::string(Op::name()) + " output",
                                        "pass one float, set to the identity before the launch");
        !s.ok()) {
      return s;
    }
    return Child::can_implement(a.child, m, n, l);
  }
  static std::string name() { return std::string(Op::name()) + "_" + Child::name(); }

  struct Callbacks {
    typename Child::Callbacks child;
    TESSEL_HD bool reads_source() const { return detail::reads_source(child); }
    float* ptr;
    float partial;

    TESSEL_HD explicit Callbacks(Params const& p) : child(p.child), ptr(p.ptr), partial(Op::identity()) {}
    TESSEL_HD ElementOutput visit(int row, int col, int batch, float acc) {
      auto v = child.visit(row, col, batch, acc);
      partial = Op::combine(partial, Op::input(numeric_cast<float>(v)));
      return v;
    }
    TESSEL_HD void finish() {
      child.finish();
#if defined(__CUDA_ARCH__)
      float v = partial;
      for (int offset = 16; offset > 0; offset /= 2) v = Op::combine(v, __shfl_xor_sync(0xffffffffu, v, offset));
      // A warp with nothing to add (a producer warp, an empty tile) issues no atomic.
      if (arch::lane_id() == 0 && v != Op::identity()) Op::join(ptr, v);
#else
      Op::join(ptr, partial);
#endif
      partial = Op::identity();
    }
  };
};

template <class Child>
using Amax = ScalarReduction<ReduceAbsMax, Child>;

}  // namespace tessel::epilogue::fusion
