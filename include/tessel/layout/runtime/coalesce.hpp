#pragma once
// coalesce and filter: simplify a layout without changing it as a function
// of its 1-D coordinate.
#include <cstdint>
#include <utility>
#include <vector>

#include "layout.hpp"

namespace tessel::rt {

namespace detail {

struct Mode {
  std::int64_t shape, stride;
};

inline std::vector<Mode> flat_modes(Layout const& l) {
  auto s = leaves(l.shape);
  auto d = leaves(l.stride);
  std::vector<Mode> m(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) m[i] = {s[i], d[i]};
  return m;
}

// Builds a layout from flat modes: one mode is a leaf layout, several a flat tuple.
inline Layout from_modes(std::vector<Mode> const& m) {
  if (m.size() == 1) return Layout(m[0].shape, m[0].stride);
  std::vector<IntTuple> s, d;
  for (auto const& x : m) {
    s.emplace_back(x.shape);
    d.emplace_back(x.stride);
  }
  return Layout(IntTuple::tuple(std::move(s)), IntTuple::tuple(std::move(d)));
}

// Merges `front` (flat modes, left to right) into the trailing mode `back`,
// walking right to left:
//   s:d  ++ 1:x      -> s:d            (extent-1 modes vanish)
//   s:d  ++ t:(s*d)  -> (s*t):d        (contiguous modes fuse)
//   else                -> (s,...):(d,...)
// A result of extent 1 is 1:0.
inline Layout coalesce_modes(std::vector<Mode> const& front, Mode back) {
  std::vector<Mode> acc{back};  // acc[0] is the leftmost mode built so far
  for (std::size_t k = front.size(); k-- > 0;) {
    Mode m = front[k];
    if (m.shape == 1) continue;
    if (acc.size() == 1 && acc[0].shape == 1) {
      acc[0] = m;
    } else if (mul(m.shape, m.stride) == acc[0].stride) {
      acc[0] = {mul(m.shape, acc[0].shape), m.stride};
    } else {
      acc.insert(acc.begin(), m);
    }
  }
  if (acc.size() == 1 && acc[0].shape == 1) return Layout(1, 0);
  return from_modes(acc);
}

// coalesce that also keeps the layout's values past its domain: a trailing
// extent-1 mode is widened to 2 so its stride survives. Composition uses it,
// because A's last mode is read as unbounded there.
// Example: coalesce((4,1):(1,7)) = 4:1 but coalesce_x gives (4,2):(1,7).
inline Layout coalesce_x(Layout const& l) {
  auto m = flat_modes(l);
  Mode back = m.back();
  m.pop_back();
  if (back.shape == 1) back.shape = 2;
  return coalesce_modes(m, back);
}

}  // namespace detail

// coalesce(L): the flattest layout equal to L on [0, size(L)).
// @post size(result) == size(L)
// @post depth(result) <= 1
// @post result(i) == L(i) for all 0 <= i < size(L)
// Example: coalesce((2,(1,6)):(1,(6,2))) = 12:1
//          (the extent-1 mode vanishes; 2:1 then 6:2 are contiguous and fuse).
inline Layout coalesce(Layout const& l) {
  auto m = detail::flat_modes(l);
  detail::Mode back = m.back();
  m.pop_back();
  return detail::coalesce_modes(m, back);
}

// By-mode coalesce: coalesce each mode of L at the leaves of `profile`, keep
// modes beyond rank(profile) unchanged. An integer profile coalesces all of L.
// @post result is congruent with profile on the modes profile covers.
// Example: coalesce((2,(1,6)):(1,(6,2)), (1,1)) = (2,6):(1,2).
inline Layout coalesce(Layout const& l, IntTuple const& profile) {
  if (profile.is_leaf()) return coalesce(l);
  return detail::with_context(
      "coalesce", [&] { return to_string(l) + ", " + to_string(profile); },
      [&] {
        if (profile.rank() > rank(l)) {
          throw Error("the profile has " + std::to_string(profile.rank()) +
                      " modes but the layout has rank " + std::to_string(rank(l)));
        }
        std::vector<Layout> out;
        for (int i = 0; i < rank(l); ++i) {
          out.push_back(i < profile.rank() ? coalesce(layout(l, i), profile[i]) : layout(l, i));
        }
        return make_layout(out);
      });
}

// filter_zeros(L): every stride-0 mode gets extent 1 (it never moved the index).
inline Layout filter_zeros(Layout const& l) {
  auto m = detail::flat_modes(l);
  // Keep L's nesting: rebuild the shape leaf by leaf.
  std::size_t k = 0;
  auto rebuild = [&](auto&& self, IntTuple const& t) -> IntTuple {
    if (t.is_leaf()) {
      auto const& x = m[k++];
      return x.stride == 0 ? 1 : x.shape;
    }
    std::vector<IntTuple> out;
    for (auto const& e : t.elems()) out.push_back(self(self, e));
    return IntTuple::tuple(std::move(out));
  };
  return Layout(rebuild(rebuild, l.shape), l.stride);
}

// filter(L): coalesce after dropping stride-0 and extent-1 modes; the
// "useful" part of L. An empty result is 1:0.
// @post depth(result) <= 1, every stride of result is non-zero (or result is 1:0)
// @post the image of result equals the image of L
// Example: filter((2,3,4):(0,1,3)) = 12:1.
inline Layout filter(Layout const& l) { return coalesce(filter_zeros(l)); }

// By-mode filter at the leaves of profile (like by-mode coalesce).
inline Layout filter(Layout const& l, IntTuple const& profile) {
  if (profile.is_leaf()) return filter(l);
  if (profile.rank() > rank(l)) {
    throw Error("filter(" + to_string(l) + ", " + to_string(profile) + "): the profile has " +
                std::to_string(profile.rank()) + " modes but the layout has rank " +
                std::to_string(rank(l)));
  }
  std::vector<Layout> out;
  for (int i = 0; i < rank(l); ++i) {
    out.push_back(i < profile.rank() ? filter(layout(l, i), profile[i]) : layout(l, i));
  }
  return make_layout(out);
}

}  // namespace tessel::rt
