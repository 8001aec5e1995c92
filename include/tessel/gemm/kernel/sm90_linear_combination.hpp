#pragma once
// D = act(alpha * acc + beta * C), element by element, as an epilogue fusion of the Hopper kernel
// (the fusion contract: Arguments, Params, to_params, can_implement, name, Callbacks{visit,
// finish, reads_source}; and visit_unrounded, which lets the kernel round two outputs at once).
// With beta == 0, C is never read and may be null. alpha is multiplied by *ptr_scale_a and
// *ptr_scale_b where they are set: torch._scaled_mm's per-tensor scales of FP8 A and B (the real
// A is scale_a * A), read on the device once per thread so that a training loop may update them
// without a host round trip or a CUDA-graph recapture. Act is a stateless functor of
// epilogue/fusion/activation_fn.hpp (Identity: the plain linear combination; ReLU, GeluErf, SiLU,
// ...). The activation adds nothing to Arguments or Params, so every Act shares one parameter
// block: a launcher that fills the linear combination's fills them all.
//
// Example: Sm90LinearCombination<bfloat16_t, bfloat16_t, epilogue::fusion::ReLU> with alpha 2,
// beta 0 and acc -1.5 stores bf16(0); with acc 1.5, bf16(3).

#include <cstdint>

#include "tessel/epilogue/fusion/activation_fn.hpp"
#include "tessel/numeric.hpp"
#if !defined(__CUDACC_RTC__)  // host-only checks and names; NVRTC compiles the device side
#include <string>

#include "tessel/status.hpp"
#endif

namespace tessel::gemm::kernel {

template <class ElementD, class ElementC = ElementD, class Act = epilogue::fusion::Identity>
struct Sm90LinearCombination {
  using ElementOutput = ElementD;
  using Activation = Act;
  static constexpr bool kActivation = !std::is_same_v<Act, epilogue::fusion::Identity>;
  struct Arguments {
    float alpha = 1.f, beta = 0.f;
    ElementC const* ptr_C = nullptr;
    std::int64_t ldc = 0, batch_stride_C = 0;  // C row-major M x N per batch
    float const* ptr_scale_a = nullptr;        // one float each, or null for 1
    float const* ptr_scale_b = nullptr;
  };
  using Params = Arguments;
  static Params to_params(Arguments const& a) { return a; }
#if !defined(__CUDACC_RTC__)
  static StatusInfo can_implement(Arguments const& a, int, int n, int) {
    if (a.beta != 0.f && !a.ptr_C) return {Status::kErrorInvalidProblem, "beta is nonzero but C is null: pass C, or set beta to 0"};
    // ldc 0 repeats C's first row over M: a bias.
    if (a.beta != 0.f && a.ldc != 0 && a.ldc < n)
      return {Status::kErrorInvalidProblem, "leading dimension of C is smaller than N (0 broadcasts one row, a bias)"};
    return {};
  }
  static std::string name() { return kActivation ? std::string("lincomb_") + Act::name() : std::string("lincomb"); }
#endif

  struct Callbacks {
    Params p;
    TESSEL_HD explicit Callbacks(Params const& params) : p(params) {
      if (p.ptr_scale_a) p.alpha *= *p.ptr_scale_a;
      if (p.ptr_scale_b) p.alpha *= *p.ptr_scale_b;
    }
    /// visit() before its final rounding to ElementOutput (round to nearest even), so that the
    /// kernel can round two neighbours with one instruction.
    TESSEL_HD float visit_unrounded(int row, int col, int batch, float acc) const {
      float v = p.alpha * acc;
      if (p.beta != 0.f) v += p.beta * float(p.ptr_C[batch * p.batch_stride_C + std::int64_t(row) * p.ldc + col]);
      if constexpr (kActivation) v = Act{}(v);
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
