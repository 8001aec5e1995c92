#pragma once
// What a launcher needs to know of the block-scaled FP8 kernels' scales (sm90_block_scales.hpp),
// in plain C++ without CUDA headers, so that the C++ adapter and the Python extension share one
// copy: the blocks, where the scales may lie, the scale ring's size, and its TMA maps.

#include <cstdint>

#include "tessel/config.hpp"

#if !defined(__CUDACC_RTC__)  // NVRTC compiles the kernels, which need none of the host part
#include "tessel/arch/tma_encode.hpp"
#include "tessel/status.hpp"
#endif

namespace tessel::gemm::kernel {

inline constexpr int kBlockScaleK = 128;  // elements of K per scale, for A and B
inline constexpr int kBlockScaleN = 128;  // rows of B (N) per scale

/// Where one operand's scales are: base and element strides over (row or row block, K block, batch).
struct BlockScaleTensor {
  float const* ptr = nullptr;
  std::int64_t row = 0, k = 0, batch = 0;
  TESSEL_HD float const* at(int r, int kb, int l) const { return ptr + r * row + kb * k + l * batch; }
};

/// K blocks of scales per load. NOTES: the scales' TMA loads cost the kernel time by their count
/// more than by their bytes (two 1-D boxes per K tile cost 10%, either one alone 5%); one pair of
/// boxes per 4, 8 and 16 K tiles ran at 0.79-0.85, 0.85-0.89 and 0.88-0.91x the per-tensor
/// promoted kernel (bench/NOTES.md). 16 is the most that leaves room for a sixth stage.
inline constexpr int kScaleGroup = 16;

// The scale ring's sizes (Sm90ScaleRing): NOTES: the producer runs at most `stages` K tiles ahead
// of the consumers, so no more groups than this are in use at once, and the producer never waits
// for a scale slot before it would wait for a stage.
constexpr int sm90_scale_slots(int stages) { return (stages + kScaleGroup - 1) / kScaleGroup + 1; }
// A's box: bm rows and up to 3 before them. NOTES: TMA faults (an illegal instruction) on a box
// whose first element is not 16-byte aligned, and a grouped tile starts on its group's first row,
// any row: the box starts at the aligned row at or below it (grouped_gemm with TMA-carried block
// scales stopped so on the H100, 2026-12-05).
constexpr int sm90_scale_rows_a(int bm) { return bm + 4; }
// Blocks of B's scales one tile of bn columns reads: one where bn divides 128; two for bn = 192,
// whose tiles start at column offsets 0 or 64 of a 128-column block and so end in the next one.
inline constexpr int kSm90MaxScaleBlocksB = 2;
constexpr int sm90_scale_blocks_b(int bn) { return bn <= kBlockScaleN ? 1 : kSm90MaxScaleBlocksB; }
// B's box per block: kScaleGroup + 4 floats in its own 128 bytes.
constexpr int sm90_scale_box_floats_b() { return (kScaleGroup + 4 + 31) / 32 * 32; }
// A slot: kScaleGroup K blocks of A's box rows, then one B box per block the tile reads (TMA
// writes shared memory at 128-byte-aligned addresses; 64 (bm + 4) bytes is a multiple of 128 for
// even bm).
constexpr int sm90_scale_slot_floats(int bm, int bn) {
  return kScaleGroup * sm90_scale_rows_a(bm) + sm90_scale_blocks_b(bn) * sm90_scale_box_floats_b();
}
// Its shared memory: the slots, and a full and an empty barrier per slot.
constexpr int sm90_scale_ring_bytes(int bm, int bn, int stages) {
  return sm90_scale_slots(stages) * (sm90_scale_slot_floats(bm, bn) * 4 + 16);
}

/// Whether TMA can carry these scales (`rows_a` rows of A, `k_blocks` blocks of K): A's rows one
/// element apart, its K (and, for batches > 1, batch) strides multiples of 16 bytes that step past
/// the dimension before (a 2-D map's rule, which also keeps out zero strides, a broadcast), B's K
/// blocks one element apart, 16-byte-aligned bases, and every element index of B that `extent_b`
/// spans within a 1-D box coordinate (int32). Elsewhere the scale warp copies them.
TESSEL_HD inline bool block_scales_fit_tma(BlockScaleTensor const& a, std::int64_t rows_a, std::int64_t k_blocks, int batches_a,
                                           BlockScaleTensor const& b, std::int64_t extent_b) {
  auto aligned = [](float const* q) { return reinterpret_cast<std::uintptr_t>(q) % 16 == 0; };
  bool const a_fits = a.row == 1 && a.k % 4 == 0 && a.k >= rows_a &&
                      (batches_a == 1 || (a.batch % 4 == 0 && a.batch >= a.k * k_blocks));
  return a_fits && b.k == 1 && aligned(a.ptr) && aligned(b.ptr) && extent_b < (std::int64_t(1) << 31);
}

#if !defined(__CUDACC_RTC__)
/// Fills `sc` (a Sm90BlockScales, or a plain struct of its layout) for a problem of m x n x k
/// with `batches_a` matrices of A (and of its scales) and `batches_b` of B, `sc.a` and `sc.b`
/// already set: whether TMA carries the scales
/// (block_scales_fit_tma) and, where it does, the two maps, encoded with `encode` (the driver's
/// cuTensorMapEncodeTiled): A's scales as (rows, K blocks, batches) in boxes of
/// sm90_scale_rows_a(bm) x kScaleGroup,
/// B's as one run of floats in boxes of kScaleGroup + 4. One definition for the C++ adapter and
/// the Python launcher.
template <class Scales>
inline StatusInfo prepare_block_scales(arch::TmaEncodeTiledFn encode, Scales& sc, std::int64_t m, std::int64_t n,
                                       std::int64_t k, int batches_a, int batches_b, int bm) {
  std::int64_t const kb = (k + kBlockScaleK - 1) / kBlockScaleK, nb = (n + kBlockScaleN - 1) / kBlockScaleN;
  // Elements from B's first scale to one past the last one the problem reads.
  std::int64_t const extent_b = (nb - 1) * sc.b.row + (kb - 1) * sc.b.k + (batches_b - 1) * sc.b.batch + 1;
  sc.by_tma = block_scales_fit_tma(sc.a, m, kb, batches_a, sc.b, extent_b);
  if (!sc.by_tma) return {};
  constexpr int kFloat32 = 7, kSwizzleNone = 0;  // CU_TENSOR_MAP_DATA_TYPE_FLOAT32, CU_TENSOR_MAP_SWIZZLE_NONE
  arch::TmaView const va{sc.a.ptr,        std::uint64_t(m),        std::uint64_t(kb),          std::uint64_t(batches_a),
                         std::uint64_t(sc.a.k), std::uint64_t(sc.a.batch), std::uint32_t(sm90_scale_rows_a(bm)),
                         std::uint32_t(kScaleGroup)};
  if (auto s = arch::encode_tma_map(encode, &sc.tma_a, kFloat32, 4, va, kSwizzleNone, "the scales of A", arch::kTmaL2Promotion128B);
      !s.ok())
    return s;
  // A 1-D run as the 3-D view extent x 1 x 1, with a legal (16-byte multiple) row stride.
  std::uint64_t const ld = std::uint64_t(extent_b + 3) / 4 * 4;
  arch::TmaView const vb{sc.b.ptr, std::uint64_t(extent_b), 1, 1, ld, ld, std::uint32_t(kScaleGroup + 4), 1};
  return arch::encode_tma_map(encode, &sc.tma_b, kFloat32, 4, vb, kSwizzleNone, "the scales of B", arch::kTmaL2Promotion128B);
}
#endif

}  // namespace tessel::gemm::kernel
