#pragma once
// Functional composition of layouts: (A o B)(c) = A(B(c)).
#include <cstdint>
#include <string>
#include <vector>

#include "coalesce.hpp"
#include "tiler.hpp"

namespace tessel::rt {

namespace detail {

// A o s:d for a coalesced A (flat modes `a`, last mode unbounded) and one
// integral mode s:d of B.
//
// Step 1, divide out the stride: walking A's modes left to right, the first d
// elements are skipped by dividing each extent by what remains of d. Each
// division needs the extent and the remaining stride to divide one another
// (the stride divisibility condition).
// Step 2, mod out the shape: keep the first s elements of the strided A by
// taking extents from the left until s is used up; again each step needs the
// remaining s and the extent to divide one another (shape divisibility).
// Whatever is left of s goes to A's last mode, which is unbounded.
inline Layout compose_mode(std::vector<Mode> const& a, std::int64_t s, std::int64_t d) {
  if (d == 0) return Layout(s, 0);  // every coordinate maps to A(0) = 0
  if (a.size() == 1) return Layout(s, mul(d, a[0].stride));
  if (d < 0) throw Error("a negative stride " + std::to_string(d) + " of B is not supported when A has several modes");

  std::size_t const r = a.size();
  std::vector<Mode> strided(r - 1);
  std::int64_t rest_stride = d;
  for (std::size_t i = 0; i + 1 < r; ++i) {
    std::int64_t si = a[i].shape;
    if (!divides_either(si, rest_stride)) {
      throw Error("stride divisibility fails: mode " + std::to_string(i) + " of A has shape " +
                  std::to_string(si) + ", and the stride " + std::to_string(rest_stride) +
                  " of B left after the earlier modes neither divides it nor is divided by it");
    }
    std::int64_t ns = shape_div(si, rest_stride);
    rest_stride = shape_div(rest_stride, si);
    strided[i] = {ns, mul(a[i].stride, shape_div(si, ns))};
  }
  std::int64_t rest_shape = s;
  std::vector<Mode> kept(r - 1);
  for (std::size_t i = 0; i + 1 < r; ++i) {
    std::int64_t si = strided[i].shape;
    if (!divides_either(rest_shape, si)) {
      throw Error("shape divisibility fails: after dividing out the stride, mode " + std::to_string(i) +
                  " of A has shape " + std::to_string(si) + ", and the shape " +
                  std::to_string(rest_shape) + " of B left after the earlier modes" +
                  " neither divides it nor is divided by it");
    }
    kept[i] = {(si == 1 || rest_shape == 1) ? 1 : std::min(si, rest_shape), strided[i].stride};
    rest_shape = shape_div(rest_shape, si);
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
// A is first coalesced (keeping its values past its domain, since its last
// mode is read as unbounded); then each leaf mode s:d of B selects every d-th
// element of A, s of them, and the results take B's nesting.
// @post compatible(shape(B), shape(R)): every coordinate of B is one of R
// @post R(i) == A(B(i)) for all 0 <= i < size(B) (where A(B(i)) is defined)
// @throws Error when a stride or shape divisibility condition fails.
// Example: composition((6,2):(8,2), (4,3):(3,1)) = ((2,2),3):((24,2),8):
//   4:3 picks A(0),A(3),A(6),A(9) = 0,24,2,26, i.e. (2,2):(24,2);
//   3:1 picks A(0),A(1),A(2) = 0,8,16, i.e. 3:8.
inline Layout composition(Layout const& a, Layout const& b) {
  return detail::with_context(
      "composition", [&] { return to_string(a) + ", " + to_string(b); },
      [&] {
        a.validate();
        b.validate();
        auto flat_a = detail::flat_modes(detail::coalesce_x(a));
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
