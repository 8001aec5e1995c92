// Probe kernels for the Turing wrappers, compiled for sm_75 only. tessel-sass then checks the
// machine code: one HMMA.1688.F32 per m16n8k8, one LDSM of each form, no LDGSTS, no spills.

#include <cstdint>

#include "tessel/arch/ldmatrix_sm75.hpp"
#include "tessel/arch/mma_sm75.hpp"

namespace {
using tessel::arch::Mma16x8x8F32F16F16F32;
}

// A 16x8x32 warp tile as four m16n8k8 steps: 4 HMMA.1688.F32 (the Sm80 probe does the same tile
// with 2 HMMA.16816.F32). Operands come from global memory so that nothing folds away.
__global__ void tessel_probe_sm75_mma(const std::uint32_t* a, const std::uint32_t* b, float* d) {
  const unsigned lane = threadIdx.x;
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const std::uint32_t fa[2] = {a[(k * 2 + 0) * 32 + lane], a[(k * 2 + 1) * 32 + lane]};
    const std::uint32_t fb[1] = {b[k * 32 + lane]};
    Mma16x8x8F32F16F16F32::fma(acc, fa, fb, acc);
  }
  for (int i = 0; i < 4; ++i) d[lane * 4 + i] = acc[i];
}

// Every ldmatrix form once: LDSM.16.M88, .M88.2, .M88.4, .MT88, .MT88.2, .MT88.4.
__global__ void tessel_probe_sm75_ldmatrix(const uint4* src, std::uint32_t* out) {
  __shared__ alignas(16) uint4 tile[32];
  const unsigned lane = threadIdx.x;
  tile[lane] = src[lane];
  __syncwarp();
  std::uint32_t r1[1], r2[2], r4[4], t1[1], t2[2], t4[4];
  tessel::arch::ldmatrix_x1(r1, &tile[lane]);
  tessel::arch::ldmatrix_x2(r2, &tile[lane]);
  tessel::arch::ldmatrix_x4(r4, &tile[lane]);
  tessel::arch::ldmatrix_x1_trans(t1, &tile[lane]);
  tessel::arch::ldmatrix_x2_trans(t2, &tile[lane]);
  tessel::arch::ldmatrix_x4_trans(t4, &tile[lane]);
  out[lane] = r1[0] ^ r2[0] ^ r2[1] ^ r4[0] ^ r4[1] ^ r4[2] ^ r4[3] ^ t1[0] ^ t2[0] ^ t2[1] ^
              t4[0] ^ t4[1] ^ t4[2] ^ t4[3];
}
