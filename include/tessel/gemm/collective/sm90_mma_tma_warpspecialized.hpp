#pragma once
// The Hopper kernel's collective mainloop: A and B brought in by TMA on a ring of Stages shared-
// memory buffers, multiplied by wgmma straight from shared memory (both operands "ss").
//
//   producer (one thread):  acquire a stage, expect its bytes, issue the TMA boxes  -> load()
//   consumers (warpgroups): wait for a stage, wgmma over it, release it             -> mma()
//
// The ring runs on across a CTA's tiles: `it` counts the K tiles over all of them, so that the
// producer fetches the next tile while the consumers run the epilogue, and a stage's index and
// phase are it % Stages and (it / Stages) & 1 on both sides.
//
// FP8 kernels with promoted accumulation (and per-block scales) run mma_promoted(): each K tile
// starts from zero in the tensor core and is added (scaled) into f32 registers.

#if !defined(__CUDACC_RTC__)  // NVRTC: CUtensorMap comes from tma_sm90.hpp
#include <cuda.h>
#endif

#include <cstdint>

#include "tessel/arch/cluster_sm90.hpp"
#include "tessel/arch/mbarrier_sm90.hpp"
#include "tessel/arch/tma_sm90.hpp"
#include "tessel/arch/wgmma_sm90.hpp"
#include "tessel/gemm/kernel/decomposition.hpp"
#include "tessel/gemm/kernel/sm90_block_scales.hpp"
#include "tessel/gemm/kernel/sm90_config.hpp"
#include "tessel/gemm/kernel/sm90_tile_scheduler.hpp"
#include "tessel/gemm/kernel/grouped.hpp"

namespace tessel::gemm::collective {

#if defined(__CUDACC__)
/// The ring's barriers: per stage a full barrier (the producer's arrival, then TMA's bytes) and
/// an empty one (one release per consumer that reads the stage, in every CTA of the cluster).
template <int Stages, int ClusterSize>
class Sm90TmaPipeline {
 public:
  /// @param barriers  2 * Stages mbarriers in shared memory: the full ones, then the empty ones
  __device__ __forceinline__ explicit Sm90TmaPipeline(std::uint64_t* barriers) : full_(barriers), empty_(barriers + Stages) {}

  /// One thread, before the CTA's (cluster's) barrier. `releases`: arrivals that free a stage.
  __device__ __forceinline__ void init(int releases) const {
    for (int s = 0; s < Stages; ++s) {
      arch::mbarrier_init(&full_[s], 1);  // the producer's arrive (the bytes come from TMA)
      arch::mbarrier_init(&empty_[s], releases);
    }
  }

  /// Producer: waits until stage it % Stages is free, then arms its full barrier for `bytes`.
  /// NOTES: a fresh barrier counts as having completed the phase before its first one, so the
  /// first pass over the ring does not wait: the buffers start empty.
  __device__ __forceinline__ std::uint64_t* producer_acquire(int it, std::uint32_t bytes) const {
    wait_released(it);
    arch::mbarrier_arrive_expect_tx(&full_[it % Stages], bytes);
    return &full_[it % Stages];
  }

  /// Producer, after its last load: waits until the last Stages fills (of `filled` in all) have
  /// been released, i.e. until no consumer of the cluster will arrive on this CTA's barriers again.
  /// Stages never filled pass at once (the phase before the first counts as complete).
  __device__ __forceinline__ void producer_tail(int filled) const {
    for (int it = filled; it < filled + Stages; ++it) wait_released(it);
  }

  /// Consumer: waits until stage s has its bytes (phase: the pass over the ring, mod 2).
  __device__ __forceinline__ void consumer_wait(int s, int phase) const { arch::mbarrier_wait(&full_[s], phase); }

  /// Consumer (one thread per warpgroup): hands stage s back, to every CTA of the cluster, whose
  /// multicasts also write into it.
  /// NOTES: in a 2x2 cluster the diagonal CTA writes nothing into this CTA's stage; releasing to it
  /// as well keeps one arrival count for every barrier (and costs one remote arrive).
  __device__ __forceinline__ void consumer_release(int s) const {
    if constexpr (ClusterSize > 1) {
      for (int r = 0; r < ClusterSize; ++r) arch::mbarrier_arrive_cluster(&empty_[s], r);
    } else {
      arch::mbarrier_arrive(&empty_[s]);
    }
  }

 private:
  /// Waits until fill it - Stages of stage it % Stages has been released (at once for it < Stages).
  __device__ __forceinline__ void wait_released(int it) const {
    arch::mbarrier_wait(&empty_[it % Stages], ((it / Stages) & 1) ^ 1);
  }

  std::uint64_t* full_;
  std::uint64_t* empty_;
};

/// The block-scaled kernels' consumer-side state of the scale ring (kernel/sm90_block_scales.hpp).
struct Sm90ScaleCursor {
  float const* slots;      // [ScaleRing::kSlots][ScaleRing::kSlotFloats]
  std::uint64_t* full;     // [kSlots]
  std::uint64_t* empty;    // [kSlots]
  int groups = 0;          // groups consumed over the CTA's tiles
  int g = 0;               // the next K tile's place in its group (groups start with a tile)
  int shift_a = 0;         // A's and B's (per block of B) shifts in the current group
  int shift_b[kernel::kSm90MaxScaleBlocksB] = {};
};

/// The mainloop of one Sm90KernelConfig: the producer's loads and the consumers' wgmma over the
/// ring of stages in shared memory.
template <class Cfg>
class Sm90CollectiveMma {
 public:
  static constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, Stages = Cfg::Stages;
  static constexpr int ClusterM = Cfg::ClusterM, ClusterN = Cfg::ClusterN, kClusterSize = Cfg::kClusterSize;
  using Mma = typename Cfg::Mma;
  using BoxesA = typename Cfg::BoxesA;
  using BoxesB = typename Cfg::BoxesB;
  using ScaleRing = typename Cfg::ScaleRing;
  using Pipeline = Sm90TmaPipeline<Stages, kClusterSize>;
  /// NOTES: a stage may be refilled once every consumer that reads it is done: both consumer
  /// warpgroups (cooperative) or one (ping-pong), in every CTA of the cluster, since a CTA's
  /// multicasts write into its row's and its column's.
  static constexpr int kReleases = (Cfg::kPingpong ? 1 : kernel::kSm90ConsumerWarpGroups) * kClusterSize;
  /// One consumer warpgroup's accumulators: kMmaM wgmma tiles of 64 x BN.
  using Accumulators = float[Cfg::kMmaM][Mma::kAccumulators];

  /// @param smem_a, smem_b  the stages of A ([Stages][BM x 128 bytes]) and B ([Stages][BN x 128])
  __device__ __forceinline__ Sm90CollectiveMma(char* smem_a, char* smem_b, Pipeline pipeline)
      : smem_a_(smem_a), smem_b_(smem_b), pipeline_(pipeline) {}

  /// Producer (one thread): the TMA loads of K tile kt of `tile` into stage it % Stages. In a
  /// cluster, each CTA loads its share of A's boxes and multicasts them along its row of the
  /// cluster (the CTAs of the same M tile), and its share of B's along its column.
  __device__ __forceinline__ void load(CUtensorMap const* tma_a, CUtensorMap const* tma_b, kernel::GroupedTile const& tile,
                                       int kt, int it, kernel::Sm90ClusterRank<Cfg> rank) const {
    int const s = it % Stages;
    std::uint64_t* full = pipeline_.producer_acquire(it, Cfg::kStageBytesA + Cfg::kStageBytesB);
    load_share<BoxesA, ClusterN>(smem_a_ + s * Cfg::kStageBytesA, tma_a, full, tile.m0, kt * BK, tile.l, rank.n(), rank.row_mask());
    load_share<BoxesB, ClusterM>(smem_b_ + s * Cfg::kStageBytesB, tma_b, full, tile.n0, kt * BK, tile.group, rank.m(),
                                 rank.column_mask());
  }

  /// Consumer: zeroes the accumulators (and fences them for the wgmma that writes them).
  __device__ __forceinline__ static void clear(Accumulators& acc) {
#pragma unroll
    for (int i = 0; i < Cfg::kMmaM; ++i) {
#pragma unroll
      for (int v = 0; v < Mma::kAccumulators; ++v) acc[i][v] = 0.f;
      arch::wgmma_fence_registers(acc[i]);
    }
  }

  /// Whether each K16 step goes out as two wgmma of BN / 2 columns, into the two halves of the
  /// accumulators (two chains): grouped kernels' 64-row warpgroup tiles of BN >= 128.
  /// NOTES: grouped kernels only, because of skip(): a consumer alone at the tensor cores on one
  /// chain of 64 x BN wgmma, each waiting for the last one's sums, took ~1.16x a whole tile;
  /// two chains overlap as two warpgroups' do. A kernel issues one of the two forms, never both:
  /// with a 64 x BN wgmma beside 64 x BN/2 ones on the same accumulators, ptxas serialized every
  /// wgmma of the kernel (C7511, "insufficient register resources for the wgmma pipeline";
  /// tessel-sass --wgmma-pipelined gates it).
  static constexpr bool kTwoChains = Cfg::kGrouped && Cfg::kMmaM == 1 && BN >= 128 && !Cfg::kPromote;
  using ChainMma = arch::Wgmma<typename Cfg::ElementA, kTwoChains ? BN / 2 : BN, Cfg::MajorA, Cfg::MajorB>;
  using ChainAccumulators = float[ChainMma::kAccumulators];

  /// Consumer: all K tiles of unit `u`, accumulating in the tensor core. `it` is the ring's count
  /// at the unit's first K tile, and past its last on return. wg_row0: the warpgroup's first row
  /// in the tile; `leader`: the warpgroup's thread that releases stages.
  __device__ __forceinline__ void mma(Accumulators& acc, kernel::WorkUnit const& u, int& it, int wg_row0, bool leader) const {
    for (int kt = u.k_begin; kt < u.k_end; ++kt, ++it) {
      int s = it % Stages;
      pipeline_.consumer_wait(s, (it / Stages) & 1);
      mma_k_tile(acc, s, /*fresh=*/kt == u.k_begin, wg_row0);
      // Keep this K tile's wgmma in flight; once the previous one has finished, its stage is
      // free for the producer.
      arch::wgmma_wait_group<1>();
      if (kt > u.k_begin && leader) pipeline_.consumer_release((it - 1) % Stages);
    }
    arch::wgmma_wait_group<0>();
#pragma unroll
    for (int i = 0; i < Cfg::kMmaM; ++i) arch::wgmma_fence_registers(acc[i]);
    if (leader) pipeline_.consumer_release((it - 1) % Stages);
  }

  /// Consumer whose rows of the tile all lie past the problem's (its group's) last row: each K
  /// tile's stage waited for and released without a wgmma, so that the other consumer has the
  /// tensor cores to itself; `acc` stays as cleared. `it` as in mma(); `barrier`: a named
  /// barrier of this warpgroup's 128 threads.
  /// NOTES: a cooperative tile whose second 64 rows are past the end (a group's last row tile
  /// holding at most 64 rows) spends half its tensor-core time on rows nobody stores; with many
  /// experts of a few hundred tokens each, those are 10-20% of the MMA work (bench/NOTES.md).
  /// Every thread waits, as in mma(), so that the loop's state stays warp-uniform (a wait in the
  /// leader's branch alone moved the wgmma descriptors of the whole consumer off the uniform
  /// datapath); the warpgroup meets before the leader releases, since a thread still polling a
  /// stage that went back and was refilled could not tell the phases apart.
  __device__ __forceinline__ void skip(kernel::WorkUnit const& u, int& it, bool leader, int barrier) const {
    for (int kt = u.k_begin; kt < u.k_end; ++kt, ++it) {
      int const s = it % Stages;
      pipeline_.consumer_wait(s, (it / Stages) & 1);
      arch::named_barrier_sync<128>(barrier);
      if (leader) pipeline_.consumer_release(s);
    }
  }

  /// Consumer, FP8 with promoted accumulation: as mma(), each K tile's partial sum added up in f32
  /// registers, the sum left in `acc`; block-scaled kernels multiply it by its rows' A scales and its B
  /// block's scale on the way (`sf`: the problem's scale tensors; `scales`: the scale ring's state).
  __device__ __forceinline__ void mma_promoted(Accumulators& acc, kernel::WorkUnit const& u, int& it, int wg_row0, bool leader,
                                               [[maybe_unused]] kernel::Sm90BlockScales const& sf,
                                               [[maybe_unused]] kernel::GroupedTile const& tile,
                                               [[maybe_unused]] Sm90ScaleCursor& scales) const {
    if constexpr (kOverlappedPromotion) mma_promoted_overlapped(acc, u, it, wg_row0, leader);
    else if constexpr (kHalvedPromotion) mma_promoted_halves(acc, u, it, wg_row0, leader, sf, tile, scales);
    else mma_promoted_serial(acc, u, it, wg_row0, leader, sf, tile, scales);
  }

 private:
  /// mma_promoted() for the tiles the two forms below leave (block-scaled 128x128 and 64-wide
  /// ones): each K tile waited for whole.
  __device__ __forceinline__ void mma_promoted_serial(Accumulators& acc, kernel::WorkUnit const& u, int& it, int wg_row0,
                                                      bool leader, [[maybe_unused]] kernel::Sm90BlockScales const& sf,
                                                      [[maybe_unused]] kernel::GroupedTile const& tile,
                                                      [[maybe_unused]] Sm90ScaleCursor& scales) const {
    // NOTES: each K tile's partial sum is read as soon as its wgmma is done (wait 0), so no
    // wgmma stays in flight across K tiles; the other consumer warpgroup's wgmma keeps the
    // tensor cores busy meanwhile.
    // `acc` takes each K tile's wgmma (cleared by the caller, overwritten by every K tile's
    // first wgmma); `total` the sum.
    Accumulators total;
#pragma unroll
    for (int i = 0; i < Cfg::kMmaM; ++i)
#pragma unroll
      for (int v = 0; v < Mma::kAccumulators; ++v) total[i][v] = 0.f;
    kernel::Sm90ThreadScales<Cfg::kMmaM, ScaleRing> scale;
    int const t = int(threadIdx.x) % 128, thread_row0 = wg_row0 + 16 * (t / 32) + (t % 32) / 4;
    // NOTES: the stage and its phase advance by one each K tile rather than being divided
    // out of `it` each time: the division sat on the path from one K tile's wait to the next.
    int s = it % Stages, phase = (it / Stages) & 1;
    static_assert(!Cfg::kBlockScaled || ScaleRing::kBlocksB == 1,
                  "sm90 promoted: a tile over two blocks of B's scales (BN = 192) runs mma_promoted_halves");
    for (int kt = u.k_begin; kt < u.k_end; ++kt, ++it) {
      pipeline_.consumer_wait(s, phase);
      mma_k_tile(acc, s, /*fresh=*/true, wg_row0);
      // Block-scaled kernels: this K tile's scales, read while its wgmma runs.
      if constexpr (Cfg::kBlockScaled) read_block_scales(scale, scales, sf, tile, kt, u.k_end, thread_row0);
      arch::wgmma_wait_group<0>();
#pragma unroll
      for (int i = 0; i < Cfg::kMmaM; ++i) arch::wgmma_fence_registers(acc[i]);
      if (leader) pipeline_.consumer_release(s);
      add_scaled<Cfg::kBlockScaled>(total, acc, scale);
      if (++s == Stages) {
        s = 0;
        phase ^= 1;
      }
    }
#pragma unroll
    for (int i = 0; i < Cfg::kMmaM; ++i)
#pragma unroll
      for (int v = 0; v < Mma::kAccumulators; ++v) acc[i][v] = total[i][v];
  }

  /// Per-tensor promoted kernels whose consumers hold at most 64 accumulators a thread (BM x BN
  /// <= 128 x 128): a second set of partial-sum registers, so that the next K tile's wgmma runs
  /// while the last one is added up.
  static constexpr bool kOverlappedPromotion = !Cfg::kBlockScaled && Cfg::kMmaM * Mma::kAccumulators <= 64;

  /// mma_promoted() with two partial sums in turn: K tile k + 1 is issued into one set before K
  /// tile k, in the other, is waited for (wait 1) and added into the total. NOTES: with one set,
  /// each K tile's sum is waited for (wait 0) and added while this consumer's next wgmma cannot
  /// start; the other consumer, issuing at the same moments, adds up at the same time, and the
  /// tensor cores wait out the adds (tried: the consumers taking turns per K tile did not
  /// separate them, bench/NOTES.md). 64 + 64 + 64 accumulators fit the consumers' 232 registers.
  __device__ __forceinline__ void mma_promoted_overlapped(Accumulators& acc, kernel::WorkUnit const& u, int& it, int wg_row0,
                                                          bool leader) const {
    Accumulators total, other;
#pragma unroll
    for (int i = 0; i < Cfg::kMmaM; ++i)
#pragma unroll
      for (int v = 0; v < Mma::kAccumulators; ++v) total[i][v] = 0.f;
    int s = it % Stages, phase = (it / Stages) & 1, held = s;  // held: the stage of the K tile in flight
    auto advance = [&] {
      ++it;
      if (++s == Stages) {
        s = 0;
        phase ^= 1;
      }
    };
    auto add = [&](Accumulators& done) {
#pragma unroll
      for (int i = 0; i < Cfg::kMmaM; ++i) arch::wgmma_fence_registers(done[i]);
      if (leader) pipeline_.consumer_release(held);
#pragma unroll
      for (int i = 0; i < Cfg::kMmaM; ++i)
#pragma unroll
        for (int v = 0; v < Mma::kAccumulators; ++v) total[i][v] += done[i][v];
    };
    // Issue the next K tile into `next`, then add up `done` (the K tile before it).
    auto step = [&](Accumulators& next, Accumulators& done) {
      pipeline_.consumer_wait(s, phase);
      mma_k_tile(next, s, /*fresh=*/true, wg_row0);
      arch::wgmma_wait_group<1>();
      add(done);
      held = s;
      advance();
    };
    int left = u.k_end - u.k_begin;
    if (left > 0) {
      pipeline_.consumer_wait(s, phase);
      mma_k_tile(acc, s, /*fresh=*/true, wg_row0);
      held = s;
      advance();
      for (--left; left >= 2; left -= 2) {
        step(other, acc);
        step(acc, other);
      }
      if (left == 1) {
        step(other, acc);
        arch::wgmma_wait_group<0>();
        add(other);
      } else {
        arch::wgmma_wait_group<0>();
        add(acc);
      }
    }
#pragma unroll
    for (int i = 0; i < Cfg::kMmaM; ++i)
#pragma unroll
      for (int v = 0; v < Mma::kAccumulators; ++v) acc[i][v] = total[i][v];
  }

  /// Block-scaled kernels: K tile kt's scales for the thread's rows (from thread_row0) into
  /// `scale`, from its group's slot of the scale ring. NOTES: waited for and read while the K
  /// tile's wgmma runs (the slot's barrier is its own, so a late group holds up only the scaling,
  /// not the wgmma); the slot goes back once the group's last K tile is read, from every warp
  /// after its reads (the arrive releases them). Groups start with a tile: these kernels take
  /// whole tiles.
  template <class Scales>
  __device__ __forceinline__ static void read_block_scales(Scales& scale, Sm90ScaleCursor& c, kernel::Sm90BlockScales const& sf,
                                                           kernel::GroupedTile const& tile, int kt, int k_end, int thread_row0) {
    int const slot = c.groups % ScaleRing::kSlots;
    if (c.g == 0) {
      arch::mbarrier_wait(&c.full[slot], (c.groups / ScaleRing::kSlots) & 1);
      c.shift_a = ScaleRing::shift_a(sf, tile);
#pragma unroll
      for (int j = 0; j < ScaleRing::kBlocksB; ++j) c.shift_b[j] = ScaleRing::shift_b(sf, tile, kt, j);
    }
    scale.read(c.slots + slot * ScaleRing::kSlotFloats, c.g, c.shift_a, c.shift_b, thread_row0);
    if (c.g == ScaleRing::G - 1 || kt == k_end - 1) {
      __syncwarp();
      if (threadIdx.x % 32 == 0) arch::mbarrier_arrive(&c.empty[slot]);
      ++c.groups;
      c.g = 0;
    } else {
      ++c.g;
    }
  }

  /// Promoted kernels of 128x192 tiles (96 accumulators a consumer thread): each K tile's wgmma in
  /// two halves of 96 columns, each half its own commit group into its own 48 partial sums.
  static constexpr bool kHalvedPromotion = Cfg::kPromote && Cfg::kMmaM == 1 && BN == 192;
  using HalfMma = arch::Wgmma<typename Cfg::ElementA, kHalvedPromotion ? BN / 2 : BN, Cfg::MajorA, Cfg::MajorB>;
  using HalfAccumulators = float[HalfMma::kAccumulators];
  /// K tiles per turn of mma_promoted_halves' loop: one (no wgmma group in flight from one K tile
  /// into the next). NOTES: measured (bench/NOTES.md): with the scales read after both halves'
  /// issues, one K tile a turn ran fastest for per-tensor and block scales alike (two, four and
  /// eight: 0-3% slower). The loop keeps its form for a longer turn, although with a turn of one
  /// its inner loop compiles away and its second loop never runs: a version of it as one plain K
  /// loop computed the same and ran block-scaled kernels 3-6% slower (run 5), which is not
  /// understood, and dropping only the second loop changes the kernels' SASS throughout (register
  /// assignment), which no device run has timed.
  static constexpr int kHalvesTurn = 1;

  /// mma_promoted() over halves: a K tile's first half is added into the total while its second
  /// half's wgmma runs. In a turn of more than one K tile, the next K tile's first half is also
  /// issued before this one's second half is waited for:
  ///   issue    k.0  k.1 |      k+1.0       |      k+1.1 ...
  ///   wait/add          | k.0 (wait 1)     | k.1 (wait 1; stage k released)
  /// NOTES: two sets of 96 partial sums beside the 96 of the total do not fit the consumers' 232
  /// registers (the 128x128 tile's two sets of 64 do: mma_promoted_overlapped); two halves of 48
  /// take the registers of one set and still keep a wgmma group in the tensor cores' queue while
  /// a consumer adds. The cost: each half reads its 64 rows of A from shared memory again.
  /// Block-scaled kernels read a K tile's scales once both halves are issued: read between the
  /// two issues, a wait for the scale ring held up the second half.
  __device__ __forceinline__ void mma_promoted_halves(Accumulators& acc, kernel::WorkUnit const& u, int& it, int wg_row0,
                                                      bool leader, [[maybe_unused]] kernel::Sm90BlockScales const& sf,
                                                      [[maybe_unused]] kernel::GroupedTile const& tile,
                                                      [[maybe_unused]] Sm90ScaleCursor& scales) const {
    static_assert(Cfg::MajorB == arch::Major::K, "promoted halves: B's rows 96.. start a K-major swizzle atom");
    float(&total)[Mma::kAccumulators] = acc[0];  // (64 rows of the warpgroup, BN) in wgmma's register order
    HalfAccumulators h0, h1;                     // columns [0, 96) and [96, 192) of one K tile
#pragma unroll
    for (int v = 0; v < Mma::kAccumulators; ++v) total[v] = 0.f;
    kernel::Sm90ThreadScales<1, ScaleRing> scale;
    int const t = int(threadIdx.x) % 128, thread_row0 = wg_row0 + 16 * (t / 32) + (t % 32) / 4;
    [[maybe_unused]] int second = 0;  // the 8-column chunk where the tile's second block of B begins
    if constexpr (Cfg::kBlockScaled) second = ScaleRing::second_block_chunk(tile);
    int s = it % Stages, phase = (it / Stages) & 1, held = s;  // held: the stage of the K tile being added
    // The ring moves on past K tile kt (its stage is `held` until both halves are added), and
    // kt's scales are read.
    auto next_k_tile = [&](int kt) {
      held = s;
      ++it;
      if (++s == Stages) {
        s = 0;
        phase ^= 1;
      }
      if constexpr (Cfg::kBlockScaled) read_block_scales(scale, scales, sf, tile, kt, u.k_end, thread_row0);
    };
    // K tile kt's halves issued, then the ring moves on and kt's scales are read.
    auto start = [&](int kt) {
      pipeline_.consumer_wait(s, phase);
      mma_half<0>(h0, s, wg_row0);
      mma_half<1>(h1, s, wg_row0);
      next_k_tile(kt);
    };
    auto add_first = [&] {  // with the second half in flight
      arch::wgmma_wait_group<1>();
      arch::wgmma_fence_registers(h0);
      add_half<0>(total, h0, scale, second);
    };
    auto add_second = [&] {  // after the caller's wait; the K tile's stage goes back
      arch::wgmma_fence_registers(h1);
      if (leader) pipeline_.consumer_release(held);
      add_half<1>(total, h1, scale, second);
    };
    // NOTES: kHalvesTurn K tiles per turn of the loop, each turn starting and ending with no
    // wgmma group in flight. A loop whose turns begin with a group in flight (the steady state
    // of the drawing above) made ptxas serialize every wgmma of the kernel (C7514): it could
    // not tell that the wait before each add leaves only the other half running. The turn's
    // last second half is added with nothing of this consumer's in the tensor cores (the other
    // consumer's wgmma keeps them busy). The second loop takes the K tiles a turn leaves.
    int kt = u.k_begin;
    for (; kt + kHalvesTurn <= u.k_end; kt += kHalvesTurn) {
      start(kt);
      add_first();
#pragma unroll
      for (int j = 1; j < kHalvesTurn; ++j) {
        pipeline_.consumer_wait(s, phase);
        mma_half<0>(h0, s, wg_row0);
        arch::wgmma_wait_group<1>();
        add_second();
        mma_half<1>(h1, s, wg_row0);
        next_k_tile(kt + j);
        add_first();
      }
      arch::wgmma_wait_group<0>();
      add_second();
    }
    for (; kt < u.k_end; ++kt) {
      start(kt);
      add_first();
      arch::wgmma_wait_group<0>();
      add_second();
    }
  }

  /// total's half H += h (times the thread's block scales in block-scaled kernels). NOTES: two
  /// copies of the loop, one per place of the tile's second block of B (chunk 8 or 16), each with
  /// its scale per register known at compile time, rather than a select per register.
  template <int H, class Scales>
  __device__ __forceinline__ static void add_half(float (&total)[Mma::kAccumulators], HalfAccumulators const& h,
                                                  Scales const& scale, int second) {
    constexpr int kHalf = HalfMma::kAccumulators;
    if constexpr (!Cfg::kBlockScaled) {
#pragma unroll
      for (int v = 0; v < kHalf; ++v) total[H * kHalf + v] += h[v];
    } else if (second == 8) {
#pragma unroll
      for (int v = 0; v < kHalf; ++v) total[H * kHalf + v] += h[v] * scale.template at<8>(0, H * kHalf + v);
    } else {
#pragma unroll
      for (int v = 0; v < kHalf; ++v) total[H * kHalf + v] += h[v] * scale.template at<16>(0, H * kHalf + v);
    }
    // NOTES: the adds stay here, before the wgmma that next overwrites h. Left free, the compiler
    // moved them across the loop's back edge, and ptxas, unable to place them against the
    // wgmma groups, serialized every wgmma of the kernel (C7514).
    arch::wgmma_fence_registers(total);
  }

  /// Half H (columns [96 H, 96 H + 96)) of one K tile's wgmma (stage s), from zero, as one commit
  /// group.
  template <int H>
  __device__ __forceinline__ void mma_half(HalfAccumulators& h, int s, int wg_row0) const {
    char const* sa = smem_a_ + s * Cfg::kStageBytesA;
    char const* sb = smem_b_ + s * Cfg::kStageBytesB;
    std::uint64_t const base_a = arch::wgmma_desc_sw128<Cfg::MajorA>(sa + BoxesA::mma_offset(wg_row0, 0), BoxesA::kChunkBytes);
    std::uint64_t const base_b =
        arch::wgmma_desc_sw128<Cfg::MajorB>(sb + BoxesB::mma_offset(H * BN / 2, 0), BoxesB::kChunkBytes);
    arch::wgmma_fence();
#pragma unroll
    for (int k = 0; k < BK / HalfMma::kK; ++k)
      HalfMma::mma(h, arch::wgmma_desc_advance(base_a, BoxesA::mma_step(0, k)), arch::wgmma_desc_advance(base_b, BoxesB::mma_step(0, k)),
                   k > 0 ? 1 : 0);
    arch::wgmma_commit_group();
  }

  /// total += acc (times the thread's block scales where Scaled: one block of B's).
  template <bool Scaled, class Scales>
  __device__ __forceinline__ static void add_scaled(Accumulators& total, Accumulators const& acc, Scales const& scale) {
#pragma unroll
    for (int i = 0; i < Cfg::kMmaM; ++i)
#pragma unroll
      for (int v = 0; v < Mma::kAccumulators; ++v) {
        if constexpr (Scaled) total[i][v] += acc[i][v] * scale.template at<0>(i, v);
        else total[i][v] += acc[i][v];
      }
  }

  /// One operand's share of a stage: of its Boxes::kCount boxes (rows r0.., K k0.., batch z), the
  /// ones of index `share` mod Split, multicast to the CTAs of `mask` where Split CTAs share the
  /// operand.
  template <class Boxes, int Split>
  __device__ __forceinline__ static void load_share(char* stage, CUtensorMap const* map, std::uint64_t* full, int r0, int k0, int z,
                                                    int share, unsigned mask) {
#pragma unroll
    for (int i = 0; i < Boxes::kCount; ++i) {
      if (i % Split != share) continue;
      int const x = Boxes::x(i, r0, k0), y = Boxes::y(i, r0, k0);
      if constexpr (Split > 1) arch::tma_load_3d_multicast(stage + Boxes::smem_offset(i), map, full, x, y, z, mask);
      else arch::tma_load_3d(stage + Boxes::smem_offset(i), map, full, x, y, z);
    }
  }

  /// The wgmma of one K tile (stage s): accumulate into acc, or start from zero when `fresh`.
  /// kTwoChains: as two wgmma of BN / 2 columns per K16 step (the accumulators' first and second
  /// halves, in wgmma's register order), issued in turns.
  __device__ __forceinline__ void mma_k_tile(Accumulators& acc, int s, bool fresh, int wg_row0) const {
    char const* sa = smem_a_ + s * Cfg::kStageBytesA;
    char const* sb = smem_b_ + s * Cfg::kStageBytesB;
    // NOTES: for BN >= 128, one descriptor per operand and K tile, each wgmma advancing it by a
    // constant (arch::wgmma_desc_advance). Building each descriptor from its address took five
    // integer instructions per wgmma, which the consumers issue beside the tensor cores. For
    // BN = 64 (short wgmma, stream-K's 128x64 tile) the constant-offset form measured 8% slower
    // and is not used (bench/NOTES.md, runs 3-4).
    constexpr bool kAdvance = BN >= 128;
    std::uint64_t const base_a = arch::wgmma_desc_sw128<Cfg::MajorA>(sa + BoxesA::mma_offset(wg_row0, 0), BoxesA::kChunkBytes);
    std::uint64_t const base_b = arch::wgmma_desc_sw128<Cfg::MajorB>(sb + BoxesB::mma_offset(0, 0), BoxesB::kChunkBytes);
    auto desc_a = [&](int i, int k) {
      if constexpr (kAdvance) return arch::wgmma_desc_advance(base_a, BoxesA::mma_step(i, k));
      else return arch::wgmma_desc_sw128<Cfg::MajorA>(sa + BoxesA::mma_offset(wg_row0 + 64 * i, k), BoxesA::kChunkBytes);
    };
    auto desc_b = [&](int k) {
      if constexpr (kAdvance) return arch::wgmma_desc_advance(base_b, BoxesB::mma_step(0, k));
      else return arch::wgmma_desc_sw128<Cfg::MajorB>(sb + BoxesB::mma_offset(0, k), BoxesB::kChunkBytes);
    };
    arch::wgmma_fence();
    if constexpr (kTwoChains) {
      std::uint64_t const base_b1 = arch::wgmma_desc_sw128<Cfg::MajorB>(sb + BoxesB::mma_offset(BN / 2, 0), BoxesB::kChunkBytes);
      auto& lo = *reinterpret_cast<ChainAccumulators*>(&acc[0][0]);                          // columns [0, BN/2)
      auto& hi = *reinterpret_cast<ChainAccumulators*>(&acc[0][ChainMma::kAccumulators]);  // columns [BN/2, BN)
#pragma unroll
      for (int k = 0; k < BK / ChainMma::kK; ++k) {
        std::uint64_t const a = desc_a(0, k);
        int const accumulate = (!fresh || k > 0) ? 1 : 0;
        ChainMma::mma(lo, a, desc_b(k), accumulate);
        ChainMma::mma(hi, a, arch::wgmma_desc_advance(base_b1, BoxesB::mma_step(0, k)), accumulate);
      }
    } else {
#pragma unroll
      for (int k = 0; k < BK / Mma::kK; ++k) {
        std::uint64_t const b = desc_b(k);
#pragma unroll
        for (int i = 0; i < Cfg::kMmaM; ++i) Mma::mma(acc[i], desc_a(i, k), b, (!fresh || k > 0) ? 1 : 0);
      }
    }
    arch::wgmma_commit_group();
  }

  char* smem_a_;
  char* smem_b_;
  Pipeline pipeline_;
};
#endif

}  // namespace tessel::gemm::collective
