#pragma once
// The stateless activation functors, f32 in and out: what each computes is listed in
// activation.hpp (which adds Clamp, whose bounds are run-time state). This header needs only the portability macros and erff/expf, so NVRTC
// compiles it too: the fused epilogues of run-time compiled kernels (the Hopper linear
// combination of epilogue/linear_combination.hpp) use these same functors.

#if !defined(__CUDACC_RTC__)
#include <cmath>
#endif

#include "tessel/config.hpp"

namespace tessel::epilogue::fusion {

namespace detail {
// NOTES: the sigmoid family runs once per output element in the epilogue, which the cooperative
// kernel does not overlap with its mainloop. On the device, exp and the quotient take the
// special-function unit's approximations (ex2.approx and rcp.approx: about 2 ulp, far inside a
// 16-bit output's rounding) instead of expf's range reduction and IEEE division's refinement.
// The limits hold: for x < -88, exp(-x) is inf, and x / inf is -0 (the sigmoid's and SiLU's 0).
TESSEL_HD inline float fast_exp(float x) {
#if defined(__CUDA_ARCH__)
  return __expf(x);
#else
  return expf(x);
#endif
}
TESSEL_HD inline float fast_divide(float x, float y) {
#if defined(__CUDA_ARCH__)
  return __fdividef(x, y);
#else
  return x / y;
#endif
}
}  // namespace detail

struct Identity {
  static constexpr const char* name() { return "identity"; }
  TESSEL_HD float operator()(float x) const { return x; }
};

struct ReLU {
  static constexpr const char* name() { return "relu"; }
  TESSEL_HD float operator()(float x) const { return x < 0.f ? 0.f : x; }
};

struct GeluErf {
  static constexpr const char* name() { return "gelu"; }
  TESSEL_HD float operator()(float x) const { return 0.5f * x * (1.f + erff(x * 0.70710678118654752f)); }
};

// NOTES: on the device the tanh is the hardware's tanh.approx.f32 (one MUFU instruction, relative
// error below 2^-10.98), where tanhf costs ~20 instructions. The GELU value then differs from the
// host's by under 2^-11 relative, a quarter of a bf16 ulp and far below an FP8 one; in a fused
// epilogue that runs per output element this is the difference between the activation hiding
// under the mainloop and not (bench/NOTES.md, epilogue fusion).
struct GeluTanh {
  static constexpr const char* name() { return "gelu_tanh"; }
  TESSEL_HD float operator()(float x) const {
    constexpr float kSqrt2OverPi = 0.79788456080286536f;
    float const u = kSqrt2OverPi * (x + 0.044715f * x * x * x);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
    float t;
    asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(u));
#else
    float const t = tanhf(u);
#endif
    return 0.5f * x * (1.f + t);
  }
};

struct Sigmoid {
  static constexpr const char* name() { return "sigmoid"; }
  // exp(-x) overflows to inf for x < -88 and the quotient is then 0, the right limit.
  TESSEL_HD float operator()(float x) const { return detail::fast_divide(1.f, 1.f + detail::fast_exp(-x)); }
};

struct SiLU {
  static constexpr const char* name() { return "silu"; }
  TESSEL_HD float operator()(float x) const { return detail::fast_divide(x, 1.f + detail::fast_exp(-x)); }
};

}  // namespace tessel::epilogue::fusion
