// Exhaustive sweeps of the run-time algebra over every small layout: each operation either
// satisfies its defining property at every coordinate or is refused (issue 20). The compile-time
// algebra is tied to this one by the cross-check tests (layout_crosscheck*).
//
// The set. Every layout of rank <= 2 with flat leaves, extents 1..8 and strides 0..16:
//   rank 1: s:d                       8 * 17 = 136
//   rank 2: (s0,s1):(d0,d1)           136^2  = 18496
// pruned of duplicates that cannot change an answer:
//   * an extent-1 mode takes only stride 0 except as the last mode of a left operand, where
//     its stride is A's extension past its size (A = (4,1):(1,7) reads A(4) = 7);
//   * a left operand of composition or the divides has strides with gcd 1 (or all 0): scaling
//     A's strides by g scales A o B by g and leaves coalescing alone;
//   * a rank-2 right operand of composition is taken once per unordered pair of modes: swapping
//     B's modes swaps the result's modes, and the rule is symmetric in them.
// What each sweep takes from the set (the long ones run as several CTest entries, each a shard
// of the left operands chosen by TESSEL_SWEEP_SHARD=k/n; about 20 minutes of one core in all):
//   composition, B of rank 1:  every pruned A x every B = s:d
//   composition, B of rank 2:  every pruned A of rank 2 with extents >= 2 x every B of rank 2 with
//                              extents >= 2 and strides >= 1 (extent-1 or stride-0 leaves of B
//                              never reach past A(0), the rank-1 sweep covers them)
//   logical_divide:            every A with gcd 1 x every tiler s:d (d 1..16), and 1:0
//   products:                  every A x every tiler s:d (d 1..16), and 1:0
//   inverses:                  every layout of the set
//   complement:                every layout of the set x cotargets 1..24 and (m0,m1) with m0,m1 in 2..4
//
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <numeric>
#include <vector>

#include "runtime_testing.hpp"

namespace {

using namespace tessel::rt;
using rt_testing::eval_unbounded;

constexpr int kMaxExtent = 8;

// Every rank <= 2 layout with extents 1..kMaxExtent and strides 0..max_stride;
// `last_mode_stride_matters` keeps the strides of an extent-1 last mode (a left operand's
// extension), `coprime` keeps gcd(strides) <= 1 only.
std::vector<Layout> all_layouts(bool last_mode_stride_matters, bool coprime, int max_stride = 16) {
  int const kMaxStride = max_stride;
  std::vector<Layout> out;
  auto keep = [&](std::vector<int> const& d) {
    if (!coprime) return true;
    int g = 0;
    for (int x : d) g = std::gcd(g, x);
    return g <= 1;
  };
  for (int s = 1; s <= kMaxExtent; ++s) {
    for (int d = 0; d <= kMaxStride; ++d) {
      if (s == 1 && d != 0 && !last_mode_stride_matters) continue;
      if (keep({d})) out.emplace_back(s, d);
    }
  }
  for (int s0 = 1; s0 <= kMaxExtent; ++s0)
    for (int d0 = 0; d0 <= kMaxStride; ++d0) {
      if (s0 == 1 && d0 != 0) continue;
      for (int s1 = 1; s1 <= kMaxExtent; ++s1)
        for (int d1 = 0; d1 <= kMaxStride; ++d1) {
          if (s1 == 1 && d1 != 0 && !last_mode_stride_matters) continue;
          if (keep({d0, d1})) out.emplace_back(tuple(s0, s1), tuple(d0, d1));
        }
    }
  return out;
}

// TESSEL_SWEEP_SHARD=k/n: this run takes the left operands with index k mod n (CTest runs the
// long sweeps as n entries, which the cores share); unset: all of them.
std::vector<Layout> shard(std::vector<Layout> const& as) {
  char const* env = std::getenv("TESSEL_SWEEP_SHARD");
  int k = 0, n = 1;
  if (env && std::sscanf(env, "%d/%d", &k, &n) != 2) k = 0, n = 1;
  if (n < 1 || k < 0 || k >= n) k = 0, n = 1;
  std::vector<Layout> out;
  for (std::size_t i = 0; i < as.size(); ++i)
    if (static_cast<int>(i % static_cast<std::size_t>(n)) == k) out.push_back(as[i]);
  return out;
}

struct Tally {
  // refused_though_cute_right: refused, yet CuTe's unchecked construction happens to be A o B;
  // split by whether coalesced A has a stride-0 mode (whose carries cost nothing by coincidence).
  long accepted = 0, refused = 0, refused_though_cute_right = 0, refused_right_by_stride0 = 0;
};

bool has_zero_stride(std::vector<detail::Mode> const& m) {
  return std::any_of(m.begin(), m.end(), [](detail::Mode const& x) { return x.stride == 0; });
}

// A layout's leaves as flat arrays, evaluated without allocating: the sweeps evaluate billions
// of coordinates, and Layout's own operator() walks its shape tree each time.
struct Flat {
  std::int64_t s[16], d[16];
  int n = 0;
  std::int64_t size = 1;
  explicit Flat(Layout const& l) {
    auto shape = leaves(l.shape), stride = leaves(l.stride);
    n = static_cast<int>(shape.size());
    for (int i = 0; i < n; ++i) {
      s[i] = shape[i];
      d[i] = stride[i];
      size *= s[i];
    }
  }
  // L(x) for 0 <= x < size; unbounded: x past the size continues along the last mode, as CuTe
  // extends A (rt_testing::eval_unbounded).
  std::int64_t operator()(std::int64_t x) const {
    std::int64_t idx = 0;
    for (int i = 0; i + 1 < n; ++i) {
      idx += (x % s[i]) * d[i];
      x /= s[i];
    }
    return idx + x * d[n - 1];
  }
};

// R(c) == A(B(c)) at every coordinate of B, A extended along its last mode.
bool composes(Flat const& a, Layout const& b, Flat const& fb, Layout const& r) {
  if (!compatible(b.shape, r.shape)) return false;
  Flat const fr(r);
  for (std::int64_t c = 0; c < fb.size; ++c) {
    if (fr(c) != a(fb(c))) return false;
  }
  return true;
}

bool composes(Layout const& a, Layout const& b, Layout const& r) { return composes(Flat(a), b, Flat(b), r); }

void sweep_composition(std::vector<Layout> const& as, std::vector<Layout> const& bs, Tally& t) {
  std::vector<Flat> fbs;
  for (auto const& b : bs) fbs.emplace_back(b);
  for (auto const& a : as) {
    auto flat_a = detail::flat_modes(detail::coalesce_x(a));
    Flat const fa(a);
    for (std::size_t j = 0; j < bs.size(); ++j) {
      Layout const& b = bs[j];
      Layout r;
      try {
        r = composition(a, b);
      } catch (Error const&) {
        ++t.refused;
        // What the rule refuses, CuTe's unchecked construction would get wrong (or fail on).
        try {
          if (composes(fa, b, fbs[j], detail::compose_tree(flat_a, b.shape, b.stride))) {
            ++(has_zero_stride(flat_a) ? t.refused_right_by_stride0 : t.refused_though_cute_right);
          }
        } catch (Error const&) {
        }
        continue;
      }
      ++t.accepted;
      ASSERT_TRUE(composes(fa, b, fbs[j], r)) << "composition(" << to_string(a) << ", " << to_string(b) << ") = " << to_string(r)
                                     << " is not A o B";
    }
  }
}

// Sweeps every pair: whatever the rule refuses, CuTe's construction would have answered wrongly,
// except by the coincidence of a stride-0 mode of A, so the rule is exact on the rest.
void expect_exact_rule(std::vector<Layout> const& as, std::vector<Layout> const& bs, char const* what) {
  Tally t;
  sweep_composition(as, bs, t);
  EXPECT_EQ(t.refused_though_cute_right, 0) << what;
  EXPECT_GT(t.accepted, 0) << what;
  std::cout << what << ": " << t.accepted << " accepted, " << t.refused << " refused, of which "
            << t.refused_right_by_stride0 << " right only through a stride-0 mode of A\n";
}

TEST(LayoutSweep, CompositionIsAoBOrRefusedRankOneB) {
  auto as = shard(all_layouts(true, true));
  std::vector<Layout> bs;
  for (auto const& b : all_layouts(false, false))
    if (rank(b) == 1) bs.push_back(b);
  expect_exact_rule(as, bs, "rank-1 B");
}

TEST(LayoutSweep, CompositionIsAoBOrRefusedRankTwoB) {
  std::vector<Layout> as, bs;
  for (auto const& a : all_layouts(true, true))
    if (rank(a) == 2 && size(a, 0) > 1 && size(a, 1) > 1) as.push_back(a);
  as = shard(as);
  for (auto const& b : all_layouts(false, false)) {
    if (rank(b) != 2) continue;
    auto m = detail::flat_modes(b);
    if (m[0].shape < 2 || m[1].shape < 2 || m[0].stride == 0 || m[1].stride == 0) continue;
    if (std::make_pair(m[0].shape, m[0].stride) > std::make_pair(m[1].shape, m[1].stride)) continue;  // B's modes swapped
    bs.push_back(b);
  }
  expect_exact_rule(as, bs, "rank-2 B");
}

// The tilers of the divide and product sweeps: s:d with d in 1..max_stride, and 1:0.
std::vector<Layout> tilers(int max_stride = 16) {
  std::vector<Layout> t{Layout(1, 0)};
  for (int s = 2; s <= kMaxExtent; ++s)
    for (int d = 1; d <= max_stride; ++d) t.emplace_back(s, d);
  return t;
}

// The multiset of a layout's values.
std::vector<std::int64_t> sorted_values(Layout const& l) {
  auto v = rt_testing::values(l);
  std::sort(v.begin(), v.end());
  return v;
}

TEST(LayoutSweep, LogicalDivideHasAoBAsModeZeroAndCoversA) {
  auto as = shard(all_layouts(false, true));
  long accepted = 0, refused = 0;
  for (auto const& a : as) {
    auto va = sorted_values(a);
    for (auto const& b : tilers()) {
        Layout r;
        try {
          r = logical_divide(a, b);
        } catch (Error const&) {
          ++refused;
          continue;
        }
        ++accepted;
        // The messages are built only when an assertion fails (gtest streams them lazily).
        auto what = [&] { return "logical_divide(" + to_string(a) + ", " + to_string(b) + ") = " + to_string(r); };
        ASSERT_EQ(layout(r, 0), composition(a, b)) << what();
        Layout tiler = make_layout(b, complement(b, coalesce(a).shape));
        ASSERT_TRUE(composes(a, tiler, r)) << what();
        auto vr = sorted_values(r);
        if (size(r) == size(a)) {
          ASSERT_EQ(vr, va) << what();  // the tiler divides A: every element exactly once
        } else {
          ASSERT_GT(size(r), size(a)) << what();  // padded over the extended last mode, A still covered
          ASSERT_TRUE(std::includes(vr.begin(), vr.end(), va.begin(), va.end())) << what();
        }
      }
  }
  EXPECT_GT(accepted, 0);
  std::cout << "logical_divide: " << accepted << " accepted, " << refused << " refused\n";
}

TEST(LayoutSweep, ProductsRepeatTheBlockWithoutOverlap) {
  auto as = shard(all_layouts(false, false));
  long accepted = 0;
  for (auto const& a : as) {
    bool inj_a = rt_testing::is_injective(a);
    for (auto const& b : tilers()) {
        Layout p;
        try {
          p = logical_product(a, b);
        } catch (Error const&) {
          continue;
        }
        ++accepted;
        auto what = [&] { return "logical_product(" + to_string(a) + ", " + to_string(b) + ") = " + to_string(p); };
        ASSERT_EQ(layout(p, 0), a) << what();
        Layout rest = complement(a, size(a) * cosize(b));
        ASSERT_TRUE(composes(rest, b, layout(p, 1))) << what();
        // Injective block and tiler: the copies never overlap.
        if (inj_a && rt_testing::is_injective(b)) {
          ASSERT_TRUE(rt_testing::is_injective(p)) << what();
        }
        // blocked and raked pair the same modes, only nested differently: never refused where
        // logical_product answers (rank 1 included: raked_product(2:2, 4:1) = (((2,2),2)):(((1,4),2))).
        auto vp = sorted_values(p);
        ASSERT_EQ(sorted_values(blocked_product(a, b)), vp) << what();
        ASSERT_EQ(sorted_values(raked_product(a, b)), vp) << what();
      }
  }
  EXPECT_GT(accepted, 0);
}

TEST(LayoutSweep, InversesInvert) {
  long left = 0, left_refused_injective = 0;
  for (auto const& l : all_layouts(false, false)) {
    SCOPED_TRACE(to_string(l));
    Layout r = right_inverse(l);
    for (std::int64_t i = 0; i < size(r); ++i) ASSERT_EQ(l(r(i)), i) << "right_inverse = " << to_string(r);
    bool inj = rt_testing::is_injective(l);
    Layout li;
    try {
      li = left_inverse(l);
    } catch (Error const&) {
      if (inj) ++left_refused_injective;
      continue;
    }
    ASSERT_TRUE(inj) << "left_inverse accepted a non-injective layout";
    ++left;
    for (std::int64_t i = 0; i < size(l); ++i) ASSERT_EQ(li(l(i)), i) << "left_inverse = " << to_string(li);
  }
  std::cout << "left_inverse: " << left << " inverted, " << left_refused_injective
            << " injective layouts refused (stride divisibility)\n";
}

TEST(LayoutSweep, ComplementMeetsItsPostConditions) {
  std::vector<IntTuple> cotargets;
  for (int m = 1; m <= 24; ++m) cotargets.emplace_back(m);
  for (int m0 = 2; m0 <= 4; ++m0)
    for (int m1 = 2; m1 <= 4; ++m1) cotargets.push_back(tuple(m0, m1));
  for (auto const& l : all_layouts(false, false)) {
    auto image = sorted_values(l);
    for (auto const& m : cotargets) {
      Layout r;
      try {
        r = complement(l, m);
      } catch (Error const&) {
        continue;
      }
      SCOPED_TRACE("complement(" + to_string(l) + ", " + to_string(m) + ") = " + to_string(r));
      for (std::int64_t i = 1; i < size(r); ++i) {
        ASSERT_LT(r(i - 1), r(i));  // ordered
        ASSERT_FALSE(std::binary_search(image.begin(), image.end(), r(i)));  // disjoint
      }
      ASSERT_GE(cosize(make_layout(l, r)), size(m));
      ASSERT_GE(size(r), size(m) / size(filter(l)));
    }
  }
}

}  // namespace
