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
//   logical_divide:            every A with gcd 1 x every tiler s:d (d 1..16), and 1:0; where the
//                              tiler does not divide A, each answer (exact or padded as CuTe
//                              4.7 pads) is checked to be a divide at every coordinate, and each
//                              refusal against CuTe's own answer
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

// CuTe 4.7's own conditions on A o B, its static assertions (weaker than tessel's rule): whether
// CuTe answers at all. At each mode of coalesced A but the last, the stride left must be a
// multiple of the mode's extent or smaller than it, and the elements left a multiple of those the
// mode gives (ceil(extent / stride), the padding of a stride that does not divide the mode).
bool cute_composes(std::vector<detail::Mode> const& a, Layout const& b) {
  if (a.size() == 1) return true;
  for (auto const& m : detail::flat_modes(b)) {
    if (m.stride == 0) continue;
    std::int64_t n = m.shape, d = m.stride;
    for (std::size_t i = 0; i + 1 < a.size(); ++i) {
      std::int64_t const s = a[i].shape;
      if (d % s != 0 && d >= s) return false;
      std::int64_t const gives = (s + d - 1) / d, next = (d + s - 1) / s;
      if (gives != 1 && n != 1) {
        std::int64_t const took = std::min(gives, n);
        if (n % took != 0) return false;
        n /= took;
      }
      d = next;
    }
  }
  return true;
}

// The same, through Flat: the divide sweep takes it for half a million answers.
std::vector<std::int64_t> sorted_flat_values(Layout const& l) {
  Flat const f(l);
  std::vector<std::int64_t> v(static_cast<std::size_t>(f.size));
  for (std::int64_t i = 0; i < f.size; ++i) v[static_cast<std::size_t>(i)] = f(i);
  std::sort(v.begin(), v.end());
  return v;
}

// The offsets of A with its last mode extended (A evaluated past its size): v is one when
// v = low + y * d_last for an offset `low` of the other leaves and some y >= 0.
struct Extension {
  std::vector<std::int64_t> low{0};
  std::int64_t step = 0;
  explicit Extension(Layout const& a) {
    auto s = leaves(a.shape), d = leaves(a.stride);
    for (std::size_t k = 0; k + 1 < s.size(); ++k) {
      std::vector<std::int64_t> next;
      for (auto o : low)
        for (std::int64_t x = 0; x < s[k]; ++x) next.push_back(o + x * d[k]);
      low.swap(next);
    }
    step = d.back();
  }
  bool reaches(std::int64_t v) const {
    for (auto o : low) {
      std::int64_t const t = v - o;
      if (step == 0 ? t == 0 : t % step == 0 && t / step >= 0) return true;
    }
    return false;
  }
};

// Where a divide's answer r, for a tiler that does not divide A, breaks the definition: mode 0 is
// A o B at every coordinate, every offset of A is reached, every offset reached that A does not
// reach is one of A's last mode extended, and (`once`: a padded answer of an injective A) no
// offset is reached twice. Empty where it holds.
std::string divide_fault(Flat const& fa, std::vector<std::int64_t> const& image, Extension const& ext, Layout const& b,
                         Layout const& r, bool once) {
  if (rank(r) != 2) return "rank " + std::to_string(rank(r));
  Flat const fb(b), tile(layout(r, 0));
  if (tile.size != fb.size) return "mode 0 has " + std::to_string(tile.size) + " elements, B " + std::to_string(fb.size);
  for (std::int64_t c = 0; c < fb.size; ++c)
    if (tile(c) != fa(fb(c))) return "mode 0 at " + std::to_string(c) + " is not A(B(c))";
  auto const vr = sorted_flat_values(r);
  for (std::size_t i = 0; i < image.size(); ++i)
    if ((i == 0 || image[i] != image[i - 1]) && !std::binary_search(vr.begin(), vr.end(), image[i]))
      return "misses A's offset " + std::to_string(image[i]);
  for (std::size_t i = 0; i < vr.size(); ++i) {
    if (once && i > 0 && vr[i] == vr[i - 1]) return "reaches " + std::to_string(vr[i]) + " twice, A reaches each once";
    if (!std::binary_search(image.begin(), image.end(), vr[i]) && !ext.reaches(vr[i]))
      return "reaches " + std::to_string(vr[i]) + ", which is not A's last mode extended";
  }
  return "";
}

// Every A and tiler. Where (B, B*) composes with A exactly, the answer is A o (B, B*) at every
// coordinate and, when the tiler divides A, holds each element of A once. Where it does not (the
// tiler does not divide A), an answer is CuTe 4.7's padded one and meets divide_fault's
// definition; and a refusal where CuTe's answer happens to meet it has an A that is not
// injective (the rule is exact on injective A; an overlapping A can hide a carry).
TEST(LayoutSweep, LogicalDivideHasAoBAsModeZeroAndCoversA) {
  auto as = shard(all_layouts(false, true));
  auto const bs = tilers();
  long exact = 0, padded = 0, refused = 0, refused_cute_right = 0;
  for (auto const& a : as) {
    auto va = sorted_values(a);
    bool const inj_a = std::adjacent_find(va.begin(), va.end()) == va.end();
    auto const flat_a = detail::flat_modes(detail::coalesce_x(a));
    Flat const fa(a);
    Extension const ext(a);
    for (auto const& b : bs) {
      // The messages are built only when an assertion fails (gtest streams them lazily).
      auto what = [&](Layout const& r) { return "logical_divide(" + to_string(a) + ", " + to_string(b) + ") = " + to_string(r); };
      Layout tiler;
      try {
        tiler = make_layout(b, complement(b, coalesce(a).shape));
      } catch (Error const&) {
        ++refused;  // logical_divide takes this complement first, and is refused with it
        continue;
      }
      bool const exactly = detail::composition_verdict(flat_a, tiler).ok();
      Layout r;
      try {
        r = logical_divide(a, b);
      } catch (Error const&) {
        ++refused;
        if (!exactly && cute_composes(flat_a, tiler)) {
          Layout const cute = detail::compose_tree(flat_a, tiler.shape, tiler.stride);
          if (divide_fault(fa, va, ext, b, cute, inj_a).empty()) {
            ASSERT_FALSE(inj_a) << "refused, though CuTe's " << to_string(cute) << " is a divide: " << what(cute);
            ++refused_cute_right;
          }
        }
        continue;
      }
      ASSERT_EQ(layout(r, 0), composition(a, b)) << what(r);
      if (exactly) {
        ++exact;
        ASSERT_TRUE(composes(fa, tiler, Flat(tiler), r)) << what(r);
        if (size(r) == size(a)) {
          ASSERT_EQ(sorted_flat_values(r), va) << what(r);  // the tiler divides A: every element exactly once
        } else {
          ASSERT_GT(size(r), size(a)) << what(r);  // padded over the extended last mode, A still covered
          ASSERT_EQ(divide_fault(fa, va, ext, b, r, false), "") << what(r);
        }
      } else {
        ++padded;
        ASSERT_TRUE(cute_composes(flat_a, tiler)) << what(r);
        ASSERT_EQ(r, detail::compose_tree(flat_a, tiler.shape, tiler.stride)) << what(r);  // CuTe's construction
        ASSERT_EQ(divide_fault(fa, va, ext, b, r, inj_a), "") << what(r);
      }
    }
  }
  EXPECT_GT(exact, 0);
  EXPECT_GT(padded, 0);
  std::cout << "logical_divide: " << exact << " composed exactly, " << padded << " padded as CuTe 4.7 pads, " << refused
            << " refused, of which " << refused_cute_right << " where CuTe's answer is a divide through an A that is not injective\n";
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
