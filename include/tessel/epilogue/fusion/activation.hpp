#pragma once
// Activation functors, f32 in and out, for Elementwise (alias Activation<Act, Child>).
//
//   Identity   x
//   ReLU       max(x, 0)
//   GeluErf    x/2 * (1 + erf(x / sqrt 2))                          PyTorch's default gelu
//   GeluTanh   x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))    gelu(approximate="tanh");
//                                                                   hardware tanh on the device
//   Sigmoid    1 / (1 + exp(-x))
//   SiLU       x * sigmoid(x)  (swish)
//   Clamp      min(max(x, lo), hi), bounds given at run time
//
// NaN propagates through every one of them (ReLU and Clamp compare so that a NaN falls through
// rather than being replaced by a bound), so a NaN in the accumulator stays visible in D.
//
// Worked values: ReLU(-2) = 0; GeluErf(1) = 0.841345; GeluTanh(1) = 0.841192;
// Sigmoid(0) = 0.5; SiLU(1) = 0.731059; Clamp{-1, 1}(3) = 1.

#if !defined(__CUDACC_RTC__)
#include <cmath>
#endif

#include "tessel/epilogue/fusion/compute.hpp"

namespace tessel::epilogue::fusion {

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
  TESSEL_HD float operator()(float x) const { return 1.f / (1.f + expf(-x)); }
};

struct SiLU {
  static constexpr const char* name() { return "silu"; }
  TESSEL_HD float operator()(float x) const { return x / (1.f + expf(-x)); }
};

struct Clamp {
  float lo = -__builtin_huge_valf();
  float hi = __builtin_huge_valf();
  static constexpr const char* name() { return "clamp"; }
  TESSEL_HD float operator()(float x) const { return x < lo ? lo : (x > hi ? hi : x); }
};

template <class Act, class Child>
using Activation = Elementwise<Act, Child>;

}  // namespace tessel::epilogue::fusion
