// Must not compile for sm_75: mma.sync m16n8k16 is an sm_80 instruction.
#include "tessel/arch/mma_sm80.hpp"

__global__ void uses_m16n8k16(float* d) {
  float acc[4] = {};
  const std::uint32_t a[4] = {}, b[2] = {};
  tessel::arch::Mma16x8x16F32F16F16F32::fma(acc, a, b, acc);
  d[threadIdx.x] = acc[0];
}
