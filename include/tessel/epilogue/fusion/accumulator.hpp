#pragma once
// Leaf: the accumulator itself.
//
//   acc(r, c, b) = the f32 sum of products the mainloop computed for that output element.
//
// Example: with acc = 7.5 at (r, c, b), Accumulator visits to 7.5.

#include <string>

#include "tessel/epilogue/fusion/detail.hpp"

namespace tessel::epilogue::fusion {

struct Accumulator {
  using ElementOutput = float;
  struct Arguments {};
  struct Params {};

  static Params to_params(Arguments const&) { return {}; }
  static StatusInfo can_implement(Arguments const&, int, int, int) { return {}; }
  static std::string name() { return "acc"; }

  struct Callbacks {
    TESSEL_HD explicit Callbacks(Params const&) {}
    TESSEL_HD float visit(int, int, int, float acc) { return acc; }
    TESSEL_HD void finish() {}
  };
};

}  // namespace tessel::epilogue::fusion
