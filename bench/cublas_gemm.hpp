#pragma once
// cuBLAS as the benchmark runs it: the same TN problem as tessel's kernel, D in the input type,
// FP32 compute (CUBLAS_COMPUTE_32F: products and sums in FP32, one rounding to D at the end).
//
// tessel's TN is A (M,K) row-major, B (K,N) column-major, D (M,N) column-major. cuBLAS is
// column-major throughout, so A is handed over as the K x M column-major matrix it is in memory
// and transposed by the call: op(A) = A^T, op(B) = B.

#include <cublas_v2.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "tessel/numeric.hpp"

namespace tessel::bench {

inline void check_cublas(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(what) + " failed: " + cublasGetStatusName(s) + ": " + cublasGetStatusString(s));
  }
}

template <class T>
constexpr cudaDataType_t cuda_type() {
  if constexpr (std::is_same_v<T, half_t>) return CUDA_R_16F;
  else if constexpr (std::is_same_v<T, bfloat16_t>) return CUDA_R_16BF;
  else {
    static_assert(std::is_same_v<T, float>, "cuda_type: f16, bf16 or f32");
    return CUDA_R_32F;
  }
}

// D(M,N) = A(M,K) B(K,N), A row-major with ld K, B column-major with ld K, D column-major with
// ld M. TD may be wider than TIn (the |A||B| magnitude GEMM writes f32).
template <class TIn, class TD>
void cublas_gemm_tn(cublasHandle_t handle, int m, int n, int k, TIn const* a, TIn const* b, TD* d) {
  const float alpha = 1.f, beta = 0.f;
  check_cublas(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, a, cuda_type<TIn>(), k, b,
                            cuda_type<TIn>(), k, &beta, d, cuda_type<TD>(), m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
               "cublasGemmEx");
}

}  // namespace tessel::bench
