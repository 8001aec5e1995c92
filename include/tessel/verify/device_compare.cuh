#pragma once
// compare.hpp for results and references that live on the device: every element is judged by
// the same function on the device, only counters and the worst element's position come back,
// and on failure the per-element verdicts locate the first failures in row-major order. The
// reported elements are re-judged on the host from their copied values, so the text matches
// what compare() would print.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "tessel/verify/compare.hpp"
#include "tessel/verify/device_buffer.cuh"
#include "tessel/verify/device_reference.cuh"

namespace tessel::verify {

namespace detail {
// Order-preserving key for atomicMax: the ratio's float bits (non-negative floats compare like
// their bit patterns) above the inverted linear index (so that ties go to the first element).
__device__ inline unsigned long long worst_key(double ratio, std::uint32_t index) {
  const float r = static_cast<float>(ratio);
  std::uint32_t bits;
  memcpy(&bits, &r, sizeof bits);
  return (static_cast<unsigned long long>(bits) << 32) | (0xffffffffu - index);
}
}  // namespace detail

template <class TD>
__global__ void compare_kernel(MatrixView<const TD> d, const double* value,
                               const double* ab_magnitude, const double* c_magnitude,
                               std::int64_t k, Tolerance tol, unsigned char* verdicts,
                               unsigned long long* counters, unsigned long long* worst) {
  const std::int64_t total = d.rows * d.cols;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       e < total; e += stride) {
    const std::int64_t i = e / d.cols;
    const std::int64_t j = e % d.cols;
    const double budget = tol.budget(k, ab_magnitude[e], c_magnitude[e], value[e]);
    const Judgement jd = judge(d(i, j), value[e], budget);
    verdicts[e] = static_cast<unsigned char>(jd.verdict);
    atomicMax(worst, detail::worst_key(jd.ratio, static_cast<std::uint32_t>(e)));
    if (jd.verdict != Verdict::kPass) {
      atomicAdd(&counters[0], 1ull);
      if (jd.verdict == Verdict::kUnwritten) atomicAdd(&counters[1], 1ull);
      if (jd.verdict == Verdict::kNonFinite) atomicAdd(&counters[2], 1ull);
    }
  }
}

// `d` must point to device memory and match the reference's shape (at most 2^32 - 1 elements).
template <class TD>
CompareReport device_compare(MatrixView<const TD> d, const DeviceReference& ref,
                             const Tolerance& tol, std::size_t max_reported = 8,
                             cudaStream_t stream = nullptr) {
  if (d.rows != ref.m || d.cols != ref.n) {
    throw std::invalid_argument("device_compare: D is " + detail::dims(d.rows, d.cols) +
                                " but the reference is " + detail::dims(ref.m, ref.n));
  }
  const std::int64_t total = ref.m * ref.n;
  if (total >= 0xffffffffll) {
    throw std::invalid_argument("device_compare: " + std::to_string(total) +
                                " elements; at most 2^32 - 1 are supported");
  }
  CompareReport report;
  report.rows = ref.m;
  report.cols = ref.n;
  if (total == 0) return report;

  DeviceBuffer<unsigned char> verdicts(static_cast<std::size_t>(total));
  DeviceBuffer<unsigned long long> counters(4);  // failed, unwritten, nonfinite, worst key
  check_cuda(cudaMemsetAsync(counters.data(), 0, counters.bytes(), stream), "cudaMemsetAsync");
  const std::int64_t blocks = (total + 255) / 256;
  compare_kernel<TD><<<static_cast<unsigned>(blocks < 65535 ? blocks : 65535), 256, 0, stream>>>(
      d, ref.value.data(), ref.ab_magnitude.data(), ref.c_magnitude.data(), ref.k, tol,
      verdicts.data(), counters.data(), counters.data() + 3);
  check_cuda(cudaGetLastError(), "compare_kernel launch");
  check_cuda(cudaStreamSynchronize(stream), "compare_kernel");
  const std::vector<unsigned long long> c = counters.download();

  // Re-judge one element on the host from copies of its values.
  auto fetch = [&](std::int64_t e) {
    TD raw;
    double want = 0, ab = 0, cm = 0;
    const std::int64_t i = e / ref.n, j = e % ref.n;
    check_cuda(cudaMemcpy(&raw, d.data + d.offset(i, j), sizeof raw, cudaMemcpyDeviceToHost),
               "cudaMemcpy D2H");
    check_cuda(cudaMemcpy(&want, ref.value.data() + e, sizeof want, cudaMemcpyDeviceToHost),
               "cudaMemcpy D2H");
    check_cuda(cudaMemcpy(&ab, ref.ab_magnitude.data() + e, sizeof ab, cudaMemcpyDeviceToHost),
               "cudaMemcpy D2H");
    check_cuda(cudaMemcpy(&cm, ref.c_magnitude.data() + e, sizeof cm, cudaMemcpyDeviceToHost),
               "cudaMemcpy D2H");
    const double budget = tol.budget(ref.k, ab, cm, want);
    const Judgement jd = judge(raw, want, budget);
    return Mismatch{i, j, jd.verdict, jd.got, want, jd.error, budget, jd.ratio};
  };

  report.checked = total;
  report.failed = static_cast<std::int64_t>(c[0]);
  report.unwritten = static_cast<std::int64_t>(c[1]);
  report.nonfinite = static_cast<std::int64_t>(c[2]);
  report.worst = fetch(static_cast<std::int64_t>(0xffffffffu - (c[3] & 0xffffffffu)));
  report.has_worst = true;
  if (report.failed > 0 && max_reported > 0) {
    const std::vector<unsigned char> v = verdicts.download();
    for (std::int64_t e = 0; e < total && report.first.size() < max_reported; ++e) {
      if (v[static_cast<std::size_t>(e)] != static_cast<unsigned char>(Verdict::kPass)) {
        report.first.push_back(fetch(e));
      }
    }
  }
  return report;
}

}  // namespace tessel::verify
