#include "device/cublas_gemm.hpp"

#include <cublasLt.h>
#include <cublas_v2.h>

#include <utility>

#include "core/error.hpp"
#include "device/cuda_check.hpp"
#include "tessel/verify/cublaslt_fp8.hpp"

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

// cuBLAS is column-major. A matrix stored in `layout` is, to cuBLAS, itself (column-major) or its
// transpose (row-major storage of X is column-major storage of X^T).
cublasOperation_t op_for(Layout stored, bool want_transpose) {
  const bool transposed_storage = stored == Layout::kRow;
  return transposed_storage != want_transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
}

// The 32 MiB cuBLASLt's samples and fusion_bench give its heuristic.
constexpr std::size_t kLtWorkspaceBytes = 32u << 20;

}  // namespace

struct Cublas::Lt {
  cublasLtHandle_t handle = nullptr;
  DeviceAllocation workspace;
  std::unique_ptr<verify::CublasLtFp8> plan;
  ~Lt() {
    plan.reset();
    if (handle) cublasLtDestroy(handle);
  }
};

Cublas::Cublas() {
  if (auto s = cublasCreate(&handle_); s != CUBLAS_STATUS_SUCCESS) {
    throw ProfError(kExitFailed, std::string("cublasCreate failed: ") + cublasGetStatusName(s));
  }
}

Cublas::~Cublas() {
  if (handle_) cublasDestroy(handle_);
}

std::string Cublas::version() {
  int major = 0, minor = 0, patch = 0;
  cublasGetProperty(MAJOR_VERSION, &major);
  cublasGetProperty(MINOR_VERSION, &minor);
  cublasGetProperty(PATCH_LEVEL, &patch);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

std::string Cublas::fp8_gemm(const GemmArguments& a, const OperandSet& o, cudaStream_t stream) {
  const bool tn_bf16 = o.a.element == Element::kE4M3 && o.b.element == Element::kE4M3 && o.d.element == Element::kBF16 &&
                       o.a.layout == Layout::kRow && o.b.layout == Layout::kColumn && o.d.layout == Layout::kColumn;
  if (!tn_bf16 || a.shape.batch != 1) return status_name(CUBLAS_STATUS_NOT_SUPPORTED);
  if (!lt_) {
    auto lt = std::make_unique<Lt>();
    if (auto s = cublasLtCreate(&lt->handle); s != CUBLAS_STATUS_SUCCESS) return status_name(s);
    lt->workspace = DeviceAllocation(kLtWorkspaceBytes, "cuBLASLt's workspace");
    lt_ = std::move(lt);
  }
  const verify::CublasLtFp8::Problem p{int(a.shape.m), int(a.shape.n), int(a.shape.k), a.lda, a.ldb, a.ldd, false};
  if (!lt_->plan || !(lt_->plan->problem() == p)) {
    lt_->plan.reset();
    lt_->plan = std::make_unique<verify::CublasLtFp8>(lt_->handle, p, lt_->workspace.get(), lt_->workspace.bytes());
  }
  return status_name(lt_->plan->run(static_cast<const float_e4m3_t*>(a.A), static_cast<const float_e4m3_t*>(a.B),
                                    static_cast<bfloat16_t*>(a.D), float(a.alpha), float(a.beta), stream));
}

std::string Cublas::gemm(const GemmArguments& a, const OperandSet& o, cudaStream_t stream) {
  if (is_fp8(o.a.element) || is_fp8(o.b.element)) return fp8_gemm(a, o, stream);
  if (auto s = cublasSetStream(handle_, stream); s != CUBLAS_STATUS_SUCCESS) return status_name(s);
  const float alpha = float(a.alpha), beta = float(a.beta);
  // D column-major: D = op(A) op(B). D row-major: compute D^T = B^T A^T, which is D in column-major
  // storage, with the operands swapped.
  const bool d_row = o.d.layout == Layout::kRow;
  const void* first = d_row ? a.B : a.A;
  const void* second = d_row ? a.A : a.B;
  const Operand& fo = d_row ? o.b : o.a;
  const Operand& so = d_row ? o.a : o.b;
  const std::int64_t ld_first = d_row ? a.ldb : a.lda, ld_second = d_row ? a.lda : a.ldb;
  const std::int64_t stride_first = d_row ? a.batch_stride_b : a.batch_stride_a;
  const std::int64_t stride_second = d_row ? a.batch_stride_a : a.batch_stride_b;
  const auto rows = int(d_row ? a.shape.n : a.shape.m), cols = int(d_row ? a.shape.m : a.shape.n), k = int(a.shape.k);
  // The product D^T = B^T A^T takes each operand transposed relative to D = A B.
  const cublasOperation_t op1 = op_for(fo.layout, d_row), op2 = op_for(so.layout, d_row);
  cublasStatus_t s;
  if (a.shape.batch == 1) {
    s = cublasGemmEx(handle_, op1, op2, rows, cols, k, &alpha, first, data_type(fo.element), int(ld_first), second,
                     data_type(so.element), int(ld_second), &beta, a.D, data_type(o.d.element), int(a.ldd),
                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  } else {
    s = cublasGemmStridedBatchedEx(handle_, op1, op2, rows, cols, k, &alpha, first, data_type(fo.element),
                                   int(ld_first), stride_first, second, data_type(so.element), int(ld_second),
                                   stride_second, &beta, a.D, data_type(o.d.element), int(a.ldd), a.batch_stride_d,
                                   int(a.shape.batch), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  }
  return status_name(s);
}

}  // namespace tessel::prof
