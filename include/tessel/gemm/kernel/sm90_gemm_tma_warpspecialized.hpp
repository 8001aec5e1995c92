#pragma once
// Hopper GEMM kernel: TMA loads, wgmma, warp specialization, persistent CTAs, optional clusters.
//
//   D(M,N,L) = fusion(A(M,K,L) * B(N,K,L)^T)     A and B K-major or MN-major; D row-major
//
// Each CTA has three warpgroups. Warpgroup 0 is the producer: one thread issues the TMA loads of A
// and B into a ring of Stages shared-memory buffers. Warpgroups 1 and 2 are consumers: they run
// wgmma over each stage, then hand the buffer back. Full and empty mbarriers carry the stages.
//
// Schedules (the consumers' division of labour):
//   cooperative: both consumers work on every tile, each on half of its BM rows;
//   ping-pong:   consumers take alternate tiles, each all BM rows, and take turns at the tensor
//                cores: one runs its mainloop while the other runs its epilogue.
// Clusters of ClusterM CTAs along M share B: each CTA loads 1/ClusterM of every B stage and
// multicasts it to all of them, so B crosses L2 -> SM once per cluster instead of once per CTA.

#if !defined(__CUDACC_RTC__)  // NVRTC: CUtensorMap comes from tma_sm90.hpp
#include <cuda.h>
#endif

#include <cstdint>
#include <type_traits>

#include "tessel/arch/cluster_sm90.hpp"
#include "tessel/arch/mbarrier_sm90.hpp"
#include "tessel/arch/tags.hpp"
#include "tessel/arch/tma_sm90.hpp"
#include "tessel/arch/wgmma_sm90.hpp"
#include "tessel/gemm/kernel/sm90_block_scales.hpp"
#include "tessel/gemm/kernel/sm90_params.hpp"
#include "tessel/gemm/kernel/sm90_stream_k.hpp"
#include "tessel/gemm/kernel/sm90_tile_scheduler.hpp"
#include "tessel/layout/swizzle.hpp"
#include "tessel/numeric.hpp"

namespace tessel::gemm::kernel {

struct KernelTmaWarpSpecializedCooperative {
  static constexpr bool kPingpong = false;
  static constexpr bool kPromote = false;
  static constexpr bool kBlockScaled = false;
  static constexpr char const* kName = "coop";
};
struct KernelTmaWarpSpecializedPingpong {
  static constexpr bool kPingpong = true;
  static constexpr bool kPromote = false;
  static constexpr bool kBlockScaled = false;
  static constexpr char const* kName = "pingpong";
};
/// FP8 with promoted accumulation: the cooperative schedule, where each K tile's wgmma (128 of K
/// for 8-bit types) starts from zero and its result is then added into f32 registers. FP8 wgmma
/// accumulates in the tensor core with fewer mantissa bits than f32 (the fast mode, what the
/// other schedules do); promotion bounds that error to one K tile's worth. It costs a second set
/// of accumulators (BN <= 128) and a wait for each K tile's wgmma before the next is issued.
struct KernelTmaWarpSpecializedCooperativeFP8Promoted {
  static constexpr bool kPingpong = false;
  static constexpr bool kPromote = true;
  static constexpr bool kBlockScaled = false;
  static constexpr char const* kName = "coop_promoted";
};
/// FP8 with per-block scales (sm90_block_scales.hpp): promoted accumulation, each K tile's partial
/// sum multiplied by its rows' A scales and its B block's scale on the way into the f32 registers.
struct KernelTmaWarpSpecializedCooperativeFP8BlockScaled {
  static constexpr bool kPingpong = false;
  static constexpr bool kPromote = true;
  static constexpr bool kBlockScaled = true;
  static constexpr char const* kName = "coop_blockscaled";
};

/// Where the boxes of one operand's stage come from and go to. Rows is the tile's extent in M
/// (for A) or N (for B); Split the number of CTAs that share the loading (the cluster, for B).
///   K-major:  Split boxes of (kSw elements of K) x (Rows/Split rows), stacked by rows;
///   MN-major: Rows/64 boxes of (64 elements of MN) x (BK rows of K), one per 64-wide chunk.
template <arch::Major Mj, int Rows, int BK, int Split>
struct OperandBoxes {
  static constexpr bool kK = Mj == arch::Major::K;
  static constexpr int kCount = kK ? Split : Rows / 64;
  static constexpr int kBoxInner = kK ? BK : 64;
  static constexpr int kBoxOuter = kK ? Rows / Split : BK;
  static constexpr int kChunkBytes = BK * 128;  // MN-major: bytes between 64-wide chunks
  TESSEL_HD static constexpr int smem_offset(int i) { return kK ? i * kBoxOuter * 128 : i * kChunkBytes; }
  /// (x, y) of box i of the tile whose first row is r0 and first K index k0.
  TESSEL_HD static constexpr int x(int i, int r0, int k0) { return kK ? k0 : r0 + 64 * i; }
  TESSEL_HD static constexpr int y(int i, int r0, int k0) { return kK ? r0 + i * kBoxOuter : k0; }
  /// Shared-memory byte offset of the 64 rows starting at `row` at K step `k` of a stage.
  TESSEL_HD static constexpr int mma_offset(int row, int k) { return kK ? row * 128 + k * 32 : (row / 64) * kChunkBytes + k * 2048; }
};

inline constexpr int kSm90SmemBytes = 227 * 1024;  // dynamic shared memory one CTA may have

// The TMA-store epilogue's shared memory: per consumer warpgroup, buffers of 64 rows x 128 bytes,
// two (one filled while the other drains) or, for the block-scaled kernels, one.
constexpr int sm90_tma_store_bytes(int buffers) { return 2 * buffers * 64 * 128; }
inline constexpr int kSm90TmaStoreBytes = sm90_tma_store_bytes(2);
/// NOTES: the block-scaled kernels store D through one buffer per warpgroup: the 16 KB it frees
/// (with the scale ring's) make room for a sixth stage, which gained more than the second buffer
/// saved (bench/NOTES.md, FP8 per-block scales, v5).
constexpr int sm90_epilogue_buffers(bool block_scaled) { return block_scaled ? 1 : 2; }

/// Shared memory of a kernel of `stages` stages of BM x 128 and BN x 128 bytes: the stages, the
/// block scales' ring, the TMA store's buffers, the barriers (full and empty per stage, the
/// fixup's flag) and 1024 bytes of slack (the base is aligned up to the swizzle's 1024-byte period
/// inside the kernel). One formula for the kernel, the builder and the Python package's rules.
constexpr int sm90_smem_bytes(int stages, int bm, int bn, bool block_scaled, bool tma_store_d) {
  return stages * (bm + bn) * 128 + (block_scaled ? sm90_scale_ring_bytes(bm, stages) : 0) +
         (tma_store_d ? sm90_tma_store_bytes(sm90_epilogue_buffers(block_scaled)) : 0) + 2 * stages * 8 + 16 + 1024;
}
/// The most stages, from 2 to `most`, that fit (0 where not even 2 do).
constexpr int sm90_fitting_stages(int most, int bm, int bn, bool block_scaled, bool tma_store_d) {
  for (int s = most; s >= 2; --s)
    if (sm90_smem_bytes(s, bm, bn, block_scaled, tma_store_d) <= kSm90SmemBytes) return s;
  return 0;
}

template <class ElementA_, class ElementB_, arch::Major MajorA_, arch::Major MajorB_, int TileM, int TileN, int StageCount,
          int ClusterM_, class Schedule_, bool StreamK_ = false, bool TmaStoreD_ = false, bool Grouped_ = false>
struct Sm90KernelConfig {
  static constexpr bool kStreamK = StreamK_;  // units of work from a Decomposition (split-K, stream-K)
  static constexpr bool kGrouped = Grouped_;  // the tiles of G problems of one N and K (sm90_grouped.hpp)
  // D through shared memory and TMA stores (128-byte rows, swizzled), instead of straight from
  // registers: whole 128-byte lines per store, and the store drains while the next tile runs.
  static constexpr bool kTmaStoreD = TmaStoreD_;
  static constexpr int kEpilogueBuffers = sm90_epilogue_buffers(Schedule_::kBlockScaled);
  static constexpr int kEpilogueBytes = kTmaStoreD ? sm90_tma_store_bytes(kEpilogueBuffers) : 0;
  using ElementA = ElementA_;
  using ElementB = ElementB_;
  using Schedule = Schedule_;
  static constexpr arch::Major MajorA = MajorA_, MajorB = MajorB_;
  static constexpr int BM = TileM, BN = TileN, Stages = StageCount, ClusterM = ClusterM_;
  static_assert(std::is_same_v<ElementA, ElementB>, "sm90 kernel: A and B must have the same element type");
  static constexpr int kElemBytes = sizeof(ElementA);
  static constexpr int BK = 128 / kElemBytes;  // one 128-byte swizzle row of K per stage
  static constexpr bool kPingpong = Schedule::kPingpong;
  static constexpr bool kPromote = Schedule::kPromote;
  static constexpr bool kBlockScaled = Schedule::kBlockScaled;
  static constexpr int kWgRows = kPingpong ? BM : BM / 2;  // rows one consumer warpgroup computes
  static constexpr int kMmaM = kWgRows / 64;
  static_assert(kWgRows % 64 == 0 && kMmaM >= 1,
                "sm90 kernel: each consumer warpgroup needs a multiple of 64 rows: BM must be 128 or 256 for the cooperative "
                "schedule, 64 or 128 for ping-pong");
  static_assert(BN == 64 || BN == 128 || BN == 192 || BN == 256, "sm90 kernel: BN must be 64, 128, 192 or 256 (a wgmma N)");
  static_assert(kMmaM * BN / 2 <= 128,
                "sm90 kernel: a consumer warpgroup would hold more than 128 accumulators per thread: use a smaller tile (or the "
                "cooperative schedule, which splits BM between the two consumers)");
  static_assert(ClusterM == 1 || ClusterM == 2, "sm90 kernel: clusters of 1 or 2 CTAs along M");
  static_assert(!kPromote || sizeof(ElementA) == 1,
                "sm90 kernel: promoted accumulation is for FP8 (e4m3, e5m2); 16-bit types accumulate in f32 already");
  static_assert(!kPromote || (kMmaM * BN / 2 <= 64 && !StreamK_),
                "sm90 kernel: promoted accumulation keeps a second set of accumulators: BN <= 128 with BM = 128, no split-K");
  static_assert(!kBlockScaled || (BK == kBlockScaleK && kBlockScaleN % BN == 0),
                "sm90 kernel: block scales cover 128 of K (one K tile of 8-bit types) and 128 columns: BN must be 64 or 128");
  static_assert(!kStreamK || (!kPingpong && ClusterM == 1 && kMmaM == 1),
                "sm90 kernel: split-K and stream-K run with the cooperative schedule, BM = 128 and no cluster");
  static_assert(!kGrouped || (!kPingpong && !kStreamK && ClusterM == 1),
                "sm90 kernel: grouped GEMM runs with the cooperative schedule, the persistent scheduler and no cluster");
  static constexpr int kThreads = 384;
  static constexpr int kStageBytesA = BM * 128, kStageBytesB = BN * 128;
  using BoxesA = OperandBoxes<MajorA, BM, BK, 1>;
  using BoxesB = OperandBoxes<MajorB, BN, BK, ClusterM>;
  static_assert(BoxesB::kCount % ClusterM == 0 && BoxesB::kBoxOuter % 8 == 0,
                "sm90 kernel: B's stage must split evenly among the cluster's CTAs (an N-major B needs BN >= 64 * ClusterM)");
  using Mma = arch::Wgmma<ElementA, BN, MajorA, MajorB>;
  // Block-scaled kernels: the scales' own ring (sm90_block_scales.hpp), floats and barriers.
  using ScaleRing = Sm90ScaleRing<BM, Stages>;
  static_assert(!kBlockScaled || (ClusterM == 1 && !kStreamK),
                "sm90 kernel: block-scaled FP8 runs without clusters and split-K (whole tiles, one CTA each)");
  static constexpr int kScaleBytes = kBlockScaled ? ScaleRing::kBytes : 0;
  static constexpr int kSmemBytes = sm90_smem_bytes(Stages, BM, BN, kBlockScaled, kTmaStoreD);
};

// Sm90GemmParams, the parameter block: sm90_params.hpp.

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

/// Where the tile of a unit lies: through the raster (one problem, or a batch of equal ones) or
/// through the groups' cursor (grouped kernels). False past the last group's tiles.
template <class Cfg>
struct Sm90TilePlacer {
  Sm90TileScheduler const& sched;
  int rank, m;
  GroupCursor<Cfg::BM, Cfg::BN> cursor{sched.groups};
  TESSEL_HD bool place(int id, GroupedTile& t) {
    if constexpr (Cfg::kGrouped) {
      return cursor.seek(id, t);
    } else {
      TileCoord3 const c = sched.tile(id);
      t = {(c.m * Cfg::ClusterM + rank) * Cfg::BM, m, c.n * Cfg::BN, c.l, c.l};
      return true;
    }
  }
};

/// The 128-byte swizzle of TMA and wgmma on byte offsets, as a layout function of the algebra.
using Sw128 = Swizzle<3, 4, 3>;

template <class T>
struct alignas(2 * sizeof(T)) Pair {
  T x, y;
};


#if defined(__CUDACC__)
/// Two floats rounded to nearest even into one 32-bit pair of 16-bit values, `lo` in the low half:
/// one cvt instruction instead of one per value and a third to pack them.
template <class T>
__device__ __forceinline__ std::uint32_t round_pair(float lo, float hi) {
  static_assert(std::is_same_v<T, bfloat16_t> || std::is_same_v<T, half_t>, "round_pair: bf16 or f16");
  std::uint32_t r;
  if constexpr (std::is_same_v<T, bfloat16_t>) asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  else asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

/// Epilogue straight from the accumulator registers (layout in wgmma_sm90.hpp): registers 4c+2h
/// and 4c+2h+1 are two neighbouring columns of one row, stored as one pair where the pair is
/// inside the problem and aligned. row0 is the first tile row of the calling warpgroup.
template <class Cfg, class Fusion, class Acc>
__device__ __forceinline__ void store_tile_direct(Sm90GemmParams<Fusion> const& p, typename Fusion::Callbacks& epi, Acc& acc,
                                                  int row0, int n0, int batch, int m_end) {
  using ElementD = typename Fusion::ElementOutput;
  int const t = int(threadIdx.x) % 128, w = t / 32, l = t % 32;
  ElementD* d_batch = p.D + batch * p.batch_stride_D;
  // Strides of D's rows and columns: (ldd, 1), or (1, ldd) where D is column-major.
  std::int64_t const row_stride = p.d_column_major ? 1 : p.ldd, col_stride = p.d_column_major ? p.ldd : 1;
#pragma unroll
  for (int i = 0; i < Cfg::kMmaM; ++i)
#pragma unroll
    for (int c8 = 0; c8 < Cfg::BN / 8; ++c8)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        int r = row0 + 64 * i + 16 * w + l / 4 + 8 * h;
        int c = n0 + 8 * c8 + 2 * (l % 4);
        if (r >= m_end || c >= p.n) continue;
        ElementD* dst = d_batch + std::int64_t(r) * row_stride + std::int64_t(c) * col_stride;
        ElementD v0 = epi.visit(r, c, batch, acc[i][4 * c8 + 2 * h]);
        if (c + 1 < p.n) {
          ElementD v1 = epi.visit(r, c + 1, batch, acc[i][4 * c8 + 2 * h + 1]);
          if (p.pairs_aligned) {
            *reinterpret_cast<Pair<ElementD>*>(dst) = {v0, v1};
          } else {
            dst[0] = v0;
            dst[col_stride] = v1;
          }
        } else {
          dst[0] = v0;
        }
      }
}

/// Epilogue through shared memory: the warpgroup's 64 x BN rows go out in subtiles of 64 rows x
/// 128 bytes (W = 128 / sizeof(D) columns), each written into one of two swizzled buffers and
/// sent by one TMA store; a buffer is refilled once the store issued from it two subtiles ago
/// has read it. Only for a warpgroup's rows wholly inside the problem: edge tiles go through
/// store_tile_direct.
/// NOTES: without per-element bounds checks (and their branches) the compiler issues a
/// subtile's global loads (bias, C) together instead of waiting out each one's latency in turn;
/// with two warps per scheduler in the cooperative epilogue that latency, more than the
/// instruction count, set the fused epilogue's cost. A second, checked copy of this loop for
/// edge tiles made ptxas spill the plain kernels, hence the direct path for those.
/// NOTES: Sw128 = Swizzle<3,4,3> on byte offsets (16-byte chunk j of row r lands at chunk
/// j ^ (r % 8)) is the 128-byte pattern TMA reads with; it also spreads a warp's 8 rows over all
/// banks.
template <class Cfg, class Fusion, class Acc>
__device__ __forceinline__ void store_tile_tma(Sm90GemmParams<Fusion> const& p, typename Fusion::Callbacks& epi, Acc& acc,
                                               char* buffers, int& next_buffer, int row0, int n0, int batch, int wg,
                                               bool leader) {
  using ElementD = typename Fusion::ElementOutput;
  constexpr int W = 128 / int(sizeof(ElementD));
  static_assert(Cfg::BN % W == 0, "TMA-store epilogue: BN must be a multiple of a 128-byte row of D");
  // A fusion that ends in a plain rounding to a 16-bit type can hand over its values unrounded.
  constexpr bool kRoundPairs = (std::is_same_v<ElementD, bfloat16_t> || std::is_same_v<ElementD, half_t>) &&
                               requires(typename Fusion::Callbacks const& e) { e.visit_unrounded(0, 0, 0, 0.f); };
  int const t = int(threadIdx.x) % 128, w = t / 32, l = t % 32;
  auto sync = [wg] { asm volatile("bar.sync %0, 128;\n" ::"r"(4 + wg) : "memory"); };
#pragma unroll
  for (int i = 0; i < Cfg::kMmaM; ++i)
#pragma unroll
    for (int sub = 0; sub < Cfg::BN / W; ++sub) {
      char* buf = buffers + next_buffer * 8192;
      // Two buffers: the store before last must have read its buffer; one: the last store.
      if constexpr (Cfg::kEpilogueBuffers == 2) {
        next_buffer ^= 1;
        if (leader) arch::tma_store_wait_read<1>();
      } else {
        if (leader) arch::tma_store_wait_read<0>();
      }
      sync();
      // Constant trip counts at every level: the accumulator indices must fold to constants,
      // or the accumulators move to local memory.
#pragma unroll
      for (int j = 0; j < W / 8; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          int const c8 = sub * (W / 8) + j;
          int rl = 16 * w + l / 4 + 8 * h;  // row within the 64
          int cl = 8 * j + 2 * (l % 4);     // column within the subtile
          int r = row0 + 64 * i + rl, c = n0 + 8 * c8 + 2 * (l % 4);
          char* dst = buf + Sw128::apply(rl * 128 + cl * int(sizeof(ElementD)));
          float const a0 = acc[i][4 * c8 + 2 * h], a1 = acc[i][4 * c8 + 2 * h + 1];
          if constexpr (kRoundPairs) {
            *reinterpret_cast<std::uint32_t*>(dst) =
                round_pair<ElementD>(epi.visit_unrounded(r, c, batch, a0), epi.visit_unrounded(r, c + 1, batch, a1));
          } else {
            *reinterpret_cast<Pair<ElementD>*>(dst) = {epi.visit(r, c, batch, a0), epi.visit(r, c + 1, batch, a1)};
          }
        }
      arch::fence_proxy_async_shared();  // the writes above, before the TMA store reads them
      sync();
      if (leader) {
        arch::tma_store_3d(&p.tma_d, buf, n0 + sub * W, row0 + 64 * i, batch);
        arch::tma_store_commit();
      }
    }
}
#endif

template <class Cfg, class Fusion>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    sm90_gemm_tma_warpspecialized(const __grid_constant__ CUtensorMap tma_a, const __grid_constant__ CUtensorMap tma_b,
                                  const __grid_constant__ Sm90GemmParams<Fusion> p) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using ElementD = typename Fusion::ElementOutput;
  using Mma = typename Cfg::Mma;
  using BoxesA = typename Cfg::BoxesA;
  using BoxesB = typename Cfg::BoxesB;
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, Stages = Cfg::Stages, ClusterM = Cfg::ClusterM;
  extern __shared__ char smem_raw[];
  // NOTES: aligned by an offset from smem_raw, not by rounding the address as an integer: the
  // pointer then stays known to be in shared memory and the epilogue's stores compile to STS,
  // not to generic stores (which also stop the compiler from hoisting global loads above them).
  char* smem = smem_raw + ((1024u - (arch::cvta_to_shared(smem_raw) & 1023u)) & 1023u);
  char* smem_a = smem;                               // [Stages][BM x 128 bytes]
  char* smem_b = smem + Stages * Cfg::kStageBytesA;  // [Stages][BN x 128 bytes]
  char* smem_d = smem_b + Stages * Cfg::kStageBytesB;  // [2 warpgroups][kEpilogueBuffers][64 x 128 bytes]
  auto* smem_sf = reinterpret_cast<float*>(smem_d + Cfg::kEpilogueBytes);  // block scales: [kSlots][ScaleRing::kSlotFloats]
  auto* full = reinterpret_cast<std::uint64_t*>(smem_d + Cfg::kEpilogueBytes + Cfg::kScaleBytes);
  auto* empty = full + Stages;
  auto* fixup_flag = reinterpret_cast<int*>(empty + Stages);
  using ScaleRing = typename Cfg::ScaleRing;
  auto* scale_full = reinterpret_cast<std::uint64_t*>(fixup_flag + 4);  // block-scaled kernels: [kSlots] each
  auto* scale_empty = scale_full + ScaleRing::kSlots;

  int const warpgroup = int(threadIdx.x) / 128;
  int const k_tiles = (p.k + BK - 1) / BK;
  int const tile_count = p.sched.tile_count();
  int const cluster = int(blockIdx.x) / ClusterM, clusters = int(gridDim.x) / ClusterM;
  int const rank = ClusterM > 1 ? int(arch::cluster_cta_rank()) : 0;
  Sm90WorkWalk<Cfg::kStreamK> const walk{cluster, clusters, tile_count, k_tiles, &p.dec};
  int const units = walk.count();
  // NOTES: a stage may be refilled once every consumer that reads it is done: both consumer
  // warpgroups (cooperative) or one (ping-pong), in every CTA of the cluster, since a CTA's
  // multicast writes into all of them.
  constexpr int kReleases = (Cfg::kPingpong ? 1 : 2) * ClusterM;

  if (threadIdx.x == 0) {
    arch::tma_prefetch_descriptor(&tma_a);
    arch::tma_prefetch_descriptor(&tma_b);
    if constexpr (Cfg::kTmaStoreD) arch::tma_prefetch_descriptor(&p.tma_d);
    for (int s = 0; s < Stages; ++s) {
      arch::mbarrier_init(&full[s], 1);  // the producer's arrive (the bytes come from TMA)
      arch::mbarrier_init(&empty[s], kReleases);
    }
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
  // The peer CTAs' multicasts land on this CTA's barriers: they must be initialised first.
  if constexpr (ClusterM > 1) arch::cluster_sync();
  else __syncthreads();

  // Each cluster walks the cluster tiles cluster, cluster + clusters, ...; its CTA of rank r takes
  // row tile ClusterM * tile.m + r. The ring of stages runs on across tiles (`it` counts K tiles
  // over all of the CTA's tiles), so the producer fetches the next tile while the consumers run
  // the epilogue.
  if (warpgroup == 0) {
    // Producer. NOTES: it needs few registers; giving them up lets the consumers hold their
    // accumulators without spilling.
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
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
    // A fresh barrier counts as having completed the phase before its first one, so the first
    // pass over the ring does not wait: the buffers start empty.
    auto wait_empty = [&](int it) { arch::mbarrier_wait(&empty[it % Stages], ((it / Stages) & 1) ^ 1); };
    // Block-scaled kernels: the same for the scale ring's slots, `groups` counting the groups
    // loaded over all of the CTA's tiles.
    int groups = 0;
    auto wait_scale_slot = [&](int g) {
      arch::mbarrier_wait(&scale_empty[g % ScaleRing::kSlots], ((g / ScaleRing::kSlots) & 1) ^ 1);
    };
    if (threadIdx.x == 0) {
      for_each_k_tile([&](GroupedTile const& tile, int kt, int it) {
        int const s = it % Stages, m0 = tile.m0, n0 = tile.n0;
        wait_empty(it);
        arch::mbarrier_arrive_expect_tx(&full[s], Cfg::kStageBytesA + Cfg::kStageBytesB);
        char* sa = smem_a + s * Cfg::kStageBytesA;
        char* sb = smem_b + s * Cfg::kStageBytesB;
#pragma unroll
        for (int i = 0; i < BoxesA::kCount; ++i)
          arch::tma_load_3d(sa + BoxesA::smem_offset(i), &tma_a, &full[s], BoxesA::x(i, m0, kt * BK), BoxesA::y(i, m0, kt * BK),
                            tile.l);
#pragma unroll
        for (int i = 0; i < BoxesB::kCount; ++i) {
          if (i % ClusterM != rank) continue;
          int x = BoxesB::x(i, n0, kt * BK), y = BoxesB::y(i, n0, kt * BK);
          if constexpr (ClusterM > 1)
            arch::tma_load_3d_multicast(sb + BoxesB::smem_offset(i), &tma_b, &full[s], x, y, tile.group, (1u << ClusterM) - 1);
          else
            arch::tma_load_3d(sb + BoxesB::smem_offset(i), &tma_b, &full[s], x, y, tile.group);
        }
        if constexpr (Cfg::kBlockScaled) {
          if (p.scales.by_tma && ScaleRing::starts_group(kt)) {
            int const j = groups % ScaleRing::kSlots;
            wait_scale_slot(groups++);
            ScaleRing::load_tma(p.scales, smem_sf + j * ScaleRing::kSlotFloats, &scale_full[j], tile, kt);
          }
        }
      });
    } else if (Cfg::kBlockScaled && !p.scales.by_tma && threadIdx.x / 32 == 1) {
      // The scale warp: each group of block scales, on the scale ring (sm90_block_scales.hpp).
      int const lane = int(threadIdx.x) % 32;
      for_each_k_tile([&](GroupedTile const& tile, int kt, int) {
        if (!ScaleRing::starts_group(kt)) return;
        int const j = groups % ScaleRing::kSlots;
        wait_scale_slot(groups++);
        ScaleRing::load(p.scales, smem_sf + j * ScaleRing::kSlotFloats, &scale_full[j], tile, kt, k_tiles, lane);
      });
    }
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
    int const wg = warpgroup - 1;
    int const wg_row0 = Cfg::kPingpong ? 0 : wg * Cfg::kWgRows;  // first tile row this warpgroup computes
    bool const leader = threadIdx.x % 128 == 0;
    auto release = [&](int s) {
      if constexpr (ClusterM > 1) {
        for (int r = 0; r < ClusterM; ++r) arch::mbarrier_arrive_cluster(&empty[s], r);
      } else {
        arch::mbarrier_arrive(&empty[s]);
      }
    };
    typename Fusion::Callbacks epi(p.epi);
    int epilogue_buffer = 0;  // TMA-store epilogues: which of the warpgroup's buffers is next
    int scale_groups = 0, shift_b = 0;  // block-scaled kernels: groups consumed, and B's shift in the current one
    // j numbers this CTA's units 0, 1, 2, ...; ping-pong consumers take alternate ones (whole
    // tiles, so unit j starts at k-tile j * k_tiles of the ring).
    constexpr int kStep = Cfg::kPingpong ? 2 : 1;
    int it = 0;
    Sm90TilePlacer<Cfg> placer{p.sched, rank, p.m};
    for (int j = Cfg::kPingpong ? wg : 0; j < units; j += kStep) {
      WorkUnit const u = walk.unit(j);
      GroupedTile tile;
      if (!placer.place(u.tile, tile)) break;
      int const m0 = tile.m0, n0 = tile.n0;
      // NOTES: ping-pong consumers take turns at the mainloop (named barriers 1 and 2: "consumer
      // wg may start"). Besides overlapping one's epilogue with the other's math, the turn order
      // is what makes the parity waits below sound: a consumer never waits on a stage whose
      // previous phase the other consumer has not yet seen completed.
      if constexpr (Cfg::kPingpong) {
        if (j >= 1) asm volatile("bar.sync %0, 256;\n" ::"r"(1 + wg) : "memory");
      }
      float acc[Cfg::kMmaM][Mma::kAccumulators];
#pragma unroll
      for (int i = 0; i < Cfg::kMmaM; ++i) {
#pragma unroll
        for (int v = 0; v < Mma::kAccumulators; ++v) acc[i][v] = 0.f;
        arch::wgmma_fence_registers(acc[i]);
      }
      if constexpr (Cfg::kPingpong) it = j * k_tiles;
      // The wgmma of one K tile (stage s): accumulate into acc, or start from zero when `fresh`.
      auto mma_k_tile = [&](int s, bool fresh) {
        char const* sa = smem_a + s * Cfg::kStageBytesA;
        char const* sb = smem_b + s * Cfg::kStageBytesB;
        arch::wgmma_fence();
#pragma unroll
        for (int k = 0; k < BK / Mma::kK; ++k) {
          auto desc_b = arch::wgmma_desc_sw128<Cfg::MajorB>(sb + BoxesB::mma_offset(0, k), BoxesB::kChunkBytes);
#pragma unroll
          for (int i = 0; i < Cfg::kMmaM; ++i) {
            auto desc_a = arch::wgmma_desc_sw128<Cfg::MajorA>(sa + BoxesA::mma_offset(wg_row0 + 64 * i, k), BoxesA::kChunkBytes);
            Mma::mma(acc[i], desc_a, desc_b, (!fresh || k > 0) ? 1 : 0);
          }
        }
        arch::wgmma_commit_group();
      };
      if constexpr (Cfg::kPromote) {
        // NOTES: each K tile's partial sum is read as soon as its wgmma is done (wait 0), so no
        // wgmma stays in flight across K tiles; the other consumer warpgroup's wgmma keeps the
        // tensor cores busy meanwhile.
        float total[Cfg::kMmaM][Mma::kAccumulators];
#pragma unroll
        for (int i = 0; i < Cfg::kMmaM; ++i)
#pragma unroll
          for (int v = 0; v < Mma::kAccumulators; ++v) total[i][v] = 0.f;
        Sm90ThreadScales<Cfg::kMmaM, BM> scale;
        int const t = int(threadIdx.x) % 128, thread_row0 = wg_row0 + 16 * (t / 32) + (t % 32) / 4;
        // NOTES: the stage and its phase advance by one each K tile rather than being divided
        // out of `it` each time: the division sat on the path from one K tile's wait to the next.
        int s = it % Stages, phase = (it / Stages) & 1;
        // Block-scaled kernels: the K tile's place in its scale group (groups start with the
        // tile: these kernels take whole tiles), and the group's scales.
        [[maybe_unused]] int g = 0;
        [[maybe_unused]] float const* group_scales = smem_sf;
        for (int kt = u.k_begin; kt < u.k_end; ++kt, ++it) {
          arch::mbarrier_wait(&full[s], phase);
          mma_k_tile(s, /*fresh=*/true);
          // Block-scaled kernels: this K tile's scales, from its group's slot. NOTES: waited for
          // and read while the wgmma runs (the slot's barrier is its own, so a late group holds
          // up only the scaling, not the wgmma); the slot goes back after the group's last K tile,
          // from every warp once its reads are done.
          if constexpr (Cfg::kBlockScaled) {
            if (g == 0) {
              int const slot = scale_groups % ScaleRing::kSlots;
              arch::mbarrier_wait(&scale_full[slot], (scale_groups / ScaleRing::kSlots) & 1);
              shift_b = ScaleRing::shift_b(p.scales, tile, kt);
              group_scales = smem_sf + slot * ScaleRing::kSlotFloats;
            }
            scale.template read<ScaleRing>(group_scales, g, shift_b, thread_row0);
          }
          arch::wgmma_wait_group<0>();
#pragma unroll
          for (int i = 0; i < Cfg::kMmaM; ++i) arch::wgmma_fence_registers(acc[i]);
          if (leader) release(s);
#pragma unroll
          for (int i = 0; i < Cfg::kMmaM; ++i)
#pragma unroll
            for (int v = 0; v < Mma::kAccumulators; ++v) {
              if constexpr (Cfg::kBlockScaled) total[i][v] += acc[i][v] * scale(i, v);
              else total[i][v] += acc[i][v];
            }
          if constexpr (Cfg::kBlockScaled) {
            if (g == ScaleRing::G - 1 || kt == u.k_end - 1) {
              __syncwarp();
              if (threadIdx.x % 32 == 0) arch::mbarrier_arrive(&scale_empty[scale_groups % ScaleRing::kSlots]);
              ++scale_groups;
              g = 0;
            } else {
              ++g;
            }
          }
          if (++s == Stages) {
            s = 0;
            phase ^= 1;
          }
        }
#pragma unroll
        for (int i = 0; i < Cfg::kMmaM; ++i)
#pragma unroll
          for (int v = 0; v < Mma::kAccumulators; ++v) acc[i][v] = total[i][v];
      } else {
        for (int kt = u.k_begin; kt < u.k_end; ++kt, ++it) {
          int s = it % Stages;
          arch::mbarrier_wait(&full[s], (it / Stages) & 1);
          mma_k_tile(s, /*fresh=*/kt == u.k_begin);
          // Keep this K tile's wgmma in flight; once the previous one has finished, its stage is
          // free for the producer.
          arch::wgmma_wait_group<1>();
          if (kt > u.k_begin && leader) release((it - 1) % Stages);
        }
        arch::wgmma_wait_group<0>();
#pragma unroll
        for (int i = 0; i < Cfg::kMmaM; ++i) arch::wgmma_fence_registers(acc[i]);
        if (leader) release((it - 1) % Stages);
      }
      if constexpr (Cfg::kPingpong) {
        if (j + 1 < units) asm volatile("bar.arrive %0, 256;\n" ::"r"(1 + (1 - wg)) : "memory");
      }
      if constexpr (Cfg::kStreamK) {
        // A unit that covers part of its tile's K hands its partial sum to the fixup; only the
        // unit that completes the tile goes on to the epilogue (sm90_stream_k.hpp).
        if (!u.whole_tile() && !sm90_fixup_partial_tile(p.ws, p.dec, u, acc[0], fixup_flag)) continue;
      }

      bool via_tma = false;
      if constexpr (Cfg::kTmaStoreD) via_tma = p.tma_store_d && m0 + wg_row0 + 64 * Cfg::kMmaM <= tile.m_end && n0 + BN <= p.n;
      if (via_tma) {
        auto store = [&] {
          store_tile_tma<Cfg>(p, epi, acc, smem_d + wg * Cfg::kEpilogueBuffers * 8192, epilogue_buffer, m0 + wg_row0, n0, tile.l, wg, leader);
        };
        // NOTES: a fusion that can say whether it reads C (beta != 0) gets a copy of the store
        // loop in which it does not: the test there is known false, and the per-element C loads,
        // conversions and beta * C multiply-adds, which ptxas otherwise if-converts into
        // predicated loads plus unconditional math, drop out (a third of the plain epilogue).
        if constexpr (requires { epi.reads_source(); }) {
          if (epi.reads_source()) store();
          else store();
        } else {
          store();
        }
      } else {
        store_tile_direct<Cfg>(p, epi, acc, m0 + wg_row0, n0, tile.l, tile.m_end);
      }
    }
    epi.finish();
    if constexpr (Cfg::kTmaStoreD) {
      if (leader) arch::tma_store_wait_all();  // D is written before the CTA retires
    }
  }
  // No CTA may leave while a peer can still multicast into its shared memory or arrive on its
  // barriers.
  if constexpr (ClusterM > 1) arch::cluster_sync();
#endif
}

}  // namespace tessel::gemm::kernel
