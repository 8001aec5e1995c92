#pragma once
// D = act(alpha * accumulator + beta * C): the linear combination with an activation fused in,
// for configurations compiled at run time (Python's GemmConfig(epilogue="relu"), ...).
//
// The interface is LinearCombination's (Params{alpha, beta}, reads_source, two call operators),
// so the kernel takes either, and a launcher fills both the same way.

#if !defined(__CUDACC_RTC__)
#include <cmath>  // erff and expf for host code; NVRTC has them built in
#endif

#include "tessel/config.hpp"
#include "tessel/numeric.hpp"

namespace tessel::jit {

struct Identity {
  TESSEL_HD float operator()(float x) const { return x; }
};
struct ReLU {
  TESSEL_HD float operator()(float x) const { return x > 0.f ? x : 0.f; }
};
// The exact (erf) form, which is what torch.nn.functional.gelu computes by default.
struct GELU {
  TESSEL_HD float operator()(float x) const { return 0.5f * x * (1.f + erff(x * 0.70710678118654752f)); }
};
struct SiLU {
  TESSEL_HD float operator()(float x) const { return x / (1.f + expf(-x)); }
};

template <class ElementOutput, class Activation>
struct LinearCombinationActivation {
  using Output = ElementOutput;
  struct Params {
    float alpha = 1.f;
    float beta = 0.f;
  };
  Params params;

  TESSEL_HD bool reads_source() const { return params.beta != 0.f; }
  TESSEL_HD ElementOutput operator()(float acc, ElementOutput source) const {
    return numeric_cast<ElementOutput>(Activation{}(params.alpha * acc + params.beta * numeric_cast<float>(source)));
  }
  TESSEL_HD ElementOutput operator()(float acc) const { return numeric_cast<ElementOutput>(Activation{}(params.alpha * acc)); }
};

}  // namespace tessel::jit
