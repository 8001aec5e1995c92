#pragma once
// Device reference GEMM for problems too large for the host reference: one thread per output
// element, products summed in double in ascending k, exactly like host_reference.hpp. Multiply
// and add are issued as separate correctly rounded operations (no fused multiply-add), so the
// result is the host reference's, computed faster, not an approximation of it.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "tessel/numeric.hpp"
#include "tessel/verify/device_buffer.cuh"
#include "tessel/verify/host_reference.hpp"
#include "tessel/verify/matrix_view.hpp"

namespace tessel::verify {

// Device-resident counterpart of GemmReference (row-major M x N arrays).
struct DeviceReference {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  DeviceBuffer<double> value;
  DeviceBuffer<double> ab_magnitude;
  DeviceBuffer<double> c_magnitude;

  GemmReference to_host() const {
    GemmReference ref;
    ref.m = m;
    ref.n = n;
    ref.k = k;
    ref.value = value.download();
    ref.ab_magnitude = ab_magnitude.download();
    ref.c_magnitude = c_magnitude.download();
    return ref;
  }
};

template <class TA, class TB, class TC>
__global__ void reference_gemm_kernel(double alpha, MatrixView<const TA> a, MatrixView<const TB> b,
                                      double beta, MatrixView<const TC> c, double* value,
                                      double* ab_magnitude, double* c_magnitude) {
  const std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.y) * blockDim.y + threadIdx.y;
  if (i >= a.rows || j >= b.cols) return;
  double sum = 0;
  double mag = 0;
  for (std::int64_t kk = 0; kk < a.cols; ++kk) {
    const double av = to_double(a(i, kk));
    const double bv = to_double(b(kk, j));
    sum = __dadd_rn(sum, __dmul_rn(av, bv));
    mag = __dadd_rn(mag, __dmul_rn(fabs(av), fabs(bv)));
  }
  const double cv = beta != 0.0 ? __dmul_rn(beta, to_double(c(i, j))) : 0.0;
  const std::int64_t e = i * b.cols + j;
  value[e] = __dadd_rn(__dmul_rn(alpha, sum), cv);
  ab_magnitude[e] = __dmul_rn(fabs(alpha), mag);
  c_magnitude[e] = fabs(cv);
}

// Views must point to device memory. Throws std::invalid_argument when the shapes do not fit,
// std::runtime_error on a CUDA error.
template <class TA, class TB, class TC>
DeviceReference device_reference_gemm(double alpha, MatrixView<const TA> a,
                                      MatrixView<const TB> b, double beta,
                                      MatrixView<const TC> c, cudaStream_t stream = nullptr) {
  if (b.rows != a.cols) {
    throw std::invalid_argument("device reference GEMM: A is " + detail::dims(a.rows, a.cols) +
                                " but B is " + detail::dims(b.rows, b.cols));
  }
  if (beta != 0.0 && (c.rows != a.rows || c.cols != b.cols)) {
    throw std::invalid_argument("device reference GEMM: C is " + detail::dims(c.rows, c.cols) +
                                " but A B is " + detail::dims(a.rows, b.cols));
  }
  DeviceReference ref;
  ref.m = a.rows;
  ref.n = b.cols;
  ref.k = a.cols;
  const auto mn = static_cast<std::size_t>(ref.m * ref.n);
  ref.value = DeviceBuffer<double>(mn);
  ref.ab_magnitude = DeviceBuffer<double>(mn);
  ref.c_magnitude = DeviceBuffer<double>(mn);
  if (mn == 0) return ref;
  const dim3 block(32, 8);
  const dim3 grid(static_cast<unsigned>((ref.n + block.x - 1) / block.x),
                  static_cast<unsigned>((ref.m + block.y - 1) / block.y));
  reference_gemm_kernel<TA, TB, TC><<<grid, block, 0, stream>>>(
      alpha, a, b, beta, c, ref.value.data(), ref.ab_magnitude.data(), ref.c_magnitude.data());
  check_cuda(cudaGetLastError(), "reference_gemm_kernel launch");
  check_cuda(cudaStreamSynchronize(stream), "reference_gemm_kernel");
  return ref;
}

}  // namespace tessel::verify
