#pragma once
// Which output tile a CTA computes. CTAs are numbered in launch order; the order in which they
// walk the tile grid decides how much of A and B the CTAs resident at one time share in L2.
//
// A plain raster along M gives the first wave a tall strip: all of A's row tiles and a few of
// B's column tiles. Grouping `group` row tiles at a time and walking N inside the group gives
// each wave a squarer footprint, which reads less of A and B per wave (CUTLASS calls this the
// threadblock swizzle). With group == tiles_m the walk is the plain raster.

#include "tessel/layout/config.hpp"

namespace tessel::gemm::kernel {

struct TileCoord {
  int m = 0, n = 0;
};

struct GroupedRaster {
  int tiles_m = 1, tiles_n = 1, group = 8;

  TESSEL_HD constexpr int tile_count() const { return tiles_m * tiles_n; }

  /// The tile of CTA `id`, 0 <= id < tile_count(): group row tiles at a time, N inside a group.
  /// @post every tile is visited by exactly one id (tests/host/tile_scheduler_test.cpp)
  TESSEL_HD constexpr TileCoord tile(int id) const {
    int per_group = group * tiles_n;
    int first_m = (id / per_group) * group;
    int rows = tiles_m - first_m < group ? tiles_m - first_m : group;
    int within = id % per_group;
    return {first_m + within % rows, within / rows};
  }
};

}  // namespace tessel::gemm::kernel
