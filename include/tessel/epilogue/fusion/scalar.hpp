#pragma once
// Leaf: one scalar for every element (alpha, beta, a scale factor).
//
//   s(r, c, b) = *ptr   when ptr is set (read once, where the Callbacks are constructed)
//              = value  otherwise
//
// The pointer form exists for scales that live on the device and change between launches without
// a host round trip, as FP8 training's delayed scaling does. It is dereferenced where Callbacks
// are constructed: a device pointer for a kernel, a host pointer for host evaluation.
//
// Example: Arguments{.value = 2} visits to 2 everywhere; with .ptr pointing at 0.25, to 0.25.

#include <string>

#include "tessel/epilogue/fusion/detail.hpp"

namespace tessel::epilogue::fusion {

struct Scalar {
  using ElementOutput = float;
  struct Arguments {
    float value = 0.f;
    float const* ptr = nullptr;  // overrides value when set
  };
  struct Params {
    float value;
    float const* ptr;
  };

  static Params to_params(Arguments const& a) { return {a.value, a.ptr}; }
  static StatusInfo can_implement(Arguments const&, int, int, int) { return {}; }
  static std::string name() { return "scalar"; }

  struct Callbacks {
    float value;
    TESSEL_HD explicit Callbacks(Params const& p) : value(p.ptr != nullptr ? *p.ptr : p.value) {}
    TESSEL_HD float visit(int, int, int, float) { return value; }
    TESSEL_HD void finish() {}
  };
};

}  // namespace tessel::epilogue::fusion
