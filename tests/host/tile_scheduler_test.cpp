// The grouped raster visits every output tile exactly once, for any grid and group size, and
// keeps each group's tiles within `group` rows.

#include <gtest/gtest.h>

#include <vector>

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
