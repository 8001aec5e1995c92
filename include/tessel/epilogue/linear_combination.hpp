#pragma once
// D = alpha * accumulator + beta * C, element by element, converted to D's type.
//
// With beta == 0, C is never read (it may be null).

#include "tessel/numeric.hpp"

namespace tessel::epilogue {

template <class ElementOutput, class ElementAccumulator = float, class ElementCompute = float>
struct LinearCombination {
  using Output = ElementOutput;
  struct Params {
    ElementCompute alpha = ElementCompute(1);
    ElementCompute beta = ElementCompute(0);
  };
  Params params;

  TESSEL_HD bool reads_source() const { return params.beta != ElementCompute(0); }
  TESSEL_HD ElementOutput operator()(ElementAccumulator acc, ElementOutput source) const {
    return numeric_cast<ElementOutput>(params.alpha * ElementCompute(acc) + params.beta * numeric_cast<ElementCompute>(source));
  }
  TESSEL_HD ElementOutput operator()(ElementAccumulator acc) const {
    return numeric_cast<ElementOutput>(params.alpha * ElementCompute(acc));
  }
};

}  // namespace tessel::epilogue
