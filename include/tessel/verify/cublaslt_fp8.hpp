#pragma once
// cuBLASLt's FP8 matmul, e4m3 x e4m3 -> bf16 with f32 compute: the yardstick and a reference for
// tessel's FP8 GEMM. Needs cuBLASLt linked (CUDA::cublasLt).
//
// cuBLASLt is column-major and takes FP8 only as "TN": D = alpha op(A) op(B) + beta D with
// op(A) = A^T and op(B) = B. So D (rows x cols, column-major) is computed from A stored as the
// column-major K x rows matrix (that is, a row-major rows x K one) and B as the column-major
// K x cols matrix, both K-major as wgmma requires of 8-bit operands too:
//
//   D column-major M x N (tessel-prof's TN):  rows = M, cols = N, run(A, B, D)
//   D row-major M x N (= column-major D^T):   rows = N, cols = M, run(B, A, D)
//
// The algorithm is the first of cuBLASLt's heuristic for the problem, chosen once when the object
// is made; run() then only enqueues the matmul.

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "tessel/numeric.hpp"

namespace tessel::verify {

class CublasLtFp8 {
 public:
  struct Problem {
    int rows = 0, cols = 0, k = 0;
    std::int64_t lda = 0, ldb = 0, ldd = 0;
    // CUBLASLT_MATMUL_DESC_FAST_ACCUM: sums kept in the tensor core without promotion to f32
    // registers (faster, less accurate); off, cuBLASLt's default mode.
    bool fast_accum = false;
    // CUBLASLT_MATMUL_DESC_A/B_SCALE_MODE (cublasLtMatmulMatrixScale_t): SCALAR_32F (0), or the
    // block scales of the DeepSeek-V3 recipe, VEC128_32F (one f32 per 128 of K of each row, rows
    // contiguous) and BLK128x128_32F (one per 128 x 128 block, K blocks contiguous); run() then
    // takes the scale tensors. cuBLASLt's heuristic offers no algorithm for the block modes unless
    // the scale pointers are set when it is asked: scale_a and scale_b are those (device
    // pointers; run() may pass others of the same layout).
    int scale_mode_a = CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F, scale_mode_b = CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
    float const* scale_a = nullptr;
    float const* scale_b = nullptr;
    friend bool operator==(Problem const&, Problem const&) = default;
  };

  /// Chooses the algorithm; status() says whether there is one. `workspace` (device memory of
  /// `workspace_bytes`) must outlive the object.
  CublasLtFp8(cublasLtHandle_t handle, Problem const& p, void* workspace, std::size_t workspace_bytes)
      : h_(handle), p_(p), workspace_(workspace), workspace_bytes_(workspace_bytes) {
    status_ = prepare();
  }
  ~CublasLtFp8() {
    if (pref_) cublasLtMatmulPreferenceDestroy(pref_);
    if (ld_) cublasLtMatrixLayoutDestroy(ld_);
    if (lb_) cublasLtMatrixLayoutDestroy(lb_);
    if (la_) cublasLtMatrixLayoutDestroy(la_);
    if (op_) cublasLtMatmulDescDestroy(op_);
  }
  CublasLtFp8(CublasLtFp8 const&) = delete;
  CublasLtFp8& operator=(CublasLtFp8 const&) = delete;

  /// CUBLAS_STATUS_SUCCESS when cuBLASLt has an algorithm for the problem; CUBLAS_STATUS_NOT_SUPPORTED
  /// when its heuristic offers none; else the status of the call that failed.
  cublasStatus_t status() const { return status_; }
  Problem const& problem() const { return p_; }

  /// D = alpha A^T B + beta D on `stream`; the status of the call (or of the construction).
  /// scale_a, scale_b: device scale tensors (CUBLASLT_MATMUL_DESC_A/B_SCALE_POINTER), or null for none.
  cublasStatus_t run(float_e4m3_t const* a, float_e4m3_t const* b, bfloat16_t* d, float alpha = 1.f, float beta = 0.f,
                     cudaStream_t stream = nullptr, float const* scale_a = nullptr, float const* scale_b = nullptr) const {
    if (status_ != CUBLAS_STATUS_SUCCESS) return status_;
    if (scale_a || scale_b) {
      cublasStatus_t s = cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale_a, sizeof scale_a);
      if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scale_b, sizeof scale_b);
      if (s != CUBLAS_STATUS_SUCCESS) return s;
    }
    return cublasLtMatmul(h_, op_, &alpha, a, la_, b, lb_, &beta, d, ld_, d, ld_, &algo_, workspace_, workspace_bytes_, stream);
  }

 private:
  cublasStatus_t prepare() {
    auto const u = [](auto x) { return std::uint64_t(x); };
    cublasOperation_t const ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    std::int8_t const fast = p_.fast_accum ? 1 : 0;
    std::uint64_t const ws = workspace_bytes_;
    cublasStatus_t s = cublasLtMatmulDescCreate(&op_, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
    if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
    if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast);
    std::int32_t const mode_a = p_.scale_mode_a, mode_b = p_.scale_mode_b;
    if (s == CUBLAS_STATUS_SUCCESS && mode_a != CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F)
      s = cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode_a, sizeof mode_a);
    if (s == CUBLAS_STATUS_SUCCESS && mode_b != CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F)
      s = cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode_b, sizeof mode_b);
    if (s == CUBLAS_STATUS_SUCCESS && p_.scale_a)
      s = cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &p_.scale_a, sizeof p_.scale_a);
    if (s == CUBLAS_STATUS_SUCCESS && p_.scale_b)
      s = cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &p_.scale_b, sizeof p_.scale_b);
    if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatrixLayoutCreate(&la_, CUDA_R_8F_E4M3, u(p_.k), u(p_.rows), p_.lda);
    if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatrixLayoutCreate(&lb_, CUDA_R_8F_E4M3, u(p_.k), u(p_.cols), p_.ldb);
    if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatrixLayoutCreate(&ld_, CUDA_R_16BF, u(p_.rows), u(p_.cols), p_.ldd);
    if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatmulPreferenceCreate(&pref_);
    if (s == CUBLAS_STATUS_SUCCESS)
      s = cublasLtMatmulPreferenceSetAttribute(pref_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    if (s != CUBLAS_STATUS_SUCCESS) return s;
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    s = cublasLtMatmulAlgoGetHeuristic(h_, op_, la_, lb_, ld_, ld_, pref_, 1, &result, &found);
    if (s != CUBLAS_STATUS_SUCCESS) return s;
    if (found == 0) return CUBLAS_STATUS_NOT_SUPPORTED;
    algo_ = result.algo;
    return CUBLAS_STATUS_SUCCESS;
  }

  cublasLtHandle_t h_;
  Problem p_;
  void* workspace_;
  std::size_t workspace_bytes_;
  cublasLtMatmulDesc_t op_{};
  cublasLtMatrixLayout_t la_{}, lb_{}, ld_{};
  cublasLtMatmulPreference_t pref_{};
  cublasLtMatmulAlgo_t algo_{};
  cublasStatus_t status_ = CUBLAS_STATUS_NOT_INITIALIZED;
};

}  // namespace tessel::verify
