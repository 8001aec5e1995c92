// Work decomposition (data-parallel, split-K, stream-K and its hybrid): every output tile and
// every (tile, k-tile) covered exactly once; stream-K shares within one iteration of each
// other; the heuristic's choices; and the fixup protocol, simulated on the host, giving the same
// bits for every order in which the units finish.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tessel/gemm/kernel/decomposition.hpp"
#include "tessel/gemm/kernel/stream_k_fixup.hpp"

using namespace tessel::gemm::kernel;

namespace {

std::string describe(const TileGrid& g, int ctas, const DecompositionOptions& o) {
  return std::to_string(g.tiles_m) + "x" + std::to_string(g.tiles_n) + "x" + std::to_string(g.batches) + " tiles, " +
         std::to_string(g.k_tiles) + " k-tiles, " + std::to_string(ctas) + " CTAs, " + to_string(o.mode) +
         " splits=" + std::to_string(o.splits) + (o.hybrid ? " hybrid" : " pure") + " min_unit=" +
         std::to_string(o.min_unit_k_tiles);
}

// Every property a decomposition promises, checked by enumerating its units.
void check_decomposition(const TileGrid& g, int ctas, const DecompositionOptions& o) {
  const Decomposition d = make_decomposition(g, ctas, o);
  const std::string what = describe(g, ctas, o);
  ASSERT_NE(d.mode, DecompositionMode::Heuristic) << what;
  ASSERT_GE(d.grid, 1) << what;
  ASSERT_LE(d.grid, std::max(ctas, 1)) << what;
  ASSERT_EQ(d.tiles, g.tile_count()) << what;

  std::vector<std::vector<WorkUnit>> per_tile(std::size_t(d.tiles));
  std::vector<std::int64_t> sk_iterations(std::size_t(d.grid), 0);
  std::vector<char> slot_used(std::size_t(d.fixup_tiles()) * std::size_t(d.slots_per_tile), 0);
  for (int cta = 0; cta < d.grid; ++cta) {
    const int n = d.unit_count(cta);
    for (int i = 0; i < n; ++i) {
      const WorkUnit u = d.unit(cta, i);
      ASSERT_TRUE(u.tile >= 0 && u.tile < d.tiles) << what << ": CTA " << cta << " unit " << i << " tile " << u.tile;
      ASSERT_TRUE(0 <= u.k_begin && u.k_begin < u.k_end && u.k_end <= d.k_tiles)
          << what << ": CTA " << cta << " unit " << i << " k [" << u.k_begin << ", " << u.k_end << ")";
      per_tile[std::size_t(u.tile)].push_back(u);
      if (d.mode == DecompositionMode::StreamK && u.tile < d.sk_tiles) sk_iterations[std::size_t(cta)] += u.k_tiles();
      if (!u.whole_tile()) {
        ASSERT_LT(d.fixup_index(u.tile), d.fixup_tiles()) << what << ": partial unit of tile " << u.tile << " has no counter";
        ASSERT_LT(u.order, d.slots_per_tile) << what << ": tile " << u.tile << " has more units than slots";
        const int s = d.slot(u.tile, u.order);
        ASSERT_TRUE(s >= 0 && std::size_t(s) < slot_used.size()) << what;
        ASSERT_EQ(slot_used[std::size_t(s)]++, 0) << what << ": slot " << s << " used twice";
      }
    }
    // Beyond unit_count there is nothing: a CTA past the grid has no units either.
  }
  EXPECT_EQ(d.unit_count(d.grid), 0) << what;

  // Every tile once, every (tile, k) once: the units of a tile, in order, tile [0, K) exactly.
  for (int t = 0; t < d.tiles; ++t) {
    auto& units = per_tile[std::size_t(t)];
    ASSERT_FALSE(units.empty()) << what << ": tile " << t << " is never computed";
    std::sort(units.begin(), units.end(), [](const WorkUnit& a, const WorkUnit& b) { return a.k_begin < b.k_begin; });
    int k = 0;
    for (std::size_t j = 0; j < units.size(); ++j) {
      const WorkUnit& u = units[j];
      ASSERT_EQ(u.k_begin, k) << what << ": tile " << t << " k-tiles " << k << ".." << u.k_begin
                              << (u.k_begin > k ? " are missed" : " are covered twice");
      ASSERT_EQ(u.order, int(j)) << what << ": tile " << t << " unit order is not the k order";
      ASSERT_EQ(u.units, int(units.size())) << what << ": tile " << t << " unit count";
      k = u.k_end;
    }
    ASSERT_EQ(k, d.k_tiles) << what << ": tile " << t << " ends at k-tile " << k;
    if (d.mode == DecompositionMode::DataParallel) { ASSERT_EQ(units.size(), 1u) << what; }
    if (d.mode == DecompositionMode::SplitK) {
      ASSERT_EQ(int(units.size()), d.splits) << what;
      const auto [lo, hi] = std::minmax_element(units.begin(), units.end(), [](const WorkUnit& a, const WorkUnit& b) {
        return a.k_tiles() < b.k_tiles();
      });
      ASSERT_LE(hi->k_tiles() - lo->k_tiles(), 1) << what << ": split-K slices of tile " << t;
    }
    if (d.mode == DecompositionMode::StreamK && t >= d.sk_tiles) { ASSERT_EQ(units.size(), 1u) << what; }
  }

  if (d.mode == DecompositionMode::StreamK && d.sk_tiles > 0) {
    // Equal shares: every participating CTA within one iteration of every other.
    const auto first = sk_iterations.begin(), last = sk_iterations.begin() + d.sk_ctas;
    const auto [lo, hi] = std::minmax_element(first, last);
    ASSERT_LE(*hi - *lo, 1) << what << ": stream-K shares " << *lo << " .. " << *hi;
    ASSERT_EQ(std::accumulate(first, last, std::int64_t{0}), std::int64_t(d.sk_tiles) * d.k_tiles) << what;
    for (int c = d.sk_ctas; c < d.grid; ++c) ASSERT_EQ(sk_iterations[std::size_t(c)], 0) << what;
    // No sliver: a share below the minimum only when all of the stream-K work is smaller.
    if (std::int64_t(d.sk_tiles) * d.k_tiles >= o.min_unit_k_tiles) { ASSERT_GE(*lo, o.min_unit_k_tiles) << what; }
    // Hybrid: only the last partial wave's tiles are spread.
    if (o.hybrid && d.tiles >= ctas) { ASSERT_EQ(d.sk_tiles, d.tiles % ctas) << what; }
    if (!o.hybrid || d.tiles < ctas) { ASSERT_EQ(d.sk_tiles, d.tiles) << what; }
  }
}

}  // namespace

TEST(Decomposition, EveryTileAndKIterationExactlyOnce) {
  const std::vector<std::array<int, 3>> grids{{1, 1, 1}, {3, 1, 1}, {32, 1, 1}, {5, 7, 1}, {8, 8, 3}, {64, 32, 1}, {33, 5, 2}};
  const std::vector<int> k_tiles{1, 2, 3, 7, 64, 129};
  const std::vector<int> ctas{1, 7, 132, 264};
  int checked = 0;
  for (const auto& gr : grids)
    for (int k : k_tiles)
      for (int p : ctas) {
        const TileGrid g{gr[0], gr[1], gr[2], k};
        std::vector<DecompositionOptions> modes;
        modes.push_back({DecompositionMode::Heuristic});
        modes.push_back({DecompositionMode::DataParallel});
        for (int s : {1, 2, 3, 8, 200}) modes.push_back({DecompositionMode::SplitK, s});
        for (bool hybrid : {true, false})
          for (int min_unit : {1, 4}) modes.push_back({DecompositionMode::StreamK, 0, hybrid, min_unit});
        for (const auto& o : modes) {
          check_decomposition(g, p, o);
          if (HasFatalFailure()) return;
          ++checked;
        }
      }
  EXPECT_EQ(checked, 7 * 6 * 4 * 11);
}

TEST(Decomposition, StreamKSharesCrossTileBoundaries) {
  // 3 tiles of 5 k-tiles over 4 CTAs: 15 iterations, shares 4,4,4,3.
  const Decomposition d = make_decomposition({3, 1, 1, 5}, 4, {DecompositionMode::StreamK, 0, false, 1});
  ASSERT_EQ(d.sk_ctas, 4);
  ASSERT_EQ(d.unit_count(0), 1);  // [0,4) in tile 0
  ASSERT_EQ(d.unit_count(1), 2);  // [4,5) of tile 0, [0,3) of tile 1
  const WorkUnit a = d.unit(1, 0), b = d.unit(1, 1);
  EXPECT_EQ(a.tile, 0);
  EXPECT_EQ(a.k_begin, 4);
  EXPECT_EQ(a.k_end, 5);
  EXPECT_EQ(a.order, 1);
  EXPECT_EQ(a.units, 2);
  EXPECT_EQ(b.tile, 1);
  EXPECT_EQ(b.k_begin, 0);
  EXPECT_EQ(b.k_end, 3);
  EXPECT_EQ(b.order, 0);
}

TEST(Decomposition, HybridKeepsWholeWavesDataParallel) {
  // 300 tiles on 132 CTAs: 2 whole waves (264 tiles) data-parallel, 36 tiles by stream-K.
  const Decomposition d = make_decomposition({300, 1, 1, 64}, 132, {DecompositionMode::StreamK});
  EXPECT_EQ(d.sk_tiles, 36);
  EXPECT_EQ(d.grid, 132);
  EXPECT_EQ(d.sk_ctas, 132);  // 36 * 64 = 2304 iterations, 17 or 18 each, above the minimum of 4
  for (int c = 0; c < d.grid; ++c) EXPECT_EQ(d.unit_count(c) - d.sk_unit_count(c), 2) << c;
  // A thin tail: 2 tiles of 8 k-tiles are 16 iterations, 4 CTAs of 4 rather than 132 slivers.
  const Decomposition thin = make_decomposition({134, 1, 1, 8}, 132, {DecompositionMode::StreamK});
  EXPECT_EQ(thin.sk_tiles, 2);
  EXPECT_EQ(thin.sk_ctas, 4);
  EXPECT_EQ(thin.sk_share, 4);
}

TEST(Decomposition, ToString) {
  EXPECT_STREQ(to_string(DecompositionMode::Heuristic), "heuristic");
  EXPECT_STREQ(to_string(DecompositionMode::DataParallel), "data-parallel");
  EXPECT_STREQ(to_string(DecompositionMode::SplitK), "split-K");
  EXPECT_STREQ(to_string(DecompositionMode::StreamK), "stream-K");
}

TEST(DecompositionHeuristic, DecodeShapeIsNotDataParallel) {
  // 4096x16x4096 on 128x128x64 tiles: 32 tiles of 64 k-tiles for 132 SMs.
  const TileGrid g{4096 / 128, 1, 1, 4096 / 64};
  const DecompositionChoice c = choose_decomposition(g, 132);
  EXPECT_NE(c.mode, DecompositionMode::DataParallel) << c.reason;
  EXPECT_NE(c.reason.find(to_string(c.mode)), std::string::npos) << c.reason;
  EXPECT_EQ(c.reason.find('\n'), std::string::npos) << "one line: " << c.reason;
  const Decomposition d = make_decomposition(g, 132, {});
  EXPECT_EQ(d.mode, c.mode);
  EXPECT_EQ(d.splits, c.splits);
  EXPECT_GE(d.grid, 100) << "the decode shape should keep most SMs busy: " << c.reason;
  // Same with 32-deep k-tiles.
  EXPECT_NE(choose_decomposition({32, 1, 1, 128}, 132).mode, DecompositionMode::DataParallel);
}

TEST(DecompositionHeuristic, LargeSquareIsDataParallel) {
  // 8192^3 on 128x256x64 tiles: 64 x 32 = 2048 tiles, 15.5 waves: the last wave costs 3%.
  const DecompositionChoice c = choose_decomposition({8192 / 128, 8192 / 256, 1, 8192 / 64}, 132);
  EXPECT_EQ(c.mode, DecompositionMode::DataParallel) << c.reason;
  EXPECT_EQ(choose_decomposition({8192 / 128, 8192 / 256, 1, 8192 / 32}, 132).mode, DecompositionMode::DataParallel);
  // 4096^3 on 128x128: 1024 tiles, 7.8 waves.
  EXPECT_EQ(choose_decomposition({32, 32, 1, 64}, 132).mode, DecompositionMode::DataParallel);
}

TEST(DecompositionHeuristic, ShortKStaysDataParallel) {
  // 32 tiles with 2 k-tiles each: nothing to split.
  EXPECT_EQ(choose_decomposition({32, 1, 1, 2}, 132).mode, DecompositionMode::DataParallel);
}

TEST(DecompositionHeuristic, LongKFewTilesIsSplitOrStreamed) {
  // 1024x1024x32768 on 128x128x64: 64 tiles of 512 k-tiles on 132 SMs.
  const DecompositionChoice c = choose_decomposition({8, 8, 1, 512}, 132);
  EXPECT_TRUE(c.mode == DecompositionMode::SplitK || c.mode == DecompositionMode::StreamK) << c.reason;
}

TEST(DecompositionHeuristic, ExplicitModeWins) {
  const TileGrid decode{32, 1, 1, 64};
  for (auto m : {DecompositionMode::DataParallel, DecompositionMode::SplitK, DecompositionMode::StreamK}) {
    DecompositionOptions o;
    o.mode = m;
    const DecompositionChoice c = choose_decomposition(decode, 132, o);
    EXPECT_EQ(c.mode, m) << c.reason;
    EXPECT_NE(c.reason.find("(requested)"), std::string::npos) << c.reason;
    EXPECT_EQ(make_decomposition(decode, 132, o).mode, m);
  }
  DecompositionOptions s{DecompositionMode::SplitK, 3};
  EXPECT_EQ(make_decomposition(decode, 132, s).splits, 3);
  // And on the shape the heuristic makes data-parallel.
  DecompositionOptions sk{DecompositionMode::StreamK};
  EXPECT_EQ(choose_decomposition({64, 32, 1, 128}, 132, sk).mode, DecompositionMode::StreamK);
}

// ---- The fixup protocol, simulated ---------------------------------------------------------------

namespace {

// Partial sums whose f32 sum depends on the order of the additions: magnitudes from 2^-24 to 2^24
// and both signs, so reordering changes the rounding.
float partial_value(int tile, int order, int e) {
  std::mt19937 rng(std::uint32_t(1 + tile * 7919 + order * 104729 + e * 15485863));
  std::uniform_real_distribution<float> mant(1.f, 2.f);
  std::uniform_int_distribution<int> expo(-24, 24), sign(0, 1);
  return (sign(rng) ? -1.f : 1.f) * std::ldexp(mant(rng), expo(rng));
}

struct UnitRef {
  int cta, index;
};

std::vector<UnitRef> all_units(const Decomposition& d) {
  std::vector<UnitRef> out;
  for (int c = 0; c < d.grid; ++c)
    for (int i = 0; i < d.unit_count(c); ++i) out.push_back({c, i});
  return out;
}

constexpr int kSlotFloats = 6;  // accumulators of one simulated CTA

// Runs the protocol for the units finishing in `finish` order, as a kernel would: whole tiles
// directly, partial ones through slot, counter and ordered reduction. Returns the tiles' results
// (kSlotFloats each); `naive` receives the sums in arrival order, to show the data is sensitive.
std::vector<float> simulate(const Decomposition& d, const std::vector<UnitRef>& finish, std::vector<float>* naive = nullptr) {
  std::vector<float> partials(std::size_t(d.fixup_tiles()) * d.slots_per_tile * kSlotFloats, NAN);
  std::vector<unsigned> counters(std::size_t(d.fixup_tiles()), 0u);
  std::vector<float> result(std::size_t(d.tiles) * kSlotFloats, NAN), arrival(result.size(), 0.f);
  std::vector<int> results_written(std::size_t(d.tiles), 0);
  for (const UnitRef& r : finish) {
    const WorkUnit u = d.unit(r.cta, r.index);
    float acc[kSlotFloats];
    for (int e = 0; e < kSlotFloats; ++e) acc[e] = partial_value(u.tile, u.order, e);
    for (int e = 0; e < kSlotFloats; ++e) arrival[std::size_t(u.tile) * kSlotFloats + e] += acc[e];
    if (u.whole_tile()) {
      for (int e = 0; e < kSlotFloats; ++e) result[std::size_t(u.tile) * kSlotFloats + e] = acc[e];
      ++results_written[std::size_t(u.tile)];
      continue;
    }
    float* tile_slots = partials.data() + std::size_t(d.slot(u.tile, 0)) * kSlotFloats;
    for (int e = 0; e < kSlotFloats; ++e) tile_slots[std::size_t(u.order) * kSlotFloats + e] = acc[e];
    unsigned& counter = counters[std::size_t(d.fixup_index(u.tile))];
    if (!completes_tile(counter++, u.units)) continue;
    reduce_in_order(u.units, u.order, acc, [&](int j, int e) { return tile_slots[std::size_t(j) * kSlotFloats + e]; });
    std::copy(acc, acc + kSlotFloats, result.begin() + std::ptrdiff_t(u.tile) * kSlotFloats);
    ++results_written[std::size_t(u.tile)];
    counter = 0;
  }
  for (int t = 0; t < d.tiles; ++t) EXPECT_EQ(results_written[std::size_t(t)], 1) << "tile " << t;
  for (unsigned c : counters) EXPECT_EQ(c, 0u) << "a counter was not reset";
  if (naive) *naive = arrival;
  return result;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// The expected bits: each tile's partials added in ascending k order, by hand.
std::vector<float> reference(const Decomposition& d) {
  std::vector<int> units(std::size_t(d.tiles), 1);
  for (const UnitRef& r : all_units(d)) units[std::size_t(d.unit(r.cta, r.index).tile)] = d.unit(r.cta, r.index).units;
  std::vector<float> out(std::size_t(d.tiles) * kSlotFloats);
  for (int t = 0; t < d.tiles; ++t)
    for (int e = 0; e < kSlotFloats; ++e) {
      float s = partial_value(t, 0, e);
      for (int j = 1; j < units[std::size_t(t)]; ++j) s += partial_value(t, j, e);
      out[std::size_t(t) * kSlotFloats + e] = s;
    }
  return out;
}

void every_order_same_bits(const Decomposition& d, const char* what) {
  std::vector<UnitRef> units = all_units(d);
  ASSERT_LE(units.size(), 8u) << what << ": too many units to try every order";
  std::vector<int> perm(units.size());
  std::iota(perm.begin(), perm.end(), 0);
  const std::vector<float> expected = reference(d);
  int orders = 0, naive_differs = 0;
  std::vector<float> first_naive;
  do {
    std::vector<UnitRef> finish;
    for (int i : perm) finish.push_back(units[std::size_t(i)]);
    std::vector<float> naive;
    const std::vector<float> got = simulate(d, finish, &naive);
    ASSERT_TRUE(same_bits(got, expected)) << what << ": finishing order " << orders << " changed the result";
    if (orders == 0) first_naive = naive;
    else if (!same_bits(naive, first_naive)) ++naive_differs;
    ++orders;
  } while (std::next_permutation(perm.begin(), perm.end()));
  // The data is order-sensitive: summing in arrival order would have changed the bits.
  EXPECT_GT(naive_differs, 0) << what;
  std::printf("%s: %d finishing orders, identical bits; arrival-order sums would differ in %d\n", what, orders,
              naive_differs);
}

}  // namespace

TEST(StreamKFixup, EveryFinishingOrderGivesTheSameBitsSplitK) {
  // 2 tiles x 3 slices on 4 CTAs: 6 units, 720 orders.
  const Decomposition d = make_decomposition({2, 1, 1, 7}, 4, {DecompositionMode::SplitK, 3});
  every_order_same_bits(d, "split-K 2 tiles x 3 slices");
}

TEST(StreamKFixup, EveryFinishingOrderGivesTheSameBitsStreamK) {
  // 2 tiles of 5 k-tiles on 4 CTAs: shares 3,3,2,2; CTA 1 crosses into tile 1, which is spread
  // over 3 CTAs (a sum of two partials would not depend on the order at all).
  const Decomposition d = make_decomposition({2, 1, 1, 5}, 4, {DecompositionMode::StreamK, 0, false, 1});
  ASSERT_EQ(d.unit(3, 0).units, 3);
  every_order_same_bits(d, "stream-K 2 tiles on 4 CTAs");
  // The hybrid: 4 tiles on 3 CTAs, tile 0 spread over all three, tiles 1-3 whole.
  const Decomposition h = make_decomposition({4, 1, 1, 6}, 3, {DecompositionMode::StreamK, 0, true, 1});
  ASSERT_EQ(h.sk_tiles, 1);
  ASSERT_EQ(h.unit(0, 0).units, 3);
  every_order_same_bits(h, "hybrid stream-K 4 tiles on 3 CTAs");
}

TEST(StreamKFixup, ShuffledFinishingOrdersOnLargeDecompositions) {
  const std::vector<std::pair<const char*, Decomposition>> cases{
      {"decode split-K", make_decomposition({32, 1, 1, 64}, 132, {})},
      {"stream-K 36-tile tail", make_decomposition({300, 1, 1, 64}, 132, {DecompositionMode::StreamK})},
      {"pure stream-K", make_decomposition({8, 8, 1, 512}, 132, {DecompositionMode::StreamK, 0, false})},
      {"split-K x5, 1 CTA", make_decomposition({3, 2, 1, 11}, 1, {DecompositionMode::SplitK, 5})},
  };
  std::mt19937 rng(2026);
  for (const auto& [what, d] : cases) {
    std::vector<UnitRef> units = all_units(d);
    const std::vector<float> expected = reference(d);
    for (int trial = 0; trial < 40; ++trial) {
      std::shuffle(units.begin(), units.end(), rng);
      ASSERT_TRUE(same_bits(simulate(d, units), expected)) << what << ", trial " << trial;
    }
  }
}

TEST(StreamKFixup, ConcurrentCtasOnHostThreads) {
  // One host thread per CTA, each running its units in order with random delays, with the
  // device protocol's memory ordering (release on arrival, acquire for the last arriver).
  const Decomposition d = make_decomposition({3, 1, 1, 13}, 8, {DecompositionMode::StreamK, 0, false, 1});
  ASSERT_EQ(d.grid, 8);
  const std::vector<float> expected = reference(d);
  for (int trial = 0; trial < 25; ++trial) {
    std::vector<float> partials(std::size_t(d.fixup_tiles()) * d.slots_per_tile * kSlotFloats, NAN);
    std::vector<std::atomic<unsigned>> counters(std::size_t(d.fixup_tiles()));
    for (auto& c : counters) c.store(0);
    std::vector<float> result(std::size_t(d.tiles) * kSlotFloats, NAN);
    std::vector<std::thread> ctas;
    for (int cta = 0; cta < d.grid; ++cta) {
      ctas.emplace_back([&, cta] {
        std::mt19937 rng(std::uint32_t(trial * 131 + cta));
        for (int i = 0; i < d.unit_count(cta); ++i) {
          std::this_thread::sleep_for(std::chrono::microseconds(rng() % 200));
          const WorkUnit u = d.unit(cta, i);
          float acc[kSlotFloats];
          for (int e = 0; e < kSlotFloats; ++e) acc[e] = partial_value(u.tile, u.order, e);
          float* out = result.data() + std::size_t(u.tile) * kSlotFloats;
          if (u.whole_tile()) {
            std::copy(acc, acc + kSlotFloats, out);
            continue;
          }
          float* tile_slots = partials.data() + std::size_t(d.slot(u.tile, 0)) * kSlotFloats;
          std::copy(acc, acc + kSlotFloats, tile_slots + std::size_t(u.order) * kSlotFloats);
          auto& counter = counters[std::size_t(d.fixup_index(u.tile))];
          if (!completes_tile(counter.fetch_add(1, std::memory_order_acq_rel), u.units)) continue;
          reduce_in_order(u.units, u.order, acc, [&](int j, int e) { return tile_slots[std::size_t(j) * kSlotFloats + e]; });
          std::copy(acc, acc + kSlotFloats, out);
          counter.store(0, std::memory_order_relaxed);
        }
      });
    }
    for (auto& t : ctas) t.join();
    ASSERT_TRUE(same_bits(result, expected)) << "trial " << trial;
    for (auto& c : counters) ASSERT_EQ(c.load(), 0u);
  }
}

TEST(StreamKFixup, WorkspaceBytes) {
  const Decomposition dp = make_decomposition({32, 32, 1, 64}, 132, {DecompositionMode::DataParallel});
  EXPECT_EQ(workspace_bytes(dp, 128 * 64), 0u);
  const Decomposition s = make_decomposition({32, 1, 1, 64}, 132, {DecompositionMode::SplitK, 4});
  // 32 counters padded to 256 bytes, then 32 tiles x 4 slots x 1024 floats.
  EXPECT_EQ(fixup_counter_bytes(s), 256u);
  EXPECT_EQ(workspace_bytes(s, 1024), 256u + 32u * 4u * 1024u * 4u);
  alignas(256) static unsigned char buffer[256 + 64];
  const Decomposition tiny = make_decomposition({2, 1, 1, 4}, 4, {DecompositionMode::SplitK, 2});
  const FixupWorkspace ws = make_fixup_workspace(buffer, tiny, 4);
  EXPECT_EQ(static_cast<void*>(ws.counters), static_cast<void*>(buffer));
  EXPECT_EQ(static_cast<void*>(ws.partials), static_cast<void*>(buffer + 256));
  EXPECT_EQ(workspace_bytes(tiny, 4), 256u + 2u * 2u * 4u * 4u);
}

// The Hopper kernel's fixup reads every slice back (its own included) and adds them in chunks;
// it must give the bits of reduce_in_order, which keeps its own partial in registers, for every
// unit count and every position of the caller among the units.
template <int N, int kChunk>
void expect_same_sums_as_reduce_in_order(std::mt19937& rng) {
  std::uniform_real_distribution<float> value(-1000.f, 1000.f);
  for (int units = 1; units <= 7; ++units) {
    std::vector<float> slots(std::size_t(units) * N);
    for (float& v : slots) v = value(rng);
    auto load = [&](int j, int e) { return slots[std::size_t(j) * N + std::size_t(e)]; };
    float chunked[N];
    sum_slices_in_order<kChunk>(units, chunked, load);
    for (int own = 0; own < units; ++own) {
      float acc[N];
      for (int e = 0; e < N; ++e) acc[e] = load(own, e);
      reduce_in_order(units, own, acc, load);
      EXPECT_EQ(std::memcmp(acc, chunked, sizeof acc), 0) << N << " accumulators, " << units << " units, own " << own;
    }
  }
}

TEST(StreamKFixup, SlicesReadBackGiveTheSameBits) {
  std::mt19937 rng(11);
  expect_same_sums_as_reduce_in_order<128, 64>(rng);  // BN = 256
  expect_same_sums_as_reduce_in_order<96, 48>(rng);   // BN = 192
  expect_same_sums_as_reduce_in_order<64, 64>(rng);   // BN = 128
  expect_same_sums_as_reduce_in_order<8, 8>(rng);
}

// The atomic reduction keeps one shared sum per split tile, whatever the units per tile, and the
// report says the bits are not reproducible; the split itself is unchanged.
TEST(StreamKFixup, NondeterministicReductionHasOneSlotPerTile) {
  DecompositionOptions o{DecompositionMode::SplitK, 4};
  o.deterministic = false;
  const Decomposition s = make_decomposition({32, 1, 1, 64}, 132, o);
  EXPECT_FALSE(s.deterministic);
  EXPECT_EQ(s.splits, 4);
  EXPECT_EQ(s.slots_per_tile, 1);
  EXPECT_EQ(s.slot(5, 3), s.slot(5, 0));
  EXPECT_EQ(workspace_bytes(s, 1024), 256u + 32u * 1024u * 4u);
  EXPECT_NE(choose_decomposition({32, 1, 1, 64}, 132, o).reason.find("non-deterministic"), std::string::npos);
  o.mode = DecompositionMode::StreamK;
  EXPECT_EQ(make_decomposition({32, 1, 1, 64}, 132, o).slots_per_tile, 1);
  // Data-parallel has no split tiles: nothing to say about the reduction.
  o.mode = DecompositionMode::DataParallel;
  EXPECT_EQ(choose_decomposition({32, 1, 1, 64}, 132, o).reason.find("non-deterministic"), std::string::npos);
}
