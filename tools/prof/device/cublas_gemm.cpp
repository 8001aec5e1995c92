#include "device/cublas_gemm.hpp"

#include <cublasLt.h>
#include <cublas_v2.h>

#include <utility>

#include "core/error.hpp"
#include "device/cuda_check.hpp"
#include "tessel/verify/cublaslt_gemm.hpp"

namespace tessel::prof {

namespace {

cudaDataType_t data_type(Element e) {
  switch (e) {
    case Element::kF16: return CUDA_R_16F;
    case Element::kBF16: return CUDA_R_16BF;
    case Element::kF32: return CUDA_R_32F;
    case Element::kE4M3: return CUDA_R_8F_E4M3;
    case Element::kE5M2: return CUDA_R_8F_E5M2;
  }
  return CUDA_R_32F;
}

std::string status_name(cublasStatus_t s) {
  return s == CUBLAS_STATUS_SUCCESS ? "Success" : cublasGetStatusName(s);
}

// PyTorch's default cuBLASLt workspace on Hopper (32 MiB), which its heuristic is then free to use.
constexpr std::size_t kLtWorkspaceBytes = 32u << 20;
// Candidates asked of the heuristic per orientation and timed once per problem.
constexpr int kLtCandidates = 4;

verify::CublasLtGemm::Matrix matrix(const Operand& o, std::int64_t ld, std::int64_t batch_stride) {
  return {data_type(o.element), o.layout == Layout::kRow, ld, batch_stride};
}

}  // namespace

struct Cublas::Lt {
  cublasLtHandle_t handle = nullptr;
  DeviceAllocation workspace;
  std::unique_ptr<verify::CublasLtGemm> plan;
  ~Lt() {
    plan.reset();
    if (handle) cublasLtDestroy(handle);
  }
};

Cublas::Cublas() : lt_(std::make_unique<Lt>()) {
  if (auto s = cublasLtCreate(&lt_->handle); s != CUBLAS_STATUS_SUCCESS) {
    throw ProfError(kExitFailed, std::string("cublasLtCreate failed: ") + cublasGetStatusName(s));
  }
  lt_->workspace = DeviceAllocation(kLtWorkspaceBytes, "cuBLASLt's workspace");
}

Cublas::~Cublas() = default;

std::string Cublas::version() {
  int major = 0, minor = 0, patch = 0;
  cublasGetProperty(MAJOR_VERSION, &major);
  cublasGetProperty(MINOR_VERSION, &minor);
  cublasGetProperty(PATCH_LEVEL, &patch);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

std::string Cublas::choice() const {
  return lt_->plan ? lt_->plan->describe() : "no problem run yet";
}

std::string Cublas::gemm(const GemmArguments& a, const OperandSet& o, cudaStream_t stream) {
  const verify::CublasLtGemm::Problem p{int(a.shape.m),
                                        int(a.shape.n),
                                        int(a.shape.k),
                                        int(a.shape.batch),
                                        matrix(o.a, a.lda, a.batch_stride_a),
                                        matrix(o.b, a.ldb, a.batch_stride_b),
                                        matrix(o.d, a.ldd, a.batch_stride_d),
                                        /*fast_accum=*/true};
  if (!lt_->plan || !(lt_->plan->problem() == p)) {
    lt_->plan.reset();
    lt_->plan = std::make_unique<verify::CublasLtGemm>(lt_->handle, p, lt_->workspace.get(), lt_->workspace.bytes(),
                                                       kLtCandidates);
    if (auto s = lt_->plan->tune(a.A, a.B, stream); s != CUBLAS_STATUS_SUCCESS) return status_name(s);
  }
  return status_name(lt_->plan->run(a.A, a.B, a.D, float(a.alpha), float(a.beta), stream));
}

}  // namespace tessel::prof
