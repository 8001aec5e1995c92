#pragma once
// The device work profile mode needs besides the kernels under test, behind a plain C++
// interface (the element type is a run-time value): random fills, poisoning, the comparison
// with cuBLAS, the device reference check, and the spin kernel the timing loop starts with.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/problem.hpp"
#include "core/types.hpp"

namespace tessel::prof {

/// Uniform values in [-r, r), never zero (verify/random.hpp), element i a function of (seed, i).
void fill_random(void* data, Element e, std::size_t count, std::uint64_t seed, cudaStream_t stream, double r = 1.0);
/// All-ones bytes: NaN in every floating-point type, so an unwritten element fails any check.
void poison(void* data, Element e, std::size_t count, cudaStream_t stream);
void copy_device(void* dst, const void* src, std::size_t bytes, cudaStream_t stream);

/// ||d - ref||_F / ||ref||_F over `count` elements laid out alike, and how many of either were
/// NaN or infinite (those are left out of the norms and fail the check on their own).
struct RelativeError {
  double relative = 0;
  double max_abs = 0;
  std::int64_t nonfinite = 0;
};
RelativeError relative_error(const void* d, const void* ref, Element e, std::size_t count, cudaStream_t stream);

/// The bound the comparison with cuBLAS is held to. Both results accumulate in f32 and are rounded
/// to D's type once: each element may differ by one rounding of either (2 u_out), plus summation
/// order, whose relative effect grows like sqrt(K) f32 epsilons (verify/tolerance.hpp explains
/// the sqrt(K)); `safety` covers the constant.
/// FP8 inputs (`ab`) accumulate in the tensor core, which keeps about 14 bits of each sum (the
/// fast mode of tessel's FP8 mainloop, as of cuBLASLt's FAST_ACCUM), once per 32-deep wgmma step:
/// K/32 roundings of 2^-13 relative to the partial sums, added in the worst case, in place of the
/// summation term. With operands of mixed sign the partial sums have the result's scale, so the
/// bound holds for the Frobenius norm too: 0.031 at K = 8192, where the worst element measured
/// 0.017 of the result's scale on the H200 (bench/RESULTS.md, tests/gpu/gemm_sm90_fusion_test.cu).
double cublas_tolerance(std::int64_t k, Element d, Element ab, double safety = 8.0);

/// Keeps the stream busy for `microseconds` so that the launches queued behind it run back to back.
void spin(double microseconds, cudaStream_t stream);

/// The double-precision device reference of verify/device_reference.cuh for one problem, computed
/// once and compared with any number of results under the per-element K-scaled budget of
/// verify/tolerance.hpp: f32 accumulation for 16- and 32-bit inputs; for e4m3 inputs the FP8
/// tensor core's (an epsilon of 2^-13, see cublas_tolerance), a budget loose at large K, where
/// the comparison with cuBLASLt is the sharper check.
struct DeviceCheck {
  std::int64_t checked = 0, failed = 0, unwritten = 0, nonfinite = 0;
  double worst_ratio = 0;  // the worst element's error over its budget
  std::string first_failure;
};

struct MatrixRef {
  const void* data = nullptr;
  std::int64_t ld = 0;
};

class DeviceReference {
 public:
  /// Throws ProfError when the operand types have no reference instantiation (an FP8 D among them:
  /// that is the fused epilogue's, checked by FusedReference).
  DeviceReference(const GemmShape& shape, const OperandSet& ops, MatrixRef a, MatrixRef b, MatrixRef c, double alpha,
                  double beta, cudaStream_t stream);
  ~DeviceReference();
  DeviceReference(const DeviceReference&) = delete;
  DeviceReference& operator=(const DeviceReference&) = delete;
  DeviceCheck check(MatrixRef d, cudaStream_t stream) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessel::prof
