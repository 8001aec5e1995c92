#pragma once
// upcast / downcast: re-express a layout over elements N times wider or
// narrower (e.g. bytes as 4-byte words), as CuTe's recast does.
#include <cstdint>
#include <string>
#include <vector>

#include "layout.hpp"

namespace tessel::rt {

namespace detail {

inline void check_factor(std::int64_t n) {
  if (n < 1) throw Error("the factor " + std::to_string(n) + " must be positive");
}

inline Layout upcast_tree(IntTuple const& s, IntTuple const& d, std::int64_t n) {
  if (s.is_tuple()) {
    std::vector<Layout> out;
    for (int i = 0; i < s.rank(); ++i) out.push_back(upcast_tree(s[i], d[i], n));
    return make_layout(out);
  }
  std::int64_t sv = s.value(), dv = d.value();
  if (dv == 0) return Layout(sv, 0);
  std::int64_t ad = abs(dv);
  // n / |d| elements of this mode fuse into one wide element (1 if |d| >= n).
  if (!divides_either(n, ad)) {
    throw Error("stride " + std::to_string(dv) + " and factor " + std::to_string(n) +
                " do not divide one another");
  }
  std::int64_t fused = shape_div(n, ad);
  if (!divides_either(sv, fused)) {
    throw Error("shape " + std::to_string(sv) + " (stride " + std::to_string(dv) + ") is not divisible by " +
                std::to_string(fused) + ", the number of its elements one wide element spans");
  }
  return Layout(shape_div(sv, fused), shape_div(dv, n));
}

inline Layout downcast_tree(IntTuple const& s, IntTuple const& d, std::int64_t n) {
  if (s.is_tuple()) {
    std::vector<Layout> out;
    for (int i = 0; i < s.rank(); ++i) out.push_back(downcast_tree(s[i], d[i], n));
    return make_layout(out);
  }
  std::int64_t dv = d.value();
  if (dv == 1 || dv == -1) return Layout(mul(s.value(), n), dv);
  return Layout(s.value(), mul(dv, n));
}

}  // namespace detail

// upcast(L, N): L over elements N times wider. The contiguous mode (|stride|
// below N) shrinks by N/|stride| and every stride is divided by N (rounding
// away from zero); stride-0 modes are unchanged.
// @throws Error when a stride and N, or a contiguous extent and N/|stride|,
//         do not divide one another.
// Example: upcast((4,8):(1,4), 2) = (2,8):(1,2).
inline Layout upcast(Layout const& l, std::int64_t n) {
  return detail::with_context(
      "upcast", [&] { return to_string(l) + ", " + std::to_string(n); },
      [&] {
        l.validate();
        detail::check_factor(n);
        return detail::upcast_tree(l.shape, l.stride, n);
      });
}

// downcast(L, N): L over elements N times narrower. A stride-1 mode grows by
// N; every other stride is multiplied by N.
// @throws Error when L has no stride-1 mode (its elements are not adjacent,
//         so the narrow pieces of one element would have no place).
// Example: downcast((2,8):(1,2), 2) = (4,8):(1,4).
inline Layout downcast(Layout const& l, std::int64_t n) {
  return detail::with_context(
      "downcast", [&] { return to_string(l) + ", " + std::to_string(n); },
      [&] {
        l.validate();
        detail::check_factor(n);
        bool adjacent = false;
        for (auto d : leaves(l.stride)) adjacent = adjacent || d == 1;
        if (!adjacent) throw Error("the layout has no stride-1 mode, so its elements are not adjacent");
        return detail::downcast_tree(l.shape, l.stride, n);
      });
}

}  // namespace tessel::rt
