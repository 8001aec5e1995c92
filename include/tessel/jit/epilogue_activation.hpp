#pragma once
// D = act(alpha * accumulator + beta * C): the linear combination with an activation fused in,
// for configurations compiled at run time (Python's GemmConfig(epilogue="relu"), ...).
//
// The interface is LinearCombination's (Params{alpha, beta}, reads_source, two call operators),
// so the kernel takes either, and a launcher fills both the same way.

#include "tessel/epilogue/fusion/activation_fn.hpp"
#include "tessel/numeric.hpp"

namespace tessel::jit {

// The fusion library's functors (GELU is the exact erf form, torch.nn.functional.gelu's default).
using epilogue::fusion::Identity;
using epilogue::fusion::ReLU;
using epilogue::fusion::SiLU;
using GELU = epilogue::fusion::GeluErf;

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
