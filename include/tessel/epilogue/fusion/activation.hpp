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

#include "tessel/epilogue/fusion/activation_fn.hpp"
#include "tessel/epilogue/fusion/compute.hpp"

namespace tessel::epilogue::fusion {

struct Clamp {
  float lo = -__builtin_huge_valf();
  float hi = __builtin_huge_valf();
  static constexpr const char* name() { return "clamp"; }
  TESSEL_HD float operator()(float x) const { return x < lo ? lo : (x > hi ? hi : x); }
};

template <class Act, class Child>
using Activation = Elementwise<Act, Child>;

}  // namespace tessel::epilogue::fusion
