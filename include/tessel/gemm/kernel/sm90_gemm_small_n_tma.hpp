#pragma once
// Small-N (decode) GEMM, Hopper form: the weights stream through TMA into a shared-memory ring,
// and the tensor cores read them from there. Same problem and the same mma.sync m16n8k16 math as
// sm80_gemm_small_n.hpp (read that first, for the fragment trick):
//
//   D(M,N) = alpha * A(M,K) B(N,K)^T + beta * D,  N <= 16
//
// FP8 A and B (e4m3, e5m2) run m16n8k32 on the same bytes (arch/mma_sm89.hpp): a box is 128
// bytes of K either way, 64 elements of a 16-bit type or 128 of FP8, and D takes the scales in
// p (SmallNParams) as torch._scaled_mm's dequantization factors, per tensor or per row.
//
// Why another kernel. The streaming kernels hold A's loads in registers: each warp reads 64-byte
// pieces of 16 rows 8 KB apart, and at any moment DRAM sees scattered short pieces; they ran
// 4096x16x4096 at ~2.7 TB/s where a plain sequential read of A reaches ~3.8 (bench/NOTES.md,
// "Decode through TMA"). Here one producer thread keeps a ring of stages in flight, each stage
// 32 rows x 256 or 512 k: four or eight TMA boxes of 64 k x 32 rows per operand, issued back to
// back, so each row is read in 512-byte or 1 KB runs, stages ahead. No register
// holds a load in flight, and TMA fills rows past M, columns past N and k past K with zeros, so
// nothing is masked.
//
// Work split. A row block is 32 rows (two m16 blocks) or 16 (one) over the whole K; CTAs are
// persistent and each takes a contiguous range of row blocks. Eight consumer warps share each
// stage: warp (mw, part) takes m16 block mw and the 128-byte boxes part, part + parts, ... (four
// parts of 32 rows, eight of 16), and at the end of a row block the parts' sums meet in shared
// memory, added in part order (the same bits on every run). One CTA per SM.
//
// Shared-memory reads. The boxes use TMA's 128-byte swizzle: the 16-byte chunk c of row r sits
// at chunk c ^ (r % 8). Lane (g, t) reads chunks 2t and 2t + 1 of its rows g and g + 8 (two mma
// pairs per box, physical k 16t..16t+7 and 16t+8..16t+15 of the box), so the 8 lanes of a
// quarter-warp (rows g, g + 1) touch 8 different chunks: no bank conflict. B, N x 64 per box,
// is read the same way, which applies the same k permutation to both operands.

#include <cstdint>

#include "tessel/arch/mbarrier_sm90.hpp"
#include "tessel/arch/tags.hpp"
#include "tessel/arch/tma_sm90.hpp"
#include "tessel/gemm/kernel/sm80_gemm_small_n.hpp"

namespace tessel::gemm::kernel {

// The CTA's tile (SmallNTmaTile) and which ring a K takes: small_n_rules.hpp.

namespace detail {
__device__ __forceinline__ void consumer_barrier(int threads) { asm volatile("bar.sync 1, %0;" ::"r"(threads) : "memory"); }
}  // namespace detail

/// `map_a`: A as (K, M), boxes of 128 bytes of K x Rows rows; `map_b`: B as (K, N), boxes of 128
/// bytes x 8 N8; both with the 128-byte swizzle, of ElementAB (bf16 or f16, or FP8 with the
/// scales in p). p's A and B pointers are not used (the maps carry them).
template <int N8, int Boxes, int Stages, class ElementD, class ElementAB = bfloat16_t, int Rows = 32>
__global__ void __launch_bounds__(SmallNTmaTile<N8, Boxes, Stages, int(sizeof(ElementAB)), Rows>::kThreads, 1)
    sm90_gemm_small_n_tma(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                          SmallNParams<ElementD> p, int row_blocks, int chunks) {
  using Tile = SmallNTmaTile<N8, Boxes, Stages, int(sizeof(ElementAB)), Rows>;
  static_assert(std::is_same_v<ElementAB, bfloat16_t> || std::is_same_v<ElementAB, half_t> || std::is_same_v<ElementAB, float_e4m3_t> ||
                    std::is_same_v<ElementAB, float_e5m2_t>,
                "small-N TMA ring: bf16, f16, e4m3 or e5m2 A and B");
  if constexpr (arch::device_pass_supports<arch::Sm90>()) {
    extern __shared__ unsigned char smem_small_n_tma[];
    unsigned char* ring = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(smem_small_n_tma) + 1023) & ~std::uintptr_t(1023));
    float* red = reinterpret_cast<float*>(ring + Tile::kStages * Tile::kStageBytes);  // [box - 1][mw][value][lane]
    auto* full = reinterpret_cast<std::uint64_t*>(ring + Tile::kStages * Tile::kStageBytes + Tile::kReduceBytes);
    std::uint64_t* empty = full + Tile::kStages;
    const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
    if (threadIdx.x == 0) {
      for (int s = 0; s < Tile::kStages; ++s) {
        arch::mbarrier_init(&full[s], 1);
        arch::mbarrier_init(&empty[s], Tile::kConsumerWarps);
      }
      arch::mbarrier_init_fence();
    }
    __syncthreads();
    // The grid is at most the row blocks, so every CTA has one at least.
    // CTA c takes the contiguous row blocks [first, first + mine): an even share, the first
    // row_blocks % gridDim.x CTAs one more.
    // NOTES: contiguous ranges ran 1-1.7% faster than strided ones (blocks c, c + grid, ...) at
    // K = 8192 and the same at K = 4096 (bench/NOTES.md, "Which row blocks a CTA takes").
    const int per = row_blocks / int(gridDim.x), extra = row_blocks % int(gridDim.x), c = int(blockIdx.x);
    const int mine = per + (c < extra ? 1 : 0);
    const int first = c * per + (c < extra ? c : extra);
    const int stages = mine * chunks;  // (row block, chunk) in order

    if (warp == Tile::kConsumerWarps) {  // producer: one thread issues every box
      if (lane == 0) {
        arch::tma_prefetch_descriptor(&map_a);
        arch::tma_prefetch_descriptor(&map_b);
        for (int s = 0; s < stages; ++s) {
          const int slot = s % Tile::kStages;
          arch::mbarrier_wait(&empty[slot], ((s / Tile::kStages) & 1) ^ 1);  // round 0 passes at once
          const int row0 = (first + s / chunks) * Tile::kRows;
          const int k0 = (s % chunks) * Tile::kChunk;
          unsigned char* stage = ring + slot * Tile::kStageBytes;
          arch::mbarrier_arrive_expect_tx(&full[slot], Tile::kStageBytes);  // zero-filled parts count too
#pragma unroll
          for (int b = 0; b < Tile::kBoxes; ++b) {
            arch::tma_load_3d(stage + b * Tile::kABoxBytes, &map_a, &full[slot], k0 + b * Tile::kBoxK, row0, 0);
            arch::tma_load_3d(stage + Tile::kBoxes * Tile::kABoxBytes + b * Tile::kBBoxBytes, &map_b, &full[slot],
                              k0 + b * Tile::kBoxK, 0, 0);
          }
        }
      }
      return;
    }

    // Consumers.
    const int mw = warp % Tile::kMBlocks, part = warp / Tile::kMBlocks;
    const int g = lane / 4, t = lane % 4;
    float acc[Tile::kAccumulators] = {};
    detail::SmallNFragmentScales<N8> scales;  // the current row block's, for part 0's store
    for (int s = 0; s < stages; ++s) {
      const int slot = s % Tile::kStages;
      // The row block's last stage: its scales are read now, in the shadow of this stage's mma
      // and the reduction (SmallNFragmentScales says why).
      if (part == 0 && s % chunks == chunks - 1) scales.load(p, (first + s / chunks) * Tile::kRows + mw * 16 + g, t);
      arch::mbarrier_wait(&full[slot], (s / Tile::kStages) & 1);
#pragma unroll
      for (int j = 0; j < Tile::kBoxes / Tile::kParts; ++j) {  // a trip count ptxas knows: no guarded copies
        const int box = part + j * Tile::kParts;
        const unsigned char* a_box = ring + slot * Tile::kStageBytes + box * Tile::kABoxBytes;
        const unsigned char* b_box = ring + slot * Tile::kStageBytes + Tile::kBoxes * Tile::kABoxBytes + box * Tile::kBBoxBytes;
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          // Row r's 16-byte piece j is at j ^ (r % 8); rows 16 mw + g and 16 mw + g + 8 both have r % 8 == g.
          const int chunk = ((2 * t + half) ^ g) * 16;
          // Physical bytes 32t + 16 half .. + 15 of the box row (k 16t + 8 half .. of a 16-bit type).
          const uint4 x = *reinterpret_cast<const uint4*>(a_box + (16 * mw + g) * 128 + chunk);
          const uint4 y = *reinterpret_cast<const uint4*>(a_box + (16 * mw + g + 8) * 128 + chunk);
          detail::mma_k32_block<N8, detail::SmallNMmaFor<ElementAB>>(acc, x, y,
                                    [&](int q) { return *reinterpret_cast<const uint4*>(b_box + (8 * q + g) * 128 + chunk); });
        }
      }
      __syncwarp();
      if (lane == 0) arch::mbarrier_arrive(&empty[slot]);  // releases this warp's reads of the slot

      if (s % chunks == chunks - 1) {  // the row block is complete: parts 1.. hand their sums to part 0
        constexpr int kConsumers = 32 * Tile::kConsumerWarps;
        if (part > 0) {
          float* mine_red = red + ((part - 1) * Tile::kMBlocks + mw) * Tile::kAccumulators * 32 + lane;
#pragma unroll
          for (int e = 0; e < Tile::kAccumulators; ++e) mine_red[e * 32] = acc[e];
        }
        detail::consumer_barrier(kConsumers);
        if (part == 0) {
#pragma unroll 1
          for (int b = 1; b < Tile::kParts; ++b) {
            const float* theirs = red + ((b - 1) * Tile::kMBlocks + mw) * Tile::kAccumulators * 32 + lane;
#pragma unroll
            for (int e = 0; e < Tile::kAccumulators; ++e) acc[e] += theirs[e * 32];
          }
          const int row_block = first + s / chunks;
          detail::store_c_fragment<N8>(p, acc, row_block * Tile::kRows + mw * 16 + g, t, scales);
        }
        detail::consumer_barrier(kConsumers);  // the reduction area is free for the next row block
#pragma unroll
        for (int e = 0; e < Tile::kAccumulators; ++e) acc[e] = 0.f;
      }
    }
  }
}

}  // namespace tessel::gemm::kernel
