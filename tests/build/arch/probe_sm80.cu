// Probe kernels for the Ampere wrappers, compiled for sm_80 and again for sm_90a (the Sm80 path
// is what Hopper runs for Sm80-tagged kernels). tessel-sass checks: one HMMA.16816 per
// m16n8k16 (f16 and bf16), LDGSTS for cp.async, no spills.

#include <cstdint>

#include "tessel/arch/cp_async_sm80.hpp"
#include "tessel/arch/mma_sm80.hpp"

namespace {
using tessel::arch::Mma16x8x16F32BF16BF16F32;
using tessel::arch::Mma16x8x16F32F16F16F32;

template <class Mma>
__device__ void warp_tile_16x8x32(const std::uint32_t* a, const std::uint32_t* b, float* d) {
  const unsigned lane = threadIdx.x;
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
  for (int k = 0; k < 2; ++k) {
    std::uint32_t fa[4], fb[2];
    for (int r = 0; r < 4; ++r) fa[r] = a[(k * 4 + r) * 32 + lane];
    for (int r = 0; r < 2; ++r) fb[r] = b[(k * 2 + r) * 32 + lane];
    Mma::fma(acc, fa, fb, acc);
  }
  for (int i = 0; i < 4; ++i) d[lane * 4 + i] = acc[i];
}
}  // namespace

// The 16x8x32 warp tile of the Sm75 probe with m16n8k16: 2 HMMA.16816.F32.
__global__ void tessel_probe_sm80_mma_f16(const std::uint32_t* a, const std::uint32_t* b,
                                          float* d) {
  warp_tile_16x8x32<Mma16x8x16F32F16F16F32>(a, b, d);
}

// The same with bf16 operands: 2 HMMA.16816.F32.BF16.
__global__ void tessel_probe_sm80_mma_bf16(const std::uint32_t* a, const std::uint32_t* b,
                                           float* d) {
  warp_tile_16x8x32<Mma16x8x16F32BF16BF16F32>(a, b, d);
}

// Two groups of 16-byte copies, the second zero-filled past `valid_bytes`, then the waits.
__global__ void tessel_probe_sm80_cp_async(const uint4* src, uint4* dst, unsigned valid_bytes) {
  __shared__ alignas(16) uint4 stage[2][32];
  const unsigned t = threadIdx.x;
  tessel::arch::cp_async_cg_16(&stage[0][t], &src[t]);
  tessel::arch::cp_async_commit_group();
  tessel::arch::cp_async_cg_16(tessel::arch::cvta_to_shared(&stage[1][t]), &src[32 + t],
                               valid_bytes);
  tessel::arch::cp_async_commit_group();
  tessel::arch::cp_async_wait_group<1>();
  __syncthreads();
  dst[t] = stage[0][t];
  tessel::arch::cp_async_wait_all();
  __syncthreads();
  dst[32 + t] = stage[1][31 - t];
}
