#pragma once
// TMA (the tensor memory accelerator): 2-D tile loads from global to shared memory that complete
// on an mbarrier, described by a tensor map encoded on the host.
//
// The tensor map is encoded through the driver entry point the runtime hands out
// (cudaGetDriverEntryPointByVersion), so nothing links against the driver library; it is passed
// to the kernel by value as a __grid_constant__ parameter.

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cudaTypedefs.h>

#include <cstdint>
#include <string>

#include "tessel/arch/util.hpp"
#include "tessel/status.hpp"

namespace tessel::arch {

#if defined(__CUDACC__)
/// Load the box at (x, y) (x the contiguous coordinate) into shared memory; the bytes count
/// against `bar`'s transaction count.
__device__ __forceinline__ void tma_load_2d(void* smem, CUtensorMap const* map, std::uint64_t* bar, int x, int y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n" ::"r"(
          cvta_to_shared(smem)),
      "l"(map), "r"(cvta_to_shared(bar)), "r"(x), "r"(y)
      : "memory");
}
__device__ __forceinline__ void tma_prefetch_descriptor(CUtensorMap const* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(map) : "memory");
}
#endif

/// A row-major (rows, cols) matrix of 16-bit elements with leading dimension ld (elements), read
/// in boxes of (box_rows, box_cols) with the 128-byte swizzle that wgmma's K-major operands use.
/// @pre box_cols * 2 == 128 (one swizzle row), ld * 2 a multiple of 16, base 16-byte aligned
inline StatusInfo make_tma_2d_bf16_sw128(CUtensorMap& map, void const* base, std::uint64_t rows, std::uint64_t cols,
                                         std::uint64_t ld, std::uint32_t box_rows, std::uint32_t box_cols) {
  static PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  if (!encode) {
    cudaDriverEntryPointQueryResult q{};
    void* fn = nullptr;
    auto e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q);
    if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !fn)
      return {Status::kErrorInsufficientDriver,
              "the driver does not provide cuTensorMapEncodeTiled (TMA needs a CUDA 12 driver or newer): update the driver"};
    encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }
  cuuint64_t dims[2] = {cols, rows};
  cuuint64_t strides[1] = {ld * 2};
  cuuint32_t box[2] = {box_cols, box_rows};
  cuuint32_t elem_strides[2] = {1, 1};
  CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<void*>(base), dims, strides, box, elem_strides,
                      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    return {Status::kErrorInvalidProblem, "cuTensorMapEncodeTiled refused a " + std::to_string(rows) + "x" + std::to_string(cols) +
                                              " matrix with leading dimension " + std::to_string(ld) +
                                              " (error " + std::to_string(int(r)) + "): the base must be 16-byte aligned and "
                                              "the leading dimension a multiple of 8 elements"};
  return {};
}

}  // namespace tessel::arch
