#pragma once
// The reference the fused FP8 epilogue (an Epilogue other than the linear combination) is held
// to: the same problem unfused, as a program without the fusion computes it, on f32 accumulators:
//
//   R = alpha A B + beta C                                    cuBLAS, f32 D (C widened to f32)
//   Q = e4m3(scale_d gelu(R + bias)),  amax = max |gelu(R + bias)|   verify/fp8_epilogue_chain.cuh
//
// The kernel's D must be within 1 e4m3 ulp of Q in every element: its accumulators differ from
// cuBLAS's only by summation order (a relative 1e-5 or less), far below e4m3's spacing of 12.5%,
// but a value may fall on either side of a rounding boundary. Its amax must be within
// cublas_tolerance(K, f32) of the reference's, the relative bound an f32 GEMM result is held to
// against cuBLAS.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "device/cublas_gemm.hpp"
#include "device/cuda_check.hpp"
#include "kernels/operation.hpp"

namespace tessel::prof {

struct FusedCheck {
  std::int64_t checked = 0;
  unsigned long long differ = 0, beyond_one = 0;  // elements 1 e4m3 ulp apart, and 2 or more (NaN included)
  unsigned worst_ulps = 0;
  double amax = 0, amax_reference = 0, amax_relative = 0, amax_tolerance = 0;
  bool passed() const;
};

class FusedReference {
 public:
  /// `a` holds the problem, buffer set 0's operands and the epilogue inputs (bias, scale_d) the
  /// kernel runs with; D must be dense (ldd = M). Throws ProfError when the reference cannot be
  /// computed (cuBLAS refuses the f32 GEMM, or an epilogue or C type it does not know).
  FusedReference(Cublas& cublas, const GemmArguments& a, const OperandSet& ops, Epilogue e, cudaStream_t stream);
  /// The D and amax a fused kernel wrote for those arguments (amax zeroed before its launch).
  FusedCheck check(const void* d, const float* amax, cudaStream_t stream) const;

 private:
  std::int64_t count_ = 0, k_ = 0;
  DeviceAllocation q_, amax_;
};

}  // namespace tessel::prof
