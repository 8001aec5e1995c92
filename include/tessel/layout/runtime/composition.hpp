#pragma once
// Functional composition of layouts: (A o B)(c) = A(B(c)).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "../admissibility.hpp"
#include "coalesce.hpp"
#include "tiler.hpp"

namespace tessel::rt {

namespace detail {

// The flat extents of coalesced A and the flat leaves of B, as the shared rule reads them.
inline layout_rules::CompositionVerdict composition_verdict(std::vector<Mode> const& a, Layout const& b) {
  std::vector<std::int64_t> ext, n, d;
  for (auto const& m : a) ext.push_back(m.shape);
  for (auto const& m : flat_modes(b)) {
    n.push_back(m.shape);
    d.push_back(m.stride);
  }
  return layout_rules::composition_verdict(ext.data(), static_cast<int>(ext.size()), n.data(), d.data(),
                                           static_cast<int>(n.size()));
}

// The failed condition of a verdict, as a sentence (the caller adds the operation and operands).
inline std::string fault_text(layout_rules::CompositionVerdict const& v, Layout const& b) {
  using layout_rules::CompositionFault;
  auto leaf = [&] {
    auto m = flat_modes(b)[static_cast<std::size_t>(v.leaf)];
    return "leaf " + std::to_string(v.leaf) + " (" + std::to_string(m.shape) + ":" + std::to_string(m.stride) + ") of B";
  };
  auto mode = [&] { return "mode " + std::to_string(v.mode) + " of coalesced A (extent " + std::to_string(v.extent) + ")"; };
  switch (v.fault) {
    case CompositionFault::negative_stride:
      return "a negative stride " + std::to_string(v.value) + " of B is not supported when A has several modes";
    case CompositionFault::stride_divisibility:
      return "stride divisibility fails: for " + leaf() + ", the stride " + std::to_string(v.value) +
             " left after the earlier modes and " + mode() +
             " divide neither way, and B does not fit inside that mode";
    case CompositionFault::shape_divisibility:
      return "shape divisibility fails: for " + leaf() + ", the " + std::to_string(v.value) +
             " elements left neither fit in the " + std::to_string(v.extent) + " elements it visits in mode " +
             std::to_string(v.mode) + " of coalesced A nor are a multiple of them";
    case CompositionFault::carry:
      return "the modes of B carry: their largest digits in " + mode() + " sum to " + std::to_string(v.value) +
             ", past " + std::to_string(v.extent - 1) + ", so A(B(c)) is not the sum of A over B's modes";
    case CompositionFault::admissible: break;
  }
  return "admissible";
}

// A o s:d for a coalesced A (flat modes `a`, last mode unbounded) and one integral mode s:d of B,
// for a pair the admissibility rule accepts (admissibility.hpp).
//
// Step 1, divide out the stride: walking A's modes left to right, each extent a_i is divided by
// what remains of d: a mode the stride steps over whole keeps 1 element, the mode it lands in
// keeps a_i / d elements (rounded up where B fits inside it) at d times its stride.
// Step 2, mod out the shape: keep the first s elements of the strided A by taking extents from
// the left until s is used up. Whatever is left of s goes to A's last mode, which is unbounded.
inline Layout compose_mode(std::vector<Mode> const& a, std::int64_t s, std::int64_t d) {
  if (d == 0) return Layout(s, 0);  // every coordinate maps to A(0) = 0
  if (a.size() == 1) return Layout(s, mul(d, a[0].stride));
  // One element touches only A(0) = 0, whatever d is: the admissibility rule passes n == 1 with
  // any stride, and the walk below assumes d > 0 (a negative d would divide by zero in it).
  if (s == 1) return Layout(1, 0);

  std::size_t const r = a.size();
  std::vector<Mode> strided(r - 1);
  std::int64_t rest_stride = d;
  for (std::size_t i = 0; i + 1 < r; ++i) {
    std::int64_t si = a[i].shape;
    bool stepped_over = rest_stride % si == 0;
    std::int64_t kept = stepped_over ? 1 : ceil_div(si, rest_stride);
    strided[i] = {kept, mul(a[i].stride, std::min(si, rest_stride))};
    rest_stride = stepped_over ? rest_stride / si : 1;
  }
  std::int64_t rest_shape = s;
  std::vector<Mode> kept(r - 1);
  for (std::size_t i = 0; i + 1 < r; ++i) {
    std::int64_t si = strided[i].shape;
    kept[i] = {std::min(si, rest_shape), strided[i].stride};
    rest_shape = rest_shape <= si ? 1 : rest_shape / si;
  }
  return coalesce_modes(kept, {rest_shape, mul(rest_stride, a[r - 1].stride)});
}

// Right-distributes over B's modes, keeping B's nesting.
inline Layout compose_tree(std::vector<Mode> const& a, IntTuple const& bs, IntTuple const& bd) {
  if (bs.is_leaf()) return compose_mode(a, bs.value(), bd.value());
  std::vector<Layout> out;
  for (int i = 0; i < bs.rank(); ++i) out.push_back(compose_tree(a, bs[i], bd[i]));
  return make_layout(out);
}

}  // namespace detail

// composition(A, B) = A o B, the layout R with R(c) = A(B(c)).
//
// A is first coalesced (keeping its values past its domain, since its last mode is read as
// unbounded); then each leaf mode s:d of B selects every d-th element of A, s of them, and the
// results take B's nesting. CuTe 4.7's algorithm, held to the admissibility rule of
// admissibility.hpp, which refuses where CuTe's result would not be A o B.
// @post compatible(shape(B), shape(R)): every coordinate of B is one of R
// @post R(c) == A(B(c)) for every coordinate c of B, A extended along its last mode
// @throws Error naming the failed condition: stride divisibility, shape divisibility, a carry
//         between B's modes, or a negative stride of B against a multi-mode A.
// Examples: composition((6,2):(8,2), (4,3):(3,1)) = ((2,2),3):((24,2),8):
//   4:3 picks A(0),A(3),A(6),A(9) = 0,24,2,26, i.e. (2,2):(24,2); 3:1 picks 0,8,16, i.e. 3:8.
//   composition((4,6,8,10):(2,3,5,7), 6:12) = (2,3):(9,5) (B fits in the last mode it reaches);
//   composition((4,4):(4,1), 4:3) is refused (A(3j) = 0,12,9,6 is no layout).
inline Layout composition(Layout const& a, Layout const& b) {
  return detail::with_context(
      "composition", [&] { return to_string(a) + ", " + to_string(b); },
      [&] {
        a.validate();
        b.validate();
        auto flat_a = detail::flat_modes(detail::coalesce_x(a));
        auto verdict = detail::composition_verdict(flat_a, b);
        if (!verdict.ok()) throw Error(detail::fault_text(verdict, b));
        return detail::compose_tree(flat_a, b.shape, b.stride);
      });
}

// By-mode composition with a tiler: (A0 o B0, A1 o B1, ...). Modes of A the
// tiler does not reach are dropped, as CuTe does.
// @post rank(result) == size(tiler)
// @throws Error when the tiler has more modes than A, or a mode fails.
// Example: composition((12,(4,8)):(59,(13,1)), [3:4, 8:2]) = (3,(2,4)):(236,(26,1)).
inline Layout composition(Layout const& a, Tiler const& t) {
  return detail::with_context(
      "composition", [&] { return to_string(a) + ", " + to_string(t); },
      [&] {
        return detail::transform_by_mode(
            a, t, [](Layout const& x, Layout const& y) { return composition(x, y); }, false);
      });
}

}  // namespace tessel::rt
