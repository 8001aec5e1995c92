#pragma once
// Hopper GEMM kernel: TMA loads, wgmma, warp specialization, persistent CTAs, optional clusters.
//
//   D(M,N,L) = fusion(A(M,K,L) * B(N,K,L)^T)     A and B K-major or MN-major; D row-major
//
// The kernel composes three parts and gives each warpgroup its role (Sm90WarpGroupRole):
//   collective mainloop  (collective/sm90_mma_tma_warpspecialized.hpp): the ring of stages, TMA
//                        loads by the producer, wgmma by the consumers;
//   collective epilogue  (collective/sm90_epilogue_tma_warpspecialized.hpp): the fusion's
//                        callbacks on the accumulators, D through TMA stores or directly;
//   tile scheduler       (kernel/sm90_tile_scheduler.hpp): the units of work a CTA (a cluster)
//                        walks, and where each unit's tile lies.
//
// Warpgroup 0 is the producer: one thread issues the TMA loads of A and B (and, for block-scaled
// FP8, of the scales, or a scale warp copies them). Warpgroups 1 and 2 are consumers.
// Schedules (the consumers' division of labour):
//   cooperative: both consumers work on every tile, each on half of its BM rows;
//   ping-pong:   consumers take alternate tiles, each all BM rows, and take turns at the tensor
//                cores: one runs its mainloop while the other runs its epilogue.
// Clusters of ClusterM x ClusterN CTAs (1x1, 2x1, 1x2, 2x2) compute a block of tiles: the CTAs
// along M share B, those along N share A. Each loads its share of a shared stage and multicasts
// it to the others, so that operand crosses L2 -> SM once per cluster row (column), not per CTA.

#if !defined(__CUDACC_RTC__)  // NVRTC: CUtensorMap comes from tma_sm90.hpp
#include <cuda.h>
#endif

#include <cstdint>

#include "tessel/arch/cluster_sm90.hpp"
#include "tessel/arch/mbarrier_sm90.hpp"
#include "tessel/arch/tma_sm90.hpp"
#include "tessel/arch/warpgroup_sm90.hpp"
#include "tessel/gemm/collective/sm90_epilogue_tma_warpspecialized.hpp"
#include "tessel/gemm/collective/sm90_mma_tma_warpspecialized.hpp"
#include "tessel/gemm/kernel/sm90_block_scales.hpp"
#include "tessel/gemm/kernel/sm90_config.hpp"
#include "tessel/gemm/kernel/sm90_params.hpp"
#include "tessel/gemm/kernel/sm90_stream_k.hpp"
#include "tessel/gemm/kernel/sm90_tile_scheduler.hpp"

namespace tessel::gemm::kernel {

template <class Cfg, class Fusion>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    sm90_gemm_tma_warpspecialized(const __grid_constant__ CUtensorMap tma_a, const __grid_constant__ CUtensorMap tma_b,
                                  const __grid_constant__ Sm90GemmParams<Fusion> p) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Mainloop = collective::Sm90CollectiveMma<Cfg>;
  using Epilogue = collective::Sm90CollectiveEpilogue<Cfg, Fusion>;
  using ScaleRing = typename Cfg::ScaleRing;
  constexpr int BK = Cfg::BK, Stages = Cfg::Stages, kClusterSize = Cfg::kClusterSize;

  // Shared memory. NOTES: aligned by an offset from smem_raw, not by rounding the address as an
  // integer: the pointer then stays known to be in shared memory and the epilogue's stores
  // compile to STS, not to generic stores (which also stop the compiler from hoisting global
  // loads above them).
  extern __shared__ char smem_raw[];
  char* smem = smem_raw + ((1024u - (arch::cvta_to_shared(smem_raw) & 1023u)) & 1023u);
  char* smem_a = smem;                                 // [Stages][BM x 128 bytes]
  char* smem_b = smem + Stages * Cfg::kStageBytesA;    // [Stages][BN x 128 bytes]
  char* smem_d = smem_b + Stages * Cfg::kStageBytesB;  // [2 warpgroups][kEpilogueBuffers][64 x 128 bytes]
  auto* smem_sf = reinterpret_cast<float*>(smem_d + Cfg::kEpilogueBytes);  // block scales: [kSlots][ScaleRing::kSlotFloats]
  auto* ring_barriers = reinterpret_cast<std::uint64_t*>(smem_d + Cfg::kEpilogueBytes + Cfg::kScaleBytes);  // full, empty: [Stages] each
  auto* fixup_flag = reinterpret_cast<int*>(ring_barriers + 2 * Stages);
  auto* scale_full = reinterpret_cast<std::uint64_t*>(fixup_flag + 4);  // block-scaled kernels: [kSlots] each
  auto* scale_empty = scale_full + ScaleRing::kSlots;

  // NOTES: where the epilogue is the linear combination without an activation, the warpgroup is
  // read from lane 0, so that the compiler knows it is the same in every lane of a warp: the
  // consumers' loop state and wgmma descriptors then live in uniform registers, issued on the
  // uniform datapath beside the tensor cores (with the descriptors advanced by constants: +1% at
  // 128x256, +4% for the 128x128 ping-pong at K = 256, +9% for promoted FP8; bench/NOTES.md).
  // Fused epilogues (activations, visitor trees) keep the thread index: with the whole consumer
  // uniform, the GELU kernel spilled and ran 2% slower.
  constexpr bool kUniformRole = requires { requires !Fusion::kActivation; };
  int const warpgroup = int(threadIdx.x) / 128;
  auto const role = Sm90WarpGroupRole(kUniformRole ? __shfl_sync(0xffffffffu, warpgroup, 0) : warpgroup);
  int const k_tiles = (p.k + BK - 1) / BK;
  int const tile_count = p.sched.tile_count();
  int const cluster = int(blockIdx.x) / kClusterSize, clusters = int(gridDim.x) / kClusterSize;
  Sm90ClusterRank<Cfg> const rank{kClusterSize > 1 ? int(arch::cluster_cta_rank()) : 0};
  Sm90WorkWalk<Cfg::kStreamK> const walk{cluster, clusters, tile_count, k_tiles, &p.dec};
  int const units = walk.count();
  typename Mainloop::Pipeline const pipeline(ring_barriers);
  Mainloop const mainloop(smem_a, smem_b, pipeline);

  if (threadIdx.x == 0) {
    arch::tma_prefetch_descriptor(&tma_a);
    arch::tma_prefetch_descriptor(&tma_b);
    if constexpr (Cfg::kTmaStoreD) arch::tma_prefetch_descriptor(&p.tma_d);
    pipeline.init(Mainloop::kReleases);
    if constexpr (Cfg::kBlockScaled) {
      if (p.scales.by_tma) {
        arch::tma_prefetch_descriptor(&p.scales.tma_a);
        arch::tma_prefetch_descriptor(&p.scales.tma_b);
      }
      for (int j = 0; j < ScaleRing::kSlots; ++j) {
        arch::mbarrier_init(&scale_full[j], p.scales.by_tma ? 1 : 32);  // the producer's arrive, or the scale warp's lanes
        arch::mbarrier_init(&scale_empty[j], ScaleRing::kReaders);
      }
    }
    arch::mbarrier_init_fence();
  }
  // The peer CTAs' multicasts land on this CTA's barriers: they must be initialised first
  // (mbarrier_init_fence above, then the cluster's barrier with a relaxed arrive).
  if constexpr (kClusterSize > 1) arch::cluster_sync_relaxed();
  else __syncthreads();

  // Each cluster walks the cluster tiles cluster, cluster + clusters, ...; its CTA at (rm, rn) in
  // the cluster takes tile (ClusterM * tile.m + rm, ClusterN * tile.n + rn).
  if (role == Sm90WarpGroupRole::kProducer) {
    arch::warpgroup_reg_dealloc<Sm90RegisterBudget::kProducer>();
    // Every K tile of the CTA's units in order, `it` counting them over all units: the order in
    // which the ring's stages are filled.
    auto for_each_k_tile = [&](auto&& f) {
      int it = 0;
      Sm90TilePlacer<Cfg> placer{p.sched, rank, p.m};
      for (int i = 0; i < units; ++i) {
        WorkUnit const u = walk.unit(i);
        GroupedTile tile;
        if (!placer.place(u.tile, tile)) break;
        for (int kt = u.k_begin; kt < u.k_end; ++kt, ++it) f(tile, kt, it);
      }
    };
    // Block-scaled kernels: the scale ring's slots are acquired as the stages are, `groups`
    // counting the groups loaded over all of the CTA's tiles.
    int groups = 0;
    auto wait_scale_slot = [&](int g) {
      arch::mbarrier_wait(&scale_empty[g % ScaleRing::kSlots], ((g / ScaleRing::kSlots) & 1) ^ 1);
    };
    if (threadIdx.x == 0) {
      int filled = 0;  // stages filled over all of the CTA's tiles
      for_each_k_tile([&](GroupedTile const& tile, int kt, int it) {
        filled = it + 1;
        mainloop.load(&tma_a, &tma_b, tile, kt, it, rank);
        if constexpr (Cfg::kBlockScaled) {
          if (p.scales.by_tma && ScaleRing::starts_group(kt)) {
            int const j = groups % ScaleRing::kSlots;
            wait_scale_slot(groups++);
            ScaleRing::load_tma(p.scales, smem_sf + j * ScaleRing::kSlotFloats, &scale_full[j], tile, kt);
          }
        }
      });
      // In a cluster, the peers' consumers release this CTA's stages by arriving on its barriers:
      // it may leave once every stage it filled has been released by all of them (the pipeline's
      // tail). Its own consumers cannot finish before the peers' multicasts into it have landed.
      if constexpr (kClusterSize > 1) pipeline.producer_tail(filled);
    } else if (Cfg::kBlockScaled && !p.scales.by_tma && threadIdx.x / 32 == 1) {
      // The scale warp: each group of block scales, on the scale ring (sm90_block_scales.hpp).
      int const lane = int(threadIdx.x) % 32;
      for_each_k_tile([&](GroupedTile const& tile, int kt, int) {
        if (!ScaleRing::starts_group(kt)) return;
        int const j = groups % ScaleRing::kSlots;
        wait_scale_slot(groups++);
        ScaleRing::load(p.scales, smem_sf + j * ScaleRing::kSlotFloats, &scale_full[j], tile, kt, k_tiles,
                        (p.n + kBlockScaleN - 1) / kBlockScaleN, lane);
      });
    }
  } else {
    arch::warpgroup_reg_alloc<Sm90RegisterBudget::kConsumer>();
    int const wg = int(role) - int(Sm90WarpGroupRole::kConsumer0);
    int const wg_row0 = Cfg::kPingpong ? 0 : wg * Cfg::kWgRows;  // first tile row this warpgroup computes
    // The same, known to be the same in every lane of a warp, for the mainloop's descriptors.
    int const mma_row0 = kUniformRole ? wg_row0 : __shfl_sync(0xffffffffu, wg_row0, 0);
    bool const leader = threadIdx.x % 128 == 0;
    Epilogue epilogue(p, smem_d, wg, leader);
    collective::Sm90ScaleCursor scales{smem_sf, scale_full, scale_empty};  // block-scaled kernels
    // j numbers this CTA's units 0, 1, 2, ...; ping-pong consumers take alternate ones (whole
    // tiles, so unit j starts at k-tile j * k_tiles of the ring).
    constexpr int kStep = Cfg::kPingpong ? 2 : 1;
    int it = 0;
    Sm90TilePlacer<Cfg> placer{p.sched, rank, p.m};
    for (int j = Cfg::kPingpong ? wg : 0; j < units; j += kStep) {
      WorkUnit const u = walk.unit(j);
      GroupedTile tile;
      if (!placer.place(u.tile, tile)) break;
      // NOTES: ping-pong consumers take turns at the mainloop (named barrier kMainloopTurn + wg:
      // "consumer wg may start"). Besides overlapping one's epilogue with the other's math, the
      // turn order is what makes the parity waits sound: a consumer never waits on a stage whose
      // previous phase the other consumer has not yet seen completed.
      if constexpr (Cfg::kPingpong) {
        if (j >= 1) arch::named_barrier_sync<256>(Sm90Barrier::kMainloopTurn + wg);
      }
      // Row-wise FP8: the tile's scales, loaded now so that they land while the mainloop runs.
      auto const row_scales = epilogue.load_row_scales(tile.m0 + wg_row0, tile.n0, tile);
      typename Mainloop::Accumulators acc;
      Mainloop::clear(acc);
      if constexpr (Cfg::kPingpong) it = j * k_tiles;
      // Grouped tiles whose second warpgroup's rows all lie past the group's last row: that
      // consumer skips the wgmma (Sm90CollectiveMma::skip), and the other has the tensor cores
      // to itself (on two chains: Sm90CollectiveMma::kTwoChains). Grouped kernels are cooperative.
      // NOTES: only up to kGroupedSkipMaxKTiles K tiles. The tile beside this one streams the same
      // panel of B and finds it in L2 while both keep pace; over longer K the faster tile drifts
      // past what L2 holds and the panel is read from DRAM twice (256 experts 7168 -> 2048: 38%
      // more DRAM bytes, 26% slower with the skip; K = 2048 gained up to 11%; bench/NOTES.md). Not in
      // dense kernels: with M % 128 in 1..64 the skip made 3000x5120x1536 and 4160x4096x4096 5-6%
      // slower, and no shape faster. Not in promoted kernels, whose block-scaled 128x192
      // consumer then spilled and whose scale ring would need the same walk.
      bool const skip = Cfg::kGrouped && k_tiles <= kGroupedSkipMaxKTiles && tile.m0 + wg_row0 >= tile.m_end;
      if constexpr (Cfg::kPromote) mainloop.mma_promoted(acc, u, it, mma_row0, leader, p.scales, tile, scales);
      else if (skip) mainloop.skip(u, it, leader, Sm90Barrier::kEpilogue + wg);
      else mainloop.mma(acc, u, it, mma_row0, leader);
      if constexpr (Cfg::kPingpong) {
        if (j + 1 < units) arch::named_barrier_arrive<256>(Sm90Barrier::kMainloopTurn + (1 - wg));
      }
      if constexpr (Cfg::kStreamK) {
        // A unit that covers part of its tile's K hands its partial sum to the fixup; only the
        // unit that completes the tile goes on to the epilogue (sm90_stream_k.hpp).
        if (!u.whole_tile() && !sm90_fixup_partial_tile(p.ws, p.dec, u, acc[0], fixup_flag)) continue;
      }
      epilogue.store(acc, tile.m0 + wg_row0, tile.n0, tile, row_scales);
    }
    epilogue.finish();
  }
  // NOTES: no cluster-wide barrier at the end. The producer's tail keeps each CTA until the peers
  // are done with its barriers; a final barrier.cluster (release) made every thread wait for its
  // memory operations to complete, ~0.5 us per CTA at 1000^3 (bench/NOTES.md, "Small GEMMs").
#endif
}

}  // namespace tessel::gemm::kernel
