// The dispatcher's heuristic (tessel/gemm/dispatch/heuristic.hpp) on shapes whose best Hopper
// tile the H200 measured (bench/RESULTS.md): it must pick that tile and say why. The Python
// registry asks the same code (python/tests/test_registry.py checks it from there).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <stdexcept>

#include "tessel/gemm/dispatch/heuristic.hpp"

namespace {

using namespace tessel::gemm::dispatch;
constexpr int kSms = 132;

std::vector<Candidate> persistent_tiles() {
  std::vector<Candidate> out;
  for (Candidate const& c : shipped_tiles())
    if (!c.stream_k) out.push_back(c);
  return out;
}

struct Measured {
  std::int64_t m, n, k;
  char const* tile;  // label() of the fastest data-parallel tile, by more than 1%
};

TEST(DispatchHeuristic, PicksTheMeasuredBestTile) {
  // bench/runs/2026-12-01_h200/run6_front_door.md, through tessel.gemm's launch, D through TMA.
  Measured const cases[] = {
      {4096, 4096, 4096, "128x256 cooperative"},   // 4 even waves of the widest tile
      {16384, 1024, 4096, "128x256 cooperative"},
      {8192, 8192, 256, "128x128 pingpong"},       // short K: the epilogue hides under the other warpgroup
      {6144, 3000, 4096, "128x192 cooperative"},   // ragged N: 3000 = 15.6 x 192, 11.7 x 256
      {3000, 5120, 1536, "128x192 cooperative"},
      {128, 6144, 4096, "64x128 pingpong"},        // few tiles: 96 SMs at work, not 24 (2026-12-07b_h100)
      {16, 28672, 8192, "128x256 cooperative"},    // decode bound by the weights' bytes
  };
  std::vector<Candidate> const tiles = persistent_tiles();
  for (Measured const& c : cases) {
    Choice const got = choose(tiles, c.m, c.n, c.k, kSms);
    EXPECT_EQ(label(tiles[got.index]), c.tile) << c.m << "x" << c.n << "x" << c.k << ": " << got.reason;
    EXPECT_NE(got.reason.find(c.tile), std::string::npos) << got.reason;
    EXPECT_NE(got.reason.find("wave"), std::string::npos) << got.reason;
  }
}

TEST(DispatchHeuristic, FewTilesGoToStreamKManyNever) {
  std::vector<Candidate> const all = shipped_tiles();
  for (std::int64_t m : {1, 16}) {
    Choice const c = choose(all, m, 4096, 4096, kSms);
    EXPECT_TRUE(all[c.index].stream_k) << c.reason;
    EXPECT_NE(c.reason.find("stream-K"), std::string::npos);
  }
  EXPECT_FALSE(all[choose(all, 4096, 4096, 4096, kSms).index].stream_k);
}

TEST(DispatchHeuristic, SixtyFourTokensTakeTheSixtyFourRowTile) {
  // bench/runs/2026-12-06c_h100, run 3 (H100, bf16 as given, ratio to torch.matmul): 64x64
  // ping-pong 1.139 at 128x4096x14336 (128x64: 1.012), 1.036 at 64x4096x14336, 0.989 at
  // 64x8192x8192 (128x64 on D^T: 0.960); twice the SMs on the weights where 128x64 leaves half
  // idle. Run 4 (H200) in turns with the D^T kernels: 1.016 against 0.950 (stream-K on D^T), 1.020
  // against 1.002, and 0.957 against 0.790 at 64x4096x4096.
  std::vector<Candidate> const all = shipped_tiles();
  for (auto [m, n, k] : {std::array<std::int64_t, 3>{128, 4096, 14336}, {64, 4096, 14336}, {64, 8192, 8192}, {64, 4096, 4096}}) {
    Choice const c = choose_oriented(all, all, m, n, k, kSms);
    EXPECT_FALSE(c.transpose_d) << c.reason;
    EXPECT_EQ(label(all[c.index]), "64x64 pingpong") << m << "x" << n << "x" << k << ": " << c.reason;
  }
  // Its k-step floor scales with its stage (112 of 128x64's 192 rows); the 128-row tiles keep theirs.
  Estimate const small = estimate({64, 64, 64, "pingpong", false}, 64, 8192, 64 * 1000, kSms);
  EXPECT_NEAR(small.compute / 1000, 2.0 * 64 * 64 * 64 / (989e12 / 132 * 0.33), 1e-9);
  // Below 64 tokens D^T's 128x64 tiles (32x14336x4096: 0.97 of torch on the H100, 0.95 on the
  // H200). At 64 tokens against many weight rows 64x128 tiles as given, which fill the SMs as
  // D^T's 128x64 do (bench/runs/2026-12-07b_h100, run 7: 0.98-0.99 against 0.985 at
  // 64x14336x4096, 1.02-1.03 against 1.016 at 64x28672x8192) and hide their epilogues.
  Choice const below = choose_oriented(all, all, 32, 14336, 4096, kSms);
  EXPECT_TRUE(below.transpose_d) << below.reason;
  EXPECT_EQ(label(all[below.index]), "128x64 cooperative") << below.reason;
  for (auto [m, n, k] : {std::array<std::int64_t, 3>{64, 14336, 4096}, {64, 28672, 8192}}) {
    Choice const d = choose_oriented(all, all, m, n, k, kSms);
    EXPECT_FALSE(d.transpose_d) << d.reason;
    EXPECT_EQ(label(all[d.index]), "64x128 pingpong") << m << "x" << n << "x" << k << ": " << d.reason;
  }
  // Tokens that fill less than three quarters of their last 64-row tile stay off the 64-row tiles,
  // on either problem (run 9: 0.63-0.83x torch at 80 and 96 tokens on 64x64, 0.88-0.96 on D^T's
  // 128x64); 112 tokens fill them (0.93-0.95).
  for (std::int64_t m : {16, 32, 80, 96, 100}) {
    Choice const d = choose_oriented(all, all, m, 4096, 14336, kSms);
    EXPECT_TRUE(d.transpose_d) << d.reason;
    EXPECT_EQ(all[d.index].bm, 128) << m << " tokens: " << d.reason;
  }
  Choice const full = choose_oriented(all, all, 112, 4096, 4096, kSms);
  EXPECT_EQ(label(all[full.index]), "64x64 pingpong") << full.reason;
  // Where the problem as given wins, the reason gives D^T's time too.
  EXPECT_NE(choose_oriented(all, all, 64, 4096, 4096, kSms).reason.find("; D^T's problem (4096x64x4096) would take"),
            std::string::npos);
}

TEST(DispatchHeuristic, MidTokenCountsTakeTheSixtyFourRowPingPongTiles) {
  // bench/runs/2026-12-07b_h100, runs 6-10 (H100, bf16 as given, ratio to torch.matmul). 64x128
  // ping-pong where its tiles fill one wave (192x4096x4096 0.94-0.97 against 0.60 for 128x64,
  // 192x4096x14336 1.39 against 0.75, 320x6144x4096 1.11-1.13 against 0.82 for 128x192); 64x192
  // where 64x128's would spill into a second wave or rows past M slow the 128-row tiles
  // (160x6144x4096 0.80 against 0.56 for 128x128, 192x28672x4096 0.95 against 0.85 for 128x256,
  // 320x4096x4096 0.84 against 0.70); from 384 tokens against many weight rows the wide tiles.
  std::vector<Candidate> const all = shipped_tiles();
  struct Row {
    std::int64_t m, n, k;
    char const* tile;
  };
  Row const rows[] = {{160, 4096, 14336, "64x128 pingpong"}, {192, 4096, 4096, "64x128 pingpong"},
                      {192, 4096, 14336, "64x128 pingpong"}, {256, 4096, 14336, "64x128 pingpong"},
                      {320, 6144, 4096, "64x128 pingpong"},  {160, 6144, 4096, "64x192 pingpong"},
                      {192, 28672, 4096, "64x192 pingpong"}, {320, 4096, 4096, "64x192 pingpong"},
                      {224, 6144, 4096, "64x192 pingpong"},  {384, 28672, 4096, "128x256 cooperative"}};
  for (Row const& r : rows) {
    Choice const c = choose_oriented(all, all, r.m, r.n, r.k, kSms);
    EXPECT_FALSE(c.transpose_d) << c.reason;
    EXPECT_EQ(label(all[c.index]), r.tile) << r.m << "x" << r.n << "x" << r.k << ": " << c.reason;
  }
}

TEST(DispatchHeuristic, RowsOffSectorsKeepATileWithATwin) {
  // Rows off 32-byte sectors model the tiles without a cluster twin that fits straddle_cost
  // slower: 1000^3 keeps 128x64, whose 1x2 twin ran 0.80 of torch where 64x128 ran 0.66
  // (2026-12-07b_h100, run 7); with rows on sectors it takes 64x128. Where no twin fits (64
  // tokens: one column tile of D^T's problem), every tile pays alike and the choice stands.
  std::vector<Candidate> const tiles = persistent_tiles();
  Choice const aligned = choose(tiles, 1000, 1000, 1000, kSms);
  EXPECT_EQ(label(tiles[aligned.index]), "64x128 pingpong") << aligned.reason;
  Choice const straddling = choose(tiles, 1000, 1000, 1000, kSms, 2, true);
  EXPECT_EQ(label(tiles[straddling.index]), "128x64 cooperative") << straddling.reason;
  EXPECT_TRUE(has_cluster_twin(tiles[straddling.index]));
  std::vector<Estimate> const plain = ranked(tiles, 1000, 1000, 1000, kSms), off = ranked(tiles, 1000, 1000, 1000, kSms, 2, true);
  for (Estimate const& e : off) {
    auto const same = std::find_if(plain.begin(), plain.end(), [&](Estimate const& p) { return p.index == e.index; });
    EXPECT_NEAR(e.compute, same->compute * (has_cluster_twin(tiles[e.index]) ? 1.0 : Constants::straddle_cost), 1e-12);
    EXPECT_EQ(e.memory, same->memory);  // the straddle costs L2 requests, not DRAM bytes
  }
  std::vector<Candidate> const all = shipped_tiles();
  Choice const given = choose_oriented(all, all, 64, 8192, 512, kSms), off_sectors = choose_oriented(all, all, 64, 8192, 512, kSms, 2, true);
  EXPECT_EQ(label(all[given.index]), "64x64 pingpong") << given.reason;
  EXPECT_EQ(label(all[off_sectors.index]), "64x64 pingpong") << off_sectors.reason;
  EXPECT_EQ(off_sectors.transpose_d, given.transpose_d);
}

TEST(DispatchHeuristic, TheReasonNamesTheBound) {
  std::vector<Candidate> const tiles = persistent_tiles();
  EXPECT_NE(choose(tiles, 16, 28672, 8192, kSms).reason.find("streaming the operands"), std::string::npos);
  EXPECT_NE(choose(tiles, 4096, 4096, 4096, kSms).reason.find("its waves of tiles"), std::string::npos);
  EXPECT_EQ(choose({tiles[0]}, 16, 4096, 4096, kSms).reason, "the only kernel shipped for this kind of problem");
}

TEST(DispatchHeuristic, PartialWavesCountAsWhole) {
  Candidate const wide = shipped_tiles()[0];  // 128x256
  Estimate const one = estimate(wide, 128 * 12, 256 * 11, 4096, kSms);      // 132 tiles: one wave
  Estimate const two = estimate(wide, 128 * 12, 256 * 11 + 1, 4096, kSms);  // 144 tiles: two
  EXPECT_EQ(one.tiles, 132);
  EXPECT_EQ(one.waves, 1);
  EXPECT_EQ(two.tiles, 144);
  EXPECT_EQ(two.waves, 2);
  EXPECT_DOUBLE_EQ(two.compute, 2 * one.compute);
}

TEST(DispatchHeuristic, DecodeRunsOnDTransposedOnTheNarrowestTile) {
  std::vector<Candidate> const all = shipped_tiles();
  Choice const c = choose_oriented(all, all, 16, 4096, 4096, kSms);
  ASSERT_TRUE(c.transpose_d) << c.reason;
  EXPECT_EQ(all[c.index].bn, 64);
  EXPECT_EQ(c.reason.rfind("D^T = B^T A^T (4096x16x4096", 0), 0u) << c.reason;
  // Full tiles keep their problem; so does a kind whose narrowest tile is wider than 64 (FP8).
  EXPECT_FALSE(choose_oriented(all, all, 4096, 4096, 4096, kSms).transpose_d);
  std::vector<Candidate> const fp8 = {{128, 256, 128, "cooperative", false}, {128, 128, 128, "cooperative", false}};
  EXPECT_FALSE(choose_oriented(fp8, fp8, 16, 4096, 4096, kSms).transpose_d);
  EXPECT_FALSE(transposes(16, 4096, {}));
}

TEST(DispatchHeuristic, NarrowestNKeepsEveryTileOfThatWidth) {
  std::vector<Candidate> const all = shipped_tiles();
  std::vector<std::size_t> const narrow = narrowest_n(all);
  ASSERT_EQ(narrow.size(), 3u);  // 128x64 data-parallel and stream-K, 64x64 ping-pong
  for (std::size_t i : narrow) EXPECT_EQ(all[i].bn, 64);
}

TEST(DispatchHeuristic, RefusesEmptyProblemsAndEmptyChoices) {
  std::vector<Candidate> const all = shipped_tiles();
  EXPECT_THROW(choose(all, 0, 4096, 4096, kSms), std::invalid_argument);
  EXPECT_THROW(choose(all, 16, 4096, 4096, 0), std::invalid_argument);
  EXPECT_THROW(choose({}, 16, 4096, 4096, kSms), std::invalid_argument);
  EXPECT_THROW(estimate(all[0], 16, -1, 4096, kSms), std::invalid_argument);
}

TEST(DispatchHeuristic, TilesAreModelledByShapeWhateverTheirDepth) {
  // FP8's tiles (BK = 128) take the figures of the 16-bit tile of their shape.
  Candidate const fp8_wide{128, 256, 128, "cooperative", false}, fp8_narrow{128, 64, 128, "cooperative", false};
  EXPECT_EQ(&model_of(fp8_wide), &kHopperTiles[0]);
  EXPECT_EQ(model_of(fp8_narrow).bn, 64);
  EXPECT_EQ(model_of(fp8_narrow).scheduler, "persistent");
  EXPECT_EQ(model_of(shipped_tiles()[2]).schedule, "pingpong");
  // FP8's 128 x 128 cooperative, which the 16-bit kinds do not ship, takes its modelled row; a
  // shape of no row takes the first row's.
  Candidate const fp8_mid{128, 128, 128, "cooperative", false}, unknown{256, 128, 64, "cooperative", false};
  EXPECT_EQ(&model_of(fp8_mid), &kModelledTiles[0]);
  EXPECT_LT(model_of(fp8_mid).efficiency, kHopperTiles[0].efficiency);
  EXPECT_EQ(&model_of(unknown), &kHopperTiles[0]);
  // FP8's 128 x 192 takes its own row, the 16-bit 128 x 192 (BK = 64) the shipped one.
  Candidate const fp8_192{128, 192, 128, "cooperative", false}, bf16_192{128, 192, 64, "cooperative", false};
  EXPECT_EQ(model_of(fp8_192).bk, 128);
  EXPECT_EQ(model_of(bf16_192).bk, 64);
  EXPECT_NE(model_of(fp8_192).efficiency, model_of(bf16_192).efficiency);
}

TEST(DispatchHeuristic, FP8RunsAtTwiceTheRateOnHalfTheBytes) {
  // The same tile over the same K: FP8 (1 byte, BK = 128) models half the 16-bit mainloop (2
  // bytes, BK = 64) and half its DRAM time; TF32 (4 bytes, BK = 32) twice.
  Candidate const bf16{128, 256, 64, "cooperative", false}, fp8{128, 256, 128, "cooperative", false},
      tf32{128, 256, 32, "cooperative", false};
  Estimate const a = estimate(bf16, 4096, 8192, 16384, 132, 2), b = estimate(fp8, 4096, 8192, 16384, 132, 1),
                 c = estimate(tf32, 4096, 8192, 16384, 132, 4);
  EXPECT_DOUBLE_EQ(b.memory, a.memory / 2);
  EXPECT_NEAR(b.compute / a.compute, 0.5, 0.01);
  EXPECT_NEAR(c.compute / a.compute, 2.0, 0.02);
}

TEST(DispatchHeuristic, ModelledTilesAreNotShipped) {
  // shipped_tiles() (the 16-bit kinds' list) holds kHopperTiles only: no modelled tile among them.
  for (TileModel const& m : kModelledTiles)
    for (Candidate const& c : shipped_tiles())
      EXPECT_FALSE(c.bm == m.bm && c.bn == m.bn && c.bk == m.bk && c.schedule == m.schedule) << label(c);
  EXPECT_EQ(shipped_tiles().size(), std::size(kHopperTiles));
}

TEST(DispatchHeuristic, RowsStraddleSectorsOffA32ByteBoundary) {
  // bf16 rows of K = 1000 are 2000 bytes apart: every other one starts 16 bytes into a sector.
  EXPECT_TRUE(rows_straddle_sectors(0x1000, 2000));
  EXPECT_FALSE(rows_straddle_sectors(0x1000, 2016));  // K = 1008
  EXPECT_FALSE(rows_straddle_sectors(0x1000, 8192));
  EXPECT_TRUE(rows_straddle_sectors(0x1010, 2016));   // the base itself 16 bytes off
  EXPECT_TRUE(rows_straddle_sectors(0x1000, 2016, 1000 * 2016 + 16));  // a batch's second matrix off
  EXPECT_FALSE(rows_straddle_sectors(0x1000, 2016, 1000 * 2016));
}

TEST(DispatchHeuristic, ClusterTwinsArePersistentTiles) {
  // hopper_tiles.def's TESSEL_CLUSTER_TWIN rows: shipped tiles (persistent, cooperative) on
  // clusters of two CTAs, and only those; never a stream-K kernel.
  ASSERT_EQ(std::size(kClusterTwins), 3u);
  for (TwinTile const& t : kClusterTwins) {
    Candidate const c{t.bm, t.bn, t.bk, std::string(t.schedule), false};
    EXPECT_TRUE(has_cluster_twin(c)) << label(c);
    EXPECT_FALSE(has_cluster_twin({t.bm, t.bn, t.bk, std::string(t.schedule), true})) << label(c);
    bool shipped = false;
    for (Candidate const& s : shipped_tiles()) shipped |= s.bm == c.bm && s.bn == c.bn && s.bk == c.bk && s.schedule == c.schedule && !s.stream_k;
    EXPECT_TRUE(shipped) << label(c);
    EXPECT_EQ(t.cluster_m * t.cluster_n, 2) << label(c);
  }
  // The wide tiles share B (their 256 or 192 rows), 128x64 shares its 128-row A.
  EXPECT_EQ(cluster_twin_of({128, 256, 64, "cooperative", false})->cluster_m, 2);
  EXPECT_EQ(cluster_twin_of({128, 64, 64, "cooperative", false})->cluster_n, 2);
  EXPECT_FALSE(has_cluster_twin({128, 128, 64, "pingpong", false}));
  EXPECT_FALSE(has_cluster_twin({128, 64, 64, "cooperative", true}));
  EXPECT_FALSE(has_cluster_twin({128, 256, 128, "cooperative", false}));  // FP8's K depth
  EXPECT_NE(cluster_twin_reason(2, 1).find("2x1-cluster twin (B's loads shared by the CTAs along M)"), std::string::npos);
  EXPECT_NE(cluster_twin_reason(1, 2).find("1x2-cluster twin (A's loads shared by the CTAs along N)"), std::string::npos);
  EXPECT_NE(straddling_rows_reason().find("off 32-byte sectors"), std::string::npos);
}

TEST(DispatchHeuristic, TwinsFitWhereTheyTakeNoMoreWaves) {
  TwinTile const narrow{128, 64, 64, "cooperative", 1, 2}, wide{128, 256, 64, "cooperative", 2, 1};
  EXPECT_TRUE(twin_fits(narrow, 1000, 1000, 132));    // 8 x 8 clusters: one wave, as the 128 tiles
  EXPECT_FALSE(twin_fits(narrow, 14336, 32, 132));    // one column tile (and 112 clusters: two waves)
  EXPECT_FALSE(twin_fits(narrow, 4096, 32, 132));     // one wave either way, but each cluster's second CTA idle
  EXPECT_TRUE(twin_fits(narrow, 4096, 128, 132));     // 32 x 1 clusters, both CTAs busy
  EXPECT_FALSE(twin_fits(narrow, 5632, 192, 132));    // 44 x 3 tiles, one wave; 44 x 2 clusters on 66, two
  EXPECT_TRUE(twin_fits(wide, 4096, 4096, 132));      // 256 clusters on 66: 4 waves, as 512 tiles on 132
  EXPECT_TRUE(twin_fits(wide, 4096, 14336, 132));
  EXPECT_FALSE(twin_fits(wide, 128, 28672, 132));     // one row tile: 112 clusters, two waves
  EXPECT_TRUE(twin_fits(wide, 2000, 2000, 132));
}

}  // namespace
