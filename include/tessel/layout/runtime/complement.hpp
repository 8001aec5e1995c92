#pragma once
// complement: the layout of the "rest", the repetitions of L that fill a
// codomain of a given size.
#include <cstdint>
#include <string>
#include <vector>

#include "coalesce.hpp"

namespace tessel::rt {

namespace detail {

// ceil_div of a shape by an integer, folded left to right as CuTe does for a
// shape cotarget: each extent is divided by what is left of b, and b by it.
// Example: ceil_div((4,2,3), 8) = (1,1,3).
inline IntTuple ceil_div_shape(IntTuple const& a, std::int64_t& b) {
  if (a.is_leaf()) {
    std::int64_t r = ceil_div(a.value(), b);
    b = ceil_div(b, a.value());
    return r;
  }
  std::vector<IntTuple> out;
  for (auto const& e : a.elems()) out.push_back(ceil_div_shape(e, b));
  return IntTuple::tuple(std::move(out));
}

inline Layout complement_impl(Layout const& l, IntTuple const& cotarget) {
  l.validate();
  for (auto v : leaves(cotarget)) {
    if (v < 1) throw Error("the cotarget " + to_string(cotarget) + " must be positive");
  }
  Layout f = filter(l);
  if (f.stride.is_leaf() && f.stride.value() == 0) {
    return make_layout(size(cotarget));  // nothing of L moves: all of [0, M) is left
  }
  auto m = flat_modes(f);
  for (auto const& x : m) {
    if (x.stride < 0) throw Error("the layout has a negative stride; complement needs positive strides");
  }
  std::vector<Mode> out;
  std::int64_t covered = 1;
  while (!m.empty()) {
    std::size_t k = 0;  // the first mode of smallest stride
    for (std::size_t i = 1; i < m.size(); ++i) {
      if (m[i].stride < m[k].stride) k = i;
    }
    std::int64_t hole = m[k].stride / covered;
    if (hole == 0) {
      throw Error("the layout is not injective (or its modes interleave): stride " +
                  std::to_string(m[k].stride) + " lies inside the extent " + std::to_string(covered) +
                  " already covered by its smaller-stride modes");
    }
    out.push_back({hole, covered});
    covered = mul(m[k].stride, m[k].shape);
    m.erase(m.begin() + static_cast<std::ptrdiff_t>(k));
  }
  std::int64_t b = covered;
  std::int64_t rest = size(ceil_div_shape(cotarget, b));
  return coalesce_modes(out, {rest, rest == 1 ? 0 : covered});
}

}  // namespace detail

// complement(L, M): the ordered layout R of the elements of [0, size(M)) that
// L does not reach, as repetitions of L.
//
// Filter L and visit its modes by increasing stride; each mode s:d leaves a
// hole of d/c elements at stride c (c = the extent covered so far, starting
// at 1) and then covers c = s*d. Finally L's whole extent repeats ceil(M/c)
// times at stride c (for a shape M, the ceil is folded over its modes as
// CuTe does). The result is coalesced. A cotarget smaller than L's extent is
// allowed: the repetition count is then 1 and only the holes remain.
// @post for all 1 <= i < size(R): R(i-1) < R(i)              (ordered)
// @post for all 1 <= i < size(R), all j: R(i) != L(j)         (disjoint)
// @post when every stride of filter(L) is a multiple of the extent below it,
//       make_layout(L, R) is a bijection onto [0, cosize) with cosize >= size(M)
// @throws Error when L is not injective (a stride lies inside the extent its
//         smaller-stride modes already cover), has a negative stride, or M < 1.
// Example: complement(4:2, 24) = (2,3):(1,8): the hole 2:1 between L's
//          elements, then L's 8-element extent repeated 3 times.
inline Layout complement(Layout const& l, IntTuple const& cotarget) {
  return detail::with_context(
      "complement", [&] { return to_string(l) + ", " + to_string(cotarget); },
      [&] { return detail::complement_impl(l, cotarget); });
}

// complement(L) = complement(L, cosize(filter(L))): only the holes inside L's extent.
// Example: complement((2,2):(1,6)) = 3:2 (fills 2..5 between the two pairs).
inline Layout complement(Layout const& l) {
  return detail::with_context(
      "complement", [&] { return to_string(l); },
      [&] { return detail::complement_impl(l, cosize(filter(l))); });
}

}  // namespace tessel::rt
