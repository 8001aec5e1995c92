#pragma once
// TMA (the tensor memory accelerator): tile copies between global and shared memory, described by
// a tensor map encoded on the host. Loads complete on an mbarrier's transaction count; a multicast
// load writes the same box into several CTAs of a cluster; stores complete in bulk groups.
//
// The tensor map is encoded through the driver entry point the runtime hands out
// (cudaGetDriverEntryPointByVersion), so nothing links against the driver library; it is passed
// to the kernel by value as a __grid_constant__ parameter.
//
// The operand maps are 3-D: (inner, outer, batch), inner contiguous; a plain matrix is batch 1.
// 1-D maps carry short runs of floats (block scales).

#include <cstdint>

#include "tessel/arch/cu_tensor_map.hpp"
#include "tessel/arch/util.hpp"

#if !defined(__CUDACC_RTC__)  // the host half: NVRTC compiles device code only
#include <cuda_runtime_api.h>

#include "tessel/arch/tma_encode.hpp"
#endif

namespace tessel::arch {

#if defined(__CUDACC__)
/// Load the box at (x, y, z) (x the contiguous coordinate) into shared memory; the bytes count
/// against `bar`'s transaction count. Out-of-range parts of the box are filled with zeros.
__device__ __forceinline__ void tma_load_3d(void* smem, CUtensorMap const* map, std::uint64_t* bar, int x, int y, int z) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];\n" ::"r"(
          cvta_to_shared(smem)),
      "l"(map), "r"(cvta_to_shared(bar)), "r"(x), "r"(y), "r"(z)
      : "memory");
}
/// The same box into every CTA of the cluster whose bit is set in `cta_mask`, at the same
/// shared-memory offset; each destination's barrier at `bar`'s offset receives the bytes.
__device__ __forceinline__ void tma_load_3d_multicast(void* smem, CUtensorMap const* map, std::uint64_t* bar, int x, int y,
                                                      int z, std::uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%3, %4, "
      "%5}], [%2], %6;\n" ::"r"(cvta_to_shared(smem)),
      "l"(map), "r"(cvta_to_shared(bar)), "r"(x), "r"(y), "r"(z), "h"(cta_mask)
      : "memory");
}
/// Load the box of a make_tma_map_1d_f32 map that starts at element x; `smem` 128-byte aligned.
__device__ __forceinline__ void tma_load_1d(void* smem, CUtensorMap const* map, std::uint64_t* bar, int x) {
  tma_load_3d(smem, map, bar, x, 0, 0);
}
/// Store a box from shared memory; completes in the thread's current bulk group.
__device__ __forceinline__ void tma_store_3d(CUtensorMap const* map, void const* smem, int x, int y, int z) {
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];\n" ::"l"(map),
               "r"(cvta_to_shared(smem)), "r"(x), "r"(y), "r"(z)
               : "memory");
}
__device__ __forceinline__ void tma_store_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
/// Wait until the shared memory of all but the newest N bulk groups may be overwritten.
template <int N>
__device__ __forceinline__ void tma_store_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}
/// Wait until all of this thread's bulk stores have completed (their writes are performed).
__device__ __forceinline__ void tma_store_wait_all() { asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory"); }
/// Order this thread's ordinary shared-memory writes before later async-proxy (TMA, wgmma) reads.
__device__ __forceinline__ void fence_proxy_async_shared() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
__device__ __forceinline__ void tma_prefetch_descriptor(CUtensorMap const* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(map) : "memory");
}
#endif

#if !defined(__CUDACC_RTC__)
/// The element type of a tensor map, from the C++ type's size (16-bit floats are read as raw
/// 16-bit values: TMA copies bits and never converts).
template <class T>
constexpr CUtensorMapDataType tma_data_type() {
  return CUtensorMapDataType(tma_data_type_code(int(sizeof(T))));
}

/// The driver's cuTensorMapEncodeTiled, found once through the CUDA runtime.
/// @return kErrorInsufficientDriver where the driver does not provide it.
inline StatusInfo tma_encode_entry(TmaEncodeTiledFn& fn_out) {
  static TmaEncodeTiledFn encode = nullptr;
  if (!encode) {
    cudaDriverEntryPointQueryResult q{};
    void* fn = nullptr;
    auto e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q);
    if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !fn)
      return {Status::kErrorInsufficientDriver,
              "the driver does not provide cuTensorMapEncodeTiled (TMA needs a CUDA 12 driver or newer): update the driver"};
    encode = reinterpret_cast<TmaEncodeTiledFn>(fn);
  }
  fn_out = encode;
  return {};
}

/// Encode `v` (elements of `elem_bytes` bytes) with the given swizzle (encode_tma_map, with the
/// driver's entry point found through the CUDA runtime).
/// @return kErrorInsufficientDriver without the driver entry point; kErrorInvalidProblem, naming
///         `what` and the rule, where the driver refuses the map.
inline StatusInfo make_tma_map(CUtensorMap& map, CUtensorMapDataType type, int elem_bytes, TmaView const& v,
                               CUtensorMapSwizzle swizzle, char const* what, int l2_promotion = kTmaL2Promotion256B) {
  TmaEncodeTiledFn encode = nullptr;
  if (auto s = tma_encode_entry(encode); !s.ok()) return s;
  return encode_tma_map(encode, &map, int(type), elem_bytes, v, int(swizzle), what, l2_promotion);
}

#endif

}  // namespace tessel::arch
