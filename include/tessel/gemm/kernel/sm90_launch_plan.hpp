#pragma once
// The launch plan of the persistent Hopper GEMM (kernel::sm90_gemm_tma_warpspecialized): the tile
// scheduler's walk, the persistent grid, and for the stream-K kernels the decomposition of the
// K loop; and whether D's stores can pair two elements. A plain header (no CUDA headers), read
// by both launchers: device::GemmUniversalAdapter (CUDA runtime) and the Python package's
// (python/src/sm90_launch.cpp, CUDA driver), so the two plan every problem the same way.
//
// Example: 4096 x 6144 x 4096 on 128x256 tiles, no cluster, 132 SMs: 32 x 24 = 768 tiles, the
// raster along N (more row tiles than column tiles) in groups of 8, a grid of 132 CTAs.

#include <cstdint>

#include "tessel/arch/tma_encode.hpp"
#include "tessel/gemm/kernel/decomposition.hpp"
#include "tessel/gemm/kernel/grouped.hpp"
#include "tessel/gemm/kernel/sm90_tile_scheduler.hpp"

namespace tessel::gemm::kernel {

/// What the plan needs of a kernel configuration.
struct Sm90PlanShape {
  int bm = 128, bn = 128, bk = 64;  // the CTA tile; BK: elements of K per stage
  int cluster_m = 1, cluster_n = 1;  // CTAs per cluster along M and along N
  bool stream_k = false;            // StreamKScheduler: units from a Decomposition
  bool grouped = false;             // GroupedScheduler: the tiles of the groups
};

struct Sm90LaunchPlan {
  Sm90TileScheduler sched;
  Decomposition dec;  // stream-K kernels only (zero otherwise)
  int grid = 0;       // CTAs
};

/// @param groups        the groups of a grouped launch (read only when s.grouped; the plan sets
///                      their column tiles)
/// @param max_clusters  clusters resident at once (the occupancy query); <= 0: the SM count decides
/// @post grid >= 1; data-parallel kernels: at most one cluster per tile and never more clusters
///       than are resident at once (persistent CTAs walk the rest); stream-K: the decomposition's grid
inline Sm90LaunchPlan make_sm90_launch_plan(Sm90PlanShape const& s, int m, int n, int k, int l, Groups const& groups,
                                            RasterOrder raster, int swizzle, DecompositionOptions const& options, int sm_count,
                                            int max_clusters) {
  int const tiles_m = (m + s.bm - 1) / s.bm, tiles_n = (n + s.bn - 1) / s.bn;
  Sm90LaunchPlan plan;
  Groups g = groups;
  g.tiles_n = tiles_n;
  plan.sched = s.grouped ? Sm90TileScheduler::make_grouped(g, s.bm)
                         : Sm90TileScheduler::make((tiles_m + s.cluster_m - 1) / s.cluster_m,
                                                   (tiles_n + s.cluster_n - 1) / s.cluster_n, l, raster, swizzle);
  int const cluster_size = s.cluster_m * s.cluster_n;
  int clusters = sm_count / cluster_size;
  if (max_clusters > 0) clusters = clusters < max_clusters ? clusters : max_clusters;
  int const tiles = plan.sched.tile_count();
  clusters = clusters < tiles ? clusters : tiles;
  plan.grid = (clusters > 1 ? clusters : 1) * cluster_size;
  if (s.stream_k) {
    plan.dec = make_decomposition(TileGrid{tiles_m, tiles_n, l, (k + s.bk - 1) / s.bk}, sm_count, options);
    plan.grid = plan.dec.grid;
  }
  return plan;
}

/// Whether D's rows, batches and base address let two neighbouring elements of a row go out as
/// one store (the direct epilogue's pairs).
inline bool sm90_pairs_aligned(void const* d, std::int64_t ldd, std::int64_t batch_d, int d_bytes) {
  return ldd % 2 == 0 && batch_d % 2 == 0 && reinterpret_cast<std::uintptr_t>(d) % (2 * std::uintptr_t(d_bytes)) == 0;
}

/// How the epilogue writes D, decided alike by every launcher: a column-major D (D^T's problem)
/// goes element by element from registers; otherwise TMA stores where the kernel has them and D
/// meets TMA's rules (arch::tma_store_fits), and two neighbours per store where D's alignment
/// allows (sm90_pairs_aligned).
struct Sm90DStores {
  bool tma = false, pairs = false;
};
inline Sm90DStores sm90_d_stores(bool kernel_stores_by_tma, void const* d, std::int64_t n, std::int64_t ldd, std::int64_t batches,
                                 std::int64_t batch_d, int d_bytes, bool column_major) {
  if (column_major) return {};
  return {kernel_stores_by_tma && arch::tma_store_fits(d, n, ldd, batches, batch_d, d_bytes), sm90_pairs_aligned(d, ldd, batch_d, d_bytes)};
}

}  // namespace tessel::gemm::kernel
