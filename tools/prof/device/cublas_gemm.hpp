#pragma once
// cuBLAS as a provider: the same problem on the same buffers, through cublasGemmEx (or its
// strided-batched form) with f32 accumulation, the yardstick every tessel row is compared with.

#include <cuda_runtime_api.h>

#include <string>

#include "kernels/operation.hpp"

struct cublasContext;

namespace tessel::prof {

class Cublas {
 public:
  Cublas();  // throws ProfError when cuBLAS cannot start
  ~Cublas();
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;

  /// D = alpha A B + beta D. cuBLAS updates its output in place, so C is not read: a caller that
  /// needs beta C copies C into D first. Returns "Success" or the cuBLAS status name.
  std::string gemm(const GemmArguments& args, const OperandSet& ops, cudaStream_t stream);

  /// "13.0.2"
  static std::string version();

 private:
  cublasContext* handle_ = nullptr;
};

}  // namespace tessel::prof
