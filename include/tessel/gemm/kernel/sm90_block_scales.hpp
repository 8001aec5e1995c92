#pragma once
// FP8 with per-block scales (the DeepSeek-V3 recipe), as the Hopper kernel applies them:
//
//   D(m, n) = sum_kb  scale_A(m, kb) * scale_B(n / 128, kb) * sum_{k in block kb} A(m, k) B(n, k)
//
// A (activations, M x K) carries one f32 scale per row and 128 of K (1 x 128 blocks), B (weights,
// N x K) one per 128 x 128 block. Each K tile of the kernel is one block of K (BK = 128 for 8-bit
// types): its wgmma starts from zero, and the consumer adds the partial sum, times the two
// scales, into f32 registers (promoted accumulation). The scales sit in global memory with any
// element strides:
//
//   scale_A(m, kb, l)  = sfa[m * row + kb * k + l * batch]      torch._scaled_mm's 1x128: (1, M)
//   scale_B(nb, kb, l) = sfb[nb * row + kb * k + l * batch]     its 128x128: (ceil(K/128), 1)
//
// Worked example: M = 3, K = 256 (two blocks), torch's layout (row 1, k 3): the scales of row 2
// are sfa[2] (k in [0, 128)) and sfa[5] (k in [128, 256)).
//
// How they reach shared memory: in groups of kScaleGroup K blocks, on a ring of their own beside
// the stages of A and B (Sm90ScaleRing). Where A's scales run along rows (row stride 1, as in
// torch's layout) with 16-byte K and batch strides, and B's along K, a group is two TMA boxes
// (A's BM x kScaleGroup as a 2-D box, B's as a 1-D one) issued by the producer thread; otherwise
// a scale warp copies them with cp.async (any strides, slower: bench/NOTES.md).

#if !defined(__CUDACC_RTC__)  // NVRTC: CUtensorMap comes from tma_sm90.hpp
#include <cuda.h>
#endif

#include <cstdint>

#include "tessel/arch/cp_async_sm80.hpp"
#include "tessel/arch/mbarrier_sm90.hpp"
#include "tessel/arch/tma_sm90.hpp"
#include "tessel/config.hpp"
#include "tessel/gemm/kernel/sm90_block_scale_rules.hpp"
#include "tessel/gemm/kernel/sm90_params.hpp"

namespace tessel::gemm::kernel {


#if defined(__CUDACC__)
/// The ring of scale groups, beside the ring of stages: slot j holds the scales of kScaleGroup
/// consecutive K tiles of one tile,
///
///   A: floats [0, G * R)                 a[g * R + shift_a + r]  = scale_A(m0 + r, kt0 + g)        (A's box)
///   B: floats [kB + 32 j, .. + G + 4)    b_j[shift_b[j] + g]     = scale_B(n0 / 128 + j, kt0 + g)  (B's boxes)
///
/// with G = kScaleGroup, R = BM + 4 (sm90_scale_rows_a), kt0 the group's first K tile and j < kBlocksB
/// the blocks of B the tile's columns lie in (two for BN = 192). Each box
/// starts at the 16-byte-aligned element at or below the first scale it needs, the shift before it
/// (NOTES: a box whose first element was not 16-byte aligned faulted as an illegal instruction:
/// B's on the H200, A's for grouped tiles, which start on any row, on the H100); the scale warp's
/// copies start at 0. Rows past the problem and K blocks past K read as zeros (TMA) or are
/// zero-filled (the scale warp): they scale nothing the kernel stores; so does a second block of B
/// past the problem's columns.
///
/// A slot is full once its bytes (TMA: one arrival) or its 32 lanes' copies (scale warp) are in,
/// and empty again once each consumer warp has read it for the group's last K tile.
template <int BM, int BN, int Stages>
struct Sm90ScaleRing {
  static constexpr int G = kScaleGroup;
  static constexpr int kSlots = sm90_scale_slots(Stages);
  static constexpr int kRowsA = sm90_scale_rows_a(BM);  // A's box: BM rows and up to 3 before them
  static constexpr int kB = G * kRowsA;                   // float index of B's first box
  static constexpr int kBlocksB = sm90_scale_blocks_b(BN);  // B's boxes, one per block of B a tile reads
  static constexpr int kBoxStrideB = sm90_scale_box_floats_b();  // floats from one B box to the next
  static constexpr int kBoxB = G + 4;                     // G scales and up to 3 before them
  static constexpr int kSlotFloats = sm90_scale_slot_floats(BM, BN);
  static constexpr int kBytes = kSlots * kSlotFloats * 4;   // the slots (their barriers sit with the others)
  static constexpr int kTmaBytes = (G * kRowsA + kBlocksB * kBoxB) * 4;  // one group's transaction bytes
  // The consumer warps that read each slot and hand it back: two warpgroups of four.
  static constexpr int kReaders = 8;
  static_assert(kB % 32 == 0 && kBoxStrideB % 32 == 0, "Sm90ScaleRing: B's boxes must start on 128-byte boundaries (TMA's alignment)");
  static_assert(kBlocksB * G <= 32, "Sm90ScaleRing: the scale warp copies B's scales with one lane per scale");

  /// Whether K tile kt starts its group (groups restart with each tile).
  __device__ __forceinline__ static bool starts_group(int kt) { return kt % G == 0; }

  /// Element index of the first scale of block j of B that the group starting at K tile kt0 of
  /// `tile` reads.
  template <class Tile>
  __device__ __forceinline__ static int first_b(Sm90BlockScales const& p, Tile const& tile, int kt0, int j) {
    return int(p.b.at(tile.n0 / kBlockScaleN + j, kt0, tile.group) - p.b.ptr);
  }
  template <class Tile>
  __device__ __forceinline__ static int shift_b(Sm90BlockScales const& p, Tile const& tile, int kt0, int j) {
    return p.by_tma ? first_b(p, tile, kt0, j) & 3 : 0;
  }
  /// The first of the tile's 8-column chunks that lies in its second block of B (kBlocksB = 2):
  /// 16 where the tile starts on a block, 8 where it starts half-way into one.
  template <class Tile>
  __device__ __forceinline__ static int second_block_chunk(Tile const& tile) {
    return (kBlockScaleN - tile.n0 % kBlockScaleN) / 8;
  }
  /// Rows of A's box before the tile's first (A's rows are one element apart where TMA carries them).
  template <class Tile>
  __device__ __forceinline__ static int shift_a(Sm90BlockScales const& p, Tile const& tile) {
    return p.by_tma ? tile.m0 & 3 : 0;
  }

  /// The producer thread's part (by_tma): the group starting at K tile kt0 of `tile` into `slot`.
  template <class Tile>
  __device__ __forceinline__ static void load_tma(Sm90BlockScales const& p, float* slot, std::uint64_t* full, Tile const& tile,
                                                  int kt0) {
    arch::mbarrier_arrive_expect_tx(full, kTmaBytes);
    arch::tma_load_3d(slot, &p.tma_a, full, tile.m0 & ~3, kt0, tile.l);
#pragma unroll
    for (int j = 0; j < kBlocksB; ++j) arch::tma_load_1d(slot + kB + j * kBoxStrideB, &p.tma_b, full, first_b(p, tile, kt0, j) & ~3);
  }

  /// The scale warp's part (otherwise): the same group in cp.async copies of 4 bytes (zero-filled
  /// past m_end, past the last K block and past the last of n_blocks blocks of B), then each
  /// lane's arrival on `full` once its copies
  /// have landed. NOTES: asynchronous, so the warp runs ahead by the whole ring; the copy loop
  /// stays rolled, since unrolled it spilled under the producer warpgroup's 40 registers.
  template <class Tile>
  __device__ __forceinline__ static void load(Sm90BlockScales const& p, float* slot, std::uint64_t* full, Tile const& tile,
                                              int kt0, int k_tiles, int n_blocks, int lane) {
#pragma unroll 1
    for (int e = lane; e < G * BM; e += 32) {
      int const g = e / BM, r = e % BM;
      bool const inside = tile.m0 + r < tile.m_end && kt0 + g < k_tiles;
      float const* src = inside ? p.a.at(tile.m0 + r, kt0 + g, tile.l) : p.a.ptr;
      arch::cp_async_ca<4>(slot + g * kRowsA + r, src, inside ? 4u : 0u);
    }
    if (lane < kBlocksB * G) {
      int const j = lane / G, g = lane % G, nb = tile.n0 / kBlockScaleN + j;
      bool const inside = kt0 + g < k_tiles && nb < n_blocks;
      float const* src = inside ? p.b.at(nb, kt0 + g, tile.group) : p.b.ptr;
      arch::cp_async_ca<4>(slot + kB + j * kBoxStrideB + g, src, inside ? 4u : 0u);
    }
    arch::cp_async_mbarrier_arrive_noinc(full);
  }
};

/// The scales one consumer thread multiplies its accumulators by for one K tile: the
/// accumulator layout (wgmma_sm90.hpp) gives each thread two rows per 64 (h = 0, 1: registers
/// 4c+2h and 4c+2h+1) and in each 8-column chunk c two columns; a tile of BN <= 128 columns lies
/// in one block of B, one of 192 in two (Ring::kBlocksB).
template <int MmaM, class Ring>
struct Sm90ThreadScales {
  static constexpr int kBlocks = Ring::kBlocksB;
  float s[MmaM][2][kBlocks];
  /// slot: the group's scales (Sm90ScaleRing), g: the K tile's place in its group, shift_a and
  /// shift_b: the ring's shifts of the group, row0: the thread's first row within the tile (h = 0
  /// of its first 64).
  __device__ __forceinline__ void read(float const* slot, int g, int shift_a, int const (&shift_b)[kSm90MaxScaleBlocksB], int row0) {
    float b[kBlocks];
#pragma unroll
    for (int j = 0; j < kBlocks; ++j) b[j] = slot[Ring::kB + j * Ring::kBoxStrideB + shift_b[j] + g];
    float const* a = slot + g * Ring::kRowsA + shift_a;
#pragma unroll
    for (int i = 0; i < MmaM; ++i)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        float const r = a[row0 + 64 * i + 8 * h];
#pragma unroll
        for (int j = 0; j < kBlocks; ++j) s[i][h][j] = r * b[j];
      }
  }
  /// The scale of accumulator register v of the i-th 64 rows, where the tile's chunks from
  /// Second on lie in its second block of B (BN = 192, the only width over two blocks:
  /// Sm90KernelConfig's static_assert, so Second is 8 or 16).
  template <int Second>
  __device__ __forceinline__ float at(int i, int v) const {
    if constexpr (kBlocks == 1) return s[i][(v >> 1) & 1][0];
    else return s[i][(v >> 1) & 1][v / 4 >= Second ? 1 : 0];
  }
};
#endif

}  // namespace tessel::gemm::kernel
