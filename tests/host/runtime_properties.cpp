// Defining properties of the run-time algebra over seeded sweeps of random
// layouts. Each property is the operation's definition, checked pointwise.
#include <gtest/gtest.h>

#include <iostream>
#include <set>

#include "runtime_testing.hpp"

using namespace tessel::rt;
using rt_testing::eval_unbounded;
using rt_testing::Gen;
using rt_testing::is_bijection_onto_prefix;
using rt_testing::is_injective;
using rt_testing::values;

namespace {
constexpr int kCases = 3000;
}

TEST(RuntimeProperties, CoordinateRoundTrips) {
  Gen g(1);
  for (int n = 0; n < kCases; ++n) {
    Layout l = g.any(5);
    if (size(l) > 512) continue;
    for (std::int64_t i = 0; i < size(l); ++i) {
      IntTuple c = idx2crd(i, l.shape);
      ASSERT_TRUE(congruent(c, l.shape)) << to_string(l);
      ASSERT_EQ(crd2idx(c, l.shape), i) << to_string(l);
      ASSERT_EQ(l(c), l(i)) << to_string(l) << " at " << i;  // hierarchical == 1-D
    }
  }
}

TEST(RuntimeProperties, CoalescePreservesTheFunction) {
  Gen g(2);
  for (int n = 0; n < kCases; ++n) {
    Layout l = g.any(5);
    Layout c = coalesce(l);
    ASSERT_EQ(size(c), size(l)) << to_string(l);
    ASSERT_LE(depth(c), 1) << to_string(l);
    ASSERT_EQ(values(c), values(l)) << to_string(l) << " -> " << to_string(c);
    // By-mode coalesce keeps the rank and each mode's function.
    Layout bm = coalesce(l, repeat_like(take(l.shape, 0, rank(l)), 1));
    ASSERT_EQ(rank(bm), rank(l));
    for (int i = 0; i < rank(l); ++i) ASSERT_EQ(values(layout(bm, i)), values(layout(l, i))) << to_string(l);
  }
}

TEST(RuntimeProperties, FilterKeepsTheNonZeroStridePart) {
  Gen g(3);
  for (int n = 0; n < kCases; ++n) {
    Layout l = g.any(5);
    // Reference: the flat modes of l with stride 0 (or extent 1) removed, in order.
    std::vector<std::int64_t> s, d;
    auto ls = leaves(l.shape), ld = leaves(l.stride);
    for (std::size_t i = 0; i < ls.size(); ++i) {
      if (ld[i] != 0 && ls[i] != 1) {
        s.push_back(ls[i]);
        d.push_back(ld[i]);
      }
    }
    Layout f = filter(l);
    if (s.empty()) {
      ASSERT_EQ(to_string(f), "1:0") << to_string(l);
      continue;
    }
    std::vector<IntTuple> st(s.begin(), s.end()), dt(d.begin(), d.end());
    Layout ref(IntTuple::tuple(st), IntTuple::tuple(dt));
    ASSERT_EQ(values(f), values(ref)) << to_string(l) << " -> " << to_string(f);
    for (auto x : leaves(f.stride)) ASSERT_NE(x, 0) << to_string(l);
  }
}

TEST(RuntimeProperties, CompositionIsFunctionComposition) {
  Gen g(4);
  int admissible = 0;
  for (int n = 0; n < kCases; ++n) {
    // Composition distributes over B's modes, which needs B injective
    // (stride-0 modes aside): CuTe's definition holds for such B.
    Layout a = g.coin() ? g.any(4) : g.injective(4);
    Layout b = g.coin() ? g.injective(3) : g.compact(3);
    if (g.coin(0.2)) b = make_layout(b, Layout(g.uniform(2, 3), 0));
    Layout r;
    try {
      r = composition(a, b);
    } catch (Error const&) {
      continue;
    }
    ++admissible;
    ASSERT_EQ(size(r), size(b)) << to_string(a) << " o " << to_string(b);
    ASSERT_TRUE(compatible(b.shape, r.shape)) << to_string(a) << " o " << to_string(b) << " = " << to_string(r);
    for (std::int64_t i = 0; i < size(b); ++i) {
      ASSERT_EQ(r(i), eval_unbounded(a, b(i)))
          << to_string(a) << " o " << to_string(b) << " = " << to_string(r) << " at " << i;
    }
  }
  EXPECT_GT(admissible, kCases / 4);  // the sweep must exercise the algebra, not only its refusals
}

TEST(RuntimeProperties, ByModeCompositionActsPerMode) {
  Gen g(5);
  int admissible = 0;
  for (int n = 0; n < kCases; ++n) {
    Layout a = g.compact_rank(static_cast<int>(g.uniform(1, 3)));
    Tiler t;
    for (int i = 0; i < rank(a); ++i) t.push_back(g.compact(2));
    Layout r;
    try {
      r = composition(a, t);
    } catch (Error const&) {
      continue;
    }
    ++admissible;
    ASSERT_EQ(rank(r), static_cast<int>(t.size()));
    for (int i = 0; i < rank(r); ++i) {
      Layout ai = layout(a, i), ri = layout(r, i);
      Layout const& ti = t[static_cast<std::size_t>(i)];
      for (std::int64_t k = 0; k < size(ti); ++k) ASSERT_EQ(ri(k), eval_unbounded(ai, ti(k))) << to_string(a);
    }
  }
  EXPECT_GT(admissible, kCases / 4);
}

TEST(RuntimeProperties, ComplementIsOrderedDisjointAndCompleting) {
  Gen g(6);
  for (int n = 0; n < kCases; ++n) {
    Layout l = g.injective(4);
    std::int64_t extent = 1;  // the largest stride*extent: what l spans
    auto s = leaves(l.shape), d = leaves(l.stride);
    for (std::size_t i = 0; i < s.size(); ++i) extent = std::max(extent, s[i] * d[i]);
    if (extent > 512) continue;
    std::int64_t m = extent * g.uniform(1, 3);
    Layout c = complement(l, m);
    auto img = values(l);
    std::set<std::int64_t> image(img.begin(), img.end());
    for (std::int64_t i = 1; i < size(c); ++i) {
      ASSERT_LT(c(i - 1), c(i)) << to_string(l) << " -> " << to_string(c);
      ASSERT_EQ(image.count(c(i)), 0u) << to_string(l) << " -> " << to_string(c);
    }
    // The strides of the coalesced complement increase.
    auto cd = leaves(c.stride);
    for (std::size_t i = 1; i < cd.size(); ++i) ASSERT_LT(cd[i - 1], cd[i]) << to_string(c);
    // (L, L*) is a bijection onto [0, M).
    Layout full = make_layout(l, c);
    ASSERT_EQ(size(full), m) << to_string(l) << " + " << to_string(c);
    ASSERT_TRUE(is_bijection_onto_prefix(full)) << to_string(l) << " + " << to_string(c);
  }
}

TEST(RuntimeProperties, ComplementOfAnythingIsOrdered) {
  Gen g(7);
  int ok = 0;
  for (int n = 0; n < kCases; ++n) {
    Layout l = g.any(4);
    Layout c;
    try {
      c = complement(l, g.uniform(1, 200));
    } catch (Error const&) {
      continue;
    }
    ++ok;
    for (std::int64_t i = 1; i < size(c); ++i) ASSERT_LT(c(i - 1), c(i)) << to_string(l) << " -> " << to_string(c);
  }
  EXPECT_GT(ok, kCases / 4);
}

TEST(RuntimeProperties, LogicalDivideComposesWithABijection) {
  Gen g(8);
  int admissible = 0, padded = 0;
  for (int n = 0; n < kCases; ++n) {
    Layout b = g.injective(3);
    // A's size: a multiple of B's extent, so (B, B*) tiles [0, size(A)).
    std::int64_t extent = 1;
    auto s = leaves(b.shape), d = leaves(b.stride);
    for (std::size_t i = 0; i < s.size(); ++i) extent = std::max(extent, s[i] * d[i]);
    if (extent > 512) continue;
    std::int64_t total = extent * g.uniform(1, 3);
    Layout a = g.coin() ? make_layout(total) : g.compact_of_size(total);
    Layout ld;
    try {
      ld = logical_divide(a, b);  // B's strides must divide through A's modes, as in CuTe
    } catch (Error const&) {
      continue;
    }
    ++admissible;
    // (B, B*) with B* the complement up to A's coalesced shape (CuTe 4.7); ld is A composed with it,
    // or, where that does not compose (the tiler does not divide A's coalesced modes), CuTe's
    // padded answer: A's offsets each once (A is compact), and past them only A's extension.
    Layout bb = make_layout(b, complement(b, coalesce(a).shape));
    ASSERT_EQ(size(ld), size(bb));
    if (detail::composition_verdict(detail::flat_modes(detail::coalesce_x(a)), bb).ok()) {
      for (std::int64_t i = 0; i < size(ld); ++i) {
        ASSERT_EQ(ld(i), eval_unbounded(a, bb(i))) << to_string(a) << " / " << to_string(b);
      }
    } else {
      ++padded;
      ASSERT_TRUE(is_injective(ld)) << to_string(a) << " / " << to_string(b) << " = " << to_string(ld);
      std::set<std::int64_t> got;
      for (auto v : values(ld)) got.insert(v);
      for (auto v : values(a)) ASSERT_TRUE(got.count(v)) << to_string(a) << " / " << to_string(b) << " misses " << v;
      for (auto v : got)
        ASSERT_TRUE(rt_testing::reaches_unbounded(a, v)) << to_string(a) << " / " << to_string(b) << " reaches " << v;
    }
    // When A's size is read as one extent, (B, B*) is a bijection onto
    // [0, size(A)): every element of A lands in exactly one tile. (When A
    // coalesces to several modes CuTe folds the ceiling over them, which can
    // overshoot when B's extent does not split them; see RuntimeExamples.)
    Layout bb1 = make_layout(b, complement(b, size(a)));
    ASSERT_TRUE(is_bijection_onto_prefix(bb1)) << to_string(b);
    if (coalesce(a).shape.is_leaf()) {
      ASSERT_EQ(bb, bb1);
      std::vector<std::int64_t> got = values(ld), want = values(a);
      std::sort(got.begin(), got.end());
      std::sort(want.begin(), want.end());
      ASSERT_EQ(got, want) << to_string(a) << " / " << to_string(b);
    }
    // Mode 0 is the tile, A o B.
    ASSERT_EQ(layout(ld, 0), composition(a, b));
  }
  EXPECT_GT(admissible, kCases / 2);
  std::cout << "logical_divide: " << admissible << " answered, " << padded << " of them padded\n";
}

TEST(RuntimeProperties, DividesPartitionTheDomain) {
  Gen g(9);
  for (int n = 0; n < kCases / 3; ++n) {
    // A rank-2 compact layout divided by a by-mode tiler that tiles each mode.
    std::int64_t t0 = g.uniform(1, 4), t1 = g.uniform(1, 4);
    std::int64_t m = t0 * g.uniform(1, 4), k = t1 * g.uniform(1, 4);
    Layout a = g.coin() ? make_layout(tuple(m, k)) : make_layout(tuple(m, k), LayoutRight{});
    Tiler t = make_tile(make_layout(t0), make_layout(t1));
    Layout ld = logical_divide(a, t), zd = zipped_divide(a, t), td = tiled_divide(a, t), fd = flat_divide(a, t);
    auto sorted = [](std::vector<std::int64_t> v) {
      std::sort(v.begin(), v.end());
      return v;
    };
    auto all = sorted(values(a));
    ASSERT_EQ(sorted(values(ld)), all);
    ASSERT_EQ(sorted(values(zd)), all);
    // Re-nesting only: the same leaves in the same order.
    ASSERT_EQ(flatten(zd), flatten(td));
    ASSERT_EQ(flatten(zd), flatten(fd));
    ASSERT_EQ(layout(zd, 0), composition(a, t));
    // Every element lies in exactly one tile: tile j holds zd(_, j).
    std::set<std::int64_t> seen;
    for (std::int64_t j = 0; j < size(layout(zd, 1)); ++j)
      for (std::int64_t i = 0; i < size(layout(zd, 0)); ++i) ASSERT_TRUE(seen.insert(zd(make_coord(i, j))).second);
  }
}

TEST(RuntimeProperties, ProductsRepeatTheBlockDisjointly) {
  Gen g(10);
  int admissible = 0;
  for (int n = 0; n < kCases; ++n) {
    Layout a = g.injective(3);
    Layout b = g.coin() ? g.compact(3) : g.injective(2);
    if (size(a) * cosize(b) > 4096) continue;
    Layout p;
    try {
      p = logical_product(a, b);  // A* o B may fail divisibility, as in CuTe
    } catch (Error const&) {
      continue;
    }
    ++admissible;
    ASSERT_EQ(layout(p, 0), a);
    ASSERT_EQ(size(p), size(a) * size(b));
    ASSERT_TRUE(is_injective(p)) << to_string(a) << " x " << to_string(b) << " = " << to_string(p);
    // Copy j of the block is offset by (A* o B)(j), which A's image never meets.
    Layout rest = layout(p, 1);
    Layout astar = complement(a, size(a) * cosize(b));
    for (std::int64_t j = 0; j < size(b); ++j) ASSERT_EQ(rest(j), astar(b(j)));
  }
  EXPECT_GT(admissible, kCases / 4);
}

TEST(RuntimeProperties, BlockedAndRakedProductsOfCompactLayoutsAreCompact) {
  Gen g(11);
  for (int n = 0; n < kCases / 3; ++n) {
    Layout a = g.compact_rank(2), b = g.compact_rank(2);
    if (size(a) * size(b) > 600) continue;
    for (bool raked : {false, true}) {
      Layout p = raked ? raked_product(a, b) : blocked_product(a, b);
      ASSERT_EQ(rank(p), 2);
      ASSERT_EQ(size(p, 0), size(a, 0) * size(b, 0));
      ASSERT_EQ(size(p, 1), size(a, 1) * size(b, 1));
      ASSERT_TRUE(is_bijection_onto_prefix(p)) << to_string(a) << " x " << to_string(b) << " = " << to_string(p);
      // Block (i,j) of the result is a copy of A, offset by size(A) * B(i,j).
      for (std::int64_t bi = 0; bi < size(b, 0); ++bi)
        for (std::int64_t bj = 0; bj < size(b, 1); ++bj)
          for (std::int64_t ai = 0; ai < size(a, 0); ++ai)
            for (std::int64_t aj = 0; aj < size(a, 1); ++aj) {
              std::int64_t r = raked ? bi + size(b, 0) * ai : ai + size(a, 0) * bi;
              std::int64_t c = raked ? bj + size(b, 1) * aj : aj + size(a, 1) * bj;
              ASSERT_EQ(p(r, c), a(ai, aj) + size(a) * b(bi, bj)) << to_string(p);
            }
    }
  }
}

TEST(RuntimeProperties, InversesInvert) {
  Gen g(12);
  for (int n = 0; n < kCases; ++n) {
    Layout l = g.coin() ? g.compact(4) : g.any(4);
    Layout r = right_inverse(l);
    for (std::int64_t i = 0; i < size(r); ++i) ASSERT_EQ(l(r(i)), i) << to_string(l) << " r= " << to_string(r);
    Layout c = g.compact(4);
    ASSERT_EQ(size(right_inverse(c)), size(c)) << to_string(c);  // a bijection inverts fully

    Layout inj = g.injective(4);
    Layout li = left_inverse(inj);
    for (std::int64_t i = 0; i < size(inj); ++i) ASSERT_EQ(li(inj(i)), i) << to_string(inj) << " l= " << to_string(li);
  }
}

TEST(RuntimeProperties, MaxCommonVectorIsAContiguousAgreement) {
  Gen g(13);
  int admissible = 0;
  for (int n = 0; n < kCases; ++n) {
    Layout a = g.compact(4), b = g.compact(4);
    if (size(a) != size(b)) b = make_layout(a.shape);
    std::int64_t v;
    try {
      v = max_common_vector(a, b);  // needs composition(a, right_inverse(b)) to be admissible
    } catch (Error const&) {
      continue;
    }
    ++admissible;
    Layout rb = right_inverse(b);
    // The first v elements of b's order are also consecutive in a.
    for (std::int64_t i = 0; i < v; ++i) ASSERT_EQ(a(rb(i)), i) << to_string(a) << " " << to_string(b);
    ASSERT_EQ(v, size(max_common_layout(a, b)));
  }
  EXPECT_GT(admissible, kCases / 4);
}

TEST(RuntimeProperties, UpcastUndoesDowncast) {
  Gen g(14);
  for (int n = 0; n < kCases; ++n) {
    Layout l = g.compact(4);
    std::int64_t f = g.uniform(1, 4);
    Layout wide = downcast(l, f);  // each element split into f
    ASSERT_EQ(size(wide), size(l) * f);
    ASSERT_EQ(upcast(wide, f), l) << to_string(l) << " " << f;
    // Element i of l is the f narrow elements starting at f*l(i).
    Layout lw = layout_from_string(to_string(wide));
    ASSERT_TRUE(is_bijection_onto_prefix(lw));
  }
}
