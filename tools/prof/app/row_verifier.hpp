#pragma once
// Profile mode's verification of the kernel rows of one problem and operand set, on the output a
// kernel wrote into buffer set 0 (poisoned before its launch):
//   cublas  D against cuBLAS's D within cublas_tolerance (gpu_ops.hpp); for the fused FP8
//           epilogue, D and amax against its unfused chain on cuBLAS's f32 accumulators
//           (device/fused_reference.hpp)
//   device  D against the double-precision device reference, element by element
// The references are computed on first use and kept for the problem's other kernels.

#include <cuda_runtime_api.h>

#include <map>
#include <memory>
#include <string>

#include "core/kernel_description.hpp"
#include "core/rows.hpp"
#include "device/cublas_gemm.hpp"
#include "device/fused_reference.hpp"
#include "device/gpu_ops.hpp"
#include "device/problem_buffers.hpp"

namespace tessel::prof {

struct VerifierSetup {
  bool cublas = false, device = false;  // the providers asked for
  Cublas* blas = nullptr;               // null when cuBLAS was not started
  bool have_reference = false;          // buffers' reference_d holds cuBLAS's D for the kernels' own operation
  std::string reference_note;           // why not, when it does not
};

class RowVerifier {
 public:
  RowVerifier(const VerifierSetup& setup, const ProblemBuffers& buf, const GemmProblem& problem, const OperandSet& ops,
              cudaStream_t stream)
      : setup_(setup), buf_(buf), problem_(problem), ops_(ops), stream_(stream) {}

  /// Sets row.verification (passed, failed or not_verified), the error columns and the reason.
  void verify(ProfileRow& row, const KernelDescription& kernel);

 private:
  void against_cublas(ProfileRow& row, bool& checked, bool& failed, std::string& notes);
  void against_chain(Epilogue e, bool& checked, bool& failed, std::string& notes);
  void against_device(ProfileRow& row, bool& checked, bool& failed, std::string& notes);

  VerifierSetup setup_;
  const ProblemBuffers& buf_;
  GemmProblem problem_;
  OperandSet ops_;
  cudaStream_t stream_;
  std::unique_ptr<DeviceReference> device_ref_;
  std::string device_ref_error_;
  std::map<Epilogue, std::unique_ptr<FusedReference>> chains_;
  std::map<Epilogue, std::string> chain_errors_;
};

}  // namespace tessel::prof
