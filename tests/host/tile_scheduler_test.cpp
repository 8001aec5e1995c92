// The grouped raster visits every output tile exactly once, for any grid and group size, and
// keeps each group's tiles within `group` rows.

#include <gtest/gtest.h>

#include <vector>

#include "tessel/gemm/kernel/sm90_launch_plan.hpp"
#include "tessel/gemm/kernel/sm90_tile_scheduler.hpp"
#include "tessel/gemm/kernel/tile_scheduler.hpp"

using tessel::gemm::kernel::GroupedRaster;
using tessel::gemm::kernel::RasterOrder;
using tessel::gemm::kernel::Sm90TileScheduler;

TEST(GroupedRaster, EveryTileExactlyOnce) {
  for (int tm : {1, 2, 7, 8, 9, 64, 65})
    for (int tn : {1, 3, 8, 33})
      for (int g : {1, 2, 3, 8, 16, 100}) {
        GroupedRaster r{tm, tn, g};
        std::vector<int> seen(std::size_t(tm * tn), 0);
        for (int id = 0; id < r.tile_count(); ++id) {
          auto t = r.tile(id);
          ASSERT_TRUE(t.m >= 0 && t.m < tm && t.n >= 0 && t.n < tn) << tm << "x" << tn << " g" << g << " id " << id;
          ++seen[std::size_t(t.m * tn + t.n)];
          ASSERT_EQ(t.m / g, id / (g * tn)) << "tile outside its group";
        }
        for (int v : seen) ASSERT_EQ(v, 1) << tm << "x" << tn << " g" << g;
      }
}

TEST(GroupedRaster, GroupOfAllRowsIsThePlainRasterAlongM) {
  GroupedRaster r{5, 4, 5};
  for (int id = 0; id < 20; ++id) {
    EXPECT_EQ(r.tile(id).m, id % 5);
    EXPECT_EQ(r.tile(id).n, id / 5);
  }
}

// The Hopper kernels' order: every (m, n, batch) once in every raster order, batches one after
// another, and consecutive ids moving along M (or N) first.
TEST(Sm90TileScheduler, EveryTileOfEveryBatchExactlyOnce) {
  for (RasterOrder order : {RasterOrder::AlongM, RasterOrder::AlongN, RasterOrder::Heuristic})
    for (int tm : {1, 5, 16})
      for (int tn : {1, 3, 17})
        for (int batches : {1, 3})
          for (int swizzle : {0, 1, 4, 8}) {
            auto s = Sm90TileScheduler::make(tm, tn, batches, order, swizzle);
            ASSERT_EQ(s.tile_count(), tm * tn * batches);
            std::vector<int> seen(std::size_t(tm * tn * batches), 0);
            for (int id = 0; id < s.tile_count(); ++id) {
              auto t = s.tile(id);
              ASSERT_TRUE(t.m >= 0 && t.m < tm && t.n >= 0 && t.n < tn && t.l == id / (tm * tn))
                  << tm << "x" << tn << "x" << batches << " " << to_string(order) << " swizzle " << swizzle << " id " << id;
              ++seen[std::size_t((t.l * tm + t.m) * tn + t.n)];
            }
            for (int v : seen) ASSERT_EQ(v, 1);
          }
}

TEST(Sm90TileScheduler, RasterOrderDecidesTheFastDimension) {
  auto m = Sm90TileScheduler::make(8, 8, 1, RasterOrder::AlongM, 4);
  EXPECT_EQ(m.tile(1).m, 1);
  EXPECT_EQ(m.tile(1).n, 0);
  auto n = Sm90TileScheduler::make(8, 8, 1, RasterOrder::AlongN, 4);
  EXPECT_EQ(n.tile(1).m, 0);
  EXPECT_EQ(n.tile(1).n, 1);
  // Heuristic: the group runs along the shorter side (here N, with more row tiles than columns).
  EXPECT_TRUE(Sm90TileScheduler::make(32, 4, 1, RasterOrder::Heuristic, 8).along_n);
  EXPECT_FALSE(Sm90TileScheduler::make(4, 32, 1, RasterOrder::Heuristic, 8).along_n);
}

// Grouped GEMM's walk (grouped.hpp): a persistent CTA's increasing ids through the cursor
// cover every row tile of every group's rows exactly once, each clipped at its group's end, and
// the tile count never exceeds the bound the host sizes the grid with.
namespace {
using tessel::gemm::kernel::GroupCursor;
using tessel::gemm::kernel::GroupedLayout;
using tessel::gemm::kernel::GroupedTile;
using tessel::gemm::kernel::Groups;

/// Walks ids cta, cta + ctas, ... like one persistent CTA; returns the tiles it saw.
std::vector<GroupedTile> walk(Groups const& gs, int cta, int ctas) {
  GroupCursor<128, 64> cursor(gs);
  std::vector<GroupedTile> out;
  GroupedTile t;
  for (int id = cta; cursor.seek(id, t); id += ctas) out.push_back(t);
  return out;
}

/// Marks every (row, column tile) of the tiles of all CTAs; each must be marked once and only
/// inside its group's rows.
void expect_cover(Groups const& gs, std::vector<int> const& begins, std::vector<int> const& ends, int blocks) {
  for (int ctas : {1, 3, 7, 132}) {
    std::vector<int> seen(std::size_t(gs.rows) * blocks * gs.tiles_n, 0);
    int tiles = 0;
    for (int cta = 0; cta < ctas; ++cta)
      for (GroupedTile const& t : walk(gs, cta, ctas)) {
        ++tiles;
        ASSERT_GE(t.group, 0);
        ASSERT_LT(t.group, gs.count);
        ASSERT_EQ(t.m_end, ends[t.group]) << "group " << t.group;
        ASSERT_GE(t.m0, begins[t.group]);
        ASSERT_LT(t.m0, t.m_end);
        ASSERT_EQ(t.n0 % 64, 0);
        for (int r = t.m0; r < std::min(t.m0 + 128, t.m_end); ++r) ++seen[(std::size_t(t.l) * gs.rows + r) * gs.tiles_n + t.n0 / 64];
      }
    EXPECT_LE(tiles, gs.tile_bound(128));
    for (int g = 0; g < gs.count; ++g)
      for (int r = begins[g]; r < ends[g]; ++r)
        for (int n = 0; n < gs.tiles_n; ++n) {
          std::size_t const block = gs.layout == int(GroupedLayout::kMasked) ? g : 0;
          int& v = seen[(block * gs.rows + r) * gs.tiles_n + n];
          ASSERT_EQ(v, 1) << "group " << g << " row " << r << " column tile " << n << " with " << ctas << " CTAs";
          v = 0;
        }
    for (int v : seen) ASSERT_EQ(v, 0) << "a row outside every group was covered";
  }
}
}  // namespace

TEST(GroupCursor, ContiguousGroupsEachRowOnce) {
  std::vector<int> ends{0, 1, 201, 331, 331, 408, 700};
  Groups gs{ends.data(), int(ends.size()), int(GroupedLayout::kContiguous), 700, 3};
  std::vector<int> begins{0, 0, 1, 201, 331, 331, 408};
  expect_cover(gs, begins, ends, 1);
}

TEST(GroupCursor, ContiguousOffsetsClampedNeverOutsideA) {
  std::vector<int> ends{300, 100, 350, -4, 9999};
  Groups gs{ends.data(), 5, int(GroupedLayout::kContiguous), 400, 2};
  expect_cover(gs, {0, 300, 300, 350, 350}, {300, 300, 350, 350, 400}, 1);
}

TEST(GroupCursor, MaskedCountsClampedToTheBlock) {
  std::vector<int> counts{0, 160, 5, 129, 500, -1};
  Groups gs{counts.data(), 6, int(GroupedLayout::kMasked), 160, 4};
  expect_cover(gs, {0, 0, 0, 0, 0, 0}, {0, 160, 5, 129, 160, 0}, 6);
}

TEST(GroupCursor, NoGroupsNoTiles) {
  Groups gs{nullptr, 0, int(GroupedLayout::kContiguous), 100, 4};
  EXPECT_TRUE(walk(gs, 0, 1).empty());
}

// The launch plan both Hopper launchers share (kernel/sm90_launch_plan.hpp): the persistent grid
// is one CTA per SM, capped by the tiles and by resident clusters; stream-K takes the
// decomposition's grid; a grouped walk gets the groups' column tiles.
namespace {
using tessel::gemm::kernel::DecompositionOptions;
using tessel::gemm::kernel::make_decomposition;
using tessel::gemm::kernel::make_sm90_launch_plan;
using tessel::gemm::kernel::Groups;
using tessel::gemm::kernel::Sm90PlanShape;
using tessel::gemm::kernel::TileGrid;
}  // namespace

TEST(Sm90LaunchPlan, PersistentGridAndRaster) {
  Sm90PlanShape const s{128, 256, 64, 1, 1, false, false};
  auto p = make_sm90_launch_plan(s, 4096, 6144, 4096, 1, {}, RasterOrder::Heuristic, 8, {}, 132, 0);
  EXPECT_EQ(p.sched.tile_count(), 32 * 24);
  EXPECT_TRUE(p.sched.along_n);  // more row tiles than column tiles
  EXPECT_EQ(p.grid, 132);
  p = make_sm90_launch_plan(s, 200, 300, 64, 1, {}, RasterOrder::Heuristic, 8, {}, 132, 0);
  EXPECT_EQ(p.grid, 2 * 2);  // one CTA per tile when tiles are fewer than SMs
  EXPECT_EQ(make_sm90_launch_plan(s, 1, 1, 64, 1, {}, RasterOrder::Heuristic, 8, {}, 132, 0).grid, 1);
}

TEST(Sm90LaunchPlan, ClustersAndResidency) {
  Sm90PlanShape const s{128, 128, 64, 2, 1, false, false};
  auto p = make_sm90_launch_plan(s, 8192, 8192, 8192, 1, {}, RasterOrder::Heuristic, 8, {}, 132, 0);
  EXPECT_EQ(p.sched.tile_count(), 32 * 64);  // cluster tiles along M
  EXPECT_EQ(p.grid, 132);
  p = make_sm90_launch_plan(s, 8192, 8192, 8192, 1, {}, RasterOrder::Heuristic, 8, {}, 132, 60);
  EXPECT_EQ(p.grid, 120);  // 60 clusters resident at once
}

struct Cluster2x2 {
  static constexpr int ClusterM = 2, ClusterN = 2;
};
struct Cluster1x2 {
  static constexpr int ClusterM = 1, ClusterN = 2;
};

TEST(Sm90ClusterRank, PlacesTheCtaAndNamesWhoShares) {
  using tessel::gemm::kernel::Sm90ClusterRank;
  // 2x2: rank r at (r % 2, r / 2); a row (same M tile) shares A, a column (same N tile) B.
  static_assert(Sm90ClusterRank<Cluster2x2>{3}.m() == 1 && Sm90ClusterRank<Cluster2x2>{3}.n() == 1);
  EXPECT_EQ(Sm90ClusterRank<Cluster2x2>{3}.row_mask(), 0b1010u);
  EXPECT_EQ(Sm90ClusterRank<Cluster2x2>{3}.column_mask(), 0b1100u);
  EXPECT_EQ(Sm90ClusterRank<Cluster2x2>{0}.row_mask(), 0b0101u);
  EXPECT_EQ(Sm90ClusterRank<Cluster2x2>{0}.column_mask(), 0b0011u);
  // 1x2: both CTAs share A; each column is the CTA alone.
  EXPECT_EQ(Sm90ClusterRank<Cluster1x2>{1}.n(), 1);
  EXPECT_EQ(Sm90ClusterRank<Cluster1x2>{1}.row_mask(), 0b11u);
  EXPECT_EQ(Sm90ClusterRank<Cluster1x2>{1}.column_mask(), 0b10u);
}

TEST(Sm90LaunchPlan, ClustersAlongNAndBoth) {
  // 1000 x 1000 on 128x64 tiles: 8 x 16 tiles. A 1x2 cluster covers two column tiles: 8 x 8
  // cluster tiles, two CTAs each; a 2x2 cluster 4 x 8.
  Sm90PlanShape const along_n{128, 64, 64, 1, 2, false, false};
  auto p = make_sm90_launch_plan(along_n, 1000, 1000, 1000, 1, {}, RasterOrder::Heuristic, 8, {}, 132, 0);
  EXPECT_EQ(p.sched.tile_count(), 8 * 8);
  EXPECT_EQ(p.grid, 2 * 64);
  Sm90PlanShape const both{128, 64, 64, 2, 2, false, false};
  p = make_sm90_launch_plan(both, 1000, 1000, 1000, 1, {}, RasterOrder::Heuristic, 8, {}, 132, 0);
  EXPECT_EQ(p.sched.tile_count(), 4 * 8);
  EXPECT_EQ(p.grid, 4 * 32);
  // An odd count of column tiles rounds up: 1000 / 128 -> 8 column tiles of 128, 4 cluster tiles.
  Sm90PlanShape const wide{128, 128, 64, 1, 2, false, false};
  p = make_sm90_launch_plan(wide, 8192, 1000, 1000, 1, {}, RasterOrder::Heuristic, 8, {}, 132, 0);
  EXPECT_EQ(p.sched.tile_count(), 64 * 4);
  EXPECT_EQ(p.grid, 132);  // 66 clusters of two: every SM
  p = make_sm90_launch_plan(Sm90PlanShape{128, 128, 64, 2, 2, false, false}, 8192, 8192, 8192, 1, {}, RasterOrder::Heuristic, 8,
                            {}, 132, 0);
  EXPECT_EQ(p.grid, 132);  // 33 clusters of four
}

TEST(Sm90LaunchPlan, StreamKTakesTheDecomposition) {
  Sm90PlanShape const s{128, 64, 64, 1, 1, true, false};
  auto const p = make_sm90_launch_plan(s, 4096, 16, 4096, 1, {}, RasterOrder::Heuristic, 8, {}, 132, 0);
  auto const d = make_decomposition(TileGrid{32, 1, 1, 64}, 132, DecompositionOptions{});
  EXPECT_EQ(p.grid, d.grid);
  EXPECT_EQ(p.dec.grid, d.grid);
  EXPECT_GT(p.grid, 32);  // 32 tiles spread over more CTAs than tiles
}

TEST(Sm90LaunchPlan, GroupedWalkGetsColumnTiles) {
  Sm90PlanShape const s{128, 256, 64, 1, 1, false, true};
  Groups const g{nullptr, 8, 0, 1000, 0};  // contiguous: 8 groups over 1000 rows
  auto const p = make_sm90_launch_plan(s, 1000, 1024, 512, 8, g, RasterOrder::Heuristic, 8, {}, 132, 0);
  EXPECT_EQ(p.sched.groups.tiles_n, 4);
  EXPECT_EQ(p.sched.tile_count(), (8 + 8 - 1) * 4);  // 8 row tiles, each boundary splitting one
  EXPECT_EQ(p.grid, 60);
}
