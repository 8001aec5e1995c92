#pragma once
// cuBLAS as a provider, as users get it: cuBLASLt with a workspace, the fastest of its
// heuristic's candidates in both orientations of the problem (verify/cublaslt_gemm.hpp), f32
// accumulation, on the same buffers as the kernels. The yardstick every tessel row is compared
// with. FP8 operands run through the same path in the fast accumulation mode
// (CUBLASLT_MATMUL_DESC_FAST_ACCUM, torch._scaled_mm's use_fast_accum), the mode of tessel's FP8
// mainloop.

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "kernels/operation.hpp"

namespace tessel::prof {

class Cublas {
 public:
  Cublas();  // throws ProfError when cuBLASLt cannot start
  ~Cublas();
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;

  /// D = alpha A B + beta D. cuBLAS updates its output in place, so C is not read: a caller that
  /// needs beta C copies C into D first. Returns "Success" or the cuBLAS status name. The first
  /// call of a problem asks the heuristic and times its candidates on A and B (with a scratch D
  /// of its own), so only that call waits; later calls only enqueue the matmul.
  std::string gemm(const GemmArguments& args, const OperandSet& ops, cudaStream_t stream);

  /// Which cuBLASLt candidate the latest problem runs, e.g. "transposed orientation, candidate 1 of 8".
  std::string choice() const;

  /// "13.0.2"
  static std::string version();

 private:
  struct Lt;  // cuBLASLt: its handle, a workspace, the plan of the latest problem
  std::unique_ptr<Lt> lt_;
};

}  // namespace tessel::prof
