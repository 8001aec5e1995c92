#pragma once
// Distances in units in the last place between two outputs of a narrow floating-point type, for
// checks that allow one rounding step and no more: two kernels that contract the same float math
// differently may round a value to neighbouring e4m3 (or bf16) values, never further apart.
//
// Example: e4m3 values 192 and 208 are neighbours (1 ulp); 192 and 224 are 2 ulps apart; -0.001953
// (the smallest negative subnormal) and +0 are 1 ulp apart.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tessel/numeric.hpp"
#include "tessel/verify/device_buffer.cuh"

namespace tessel::verify {

/// The position of an e4m3 or bf16 value among the format's values in order (sign-magnitude read
/// as a signed integer: neighbours differ by one, +0 and -0 are both 0); `finite` false for NaN
/// and infinities.
template <class T>
TESSEL_HD int ordinal(T v, bool& finite) {
  static_assert(std::is_same_v<T, float_e4m3_t> || std::is_same_v<T, bfloat16_t>, "ordinal: e4m3 or bf16");
  std::uint32_t bits = 0;
  memcpy(&bits, &v, sizeof(T));
  constexpr std::uint32_t kSign = 1u << (8 * sizeof(T) - 1);
  std::uint32_t const mag = bits & (kSign - 1);
  if constexpr (sizeof(T) == 1) finite = mag != 0x7f;  // e4m3: S.1111.111 is NaN; no infinities
  else finite = (mag >> 7) != 0xff;                    // bf16: an all-ones exponent is inf or NaN
  return (bits & kSign) ? -int(mag) : int(mag);
}

/// |ordinal(x) - ordinal(y)|; the largest unsigned value when either is NaN or infinite, so that a
/// poisoned (never written) element fails every tolerance.
template <class T>
TESSEL_HD unsigned ulp_distance(T x, T y) {
  bool fx = false, fy = false;
  int const ox = ordinal(x, fx), oy = ordinal(y, fy);
  if (!fx || !fy) return ~0u;
  return unsigned(ox > oy ? ox - oy : oy - ox);
}

struct UlpReport {
  unsigned long long differ = 0, beyond_one = 0;  // elements 1 or more, and 2 or more, ulps apart
  unsigned worst = 0;
};

// Per-thread counts, one atomic each per thread at the end: a comparison of mostly differing
// outputs must not serialise on one counter.
template <class T>
__global__ void ulp_compare_kernel(T const* x, T const* y, std::int64_t count, unsigned long long* counts, unsigned* worst) {
  unsigned long long differ = 0, beyond = 0;
  unsigned w = 0;
  for (std::int64_t e = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < count; e += std::int64_t(gridDim.x) * blockDim.x) {
    unsigned const d = ulp_distance(x[e], y[e]);
    differ += d != 0;
    beyond += d > 1;
    w = d > w ? d : w;
  }
  if (differ) atomicAdd(&counts[0], differ);
  if (beyond) atomicAdd(&counts[1], beyond);
  if (w) atomicMax(worst, w);
}

/// Compares `count` contiguous device elements of x and y; returns when the comparison is done.
template <class T>
UlpReport ulp_compare(T const* x, T const* y, std::int64_t count, cudaStream_t stream = nullptr) {
  DeviceBuffer<unsigned long long> counts(2);
  DeviceBuffer<unsigned> worst(1);
  check_cuda(cudaMemsetAsync(counts.data(), 0, counts.bytes(), stream), "cudaMemsetAsync");
  check_cuda(cudaMemsetAsync(worst.data(), 0, worst.bytes(), stream), "cudaMemsetAsync");
  ulp_compare_kernel<T><<<2048, 256, 0, stream>>>(x, y, count, counts.data(), worst.data());
  check_cuda(cudaGetLastError(), "ulp_compare_kernel launch");
  check_cuda(cudaStreamSynchronize(stream), "ulp_compare_kernel");
  auto const c = counts.download();
  return {c[0], c[1], worst.download()[0]};
}

}  // namespace tessel::verify
