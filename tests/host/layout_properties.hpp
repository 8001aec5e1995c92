#pragma once
// Defining properties of the compile-time algebra, checked over random static layouts.
// Each check evaluates both sides at every coordinate; none compares against stored answers.

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "static_layout_gen.hpp"

namespace tessel::test {

template <class L>
std::vector<long long> indices(L const& l) {
  std::vector<long long> v;
  for (long long i = 0; i < (long long)size(l); ++i) v.push_back((long long)l(i));
  return v;
}

// The image of L as a set, and whether L hits any index twice.
template <class L>
bool injective(L const& l) {
  auto v = indices(l);
  return std::set<long long>(v.begin(), v.end()).size() == v.size();
}

template <class L>
void check_coalesce_filter(L const& l) {
  auto c = coalesce(l);
  ASSERT_EQ((long long)size(c), (long long)size(l)) << to_string(l);
  EXPECT_LE(int(depth(c)), 1);
  for (long long i = 0; i < (long long)size(l); ++i) ASSERT_EQ((long long)c(i), (long long)l(i)) << to_string(l) << " i=" << i;
  // filter keeps the image and drops repeats caused by stride-0 modes.
  auto f = filter(l);
  auto vl = indices(l), vf = indices(f);
  EXPECT_EQ(std::set<long long>(vl.begin(), vl.end()), std::set<long long>(vf.begin(), vf.end())) << to_string(l);
}

/// @pre B's modes add without interference in A's domain (see check_seed)
template <class A, class B>
void check_composition(A const& a, B const& b) {
  auto r = composition(a, b);
  ASSERT_EQ((long long)size(r), (long long)size(b)) << to_string(a) << " o " << to_string(b);
  for (long long i = 0; i < (long long)size(b); ++i)
    ASSERT_EQ((long long)r(i), (long long)a(b(i))) << to_string(a) << " o " << to_string(b) << " = " << to_string(r) << " at " << i;
  // The result keeps B's profile: coordinates of B are coordinates of R.
  if constexpr (Tuple<decltype(b.shape())>) {
    EXPECT_EQ(int(rank(r)), int(rank(b)));
  }
}

template <class L>
void check_complement(L const& l) {
  constexpr long long M = 4 * (long long)decltype(cosize(l))::value;
  auto c = complement(l, Int<int(M)>{});
  auto vl = indices(l);
  std::set<long long> image(vl.begin(), vl.end());
  // Ordered, and disjoint from L everywhere except the shared origin.
  for (long long i = 1; i < (long long)size(c); ++i) {
    ASSERT_LT((long long)c(i - 1), (long long)c(i)) << to_string(l) << " -> " << to_string(c);
    ASSERT_EQ(image.count((long long)c(i)), 0u) << to_string(l) << " -> " << to_string(c) << " at " << i;
  }
  // (L, complement) covers the cotarget exactly once when L is injective.
  auto full = make_layout(l, c);
  auto vfull = indices(full);
  std::set<long long> all(vfull.begin(), vfull.end());
  EXPECT_EQ(all.size(), vfull.size()) << to_string(full);
  EXPECT_GE((long long)size(full) * 1, (long long)size(filter(l)) * (long long)size(c));
  if (size(filter(l)) * size(c) >= M) {
    for (long long k = 0; k < M; ++k) ASSERT_EQ(all.count(k), 1u) << to_string(full) << " misses " << k;
  }
}

template <bool Injective, class L>
void check_inverses(L const& l) {
  auto r = right_inverse(l);
  for (long long i = 0; i < (long long)size(r); ++i) ASSERT_EQ((long long)l(r(i)), i) << to_string(l) << " right_inverse " << to_string(r);
  if constexpr (Injective) {
    ASSERT_TRUE(injective(l)) << to_string(l);
    auto li = left_inverse(l);
    for (long long i = 0; i < (long long)size(l); ++i) ASSERT_EQ((long long)li(l(i)), i) << to_string(l) << " left_inverse " << to_string(li);
  }
}

template <class A, class T>
void check_divide(A const& a, T const& t) {
  auto d = logical_divide(a, t);
  auto bt = make_layout(t, complement(t, a.shape()));
  for (long long i = 0; i < (long long)size(d); ++i) ASSERT_EQ((long long)d(i), (long long)a(bt(i))) << to_string(a) << " / " << to_string(t);
  // Mode 0 is one tile: A o T.
  auto tile = layout<0>(d);
  for (long long i = 0; i < (long long)size(t); ++i) ASSERT_EQ((long long)tile(i), (long long)a(t(i)));
  // The divide only regroups A when the tiles partition A's domain.
  if (size(d) == size(a)) {
    auto va = indices(a), vd = indices(d);
    std::multiset<long long> ma(va.begin(), va.end()), md(vd.begin(), vd.end());
    EXPECT_EQ(ma, md) << to_string(a) << " / " << to_string(t) << " = " << to_string(d);
  }
  // zipped, tiled and flat divides are the same function.
  auto z = zipped_divide(a, t);
  auto td = tiled_divide(a, t);
  auto fd = flat_divide(a, t);
  ASSERT_EQ((long long)size(z), (long long)size(d));
  for (long long i = 0; i < (long long)size(z); ++i) {
    ASSERT_EQ((long long)td(i), (long long)z(i));
    ASSERT_EQ((long long)fd(i), (long long)z(i));
  }
}

template <class A, class B>
void check_product(A const& a, B const& b) {
  auto p = logical_product(a, b);
  ASSERT_EQ((long long)size(p), (long long)size(a) * (long long)size(b));
  auto m0 = layout<0>(p);
  for (long long i = 0; i < (long long)size(a); ++i) ASSERT_EQ((long long)m0(i), (long long)a(i));
  // Copies of an injective block placed by an injective tiler never overlap.
  if (injective(a) && injective(b)) {
    EXPECT_TRUE(injective(p)) << to_string(a) << " x " << to_string(b) << " = " << to_string(p);
  }
  auto bp = blocked_product(a, b);
  auto rp = raked_product(a, b);
  EXPECT_EQ((long long)size(bp), (long long)size(p));
  EXPECT_EQ((long long)size(rp), (long long)size(p));
  auto vp = indices(p), vb = indices(bp), vr = indices(rp);
  std::multiset<long long> mp(vp.begin(), vp.end()), mb(vb.begin(), vb.end()), mr(vr.begin(), vr.end());
  EXPECT_EQ(mp, mb) << "blocked_product reorders the logical product's elements";
  EXPECT_EQ(mp, mr) << "raked_product reorders the logical product's elements";
}

/// All properties for one seed.
template <unsigned Seed>
void check_seed() {
  using Inj = RandomLayout<Seed, true>;
  using Any = RandomLayout<Seed, false>;
  using Tiler = RandomLayout<Seed * 7 + 3, true, 2>;
  SCOPED_TRACE("seed " + std::to_string(Seed) + ": " + to_string(Inj{}) + " / " + to_string(Any{}));
  static_assert(std::is_empty_v<Inj> && std::is_empty_v<Any>, "a static layout must be an empty type");
  check_coalesce_filter(Any{});
  check_coalesce_filter(Inj{});
  // R(c) == A(B(c)) needs B's modes to land in disjoint parts of A's domain, which an
  // injective power-of-two B guarantees (its modes occupy disjoint bit fields).
  check_composition(Any{}, Inj{});
  check_composition(Inj{}, Tiler{});
  check_complement(Inj{});
  check_inverses<true>(Inj{});
  check_inverses<false>(Any{});
  check_divide(Inj{}, Tiler{});
  check_product(Inj{}, Tiler{});
}

template <unsigned Offset, unsigned... Seeds>
void check_seeds(std::integer_sequence<unsigned, Seeds...>) {
  (check_seed<Offset + Seeds>(), ...);
}

}  // namespace tessel::test
