#pragma once
// Grouped GEMM on the Sm75/Sm80 kernel: the groups' tiles (grouped.hpp's walk) computed by a
// persistent grid of the dense kernel's CTAs, each tile by the dense kernel's own gemm_tile.
// This is the path for GPUs without TMA and wgmma (Ampere, Ada, Turing).
//
//   D_g = epilogue(A_g B_g, C_g)    for g < G, A_g (M_g, K) and D_g (M_g, N) row-major, B_g (K, N)
//                                   either way; C_g (read where beta != 0) at C + g * batch_c
//                                   from the group's first row (ldc 0: a bias row per group)
//
// A tile's rows run from its first row to the end of its group: rows past the end are neither
// loaded (the mainloop's predicate zero-fills them) nor stored, so a group reads only its own
// tokens, and rows of D that belong to no group are never written.
//
// NOTES: persistent rather than one CTA per tile, because a tile's group is known only from the
// sizes of every group before it: a CTA per tile would read up to G sizes to place itself, where
// a resident CTA walking ids in increasing order reads each group's size once (GroupCursor).

#include <cstdint>
#include <type_traits>

#include "tessel/gemm/kernel/gemm.hpp"
#include "tessel/gemm/kernel/grouped.hpp"

namespace tessel::gemm::kernel {

// The parameter block, GemmGroupedParams, is gemm_params.hpp's (the launcher's header).

template <class Config>
__global__ void __launch_bounds__(Config::TiledMma::kThreads, detail::min_blocks_per_sm<Config>())
    gemm_grouped_kernel(GemmGroupedParams<Config> p) {
  static_assert(std::is_same_v<typename Config::LayoutA, RowMajor> && std::is_same_v<typename Config::LayoutC, RowMajor>,
                "gemm_grouped_kernel: the groups are rows of A and D, which must be row-major");
  if constexpr (arch::device_pass_supports<typename Config::ArchTag>()) {
    extern __shared__ __align__(128) char smem[];
    GemmParams<Config> const& g = p.gemm;
    GroupCursor<Config::BM, Config::BN> cursor(p.groups);
    GroupedTile t;
    for (int id = int(blockIdx.x); cursor.seek(id, t); id += int(gridDim.x)) {
      // The tile as row tile 0 of a problem that starts at its first row and ends with its group.
      auto const* A = g.A + t.l * p.batch_a + std::int64_t(t.m0) * g.lda;  // (rows, K) from row m0
      auto const* B = g.B + t.group * p.batch_b;                            // group's (K, N)
      auto* D = g.D + t.l * p.batch_d + std::int64_t(t.m0) * g.ldd;        // (rows, N) from row m0
      auto const* C = g.C ? g.C + t.group * p.batch_c + std::int64_t(t.m0) * g.ldc : nullptr;  // (rows, N) from row m0
      // NOTES: the thread index read anew for each tile, where the compiler cannot hoist it: with
      // threadIdx.x it moved every per-thread shared-memory address of the mainloop out of the
      // tile loop, and the 128x128 kernel (255 registers) spilled 1 KB.
      int thread;
      asm volatile("mov.u32 %0, %%tid.x;" : "=r"(thread));
      gemm_tile<Config>(g, A, B, C, D, t.m_end - t.m0, g.problem.n, g.problem.k, TileCoord{0, t.n0 / Config::BN}, smem, thread);
      __syncthreads();  // the next tile's first copies overwrite the shared memory this one read
    }
  }
}

}  // namespace tessel::gemm::kernel
