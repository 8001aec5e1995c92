#pragma once
// cuBLAS as a provider: the same problem on the same buffers, through cublasGemmEx (or its
// strided-batched form) with f32 accumulation, the yardstick every tessel row is compared with;
// FP8 operands through cuBLASLt's FP8 matmul (cublasGemmEx has none).

#include <cuda_runtime_api.h>

#include <memory>
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
  /// e4m3 A and B run through cuBLASLt's FP8 matmul in its default accumulation mode
  /// (verify/cublaslt_fp8.hpp), which takes them TN with a bf16 column-major D, one matrix a call;
  /// its algorithm is chosen when the problem changes, so only the first call of a problem waits
  /// for cuBLASLt's heuristic.
  std::string gemm(const GemmArguments& args, const OperandSet& ops, cudaStream_t stream);

  /// "13.0.2"
  static std::string version();

 private:
  std::string fp8_gemm(const GemmArguments& args, const OperandSet& ops, cudaStream_t stream);

  cublasContext* handle_ = nullptr;
  struct Lt;  // cuBLASLt: its handle, a workspace, the plan of the latest FP8 problem
  std::unique_ptr<Lt> lt_;
};

}  // namespace tessel::prof
