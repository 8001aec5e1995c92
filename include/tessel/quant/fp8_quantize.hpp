#pragma once
// Quantization to FP8 with per-block scales, the input side of the block-scaled GEMM
// (gemm/kernel/sm90_block_scales.hpp): each block of 128 consecutive elements of a row of X
// (M x K, bf16 or f16, row-major) becomes 128 FP8 values and one f32 scale,
//
//   scale = amax / max_finite(FP8)          (1 where the block is all zeros)
//   Q(m, k) = round_satfinite(X(m, k) * (max_finite / amax))
//
// so that X(m, k) ~= Q(m, k) * scale(m, k / 128) and each block uses the whole FP8 range. The
// scales go where the GEMM reads them (any element strides; torch._scaled_mm's 1x128 layout, rows
// contiguous, is device::make_block_scale_stride_A).
//
//   auto s = tessel::quant::quantize_fp8_1x128(x, ldx, m, k, q, ldq, scales, scale_stride, stream);
//
// One warp per block: each lane holds 4 neighbouring elements, the block's amax is a warp
// reduction, lane 0 writes the scale.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "tessel/arch/runtime.hpp"
#include "tessel/gemm/device/gemm_universal_sm90.hpp"
#include "tessel/numeric.hpp"
#include "tessel/status.hpp"

namespace tessel::quant {

template <class T>
inline constexpr float kFp8MaxFinite = std::is_same_v<T, float_e4m3_t> ? 448.f : 57344.f;
inline constexpr int kQuantBlock = gemm::kernel::kBlockScaleK;

/// The scale of a block whose largest magnitude is `amax`, and the factor that maps it onto Q.
/// One definition for the kernel and for host references.
template <class Q>
TESSEL_HD inline float block_scale(float amax) { return amax > 0.f ? amax / kFp8MaxFinite<Q> : 1.f; }
template <class Q>
TESSEL_HD inline float block_inverse_scale(float amax) { return amax > 0.f ? kFp8MaxFinite<Q> / amax : 1.f; }

#if defined(__CUDACC__)
template <class In, class Q>
__global__ void __launch_bounds__(256)
    quantize_fp8_1x128_kernel(In const* __restrict__ x, std::int64_t ldx, int m, int k, Q* __restrict__ q, std::int64_t ldq,
                              float* __restrict__ scales, gemm::StrideBlockScale ds) {
  int const lane = int(threadIdx.x) % 32;
  int const blocks_k = (k + kQuantBlock - 1) / kQuantBlock;
  std::int64_t const block = std::int64_t(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
  if (block >= std::int64_t(m) * blocks_k) return;
  int const row = int(block / blocks_k), kb = int(block % blocks_k);
  int const c0 = kb * kQuantBlock + 4 * lane;
  In const* src = x + row * ldx + c0;
  float v[4];
  if (c0 + 4 <= k) {  // @pre x, ldx and k allow 8-byte loads (checked on the host)
    struct alignas(4 * sizeof(In)) Four { In e[4]; };
    Four const f = *reinterpret_cast<Four const*>(src);
#pragma unroll
    for (int e = 0; e < 4; ++e) v[e] = float(f.e[e]);
  } else {
#pragma unroll
    for (int e = 0; e < 4; ++e) v[e] = c0 + e < k ? float(src[e]) : 0.f;
  }
  float amax = 0.f;
#pragma unroll
  for (int e = 0; e < 4; ++e) amax = fmaxf(amax, fabsf(v[e]));
#pragma unroll
  for (int o = 16; o > 0; o /= 2) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, o));
  float const inv = block_inverse_scale<Q>(amax);
  Q* dst = q + row * ldq + c0;
#pragma unroll
  for (int e = 0; e < 4; ++e)
    if (c0 + e < k) dst[e] = numeric_cast<Q>(v[e] * inv);
  if (lane == 0) scales[row * get<0>(ds) + kb * get<1>(ds)] = block_scale<Q>(amax);
}
#endif

/// X (m x k, row-major, leading dimension ldx) -> Q (m x k, ldq) and one scale per row and 128 of
/// K at scales[row * get<0>(ds) + kb * get<1>(ds)], on `stream`.
/// @pre x 8-byte aligned, ldx and k multiples of 4 (a refusal says so otherwise)
template <class In, class Q>
StatusInfo quantize_fp8_1x128(In const* x, std::int64_t ldx, int m, int k, Q* q, std::int64_t ldq, float* scales,
                              gemm::StrideBlockScale ds, cudaStream_t stream = nullptr) {
  static_assert(std::is_same_v<In, bfloat16_t> || std::is_same_v<In, half_t>, "quantize_fp8_1x128: X is bf16 or f16");
  static_assert(std::is_same_v<Q, float_e4m3_t> || std::is_same_v<Q, float_e5m2_t>, "quantize_fp8_1x128: Q is e4m3 or e5m2");
  if (m <= 0 || k <= 0) return {Status::kErrorInvalidProblem, "quantize_fp8_1x128: M and K must be positive"};
  if (!x || !q || !scales) return {Status::kErrorInvalidProblem, "quantize_fp8_1x128: a null pointer among X, Q and the scales"};
  if (ldx < k || ldq < k)
    return {Status::kErrorInvalidProblem, "quantize_fp8_1x128: a leading dimension is smaller than K (" + std::to_string(k) + ")"};
  if (reinterpret_cast<std::uintptr_t>(x) % (4 * sizeof(In)) || ldx % 4 || k % 4)
    return {Status::kErrorMisalignedOperand,
            "quantize_fp8_1x128: X's base must be 8-byte aligned and its leading dimension and K multiples of 4"};
#if defined(__CUDACC__)
  std::int64_t const blocks = std::int64_t(m) * ((k + kQuantBlock - 1) / kQuantBlock);
  constexpr int kWarps = 8;
  std::int64_t const grid = (blocks + kWarps - 1) / kWarps;
  if (grid > 0x7fffffff) return {Status::kErrorInvalidProblem, "quantize_fp8_1x128: more than 2^31 CTAs of blocks"};
  quantize_fp8_1x128_kernel<In, Q><<<unsigned(grid), 32 * kWarps, 0, stream>>>(x, ldx, m, k, q, ldq, scales, ds);
  return arch::status_from_cuda(cudaGetLastError(), "launching quantize_fp8_1x128");
#else
  return {Status::kErrorNotSupported, "quantize_fp8_1x128: compile this translation unit with nvcc"};
#endif
}

}  // namespace tessel::quant
