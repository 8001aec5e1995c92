#pragma once
// D = alpha * acc + beta * C, element by element, as an epilogue fusion of the Hopper kernel (the
// fusion contract: Arguments, Params, to_params, can_implement, name, Callbacks{visit, finish,
// reads_source}; and visit_unrounded, which lets the kernel round two outputs at once).
// With beta == 0, C is never read and may be null.

#include <cstdint>

#include "tessel/numeric.hpp"
#if !defined(__CUDACC_RTC__)  // host-only checks and names; NVRTC compiles the device side
#include <string>

#include "tessel/status.hpp"
#endif

namespace tessel::gemm::kernel {

template <class ElementD, class ElementC = ElementD>
struct Sm90LinearCombination {
  using ElementOutput = ElementD;
  struct Arguments {
    float alpha = 1.f, beta = 0.f;
    ElementC const* ptr_C = nullptr;
    std::int64_t ldc = 0, batch_stride_C = 0;  // C row-major M x N per batch
  };
  using Params = Arguments;
  static Params to_params(Arguments const& a) { return a; }
#if !defined(__CUDACC_RTC__)
  static StatusInfo can_implement(Arguments const& a, int, int n, int) {
    if (a.beta != 0.f && !a.ptr_C) return {Status::kErrorInvalidProblem, "beta is nonzero but C is null: pass C, or set beta to 0"};
    if (a.beta != 0.f && a.ldc < n) return {Status::kErrorInvalidProblem, "leading dimension of C is smaller than N"};
    return {};
  }
  static std::string name() { return "lincomb"; }
#endif

  struct Callbacks {
    Params p;
    TESSEL_HD explicit Callbacks(Params const& params) : p(params) {}
    /// visit() before its final rounding to ElementOutput (round to nearest even), so that the
    /// kernel can round two neighbours with one instruction.
    TESSEL_HD float visit_unrounded(int row, int col, int batch, float acc) const {
      float v = p.alpha * acc;
      if (p.beta != 0.f) v += p.beta * float(p.ptr_C[batch * p.batch_stride_C + std::int64_t(row) * p.ldc + col]);
      return v;
    }
    TESSEL_HD ElementOutput visit(int row, int col, int batch, float acc) const {
      return numeric_cast<ElementOutput>(visit_unrounded(row, col, batch, acc));
    }
    /// Whether visit() reads C: the kernel runs a copy of its store loop without it when not.
    TESSEL_HD bool reads_source() const { return p.beta != 0.f; }
    TESSEL_HD void finish() {}
  };
};

}  // namespace tessel::gemm::kernel
