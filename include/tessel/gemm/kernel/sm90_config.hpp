#pragma once
// The Hopper kernel's compile-time configuration (CUTLASS's dispatch policy): the schedule tags,
// how a stage's operand boxes lie, the shared-memory budget, Sm90KernelConfig, and the CTA's
// roles, register budgets and named barriers. Types and constants, no kernel: the collective
// builder, the collectives and the kernel include it, and the Python package's rules mirror it
// (generated sources assert them against it).

#include <type_traits>

#include "tessel/arch/tags.hpp"
#include "tessel/arch/wgmma_sm90.hpp"
#include "tessel/gemm/kernel/sm90_block_scale_rules.hpp"
#include "tessel/gemm/kernel/sm90_block_scales.hpp"
#include "tessel/layout/swizzle.hpp"
#include "tessel/numeric.hpp"

namespace tessel::gemm::kernel {

/// What a schedule tag says about the kernel: the ping-pong schedule (one consumer warpgroup per
/// tile, taking turns) or the cooperative one (two on one tile); promoted accumulation; per-block
/// scales. Each tag adds its name, part of kernel names.
template <bool Pingpong, bool Promote, bool BlockScaled>
struct Sm90ScheduleTraits {
  static constexpr bool kPingpong = Pingpong;
  static constexpr bool kPromote = Promote;
  static constexpr bool kBlockScaled = BlockScaled;
};

struct KernelTmaWarpSpecializedCooperative : Sm90ScheduleTraits<false, false, false> {
  static constexpr char const* kName = "coop";
};
struct KernelTmaWarpSpecializedPingpong : Sm90ScheduleTraits<true, false, false> {
  static constexpr char const* kName = "pingpong";
};
/// FP8 with promoted accumulation: the cooperative schedule, where each K tile's wgmma (128 of K
/// for 8-bit types) starts from zero and its result is then added into f32 registers. FP8 wgmma
/// accumulates in the tensor core with fewer mantissa bits than f32 (the fast mode, what the
/// other schedules do); promotion bounds that error to one K tile's worth. It costs a second set
/// of accumulators (BN <= 192) and a wait for each K tile's wgmma before the next is issued.
struct KernelTmaWarpSpecializedCooperativeFP8Promoted : Sm90ScheduleTraits<false, true, false> {
  static constexpr char const* kName = "coop_promoted";
};
/// FP8 with per-block scales (sm90_block_scales.hpp): promoted accumulation, each K tile's partial
/// sum multiplied by its rows' A scales and its B block's scale on the way into the f32 registers.
struct KernelTmaWarpSpecializedCooperativeFP8BlockScaled : Sm90ScheduleTraits<false, true, true> {
  static constexpr char const* kName = "coop_blockscaled";
};

/// Where the boxes of one operand's stage come from and go to. Rows is the tile's extent in M
/// (for A) or N (for B); Split the number of CTAs that share the loading (the cluster's CTAs
/// along N for A, along M for B).
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
  /// mma_offset(row0 + 64 * i, k) - mma_offset(row0, 0) for any row0 that is a multiple of 64: a
  /// constant, so that a K tile's wgmma descriptors are one base plus constants.
  TESSEL_HD static constexpr int mma_step(int i, int k) { return kK ? i * 64 * 128 + k * 32 : i * kChunkBytes + k * 2048; }
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
inline constexpr int kSm90StageBarrierBytes = 2 * 8;  // a stage's full and empty mbarriers
inline constexpr int kSm90FixedSmemBytes = 16 + 1024;  // the fixup's flag, the alignment slack
constexpr int sm90_smem_bytes(int stages, int bm, int bn, bool block_scaled, bool tma_store_d) {
  return stages * (bm + bn) * 128 + (block_scaled ? sm90_scale_ring_bytes(bm, bn, stages) : 0) +
         (tma_store_d ? sm90_tma_store_bytes(sm90_epilogue_buffers(block_scaled)) : 0) + stages * kSm90StageBarrierBytes +
         kSm90FixedSmemBytes;
}
/// The most stages, from 2 to `most`, that fit (0 where not even 2 do).
constexpr int sm90_fitting_stages(int most, int bm, int bn, bool block_scaled, bool tma_store_d) {
  for (int s = most; s >= 2; --s)
    if (sm90_smem_bytes(s, bm, bn, block_scaled, tma_store_d) <= kSm90SmemBytes) return s;
  return 0;
}

template <class ElementA_, class ElementB_, arch::Major MajorA_, arch::Major MajorB_, int TileM, int TileN, int StageCount,
          int ClusterM_, int ClusterN_, class Schedule_, bool StreamK_ = false, bool TmaStoreD_ = false, bool Grouped_ = false,
          bool RowwiseScales_ = false>
struct Sm90KernelConfig {
  static constexpr bool kStreamK = StreamK_;  // units of work from a Decomposition (split-K, stream-K)
  static constexpr bool kGrouped = Grouped_;  // the tiles of G problems of one N and K (grouped.hpp)
  // Row-wise scales (torch._scaled_mm's and torch._scaled_grouped_mm's row-wise recipe): each
  // accumulator times a scale of its row of A and of its column of D (a row of B), read by the
  // epilogue from p.scales before the fusion sees the value
  // (collective/sm90_epilogue_tma_warpspecialized.hpp, Sm90RowScales).
  static constexpr bool kRowwiseScales = RowwiseScales_;
  // D through shared memory and TMA stores (128-byte rows, swizzled), instead of straight from
  // registers: whole 128-byte lines per store, and the store drains while the next tile runs.
  static constexpr bool kTmaStoreD = TmaStoreD_;
  static constexpr int kEpilogueBuffers = sm90_epilogue_buffers(Schedule_::kBlockScaled);
  static constexpr int kEpilogueBytes = kTmaStoreD ? sm90_tma_store_bytes(kEpilogueBuffers) : 0;
  using ElementA = ElementA_;
  using ElementB = ElementB_;
  using Schedule = Schedule_;
  static constexpr arch::Major MajorA = MajorA_, MajorB = MajorB_;
  static constexpr int BM = TileM, BN = TileN, Stages = StageCount, ClusterM = ClusterM_, ClusterN = ClusterN_;
  // The cluster is launched one-dimensional, kClusterSize CTAs along x; rank r is the CTA at
  // (r % ClusterM, r / ClusterM) of the ClusterM x ClusterN block of tiles (Sm90ClusterRank).
  static constexpr int kClusterSize = ClusterM * ClusterN;
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
  static_assert((ClusterM == 1 || ClusterM == 2) && (ClusterN == 1 || ClusterN == 2),
                "sm90 kernel: clusters of 1 or 2 CTAs along M by 1 or 2 along N");
  static_assert(!kPromote || sizeof(ElementA) == 1,
                "sm90 kernel: promoted accumulation is for FP8 (e4m3, e5m2); 16-bit types accumulate in f32 already");
  // NOTES: 2 x 96 accumulators at 128x192 compile without spills in the 232-register budget.
  static_assert(!kPromote || (kMmaM * BN / 2 <= 96 && !StreamK_),
                "sm90 kernel: promoted accumulation keeps a second set of accumulators: BN <= 192 with BM = 128, no split-K");
  static_assert(!kBlockScaled || (BK == kBlockScaleK && (kBlockScaleN % BN == 0 || BN == 192)),
                "sm90 kernel: block scales cover 128 of K (one K tile of 8-bit types) and 128 columns: BN must be 64 or 128 "
                "(one block of B's scales per tile) or 192 (two)");
  static_assert(!kStreamK || (!kPingpong && kClusterSize == 1 && kMmaM == 1),
                "sm90 kernel: split-K and stream-K run with the cooperative schedule, BM = 128 and no cluster");
  static_assert(!kGrouped || (!kPingpong && !kStreamK && kClusterSize == 1),
                "sm90 kernel: grouped GEMM runs with the cooperative schedule, the persistent scheduler and no cluster");
  static constexpr int kThreads = 384;
  static constexpr int kStageBytesA = BM * 128, kStageBytesB = BN * 128;
  // A's stage is the same in the CTAs of one row of the cluster (ClusterN of them), B's in those
  // of one column (ClusterM): each loads its share and multicasts it along its row (column).
  using BoxesA = OperandBoxes<MajorA, BM, BK, ClusterN>;
  using BoxesB = OperandBoxes<MajorB, BN, BK, ClusterM>;
  static_assert(BoxesA::kCount % ClusterN == 0 && BoxesA::kBoxOuter % 8 == 0,
                "sm90 kernel: A's stage must split evenly among the cluster's CTAs along N (an M-major A needs BM >= 64 * ClusterN)");
  static_assert(BoxesB::kCount % ClusterM == 0 && BoxesB::kBoxOuter % 8 == 0,
                "sm90 kernel: B's stage must split evenly among the cluster's CTAs along M (an N-major B needs BN >= 64 * ClusterM)");
  using Mma = arch::Wgmma<ElementA, BN, MajorA, MajorB>;
  // Block-scaled kernels: the scales' own ring (sm90_block_scales.hpp), floats and barriers.
  using ScaleRing = Sm90ScaleRing<BM, BN, Stages>;
  // NOTES: each CTA of a cluster loads its own tile's scales on its own scale ring; only A's and
  // B's stages are shared.
  static_assert(!kBlockScaled || !kStreamK, "sm90 kernel: block-scaled FP8 runs without split-K (whole tiles, one CTA each)");
  static_assert(!kRowwiseScales || !kBlockScaled,
                "sm90 kernel: row-wise scales and per-block scales are two recipes: a kernel applies one of them");
  static constexpr int kScaleBytes = kBlockScaled ? ScaleRing::kBytes : 0;
  static constexpr int kSmemBytes = sm90_smem_bytes(Stages, BM, BN, kBlockScaled, kTmaStoreD);
};

// Sm90GemmParams, the parameter block: sm90_params.hpp.

/// The 128-byte swizzle of TMA and wgmma on byte offsets, as a layout function of the algebra.
using Sw128 = Swizzle<3, 4, 3>;

/// The CTA's three warpgroups (Sm90KernelConfig::kThreads = 384).
enum class Sm90WarpGroupRole : int {
  kProducer = 0,   // one thread issues the TMA loads of A and B (and a warp the block scales)
  kConsumer0 = 1,  // wgmma and the epilogue: the first half of the tile's rows (cooperative),
  kConsumer1 = 2,  // or alternate tiles (ping-pong)
};
inline constexpr int kSm90ConsumerWarpGroups = 2;

/// setmaxnreg budgets, registers per thread.
/// NOTES: the producer needs few registers; giving them up lets each consumer hold a 64 x 256
/// f32 accumulator (128 registers) and its addressing without spilling. The three together use
/// (40 + 2 x 232) x 128 = 64,512 of the SM's 65,536.
struct Sm90RegisterBudget {
  static constexpr int kProducer = 40;
  static constexpr int kConsumer = 232;
};
static_assert((Sm90RegisterBudget::kProducer + kSm90ConsumerWarpGroups * Sm90RegisterBudget::kConsumer) * 128 <= 65536,
              "sm90 kernel: the warpgroups' register budgets exceed the SM's register file");

/// The longest K, in K tiles, over which a grouped tile's consumer skips rows past its group
/// (Sm90CollectiveMma::skip; the kernel says why there is a bound).
inline constexpr int kGroupedSkipMaxKTiles = 32;

/// Named barrier ids (bar.sync / bar.arrive; 0 is __syncthreads).
struct Sm90Barrier {
  /// + consumer index: "this consumer may start its mainloop" (ping-pong turns), 256 threads.
  static constexpr int kMainloopTurn = 1;
  /// Both consumer warpgroups (the split-K / stream-K fixup), 256 threads.
  static constexpr int kConsumers = 3;
  /// + consumer index: one warpgroup's TMA-store epilogue, and its steps through a mainloop
  /// it skips (rows past the end), 128 threads.
  static constexpr int kEpilogue = 4;
};
static_assert(Sm90Barrier::kMainloopTurn + kSm90ConsumerWarpGroups <= Sm90Barrier::kConsumers &&
                  Sm90Barrier::kEpilogue + kSm90ConsumerWarpGroups <= 16,
              "sm90 kernel: named barrier ids overlap or pass 15");

}  // namespace tessel::gemm::kernel
