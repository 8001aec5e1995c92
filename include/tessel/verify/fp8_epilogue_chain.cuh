#pragma once
// The FP8 training epilogue unfused: one elementwise kernel over a GEMM's output, the same math
// as the fusion epilogue::fusion::LinCombBiasGeluAmaxFp8 (fusion/lincomb_fp8.hpp) applies to the
// accumulators in registers:
//
//   out(r, c) = e4m3(scale_d * gelu(d(r, c) + bias[c]))      saturating at 448
//   *amax     = max(*amax, max |gelu(d(r, c) + bias[c])|)     before the scale; *amax >= 0 on entry
//
// d is rows x cols, row-major and dense (a column-major D is the row-major D^T: its bias then runs
// along the rows of D). From f32 accumulators it is the reference the fused kernel is held to
// (the same Gelu functor, so only float contraction differs); from a bf16 D it is what a program
// that cannot fuse runs after its GEMM.
//
// Example: d = 1.5, bias = 0.5, scale_d = 100: gelu(2) = 1.95450, out = e4m3(195.450) = 192, and
// the amax becomes at least 1.95450.

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>

#include "tessel/numeric.hpp"
#include "tessel/verify/device_buffer.cuh"

namespace tessel::verify {

namespace detail {
// Eight consecutive elements as floats, from one 16-byte load (bf16) or two (f32).
__device__ __forceinline__ void load8(bfloat16_t const* p, float (&x)[8]) {
  uint4 const raw = *reinterpret_cast<uint4 const*>(p);
  __nv_bfloat162 const* h = reinterpret_cast<__nv_bfloat162 const*>(&raw);
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    float2 const f = __bfloat1622float2(h[i]);
    x[2 * i] = f.x;
    x[2 * i + 1] = f.y;
  }
}
__device__ __forceinline__ void load8(float const* p, float (&x)[8]) {
  float4 const lo = reinterpret_cast<float4 const*>(p)[0], hi = reinterpret_cast<float4 const*>(p)[1];
  x[0] = lo.x, x[1] = lo.y, x[2] = lo.z, x[3] = lo.w, x[4] = hi.x, x[5] = hi.y, x[6] = hi.z, x[7] = hi.w;
}

// The block's maximum, valid in thread 0: shuffles within each warp, then the warps' results.
__device__ inline float block_max(float v) {
  __shared__ float warp_max[32];
  for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  int const lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32, warps = int(blockDim.x + 31) / 32;
  if (lane == 0) warp_max[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < warps ? warp_max[lane] : 0.f;
    for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  }
  return v;
}

// Non-negative floats order like their bits, so one integer atomic per block gives the exact max.
__device__ inline void join_amax(float* amax, float local) {
  float const block = block_max(local);
  if (threadIdx.x == 0 && block > 0.f) atomicMax(reinterpret_cast<unsigned int*>(amax), __float_as_uint(block));
}

template <class Gelu>
__device__ __forceinline__ unsigned char apply(float x, float bias, float scale, float& local) {
  float const y = Gelu{}(x + bias);
  local = fmaxf(local, fabsf(y));
  return numeric_cast<float_e4m3_t>(scale * y).__x;
}
}  // namespace detail

// cols % 8 == 0 and 16-byte aligned rows, so that the eight elements of a chunk share a row and
// load as vectors. Each thread takes two chunks per pass, both loads issued before the math, to
// keep more bytes in flight: this is the unfused chain benchmarks time.
template <class TIn, class Gelu>
__global__ void __launch_bounds__(256) bias_gelu_amax_e4m3_kernel(TIn const* __restrict__ d, bfloat16_t const* __restrict__ bias,
                                                                  float const* __restrict__ scale_d, float* amax,
                                                                  float_e4m3_t* __restrict__ out, std::int64_t chunks, int cols) {
  float const scale = *scale_d;
  float local = 0.f;
  std::int64_t const stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t c0 = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; c0 < chunks; c0 += 2 * stride) {
    float x[2][8], b[2][8];
#pragma unroll
    for (int u = 0; u < 2; ++u) {
      std::int64_t const c = c0 + u * stride;
      if (c < chunks) {
        detail::load8(d + 8 * c, x[u]);
        detail::load8(bias + (8 * c) % cols, b[u]);
      }
    }
#pragma unroll
    for (int u = 0; u < 2; ++u) {
      std::int64_t const c = c0 + u * stride;
      if (c >= chunks) continue;
      uint2 packed;
      auto* q = reinterpret_cast<unsigned char*>(&packed);
#pragma unroll
      for (int v = 0; v < 8; ++v) q[v] = detail::apply<Gelu>(x[u][v], b[u][v], scale, local);
      *reinterpret_cast<uint2*>(out + 8 * c) = packed;
    }
  }
  detail::join_amax(amax, local);
}

// Any shape and alignment, one element at a time: for verification, where speed does not matter.
template <class TIn, class Gelu>
__global__ void __launch_bounds__(256) bias_gelu_amax_e4m3_scalar_kernel(TIn const* __restrict__ d, bfloat16_t const* __restrict__ bias,
                                                                         float const* __restrict__ scale_d, float* amax,
                                                                         float_e4m3_t* __restrict__ out, std::int64_t count, int cols) {
  float const scale = *scale_d;
  float local = 0.f;
  for (std::int64_t e = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < count; e += std::int64_t(gridDim.x) * blockDim.x)
    out[e].__x = detail::apply<Gelu>(float(d[e]), float(bias[e % cols]), scale, local);
  detail::join_amax(amax, local);
}

/// Launches the chain on `stream` over a dense row-major rows x cols `d` (bf16 or f32); `bias` holds
/// cols values, `scale_d` and `amax` one float each on the device. `sms` sizes the grid: as many
/// blocks as are resident at once, so that the grid-stride loop runs in a single wave.
template <class Gelu, class TIn>
void bias_gelu_amax_e4m3(TIn const* d, bfloat16_t const* bias, float const* scale_d, float* amax, float_e4m3_t* out,
                         std::int64_t rows, int cols, int sms, cudaStream_t stream = nullptr) {
  auto resident = [](auto kernel) {
    int b = 0;
    check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, kernel, 256, 0), "occupancy");
    return std::max(1, b);
  };
  auto aligned = [](void const* p, std::uintptr_t bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; };
  std::int64_t const count = rows * cols;
  if (count == 0) return;
  if (cols % 8 == 0 && aligned(d, 16) && aligned(bias, 16) && aligned(out, 8)) {
    static int const per_sm = resident(bias_gelu_amax_e4m3_kernel<TIn, Gelu>);
    std::int64_t const chunks = count / 8;
    std::int64_t const blocks = std::min<std::int64_t>((chunks + 255) / 256, std::int64_t(sms) * per_sm);
    bias_gelu_amax_e4m3_kernel<TIn, Gelu><<<unsigned(blocks), 256, 0, stream>>>(d, bias, scale_d, amax, out, chunks, cols);
  } else {
    static int const per_sm = resident(bias_gelu_amax_e4m3_scalar_kernel<TIn, Gelu>);
    std::int64_t const blocks = std::min<std::int64_t>((count + 255) / 256, std::int64_t(sms) * per_sm);
    bias_gelu_amax_e4m3_scalar_kernel<TIn, Gelu><<<unsigned(blocks), 256, 0, stream>>>(d, bias, scale_d, amax, out, count, cols);
  }
  check_cuda(cudaGetLastError(), "bias_gelu_amax_e4m3 launch");
}

}  // namespace tessel::verify
