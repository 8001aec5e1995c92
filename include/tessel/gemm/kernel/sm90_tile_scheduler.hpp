#pragma once
// The persistent Hopper kernels' tile order: batches one after another, and inside a batch the
// grouped raster of tile_scheduler.hpp along M or along N.
//
// Along M, consecutive work ids step through `swizzle` row tiles before moving one tile along N,
// so the CTAs resident at one time cover a block of about swizzle x (CTAs / swizzle) tiles and
// share their A and B panels in L2. Along N is the same walk with M and N exchanged.

#include "tessel/gemm/kernel/decomposition.hpp"
#include "tessel/gemm/kernel/grouped.hpp"
#include "tessel/gemm/kernel/tile_scheduler.hpp"
#include "tessel/layout/config.hpp"

namespace tessel::gemm::kernel {

enum class RasterOrder { Heuristic, AlongM, AlongN };

inline char const* to_string(RasterOrder r) {
  return r == RasterOrder::AlongM ? "along_m" : r == RasterOrder::AlongN ? "along_n" : "heuristic";
}

struct TileCoord3 {
  int m = 0, n = 0, l = 0;
};

struct Sm90TileScheduler {
  GroupedRaster raster;  // tiles of one batch, M and N exchanged when along_n
  bool along_n = false;
  int batches = 1;
  Groups groups;  // grouped kernels (GroupedScheduler): the groups; the raster then only bounds the tile count

  /// @param tiles_m, tiles_n  tiles of one batch (in clusters: blocks of ClusterM x ClusterN tiles)
  /// @param swizzle           tiles per group along the raster's fast dimension (<= 0: no grouping)
  /// Heuristic order: along N when there are more row tiles than column tiles, so that the
  /// group runs along the shorter side and a wave's footprint stays square.
  static Sm90TileScheduler make(int tiles_m, int tiles_n, int batches, RasterOrder order, int swizzle) {
    bool along_n = order == RasterOrder::AlongN || (order == RasterOrder::Heuristic && tiles_m > tiles_n);
    int fast = along_n ? tiles_n : tiles_m, slow = along_n ? tiles_m : tiles_n;
    int group = swizzle > 0 ? (swizzle < fast ? swizzle : fast) : fast;
    return {GroupedRaster{fast, slow, group}, along_n, batches, {}};
  }

  /// A grouped launch's walk: the groups' tiles in one sequence (grouped.hpp); tile_count()
  /// is then the bound Groups::tile_bound.
  static Sm90TileScheduler make_grouped(Groups const& groups, int bm) {
    return {GroupedRaster{groups.tile_bound(bm), 1, 1}, false, 1, groups};
  }

  TESSEL_HD constexpr int tile_count() const { return raster.tile_count() * batches; }

  /// @post every (m, n, l) is produced by exactly one id in [0, tile_count())
  TESSEL_HD constexpr TileCoord3 tile(int id) const {
    int per_batch = raster.tile_count();
    TileCoord t = raster.tile(id % per_batch);
    int l = id / per_batch;
    return along_n ? TileCoord3{t.n, t.m, l} : TileCoord3{t.m, t.n, l};
  }
};

/// The work of one CTA (one cluster): a sequence of units {tile id, k-tile range}. Data-parallel
/// kernels walk whole tiles id = cluster, cluster + clusters, ...; split-K and stream-K kernels
/// ask the Decomposition. Tile ids go through the tile scheduler's raster either way.
template <bool kStreamK>
struct Sm90WorkWalk {
  int cluster, clusters, tile_count, k_tiles;
  Decomposition const* dec;
  TESSEL_HD int count() const {
    if constexpr (kStreamK) return dec->unit_count(cluster);
    else return cluster < tile_count ? (tile_count - 1 - cluster) / clusters + 1 : 0;
  }
  TESSEL_HD WorkUnit unit(int i) const {
    if constexpr (kStreamK) return dec->unit(cluster, i);
    else return {cluster + i * clusters, 0, k_tiles, 0, 1};
  }
};

/// A CTA's place in its cluster. The kernel's clusters are launched one-dimensional; rank r is the
/// CTA at (m, n) = (r % ClusterM, r / ClusterM) of the cluster's ClusterM x ClusterN block of
/// tiles. The CTAs of one row (same m) share A's stage, those of one column (same n) B's.
///
/// Example: a 2x2 cluster, rank 3 = (1, 1): A shared with ranks 1 and 3 (row mask 0b1010), B with
/// ranks 2 and 3 (column mask 0b1100).
template <class Cfg>
struct Sm90ClusterRank {
  int rank = 0;
  TESSEL_HD constexpr int m() const { return rank % Cfg::ClusterM; }
  TESSEL_HD constexpr int n() const { return rank / Cfg::ClusterM; }
  /// The CTAs that receive this CTA's multicast of A: its row of the cluster.
  TESSEL_HD constexpr unsigned row_mask() const {
    unsigned mask = 0;
    for (int j = 0; j < Cfg::ClusterN; ++j) mask |= 1u << (m() + Cfg::ClusterM * j);
    return mask;
  }
  /// The CTAs that receive this CTA's multicast of B: its column of the cluster.
  TESSEL_HD constexpr unsigned column_mask() const { return ((1u << Cfg::ClusterM) - 1) << (Cfg::ClusterM * n()); }
};

/// Where the tile of a unit lies: through the raster (one problem, or a batch of equal ones) or
/// through the groups' cursor (grouped kernels). False past the last group's tiles.
template <class Cfg>
struct Sm90TilePlacer {
  Sm90TileScheduler const& sched;
  Sm90ClusterRank<Cfg> rank;
  int m;
  GroupCursor<Cfg::BM, Cfg::BN> cursor{sched.groups};
  TESSEL_HD bool place(int id, GroupedTile& t) {
    if constexpr (Cfg::kGrouped) {
      return cursor.seek(id, t);
    } else {
      TileCoord3 const c = sched.tile(id);
      t = {(c.m * Cfg::ClusterM + rank.m()) * Cfg::BM, m, (c.n * Cfg::ClusterN + rank.n()) * Cfg::BN, c.l, c.l};
      return true;
    }
  }
};

}  // namespace tessel::gemm::kernel
