#pragma once
// Small-N ("decode") GEMM, streaming form: the variants of the sweep in bench/NOTES.md
// ("Small-N kernel variants"). Same problem, same fragment trick and the same k-permutation as
// sm80_gemm_small_n.hpp (read that first); what differs is how the weights stream:
//
// - No barrier in the mainloop. Each warp reads its B fragments itself, 16 bytes per lane and
//   n8 block straight from global memory (ld.global.nc, L1-cached: every warp of the CTA on the
//   same k reads the same bytes, and B is L2-resident), instead of a CTA-wide shared-memory
//   stage with one __syncthreads per chunk. Warps never wait for each other, so one slow DRAM
//   reply stalls one warp, not eight.
// - A rolling register ring, Depth 32-wide k blocks deep: the A loads for block j + Depth are
//   issued right after block j's mma, so every lane keeps Depth x 2 x 16 bytes in flight at
//   all times (the chunked kernel has 2 x kBlocks x 16 bytes in flight, then none while it
//   waits). B rides a shorter ring (BDepth blocks ahead): it comes from L1/L2.
// - In-CTA split-K: a CTA is MWarps m16 row blocks x KSlices k slices (one warp each). The
//   slices of a row block meet in shared memory at the end (one barrier, added in slice order:
//   deterministic), so a shape with few rows (M = 4096 is 256 m16 blocks) fills the GPU with no
//   global fixup. A split across CTAs as well (Decomposition SplitK over 32-wide k blocks) goes
//   through the same wait-free deterministic fixup as the chunked kernel.

#include <cstdint>

#include "tessel/arch/ld_global_stream_sm80.hpp"
#include "tessel/arch/mma_sm80.hpp"
#include "tessel/arch/tags.hpp"
#include "tessel/gemm/kernel/decomposition.hpp"
#include "tessel/gemm/kernel/sm80_gemm_small_n.hpp"
#include "tessel/gemm/kernel/stream_k_fixup.hpp"
#include "tessel/numeric.hpp"

namespace tessel::gemm::kernel {

/// A streaming variant: MWarps m16 row blocks x KSlices k slices per CTA, A ring Depth blocks
/// of 32 k deep, B ring BDepth deep, __launch_bounds__ min CTAs per SM MinCtas.
template <int MWarps_, int KSlices_, int Depth_, int BDepth_, int MinCtas_>
struct SmallNStreamConfig {
  static constexpr int kMWarps = MWarps_, kKSlices = KSlices_, kDepth = Depth_, kBDepth = BDepth_, kMinCtas = MinCtas_;
};

template <int N8, class Cfg>
struct SmallNStreamTile {
  static_assert(N8 == 1 || N8 == 2 || N8 == 4 || N8 == 8, "SmallNStreamTile: N8 is 1, 2, 4 or 8 (N up to 64)");
  static constexpr int kMWarps = Cfg::kMWarps, kKSlices = Cfg::kKSlices;
  static constexpr int kWarps = kMWarps * kKSlices;
  static constexpr int kThreads = 32 * kWarps;
  static constexpr int kRows = 16 * kMWarps;
  static constexpr int kCols = 8 * N8;
  // NOTES: B one block ahead (a deeper B ring let ptxas hoist a whole round of B loads and spill).
  // Only N8 = 1, 2 are compiled (GemmSmallN runs N > 16 on the chunked kernel): at N8 = 4 and 8
  // the accumulators and B fragments left too few registers and the ring spilled at 128.
  static_assert(N8 <= 2, "SmallNStreamTile: N up to 16");
  static constexpr int kBDepth = Cfg::kBDepth;
  static constexpr int kDepth = Cfg::kDepth;
  static_assert(kDepth % kBDepth == 0, "SmallNStreamTile: the B ring's depth divides the A ring's");
  static constexpr int kAccumulators = 4 * N8;
  // Slices 1.. of each row block leave their accumulators here for slice 0.
  static constexpr int kSmemBytes = (kKSlices - 1) * kMWarps * 32 * kAccumulators * 4;
  // Three CTAs of 8 warps leave 80 registers a thread: enough for the ring at N8 = 1 only.
  static constexpr int kMinCtas = N8 >= 2 && Cfg::kMinCtas * kWarps > 16 ? 16 / kWarps : Cfg::kMinCtas;
};


template <int N8, class Cfg, class ElementD>
__global__ void __launch_bounds__(SmallNStreamTile<N8, Cfg>::kThreads, SmallNStreamTile<N8, Cfg>::kMinCtas)
    sm80_gemm_small_n_stream(SmallNParams<ElementD> p) {
  using Tile = SmallNStreamTile<N8, Cfg>;
  constexpr int D = Tile::kDepth, BD = Tile::kBDepth;
  if constexpr (arch::device_pass_supports<arch::Sm80>()) {
    extern __shared__ float smem_red[];  // [kKSlices - 1][kMWarps][kAccumulators][32 lanes]
    const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
    const int mw = warp % Tile::kMWarps, slice = warp / Tile::kMWarps;
    const int g = lane / 4, t = lane % 4;
    const WorkUnit u = p.split.split_k_unit(detail::fresh_cta_index(), 0);  // k-tiles: 32-wide blocks

    // This warp's share of the CTA's k blocks: contiguous, the first `rem` slices one longer.
    const int nblk = u.k_end - u.k_begin, per = nblk / Tile::kKSlices, rem = nblk % Tile::kKSlices;
    const int wb = u.k_begin + slice * per + (slice < rem ? slice : rem);
    const int we = wb + per + (slice < rem ? 1 : 0);

    const int row0 = u.tile * Tile::kRows + mw * 16 + g;
    const bool in0 = row0 < p.m, in1 = row0 + 8 < p.m;
    // NOTES: one predicate per load must be a compare of an immediate with one register, and
    // one pointer per row must serve every slot with immediate offsets: with a compare chain and
    // an address per slot, the ring spilled at 128 registers. Block blk of this warp is read iff
    // blk < lim (its k range, and 32 blk + 8t < K: K % 8 == 0 keeps a vector all in or all out);
    // left0 / left1 / leftb count the blocks still to read from the round's first block on.
    const int lim = min(we, (p.k - 8 * t + 31) / 32);
    int left0 = in0 ? lim - wb : 0, left1 = in1 ? lim - wb : 0, leftb = lim - wb;
    const int qlim = g < p.n ? (p.n - g + 7) / 8 : 0;  // n8 blocks q with column 8q + g < N
    const bfloat16_t* pa0 = p.A + (in0 ? row0 : 0) * p.lda + 8 * t + 32 * wb;
    const bfloat16_t* pa1 = pa0 + 8 * p.lda;  // never read when row0 + 8 is out of range
    const bfloat16_t* pb = p.B + (g < p.n ? g : 0) * p.ldb + 8 * t + 32 * wb;  // n8 block q: + 8q rows
    const std::int64_t ldb8 = 8 * p.ldb;

    float acc[Tile::kAccumulators] = {};
    uint4 x[D], y[D];  // A ring: rows row0 / row0 + 8, k 8t..8t+7 of a 32-wide block
    uint4 b[BD][N8];   // B ring: column 8q + g, the same k
    // Slot `slot` takes the block `ahead` blocks past the round's first.
    auto load_a = [&](int slot, int ahead) {
      x[slot] = arch::ld_global_stream_128(pa0 + 32 * ahead, ahead < left0);
      y[slot] = arch::ld_global_stream_128(pa1 + 32 * ahead, ahead < left1);
    };
    auto load_b = [&](int slot, int ahead) {
#pragma unroll
      for (int q = 0; q < N8; ++q) b[slot][q] = arch::ld_global_l1_128(pb + q * ldb8 + 32 * ahead, ahead < leftb && q < qlim);
    };
#pragma unroll
    for (int i = 0; i < D; ++i) load_a(i, i);
#pragma unroll
    for (int i = 0; i < BD; ++i) load_b(i, i);
    for (int base = wb; base < we; base += D) {
#pragma unroll
      for (int i = 0; i < D; ++i) {
        // Physical k 8t..8t+7 of the block; past the end the ring holds zeros: the mma adds nothing.
        detail::mma_k32_block<N8>(acc, x[i], y[i], [&](int q) { return b[i % BD][q]; });
        load_a(i, i + D);
        load_b(i % BD, i + BD);
      }
      pa0 += 32 * D;
      pa1 += 32 * D;
      pb += 32 * D;
      left0 -= D;
      left1 -= D;
      leftb -= D;
    }

    // In-CTA split: slices 1.. hand their sums to slice 0, which adds them in slice order.
    if constexpr (Tile::kKSlices > 1) {
      if (slice > 0) {
        float* mine = smem_red + ((slice - 1) * Tile::kMWarps + mw) * Tile::kAccumulators * 32 + lane;
#pragma unroll
        for (int e = 0; e < Tile::kAccumulators; ++e) mine[e * 32] = acc[e];
      }
      __syncthreads();
      if (slice == 0) {
#pragma unroll 1
        for (int s = 1; s < Tile::kKSlices; ++s) {
          const float* theirs = smem_red + ((s - 1) * Tile::kMWarps + mw) * Tile::kAccumulators * 32 + lane;
#pragma unroll
          for (int e = 0; e < Tile::kAccumulators; ++e) acc[e] += theirs[e * 32];
        }
      } else {
#pragma unroll
        for (int e = 0; e < Tile::kAccumulators; ++e) acc[e] = 0.f;  // slice 0 holds the sum
      }
    }

    // K split across CTAs too: the deterministic fixup (every thread takes part; slices 1.. carry zeros).
    const WorkUnit done = p.split.split_k_unit(detail::fresh_cta_index(), 0);  // == u
    if (!done.whole_tile() && !fixup_partial_tile<Tile::kThreads>(p.fixup, p.split, done, acc)) return;
    if (slice != 0) return;
    detail::store_c_fragment<N8>(p, acc, done.tile * Tile::kRows + mw * 16 + g, t);
  }
}

}  // namespace tessel::gemm::kernel
