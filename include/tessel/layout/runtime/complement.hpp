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

// complement's covering post-conditions (CuTe's): L and R together reach the cotarget,
//   cosize(make_layout(L, R)) >= size(M)   and   size(R) >= size(M) / size(filter(L)).
// Both can fail when a stride of L is not a multiple of the extent below it, or when the
// cotarget's modes fold to fewer repetitions than its size needs: complement(6:3, (16,9))
// would be (3,5):(1,18), whose pair with L reaches only 90 of 144.
inline void check_complement_covers(Layout const& l, Layout const& r, IntTuple const& cotarget) {
  std::int64_t m = size(cotarget);
  std::int64_t reach = cosize(make_layout(l, r));
  if (reach < m) {
    throw Error("L and the complement " + to_string(r) + " reach only " + std::to_string(reach) + " of the " +
                std::to_string(m) + " elements of the cotarget (cosize(make_layout(L, R)) < size(M))");
  }
  if (size(r) < m / size(filter(l))) {
    throw Error("the complement " + to_string(r) + " has " + std::to_string(size(r)) + " elements, fewer than size(M) / size(filter(L)) = " +
                std::to_string(m / size(filter(l))));
  }
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
  Layout r = coalesce_modes(out, {rest, rest == 1 ? 0 : covered});
  check_complement_covers(l, r, cotarget);
  return r;
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
// @post cosize(make_layout(L, R)) >= size(M) and size(R) >= size(M) / size(filter(L))
// @throws Error when L is not injective (a stride lies inside the extent its
//         smaller-stride modes already cover), has a negative stride, M < 1, or the
//         covering post-condition fails (complement(6:3, (16,9)) is refused: (3,5):(1,18)
//         would reach 90 of 144).
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
