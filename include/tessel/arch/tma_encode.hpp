#pragma once
// The host half of a TMA tensor map: a 3-D operand view turned into the arguments of the
// driver's cuTensorMapEncodeTiled, and the sentence when the driver refuses them.
//
// Plain C++ without CUDA headers, so that both kinds of launcher share it: the CUDA-runtime
// handles find the driver's entry point through the runtime (make_tma_map in tma_sm90.hpp), a
// launcher that loads the driver itself (the Python extension) passes its own. Enumerators are
// spelled as the integers the driver ABI gives them in cuda.h.

#include <cstdint>
#include <string>

#include "tessel/status.hpp"

namespace tessel::arch {

/// A TMA view of one operand: `inner` x `outer` x `batches` elements, inner contiguous, outer
/// stride `ld` and batch stride `batch_stride` in elements, read in boxes of box_inner x box_outer.
struct TmaView {
  void const* base;
  std::uint64_t inner, outer, batches;
  std::uint64_t ld, batch_stride;
  std::uint32_t box_inner, box_outer;
};

/// Whether TMA can store a row-major matrix of `rows` x `cols` elements of `elem_bytes` bytes
/// (rows `ld` apart, `batches` of them `batch_stride` apart): a 16-byte-aligned base, row and batch
/// strides, and rows that end on a 16-byte boundary, since the store's clipping is per 16 bytes.
/// Where it cannot, the TMA-store epilogues write D from registers.
inline bool tma_store_fits(void const* base, std::int64_t cols, std::int64_t ld, std::int64_t batches, std::int64_t batch_stride,
                           int elem_bytes) {
  return reinterpret_cast<std::uintptr_t>(base) % 16 == 0 && ld * elem_bytes % 16 == 0 &&
         (batches == 1 || batch_stride * elem_bytes % 16 == 0) && cols * elem_bytes % 16 == 0;
}

/// cuTensorMapEncodeTiled, with its enumerations as the ints they are passed as.
using TmaEncodeTiledFn = int (*)(void* map, int data_type, std::uint32_t rank, void* base, std::uint64_t const* dims,
                                 std::uint64_t const* strides, std::uint32_t const* box, std::uint32_t const* element_strides,
                                 int interleave, int swizzle, int l2_promotion, int oob_fill);

/// CUtensorMapDataType of an element of `bytes` bytes, read as raw bits (TMA never converts):
/// UINT8, UINT16 or FLOAT32.
constexpr int tma_data_type_code(int bytes) { return bytes == 1 ? 0 : bytes == 2 ? 1 : 7; }
inline constexpr int kTmaSwizzle128B = 3;  // CU_TENSOR_MAP_SWIZZLE_128B
/// CUtensorMapSwizzle for rows of `bytes` bytes: 32B = 1, 64B = 2, 128B = 3 (0: none).
constexpr int tma_swizzle_code(int bytes) { return bytes == 128 ? 3 : bytes == 64 ? 2 : bytes == 32 ? 1 : 0; }

/// CUtensorMapL2promotion: how much L2 fetches around each piece of a box a load reads.
inline constexpr int kTmaL2Promotion128B = 2, kTmaL2Promotion256B = 3;

/// Encode `v` (elements of `elem_bytes` bytes) into `map` (a CUtensorMap) with `encode`.
/// @return kErrorInvalidProblem, naming `what` and TMA's rules, where the driver refuses the map.
inline StatusInfo encode_tma_map(TmaEncodeTiledFn encode, void* map, int data_type, int elem_bytes, TmaView const& v,
                                 int swizzle, char const* what, int l2_promotion = kTmaL2Promotion256B) {
  // A batch of one still needs a legal stride: any multiple of 16 bytes will do.
  std::uint64_t batch_stride = v.batches > 1 ? v.batch_stride : v.ld * v.outer;
  std::uint64_t dims[3] = {v.inner, v.outer, v.batches};
  std::uint64_t strides[2] = {v.ld * elem_bytes, batch_stride * elem_bytes};
  std::uint32_t box[3] = {v.box_inner, v.box_outer, 1};
  std::uint32_t elem_strides[3] = {1, 1, 1};
  constexpr int kInterleaveNone = 0, kOobFillNone = 0;
  int r = encode(map, data_type, 3, const_cast<void*>(v.base), dims, strides, box, elem_strides, kInterleaveNone, swizzle,
                 l2_promotion, kOobFillNone);
  if (r != 0)
    return {Status::kErrorInvalidProblem,
            std::string("the driver refused the TMA descriptor of ") + what + " (" + std::to_string(v.inner) + " x " +
                std::to_string(v.outer) + " x " + std::to_string(v.batches) + " elements, strides " + std::to_string(v.ld) +
                " and " + std::to_string(batch_stride) + ", error " + std::to_string(r) +
                "): TMA needs a 16-byte-aligned base, strides that are multiples of 16 bytes and below 2^40 bytes"};
  return {};
}

}  // namespace tessel::arch
