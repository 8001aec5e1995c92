#pragma once
// The registry's view of a kernel: a description, and a type-erased can_implement / initialize /
// run over untyped device pointers. Each kernel family (the Sm75/Sm80 handle today, Hopper's
// 3.x-style handle later) supplies one adaptor class that implements GemmOperation for any of its
// instantiations; the profiler never names a kernel type.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>

#include "core/kernel_description.hpp"
#include "core/options.hpp"
#include "core/problem.hpp"
#include "tessel/status.hpp"

namespace tessel::prof {

/// One problem on concrete buffers. Matrices of a batch are `batch_stride_*` elements apart.
/// bias, scale_d and amax are the fused epilogue's (KernelDescription::epilogue other than the
/// linear combination; see Epilogue in core/types.hpp), null for the others.
struct GemmArguments {
  GemmShape shape;
  const void* A = nullptr;
  std::int64_t lda = 0, batch_stride_a = 0;
  const void* B = nullptr;
  std::int64_t ldb = 0, batch_stride_b = 0;
  const void* C = nullptr;  // may be null when beta == 0
  std::int64_t ldc = 0, batch_stride_c = 0;
  void* D = nullptr;
  std::int64_t ldd = 0, batch_stride_d = 0;
  double alpha = 1.0, beta = 0.0;
  const void* bias = nullptr;      // bf16, M values: one per row of the column-major D
  const float* scale_d = nullptr;  // device memory, one float: D = fp8(*scale_d * Y)
  float* amax = nullptr;           // device memory, one float, 0 before a launch whose amax is read;
                                   // the kernel raises it to max |Y| (Y before the scale)
  Raster raster = Raster::kHeuristic;
  std::int64_t swizzle = 8;
};

/// A kernel bound to one set of arguments: everything is checked and prepared, so that run() does
/// nothing but enqueue the kernel (what the timing loop measures).
class GemmLaunch {
 public:
  virtual ~GemmLaunch() = default;
  virtual StatusInfo run(cudaStream_t stream) = 0;
};

class GemmOperation {
 public:
  virtual ~GemmOperation() = default;
  virtual const KernelDescription& description() const = 0;
  /// The kernel's own verdict: the arguments first, then the device (so it needs a GPU to say yes).
  virtual StatusInfo can_implement(const GemmArguments& args) const = 0;
  virtual std::size_t workspace_size(const GemmArguments& args) const = 0;
  /// Prepares `launch` for these arguments; on failure leaves it null and says why.
  virtual StatusInfo initialize(const GemmArguments& args, void* workspace, cudaStream_t stream,
                                std::unique_ptr<GemmLaunch>& launch) const = 0;
};

}  // namespace tessel::prof
