#pragma once
// The small-N (decode) kernels' parameter block and the TMA ring's tile and plan rules, in a
// plain header (no CUDA headers): what a launcher needs to size, choose and fill a launch. The
// C++ handle (device/gemm_small_n.hpp) and the Python package's launcher (python/src) both read
// them here. The kernels: kernel/sm80_gemm_small_n.hpp, sm80_gemm_small_n_stream.hpp and
// sm90_gemm_small_n_tma.hpp.

#include <cstdint>

#include "tessel/gemm/kernel/decomposition.hpp"
#include "tessel/gemm/kernel/stream_k_fixup.hpp"
#include "tessel/numeric.hpp"

namespace tessel::gemm::kernel {

template <class ElementD>
struct SmallNParams {
  int m = 0, n = 0, k = 0;
  bfloat16_t const* A = nullptr;  // M x K, row-major
  std::int64_t lda = 0;
  bfloat16_t const* B = nullptr;  // N x K, row-major
  std::int64_t ldb = 0;
  ElementD* D = nullptr;  // M x N: D(r, c) at r * ldd + c * d_col_stride
  std::int64_t ldd = 0;
  float alpha = 1.f, beta = 0.f;
  Decomposition split;  // SplitK: tiles = 128-row blocks, k-tiles = chunks; one unit per CTA
  FixupWorkspace fixup;
  // 1: D row-major. A PyTorch decode call D = x W^T runs here as D^T = W x^T, whose D^T is D
  // column-major: ldd 1 and d_col_stride D's row stride.
  std::int64_t d_col_stride = 1;
  // FP8 rings: the dequantization factors, f32 on the device, or null for none. D(r, c) = alpha *
  // scale_a[r * scale_a_stride] * scale_b[c * scale_b_stride] * (A B^T)(r, c): stride 0 for one
  // factor per tensor (torch._scaled_mm's per-tensor scales), 1 (or a row stride) for one per
  // row of A or of B (its row-wise ones).
  float const* scale_a = nullptr;
  float const* scale_b = nullptr;
  std::int64_t scale_a_stride = 0, scale_b_stride = 0;
};

// NOTES: one 256-k box per operand and stage, unswizzled (512-byte runs of each row per request),
// was slower on every shape measured (bench/NOTES.md, "Decode through TMA"): the two-way bank
// conflicts it brings cost more than the longer runs gave.
/// The TMA ring's CTA (sm90_gemm_small_n_tma.hpp), N up to 8 * N8 (N8 = 1, 2, 4 or 8: 8 to 64
/// columns). Boxes per operand and stage: 4 (512 bytes of each row a stage: 256 k of 16-bit
/// elements, 512 of FP8) or 8 (1 KB runs of each row); Stages: 0 for as many as fit with 4 boxes
/// (10, 8, 6 and 4 at N8 = 1, 2, 4, 8). Everything but the k counts is in bytes, the same for
/// every ElementBytes (2: bf16, f16; 1: FP8).
/// NOTES: at K >= 8192, 8 boxes and 3 stages ran 3-4% faster than 4 boxes and 8 stages (28672 and
/// 8192 rows, bench/NOTES.md "Decode through TMA", runs 12-13); at K = 4096 2% slower.
/// Rows: 32 (two m16 blocks, four warps along K each), or 16 (one m16 block, eight warps along K:
/// 8 boxes a stage), which halves the work of a CTA's last row block where 32-row blocks leave
/// SMs idle in the last round (small_n_tma_rows).
template <int N8, int Boxes = 4, int Stages = 0, int ElementBytes = 2, int Rows = 32>
struct SmallNTmaTile {
  static_assert(N8 == 1 || N8 == 2 || N8 == 4 || N8 == 8, "SmallNTmaTile: N up to 8, 16, 32 or 64");
  static_assert(Boxes == 4 || Boxes == 8, "SmallNTmaTile: 4 or 8 boxes a stage");
  static_assert(ElementBytes == 1 || ElementBytes == 2, "SmallNTmaTile: 16-bit or FP8 elements");
  static_assert(Rows == 32 || (Rows == 16 && Boxes == 8), "SmallNTmaTile: row blocks of 32 rows, or of 16 with 8 boxes a stage");
  static constexpr int kRows = Rows;                       // rows of a row block
  static constexpr int kMBlocks = Rows / 16;               // m16 blocks of a row block
  static constexpr int kBoxK = 128 / ElementBytes;         // k per box: one 128-byte swizzled row
  static constexpr int kBoxes = Boxes;                     // boxes per stage and operand
  static constexpr int kChunk = kBoxK * kBoxes;            // k per stage
  static constexpr int kParts = 8 / kMBlocks;              // box groups: warp (mw, part) takes boxes part, part + kParts, ...
  static constexpr int kConsumerWarps = kMBlocks * kParts;  // (m16 block, part): eight
  static constexpr int kThreads = 32 * (kConsumerWarps + 1);  // and one producer warp
  static constexpr int kABoxBytes = kRows * 128;
  static constexpr int kBBoxBytes = 8 * N8 * 128;
  static constexpr int kStageBytes = kBoxes * (kABoxBytes + kBBoxBytes);
  // NOTES: as many stages as fit beside the reduction area: 64 KB (N8 = 8) to 160 KB (N8 = 1)
  // of A in flight per SM, against the ~33 KB Little's law asks for at 4.3 TB/s over 132 SMs.
  // 16-row blocks: 6 stages (96 KB of A in flight, as the 32-row 8-box ring's 3).
  static constexpr int kStages = Stages ? Stages : Rows == 16 ? 6 : N8 == 1 ? 10 : N8 == 2 ? 8 : N8 == 4 ? 6 : 4;
  static constexpr int kAccumulators = 4 * N8;
  static constexpr int kReduceBytes = (kParts - 1) * kMBlocks * kAccumulators * 32 * 4;
  // The ring, 1024-byte aligned for the swizzle (+1024 of slack to align the dynamic base), the
  // reduction area, and a full and an empty barrier per stage.
  static constexpr int kSmemBytes = 1024 + kStages * kStageBytes + kReduceBytes + 2 * kStages * 8;
  static_assert(kStageBytes % 1024 == 0 && kABoxBytes % 1024 == 0 && kBBoxBytes % 1024 == 0, "boxes stay 1024-aligned");
  static_assert(kSmemBytes <= 227 * 1024, "SmallNTmaTile: the ring and its reduction area exceed sm_90's 227 KB a block");
};

/// The TMA ring's N blocks of 8 for N columns (N <= 64).
constexpr int small_n_tma_n8(int n) { return n <= 8 ? 1 : n <= 16 ? 2 : n <= 32 ? 4 : 8; }

/// Whether FP8 (e4m3) decode of M weight rows and K takes the ring rather than a GEMM tile on
/// D^T's problem. Promoted accumulation: always (the ring adds every 32-deep mma in f32 at no cost,
/// while the promoted tile is 128x128 and ran 0.64-0.95x torch._scaled_mm where the ring ran
/// 0.84-1.11). Fast accumulation: where the 128x64 tile would leave three quarters of the SMs idle
/// (at most sms / 4 tiles of 128 rows), or where rows are 16 KB or more. Measured (H100,
/// 2026-12-06, bench/NOTES.md "FP8 decode on the small-N ring"): the ring 1.01-1.87x at 4096 rows
/// and at K = 16384, the tile 0.94-1.14 at 6144-28672 rows with K = 4096-8192 where the ring ran
/// 0.84-1.01 (per-tensor) and 0.84-0.96 (row-wise, at 14336 rows).
constexpr bool small_n_tma_takes_fp8(std::int64_t m, std::int64_t k, int sms, bool promoted) {
  return promoted || 4 * ((m + 127) / 128) <= sms || k >= 16384;
}

/// The rows of the ring's row blocks for M weight rows on `sms` CTAs: 16 where that evens out the
/// CTAs' rounds by more than 1/20 of a round (a CTA takes whole row blocks: with 32-row blocks,
/// 14336 rows are 448 blocks, 3.39 rounds on 132 SMs, so the busiest CTA streams 4 while the
/// average streams 3.39; 16-row blocks make 896, 6.79 rounds of half the size, the busiest 7),
/// else 32. Balance of b blocks: b / (sms * ceil(b / sms)).
constexpr int small_n_tma_rows(std::int64_t m, int sms) {
  if (m < 1 || sms < 1) return 32;
  auto balance = [sms](std::int64_t blocks) { return double(blocks) / (double(sms) * double((blocks + sms - 1) / sms)); };
  return balance((m + 15) / 16) > balance((m + 31) / 32) + 0.05 ? 16 : 32;
}

/// Which ring a problem takes: its boxes a stage, stages (0: as many as fit) and rows a block.
/// 32-row blocks: 4 boxes a stage and as many stages as fit below rows of 16 KB (K = 8192 of a
/// 16-bit type, 16384 of FP8), 8 boxes and 3 stages from there (SmallNTmaTile's NOTES); at N8 >= 4
/// always the 4-box ring, since three 1 KB-deep stages of 32 or 64 columns leave too little room.
/// 16-row blocks (small_n_tma_rows, at N8 <= 2; M and sms given): 8 boxes, stages as fit. Without
/// M and sms, the 32-row ring.
struct SmallNTmaRing {
  int boxes, stages, rows = 32;
};
constexpr SmallNTmaRing small_n_tma_ring(int k, int n8 = 1, int element_bytes = 2, std::int64_t m = 0, int sms = 0) {
  if (n8 <= 2 && small_n_tma_rows(m, sms) == 16) return SmallNTmaRing{8, 0, 16};
  return std::int64_t(k) * element_bytes >= 16384 && n8 <= 2 ? SmallNTmaRing{8, 3} : SmallNTmaRing{4, 0};
}
static_assert(small_n_tma_rows(14336, 132) == 16 && small_n_tma_rows(6144, 132) == 16 && small_n_tma_rows(4096, 132) == 32 &&
                  small_n_tma_rows(28672, 132) == 32 && small_n_tma_rows(7168, 132) == 32,
              "small_n_tma_rows: the examples of bench/NOTES.md, 'FP8 decode on the small-N ring'");

/// The most columns (tokens) a plan gives the TMA ring on its own. The ring computes up to 64
/// (SmallNTmaTile's N8 = 8); from 17 on it runs only when asked for (device::GemmSmallN's
/// variant 11): at 32 and 64 columns it ran 10-12% slower than the Hopper kernel on D^T's problem
/// (H100, bench/NOTES.md "The small-N TMA ring to 64 columns").
inline constexpr int kSmallNTmaAutoMaxN = 16;

/// Whether the TMA ring is the decode kernel for M rows and N <= kSmallNTmaAutoMaxN columns on
/// `sms` SMs.
/// NOTES: the TMA ring was the fastest or within 3% of it from M = 2048 (64 row blocks on 132
/// SMs) to 28672 in the sweep of bench/NOTES.md ("Decode through TMA"). It does not split K, so
/// with fewer row blocks than about half the SMs the streaming kernels, which do, stay.
constexpr bool small_n_tma_takes(int m, int n, int sms) {
  return n >= 1 && n <= kSmallNTmaAutoMaxN && 20 * ((m + SmallNTmaTile<1>::kRows - 1) / SmallNTmaTile<1>::kRows) >= 9 * sms;
}

}  // namespace tessel::gemm::kernel
