#pragma once
// Checks the benchmark runs before it times anything, for problems too large for a full double
// reference (8192^3 is 5.5e11 multiply-adds):
//
// 1. tessel against cuBLAS, every element. Each result is within its own budget of the exact
//    value (tessel/verify/tolerance.hpp, FP32 accumulation, one rounding to D), so the two are
//    within the sum of the budgets of each other. The budget needs sum_k |A(i,k)||B(k,j)| per
//    element; a second cuBLAS GEMM on |A| and |B| with FP32 output gives it (its own error is a
//    few FP32 ulps of a number that only scales the budget).
// 2. Both against a double reference on a sample of elements, computed on the device one
//    element per thread in ascending k, judged exactly as the GEMM tests judge.
//
// Poisoned outputs fail both: all-ones bytes are NaN in f16 and bf16.

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "tessel/numeric.hpp"
#include "tessel/verify/compare.hpp"
#include "tessel/verify/device_buffer.cuh"
#include "tessel/verify/random.hpp"
#include "tessel/verify/tolerance.hpp"

namespace tessel::bench {

// |x| of 16-bit floats by clearing the sign bit: exact, and the same for f16 and bf16.
__global__ inline void abs16_kernel(std::uint16_t const* in, std::uint16_t* out, std::size_t count) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x)
    out[i] = in[i] & 0x7fffu;
}

template <class T>
void abs_device(T const* in, T* out, std::size_t count) {
  static_assert(sizeof(T) == 2, "abs_device: 16-bit elements");
  abs16_kernel<<<1024, 256>>>(reinterpret_cast<std::uint16_t const*>(in), reinterpret_cast<std::uint16_t*>(out), count);
  verify::check_cuda(cudaGetLastError(), "abs16_kernel launch");
}

struct PairReport {
  unsigned long long failed = 0;
  unsigned long long first = ~0ull;  // linear index of the first failure (column-major)
  float worst = 0;                   // largest |t - c| / (budget_t + budget_c)
};

// Element e of D (column-major, ld M) from tessel (t) and cuBLAS (c), with magnitude mag[e].
template <class T>
__global__ void compare_pair_kernel(T const* t, T const* c, float const* mag, std::size_t count, std::int64_t k,
                                    verify::Tolerance tol, unsigned long long* failed, unsigned long long* first,
                                    unsigned int* worst_bits) {
  for (std::size_t e = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; e < count; e += std::size_t(gridDim.x) * blockDim.x) {
    const double tv = to_double(t[e]), cv = to_double(c[e]);
    const double scale = fabs(tv) > fabs(cv) ? fabs(tv) : fabs(cv);
    const double budget = 2 * tol.budget(k, mag[e], 0, scale);
    const double err = fabs(tv - cv);
    // Written as "not within" so that NaN (poison, or a NaN result) fails.
    const bool bad = !(err <= budget) || !isfinite(tv) || !isfinite(cv);
    if (bad) {
      atomicAdd(failed, 1ull);
      atomicMin(first, static_cast<unsigned long long>(e));
    }
    const float ratio = bad ? INFINITY : float(err / budget);
    atomicMax(worst_bits, __float_as_uint(ratio));  // non-negative floats order like their bits
  }
}

template <class T>
PairReport compare_pair(T const* t, T const* c, float const* mag, std::size_t count, std::int64_t k) {
  verify::DeviceBuffer<unsigned long long> counters(2);
  verify::DeviceBuffer<unsigned int> worst(1);
  const std::vector<unsigned long long> init{0ull, ~0ull};
  counters.upload(init);
  verify::check_cuda(cudaMemset(worst.data(), 0, sizeof(unsigned int)), "cudaMemset");
  compare_pair_kernel<T><<<2048, 256>>>(t, c, mag, count, k, verify::make_tolerance<float, T>(), counters.data(),
                                        counters.data() + 1, worst.data());
  verify::check_cuda(cudaGetLastError(), "compare_pair_kernel launch");
  verify::check_cuda(cudaDeviceSynchronize(), "compare_pair_kernel");
  const auto cnt = counters.download();
  const auto w = worst.download();
  PairReport r;
  r.failed = cnt[0];
  r.first = cnt[1];
  std::memcpy(&r.worst, &w[0], sizeof(float));
  return r;
}

struct SampleReport {
  int samples = 0;
  int failed_tessel = 0, failed_cublas = 0;
  double worst_tessel = 0, worst_cublas = 0;  // share of the budget
};

// One thread per sampled element: the double reference and both judgements.
template <class T>
__global__ void sample_kernel(T const* a, T const* b, T const* t, T const* c, int m, int n, int k, int samples,
                              std::uint64_t seed, verify::Tolerance tol, double* ratio_t, double* ratio_c) {
  const int s = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (s >= samples) return;
  // The two far corners always, then hashed positions.
  int i, j;
  if (s == 0) i = 0, j = 0;
  else if (s == 1) i = m - 1, j = n - 1;
  else {
    i = int(verify::splitmix64(seed + 2 * std::uint64_t(s)) % std::uint64_t(m));
    j = int(verify::splitmix64(seed + 2 * std::uint64_t(s) + 1) % std::uint64_t(n));
  }
  double sum = 0, mag = 0;
  for (int kk = 0; kk < k; ++kk) {
    const double av = to_double(a[std::int64_t(i) * k + kk]);   // A row-major, ld K
    const double bv = to_double(b[std::int64_t(j) * k + kk]);   // B column-major, ld K
    sum = __dadd_rn(sum, __dmul_rn(av, bv));
    mag = __dadd_rn(mag, __dmul_rn(fabs(av), fabs(bv)));
  }
  const double budget = tol.budget(k, mag, 0, sum);
  const std::int64_t e = std::int64_t(j) * m + i;  // D column-major, ld M
  const verify::Judgement jt = verify::judge(t[e], sum, budget);
  const verify::Judgement jc = verify::judge(c[e], sum, budget);
  ratio_t[s] = jt.verdict == verify::Verdict::kPass ? jt.ratio : -1.0;  // -1: failed
  ratio_c[s] = jc.verdict == verify::Verdict::kPass ? jc.ratio : -1.0;
}

template <class T>
SampleReport sample_check(T const* a, T const* b, T const* t, T const* c, int m, int n, int k, int samples) {
  verify::DeviceBuffer<double> rt{std::size_t(samples)}, rc{std::size_t(samples)};
  sample_kernel<T><<<(samples + 127) / 128, 128>>>(a, b, t, c, m, n, k, samples, 0x5eed, verify::make_tolerance<float, T>(),
                                                   rt.data(), rc.data());
  verify::check_cuda(cudaGetLastError(), "sample_kernel launch");
  verify::check_cuda(cudaDeviceSynchronize(), "sample_kernel");
  SampleReport r;
  r.samples = samples;
  for (double x : rt.download()) {
    if (x < 0) ++r.failed_tessel;
    else if (x > r.worst_tessel) r.worst_tessel = x;
  }
  for (double x : rc.download()) {
    if (x < 0) ++r.failed_cublas;
    else if (x > r.worst_cublas) r.worst_cublas = x;
  }
  return r;
}

}  // namespace tessel::bench
