// The grouped raster visits every output tile exactly once, for any grid and group size, and
// keeps each group's tiles within `group` rows.

#include <gtest/gtest.h>

#include <vector>

#include "tessel/gemm/kernel/tile_scheduler.hpp"

using tessel::gemm::kernel::GroupedRaster;

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
