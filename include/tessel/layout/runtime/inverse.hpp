#pragma once
// Inverses of layouts, and the largest vector two layouts agree on.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "complement.hpp"
#include "composition.hpp"

namespace tessel::rt {

// right_inverse(L): the largest layout R with L(R(i)) == i.
//
// Coalesce L, then chain its modes by |stride|: start at the mode of stride 1,
// continue with the mode whose stride is the previous extent s*d, and stop
// when none has it. R's modes are those modes, each with the stride its
// coordinate has in L's compact column-major order (negated for a negative
// stride of L). With no stride-1 mode, R = 1:0.
// @post L(R(i)) == i for all 0 <= i < size(R)
// @post composition(L, R) acts as the identity on [0, size(R))
// Example: right_inverse((4,2):(2,1)) = (2,4):(4,1): index 1 is coordinate
//          (0,1), at 1-D position 4; index 2 is (1,0), at position 1.
inline Layout right_inverse(Layout const& l) {
  return detail::with_context(
      "right_inverse", [&] { return to_string(l); },
      [&] {
        l.validate();
        auto m = detail::flat_modes(coalesce(l));
        std::vector<std::int64_t> rstride(m.size());
        std::int64_t cur = 1;
        for (std::size_t i = 0; i < m.size(); ++i) {
          rstride[i] = m[i].shape == 1 ? 0 : cur;
          cur = detail::mul(cur, m[i].shape);
        }
        std::vector<detail::Mode> out;
        std::int64_t next = 1;
        for (;;) {
          std::size_t k = 0;
          while (k < m.size() && detail::abs(m[k].stride) != next) ++k;
          if (k == m.size()) break;
          out.push_back({m[k].shape, detail::signum(m[k].stride) * rstride[k]});
          std::int64_t n = detail::mul(m[k].shape, detail::abs(m[k].stride));
          if (n == next) break;
          next = n;
        }
        if (out.empty()) return Layout(1, 0);
        return detail::from_modes(out);
      });
}

namespace detail {

// The modes of coalesced L in order of increasing stride (first occurrence first on ties),
// each with its stride in L's compact column-major order: the 1-D coordinate it steps.
struct RankedMode {
  std::int64_t shape, stride, position;
};

inline std::vector<RankedMode> modes_by_stride(Layout const& l) {
  auto m = flat_modes(l);
  std::vector<RankedMode> out;
  std::int64_t position = 1;
  for (auto const& x : m) {
    out.push_back({x.shape, x.stride, position});
    position = mul(position, x.shape);
  }
  std::stable_sort(out.begin(), out.end(), [](RankedMode const& a, RankedMode const& b) { return a.stride < b.stride; });
  return out;
}

}  // namespace detail

// left_inverse(L): a layout R with R(L(i)) == i, for injective L (CuTe 4.7's construction).
//
// Visit the modes s_k:d_k of coalesced L by increasing stride, p_k the stride of mode k's
// coordinate in L's compact column-major order. R's first mode d_0:0 sends the offsets below
// the smallest stride to 0; then each next stride d_k contributes (d_k / d_{k-1}):p_{k-1}, the
// offsets from d_{k-1} up to d_k read as mode k-1's coordinate; the last mode adds s_last:p_last.
// R is coalesced. Offsets in the holes between L's modes map to some coordinate (R is a left
// inverse, not an inverse): only L's image is constrained.
// @pre L is injective (no stride 0, each stride at least the extent d_{k-1} s_{k-1} below it)
//      and each stride, by increasing stride, is a multiple of the one before (CuTe's condition)
// @post R(L(i)) == i for all 0 <= i < size(L)
// @throws Error when L has a negative stride, a stride-0 mode of extent > 1 or a stride inside
//         the extent below it (not injective), or a stride that is not a multiple of the one
//         before.
// Examples: left_inverse((2,2):(2,1)) = (2,2):(2,1) (the transpose is its own inverse);
//           left_inverse(16:2) = (2,16):(0,1): odd offsets are outside the image, R sends them to 0;
//           left_inverse((2,2):(1,3)) = (3,2):(1,2): L reaches 0,1,3,4, and R(3) = 2, R(4) = 3.
inline Layout left_inverse(Layout const& l) {
  return detail::with_context(
      "left_inverse", [&] { return to_string(l); },
      [&] {
        l.validate();
        Layout c = coalesce(l);
        if (size(c) == 1) return Layout(1, 0);
        std::vector<detail::Mode> out;
        // The extent below the mode, the previous mode's stride, extent and coordinate's position.
        std::int64_t covered = 1, previous = 1, last_shape = 1, position = 0;
        for (auto const& m : detail::modes_by_stride(c)) {
          if (m.stride < 0) throw Error("the layout has a negative stride " + std::to_string(m.stride));
          if (m.stride == 0) {
            throw Error("the layout is not injective: its mode " + std::to_string(m.shape) + ":0 repeats one offset");
          }
          if (m.stride < covered) {
            throw Error("the layout is not injective: its mode " + std::to_string(m.shape) + ":" + std::to_string(m.stride) +
                        " lies inside the extent " + std::to_string(covered) + " its smaller strides cover");
          }
          if (m.stride % previous != 0) {
            throw Error("stride divisibility fails: the stride " + std::to_string(m.stride) + " is not a multiple of the stride " +
                        std::to_string(previous) + " before it, so no layout reads the offsets between them as one coordinate");
          }
          out.push_back({m.stride / previous, position});
          previous = m.stride;
          last_shape = m.shape;
          position = m.position;
          covered = detail::mul(m.stride, m.shape);
        }
        return detail::coalesce_modes(out, detail::Mode{last_shape, position});
      });
}

// max_common_layout(A, B): the layout R of the longest run of 1-D coordinates
// on which A and B are both the identity after right_inverse(B), i.e. the
// elements that could be moved as one contiguous vector in both.
// @post A(R(i)) == i and B(R(i)) == i for all 0 <= i < size(R)
// Example: max_common_layout((4,8):(1,4), (4,8):(1,16)) = 4:1.
inline Layout max_common_layout(Layout const& a, Layout const& b) {
  return detail::with_context(
      "max_common_layout", [&] { return to_string(a) + ", " + to_string(b); },
      [&] {
        Layout inv_b = right_inverse(b);
        Layout common = coalesce(composition(a, inv_b));
        if (stride(common, 0) == IntTuple(1)) return composition(inv_b, layout(common, 0));
        return Layout(1, 0);
      });
}

// max_common_vector(A, B): size(max_common_layout(A, B)), the number of
// elements A and B agree on contiguously from 0 (at least 1).
// Example: max_common_vector((4,8):(1,4), (4,8):(1,16)) = 4.
inline std::int64_t max_common_vector(Layout const& a, Layout const& b) {
  return detail::with_context(
      "max_common_vector", [&] { return to_string(a) + ", " + to_string(b); },
      [&] {
        Layout common = coalesce(composition(a, right_inverse(b)));
        if (stride(common, 0) == IntTuple(1)) return size(shape(common, 0));
        return std::int64_t{1};
      });
}

}  // namespace tessel::rt
