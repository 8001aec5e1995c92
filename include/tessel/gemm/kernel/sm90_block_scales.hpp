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
// How they reach shared memory, per stage: where A's scales run along rows (row stride 1, as in
// torch's layout) and B's along K, each stage's are two 1-D TMA boxes on the stage's full
// barrier, issued by the producer thread with A's and B's tiles; otherwise a scale warp copies
// them with cp.async (any strides, slower: bench/NOTES.md).

#if !defined(__CUDACC_RTC__)  // NVRTC: CUtensorMap comes from tma_sm90.hpp
#include <cuda.h>
#endif

#include <cstdint>

#include "tessel/arch/cp_async_sm80.hpp"
#include "tessel/arch/mbarrier_sm90.hpp"
#include "tessel/arch/tma_sm90.hpp"
#include "tessel/config.hpp"

namespace tessel::gemm::kernel {

inline constexpr int kBlockScaleK = 128;  // elements of K per scale, for A and B
inline constexpr int kBlockScaleN = 128;  // rows of B (N) per scale

/// Where one operand's scales are: base and element strides over (row or row block, K block, batch).
struct BlockScaleTensor {
  float const* ptr = nullptr;
  std::int64_t row = 0, k = 0, batch = 0;
  TESSEL_HD float const* at(int r, int kb, int l) const { return ptr + r * row + kb * k + l * batch; }
};

struct Sm90BlockScales {
  BlockScaleTensor a;  // per row of A and 128 of K
  BlockScaleTensor b;  // per 128 rows of B (columns of D) and 128 of K
  // by_tma: 1-D maps over the two arrays, in boxes of BM floats (A, a K block's rows) and 4 (B:
  // its block's scale and the next three along K). Else the scale warp's cp.async path.
  bool by_tma = false;
  CUtensorMap tma_a, tma_b;
};

/// Whether TMA can carry these scales: A's rows and B's K blocks one element apart, 16-byte
/// aligned bases, and every element index `extent` spans within a 1-D box coordinate (int32).
TESSEL_HD inline bool block_scales_fit_tma(BlockScaleTensor const& a, std::int64_t extent_a, BlockScaleTensor const& b,
                                           std::int64_t extent_b) {
  auto aligned = [](float const* q) { return reinterpret_cast<std::uintptr_t>(q) % 16 == 0; };
  return a.row == 1 && b.k == 1 && aligned(a.ptr) && aligned(b.ptr) && extent_a < (std::int64_t(1) << 31) &&
         extent_b < (std::int64_t(1) << 31);
}

#if defined(__CUDACC__)
/// Where a stage's scales start in its buffer: TMA boxes begin at a 16-byte-aligned element
/// (NOTES: a box whose first element was not 16-byte aligned faulted as an illegal instruction on
/// the H200), so each is loaded from the aligned element at or below the first scale it needs,
/// and read `a` and `b` floats further in. The scale warp's copies start at 0.
struct StageScaleShift {
  int a = 0, b = 0;
};

/// The scales of one stage, in shared memory beside its A and B tiles: BM floats for the tile's
/// rows of A (after up to 3 floats of alignment), then, at the next 128-byte boundary (TMA's
/// alignment), B's one (likewise).
template <int BM>
struct Sm90StageScales {
  static constexpr int kBoxA = BM + 4;              // BM scales and up to 3 before them
  static constexpr int kBoxB = 4;                   // 16 bytes, TMA's smallest box
  static constexpr int kB = (kBoxA * 4 + 127) / 128 * 32;  // float index of B's box, 128-byte aligned
  static constexpr int kFloats = kB + 32;
  static constexpr int kBytes = kFloats * 4;
  static constexpr int kTmaBytes = (kBoxA + kBoxB) * 4;  // what the two boxes add to the stage's transaction bytes

  /// Element indices of the first scale of A and of B that K tile kt of `tile` reads.
  template <class Tile>
  __device__ __forceinline__ static void first(Sm90BlockScales const& p, Tile const& tile, int kt, int& ea, int& eb) {
    ea = int(p.a.at(tile.m0, kt, tile.l) - p.a.ptr);
    eb = int(p.b.at(tile.n0 / kBlockScaleN, kt, tile.group) - p.b.ptr);
  }
  template <class Tile>
  __device__ __forceinline__ static StageScaleShift shift(Sm90BlockScales const& p, Tile const& tile, int kt) {
    if (!p.by_tma) return {};
    int ea, eb;
    first(p, tile, kt, ea, eb);
    return {ea & 3, eb & 3};
  }

  /// The producer thread's part (by_tma): the two boxes of K tile kt of `tile` into stage `s`.
  /// Elements of a box outside the problem's rows hold the array's neighbours (or zeros past its
  /// end): they scale rows the kernel never stores.
  template <class Tile>
  __device__ __forceinline__ static void load_tma(Sm90BlockScales const& p, float* stage, std::uint64_t* full, Tile const& tile,
                                                  int kt) {
    int ea, eb;
    first(p, tile, kt, ea, eb);
    arch::tma_load_1d(stage, &p.tma_a, full, ea & ~3);
    arch::tma_load_1d(stage + kB, &p.tma_b, full, eb & ~3);
  }

  /// The scale warp's part (otherwise): stage `s` for K tile kt of `tile` in cp.async copies of 4
  /// bytes (zero-filled past m_end), and each lane's arrival on `full` once its copies have
  /// landed. NOTES: asynchronous, so the warp runs ahead by as many stages as the ring has;
  /// waiting on each load's latency (an L2 round trip, about the time of one K tile's wgmma)
  /// would hold the whole pipeline to that latency.
  template <class Tile>
  __device__ __forceinline__ static void load(Sm90BlockScales const& p, float* stage, std::uint64_t* full, Tile const& tile, int kt,
                                              int lane) {
#pragma unroll
    for (int r = lane; r < BM; r += 32) {
      bool const inside = tile.m0 + r < tile.m_end;
      float const* src = inside ? p.a.at(tile.m0 + r, kt, tile.l) : p.a.ptr;
      arch::cp_async_ca<4>(stage + r, src, inside ? 4u : 0u);
    }
    if (lane == 0) arch::cp_async_ca<4>(stage + kB, p.b.at(tile.n0 / kBlockScaleN, kt, tile.group));
    arch::cp_async_mbarrier_arrive_noinc(full);
  }
};

/// The scales one consumer thread multiplies its accumulators by for one K tile: the
/// accumulator layout (wgmma_sm90.hpp) gives each thread two rows per 64 (h = 0, 1: registers
/// 4c+2h and 4c+2h+1), and a tile of BN <= 128 columns lies in one block of B.
template <int MmaM, int BM>
struct Sm90ThreadScales {
  float s[MmaM][2];
  /// row0: the thread's first row within the tile (h = 0 of its first 64).
  __device__ __forceinline__ void read(float const* stage, int row0, StageScaleShift sh) {
    float const b = stage[Sm90StageScales<BM>::kB + sh.b];
    float const* a = stage + sh.a;
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
