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
///   A: floats [0, G * R)           a[g * R + shift_a + r] = scale_A(m0 + r, kt0 + g)    (A's box)
///   B: floats [kB, kB + G + 4)     b[shift_b + g]         = scale_B(n0 / 128, kt0 + g)  (B's box)
///
/// with G = kScaleGroup, R = BM + 4 (sm90_scale_rows_a) and kt0 the group's first K tile. Each box
/// starts at the 16-byte-aligned element at or below the first scale it needs, the shift before it
/// (NOTES: a box whose first element was not 16-byte aligned faulted as an illegal instruction:
/// B's on the H200, A's for grouped tiles, which start on any row, on the H100); the scale warp's
/// copies start at 0. Rows past the problem and K blocks past K read as zeros (TMA) or are
/// zero-filled (the scale warp): they scale nothing the kernel stores.
///
/// A slot is full once its bytes (TMA: one arrival) or its 32 lanes' copies (scale warp) are in,
/// and empty again once each consumer warp has read it for the group's last K tile.
template <int BM, int Stages>
struct Sm90ScaleRing {
  static constexpr int G = kScaleGroup;
  static constexpr int kSlots = sm90_scale_slots(Stages);
  static constexpr int kRowsA = sm90_scale_rows_a(BM);  // A's box: BM rows and up to 3 before them
  static constexpr int kB = G * kRowsA;                   // float index of B's box
  static constexpr int kBoxB = G + 4;                     // G scales and up to 3 before them
  static constexpr int kSlotFloats = sm90_scale_slot_floats(BM);
  static constexpr int kBytes = kSlots * kSlotFloats * 4;   // the slots (their barriers sit with the others)
  static constexpr int kTmaBytes = (G * kRowsA + kBoxB) * 4;  // one group's transaction bytes
  // The consumer warps that read each slot and hand it back: two warpgroups of four.
  static constexpr int kReaders = 8;
  static_assert(kB % 32 == 0, "Sm90ScaleRing: B's box must start on a 128-byte boundary (TMA's alignment)");

  /// Whether K tile kt starts its group (groups restart with each tile).
  __device__ __forceinline__ static bool starts_group(int kt) { return kt % G == 0; }

  /// Element index of the first scale of B that the group starting at K tile kt0 of `tile` reads.
  template <class Tile>
  __device__ __forceinline__ static int first_b(Sm90BlockScales const& p, Tile const& tile, int kt0) {
    return int(p.b.at(tile.n0 / kBlockScaleN, kt0, tile.group) - p.b.ptr);
  }
  template <class Tile>
  __device__ __forceinline__ static int shift_b(Sm90BlockScales const& p, Tile const& tile, int kt0) {
    return p.by_tma ? first_b(p, tile, kt0) & 3 : 0;
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
    arch::tma_load_1d(slot + kB, &p.tma_b, full, first_b(p, tile, kt0) & ~3);
  }

  /// The scale warp's part (otherwise): the same group in cp.async copies of 4 bytes (zero-filled
  /// past m_end and past the last K block), then each lane's arrival on `full` once its copies
  /// have landed. NOTES: asynchronous, so the warp runs ahead by the whole ring; the copy loop
  /// stays rolled, since unrolled it spilled under the producer warpgroup's 40 registers.
  template <class Tile>
  __device__ __forceinline__ static void load(Sm90BlockScales const& p, float* slot, std::uint64_t* full, Tile const& tile,
                                              int kt0, int k_tiles, int lane) {
#pragma unroll 1
    for (int e = lane; e < G * BM; e += 32) {
      int const g = e / BM, r = e % BM;
      bool const inside = tile.m0 + r < tile.m_end && kt0 + g < k_tiles;
      float const* src = inside ? p.a.at(tile.m0 + r, kt0 + g, tile.l) : p.a.ptr;
      arch::cp_async_ca<4>(slot + g * kRowsA + r, src, inside ? 4u : 0u);
    }
    if (lane < G) {
      bool const inside = kt0 + lane < k_tiles;
      float const* src = inside ? p.b.at(tile.n0 / kBlockScaleN, kt0 + lane, tile.group) : p.b.ptr;
      arch::cp_async_ca<4>(slot + kB + lane, src, inside ? 4u : 0u);
    }
    arch::cp_async_mbarrier_arrive_noinc(full);
  }
};

/// The scales one consumer thread multiplies its accumulators by for one K tile: the
/// accumulator layout (wgmma_sm90.hpp) gives each thread two rows per 64 (h = 0, 1: registers
/// 4c+2h and 4c+2h+1), and a tile of BN <= 128 columns lies in one block of B.
template <int MmaM, int BM>
struct Sm90ThreadScales {
  float s[MmaM][2];
  /// slot: the group's scales (Sm90ScaleRing), g: the K tile's place in its group, shift_a and
  /// shift_b: the ring's shifts of the group, row0: the thread's first row within the tile (h = 0
  /// of its first 64).
  template <class Ring>
  __device__ __forceinline__ void read(float const* slot, int g, int shift_a, int shift_b, int row0) {
    float const b = slot[Ring::kB + shift_b + g];
    float const* a = slot + g * Ring::kRowsA + shift_a;
#pragma unroll
    for (int i = 0; i < MmaM; ++i)
#pragma unroll
      for (int h = 0; h < 2; ++h) s[i][h] = a[row0 + 64 * i + 8 * h] * b;
  }
  /// The scale of accumulator register v of the i-th 64 rows.
  __device__ __forceinline__ float operator()(int i, int v) const { return s[i][(v >> 1) & 1]; }
};
#endif

}  // namespace tessel::gemm::kernel
