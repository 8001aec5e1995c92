#pragma once
// Convert: the child's value rounded to another element type, usually the root of a tree (the
// type D is stored in).
//
//   Convert<To, Child>(r, c, b) = numeric_cast<To>(Child(r, c, b))
//
// Round to nearest even. To FP8 (float_e4m3_t, float_e5m2_t) the conversion saturates to the
// format's largest finite value (448 for e4m3, 57344 for e5m2), infinities included, and NaN
// stays NaN: one outlier must not turn into an infinity or NaN that poisons the next layer.
//
// Convert has no arguments of its own: its Arguments and Params are its child's.
//
// Example: Convert<float_e4m3_t, Accumulator> visits acc = 1000 to 448, acc = 0.3 to 0.3125
// (the nearest e4m3: 1.25 * 2^-2), acc = 17 to 16 (between 16 and 18, to the even mantissa).

#include <string>

#include "tessel/epilogue/fusion/detail.hpp"

namespace tessel::epilogue::fusion {

template <class To, class Child>
struct Convert {
  using ElementOutput = To;
  using Arguments = typename Child::Arguments;
  using Params = typename Child::Params;

  static Params to_params(Arguments const& a) { return Child::to_params(a); }
  static StatusInfo can_implement(Arguments const& a, int m, int n, int l) { return Child::can_implement(a, m, n, l); }
  static std::string name() { return detail::element_tag<To>() + "_" + Child::name(); }

  struct Callbacks {
    typename Child::Callbacks child;
    TESSEL_HD bool reads_source() const { return detail::reads_source(child); }
    TESSEL_HD explicit Callbacks(Params const& p) : child(p) {}
    TESSEL_HD To visit(int row, int col, int batch, float acc) {
      return numeric_cast<To>(child.visit(row, col, batch, acc));
    }
    TESSEL_HD void finish() { child.finish(); }
  };
};

}  // namespace tessel::epilogue::fusion
