#pragma once
// cuBLASLt's matmul the way frameworks call it: a workspace for its heuristic, several of the
// heuristic's candidates, and both orientations of the problem, the fastest kept. This is the
// yardstick tessel's kernels are compared with ("the cuBLAS users get"): a bare cublasGemmEx call
// without a workspace runs 10-20% below torch.matmul on the same shapes on an H200.
//
// Orientations. cuBLASLt is column-major. D = A B (M x N) can be asked for as
//   kDirect:     D' = D   = A   B     (rows M, cols N)
//   kTransposed: D' = D^T = B^T A^T   (rows N, cols M)
// over the same memory: an operand stored column-major in one orientation is row-major in the
// other. Operands go in as column-major views with a transpose flag (op T for a row-major view);
// D' goes in column-major where its storage is, and with CUBLASLT_ORDER_ROW where it is not.
// PyTorch's row-major D is kTransposed with a column-major D'. A candidate cuBLASLt refuses in
// either orientation is dropped, so the choice is never worse than the first candidate alone.
//
// FP8 (e4m3 / e5m2 A and B) is taken only K-major ("TN": op(first) = T, op(second) = N), as
// cuBLASLt requires; both orientations of a TN problem are TN again.
//
// Needs cuBLASLt linked (CUDA::cublasLt).

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tessel::verify {

class CublasLtGemm {
 public:
  struct Matrix {
    cudaDataType_t type = CUDA_R_16BF;
    bool row_major = true;
    std::int64_t ld = 0;
    std::int64_t batch_stride = 0;  // elements between consecutive matrices of a batch
    friend bool operator==(Matrix const&, Matrix const&) = default;
  };
  struct Problem {
    int m = 0, n = 0, k = 0, batch = 1;
    Matrix a, b, d;
    bool fast_accum = false;  // FP8 only: CUBLASLT_MATMUL_DESC_FAST_ACCUM
    friend bool operator==(Problem const&, Problem const&) = default;
  };
  enum class Orientation { kDirect, kTransposed };

  /// Asks the heuristic for up to `candidates` algorithms in each orientation. `workspace` must
  /// outlive the object. status() is CUBLAS_STATUS_NOT_SUPPORTED when neither orientation has one.
  CublasLtGemm(cublasLtHandle_t handle, Problem const& p, void* workspace, std::size_t workspace_bytes, int candidates = 4)
      : h_(handle), p_(p), workspace_(workspace), workspace_bytes_(workspace_bytes) {
    for (Orientation o : {Orientation::kDirect, Orientation::kTransposed}) add_candidates(o, candidates);
    status_ = candidates_.empty() ? (first_error_ != CUBLAS_STATUS_SUCCESS ? first_error_ : CUBLAS_STATUS_NOT_SUPPORTED)
                                  : CUBLAS_STATUS_SUCCESS;
  }
  ~CublasLtGemm() {
    for (Oriented& o : oriented_) o.destroy();
  }
  CublasLtGemm(CublasLtGemm const&) = delete;
  CublasLtGemm& operator=(CublasLtGemm const&) = delete;

  cublasStatus_t status() const { return status_; }
  Problem const& problem() const { return p_; }

  /// Times every candidate (`runs` timed calls each after one untimed, the median kept) on A and
  /// B with a scratch D of its own, and makes the fastest the one run() uses. Until then run()
  /// uses the heuristic's first. D and C of the caller are not touched.
  cublasStatus_t tune(void const* A, void const* B, cudaStream_t stream, int runs = 5) {
    if (status_ != CUBLAS_STATUS_SUCCESS) return status_;
    void* scratch = nullptr;
    const std::size_t bytes = d_bytes();
    if (cudaMallocAsync(&scratch, bytes, stream) != cudaSuccess) return CUBLAS_STATUS_ALLOC_FAILED;
    cudaMemsetAsync(scratch, 0, bytes, stream);
    cudaEvent_t start = nullptr, stop = nullptr;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    float best = -1.f;
    for (std::size_t i = 0; i < candidates_.size(); ++i) {
      if (launch(candidates_[i], A, B, scratch, 1.f, 0.f, stream) != CUBLAS_STATUS_SUCCESS) continue;
      std::vector<float> ms;
      for (int r = 0; r < runs; ++r) {
        cudaEventRecord(start, stream);
        launch(candidates_[i], A, B, scratch, 1.f, 0.f, stream);
        cudaEventRecord(stop, stream);
        cudaEventSynchronize(stop);
        float t = 0.f;
        cudaEventElapsedTime(&t, start, stop);
        ms.push_back(t);
      }
      std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
      const float median = ms[ms.size() / 2];
      if (best < 0.f || median < best) {
        best = median;
        chosen_ = i;
      }
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaFreeAsync(scratch, stream);
    tuned_ms_ = best;
    return cudaStreamSynchronize(stream) == cudaSuccess && best >= 0.f ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_EXECUTION_FAILED;
  }

  /// D = alpha A B + beta D on `stream` with the chosen candidate; the status of the call.
  cublasStatus_t run(void const* A, void const* B, void* D, float alpha, float beta, cudaStream_t stream) const {
    if (status_ != CUBLAS_STATUS_SUCCESS) return status_;
    return launch(candidates_[chosen_], A, B, D, alpha, beta, stream);
  }

  /// "transposed orientation, candidate 2 of 8, 0.412 ms when tuned"
  std::string describe() const {
    if (status_ != CUBLAS_STATUS_SUCCESS) return "no cuBLASLt algorithm";
    const Candidate& c = candidates_[chosen_];
    std::string s = std::string(c.orientation == Orientation::kDirect ? "direct" : "transposed") + " orientation, candidate " +
                    std::to_string(chosen_ + 1) + " of " + std::to_string(candidates_.size());
    if (tuned_ms_ >= 0.f) s += ", " + std::to_string(tuned_ms_) + " ms when tuned";
    return s;
  }

 private:
  // The descriptors of one orientation.
  struct Oriented {
    cublasLtMatmulDesc_t op{};
    cublasLtMatrixLayout_t first{}, second{}, out{};
    bool swapped = false;  // first operand is B (kTransposed)
    void destroy() {
      if (out) cublasLtMatrixLayoutDestroy(out);
      if (second) cublasLtMatrixLayoutDestroy(second);
      if (first) cublasLtMatrixLayoutDestroy(first);
      if (op) cublasLtMatmulDescDestroy(op);
      *this = {};
    }
  };
  struct Candidate {
    Orientation orientation;
    cublasLtMatmulAlgo_t algo;
  };

  static bool is_fp8(cudaDataType_t t) { return t == CUDA_R_8F_E4M3 || t == CUDA_R_8F_E5M2; }

  std::size_t element_bytes(cudaDataType_t t) const {
    return t == CUDA_R_32F ? 4 : is_fp8(t) ? 1 : 2;
  }
  std::size_t d_bytes() const {
    const std::int64_t rows = p_.d.row_major ? p_.m : p_.n, per = std::int64_t(p_.d.ld) * rows;
    const std::int64_t span = p_.batch > 1 ? std::max(per, p_.d.batch_stride * (p_.batch - 1) + per) : per;
    return std::size_t(span) * element_bytes(p_.d.type);
  }

  // A rows x cols operand that is column-major in this orientation goes in as itself (op N);
  // one that is row-major goes in as its column-major transpose (op T).
  cublasStatus_t operand_layout(cublasLtMatrixLayout_t& l, cublasOperation_t& op, Matrix const& m, std::uint64_t rows,
                                std::uint64_t cols, bool column_major) const {
    op = column_major ? CUBLAS_OP_N : CUBLAS_OP_T;
    cublasStatus_t s = column_major ? cublasLtMatrixLayoutCreate(&l, m.type, rows, cols, m.ld)
                                    : cublasLtMatrixLayoutCreate(&l, m.type, cols, rows, m.ld);
    return s == CUBLAS_STATUS_SUCCESS ? set_batch(l, m) : s;
  }
  cublasStatus_t set_batch(cublasLtMatrixLayout_t l, Matrix const& m) const {
    if (p_.batch == 1) return CUBLAS_STATUS_SUCCESS;
    const std::int32_t count = p_.batch;
    const std::int64_t stride = m.batch_stride;
    cublasStatus_t s = cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count);
    if (s == CUBLAS_STATUS_SUCCESS)
      s = cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride);
    return s;
  }

  cublasStatus_t describe_orientation(Orientation o, Oriented& d) const {
    const bool t = o == Orientation::kTransposed;
    d.swapped = t;
    const auto M = std::uint64_t(p_.m), N = std::uint64_t(p_.n), K = std::uint64_t(p_.k);
    Matrix const& first = t ? p_.b : p_.a;    // rows x K in this orientation
    Matrix const& second = t ? p_.a : p_.b;   // K x cols
    const std::uint64_t rows = t ? N : M, cols = t ? M : N;
    // Transposing a matrix flips its storage order: B^T of a column-major B is row-major.
    const bool first_col = first.row_major == t, second_col = second.row_major == t, out_col = p_.d.row_major == t;
    cublasOperation_t op_first{}, op_second{};
    cublasStatus_t s = cublasLtMatmulDescCreate(&d.op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    if (s == CUBLAS_STATUS_SUCCESS) s = operand_layout(d.first, op_first, first, rows, K, first_col);
    if (s == CUBLAS_STATUS_SUCCESS) s = operand_layout(d.second, op_second, second, K, cols, second_col);
    if (s != CUBLAS_STATUS_SUCCESS) return s;
    if (is_fp8(p_.a.type) && (op_first != CUBLAS_OP_T || op_second != CUBLAS_OP_N)) return CUBLAS_STATUS_NOT_SUPPORTED;
    s = cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_TRANSA, &op_first, sizeof op_first);
    if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_TRANSB, &op_second, sizeof op_second);
    if (s == CUBLAS_STATUS_SUCCESS && is_fp8(p_.a.type)) {
      const std::int8_t fast = p_.fast_accum ? 1 : 0;
      s = cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast);
    }
    if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatrixLayoutCreate(&d.out, p_.d.type, rows, cols, p_.d.ld);
    if (s == CUBLAS_STATUS_SUCCESS && !out_col) {
      const cublasLtOrder_t order = CUBLASLT_ORDER_ROW;
      s = cublasLtMatrixLayoutSetAttribute(d.out, CUBLASLT_MATRIX_LAYOUT_ORDER, &order, sizeof order);
    }
    if (s == CUBLAS_STATUS_SUCCESS) s = set_batch(d.out, p_.d);
    return s;
  }

  void add_candidates(Orientation o, int candidates) {
    Oriented& d = oriented_[int(o)];
    cublasStatus_t s = describe_orientation(o, d);
    cublasLtMatmulPreference_t pref{};
    const std::uint64_t ws = workspace_bytes_;
    if (s == CUBLAS_STATUS_SUCCESS) s = cublasLtMatmulPreferenceCreate(&pref);
    if (s == CUBLAS_STATUS_SUCCESS)
      s = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    std::vector<cublasLtMatmulHeuristicResult_t> results(std::size_t(std::max(candidates, 1)));
    int found = 0;
    if (s == CUBLAS_STATUS_SUCCESS)
      s = cublasLtMatmulAlgoGetHeuristic(h_, d.op, d.first, d.second, d.out, d.out, pref, int(results.size()), results.data(),
                                         &found);
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    if (s != CUBLAS_STATUS_SUCCESS) {
      if (first_error_ == CUBLAS_STATUS_SUCCESS && s != CUBLAS_STATUS_NOT_SUPPORTED) first_error_ = s;
      d.destroy();
      return;
    }
    for (int i = 0; i < found; ++i)
      if (results[std::size_t(i)].state == CUBLAS_STATUS_SUCCESS) candidates_.push_back({o, results[std::size_t(i)].algo});
  }

  cublasStatus_t launch(Candidate const& c, void const* A, void const* B, void* D, float alpha, float beta,
                        cudaStream_t stream) const {
    Oriented const& d = oriented_[int(c.orientation)];
    void const* first = d.swapped ? B : A;
    void const* second = d.swapped ? A : B;
    return cublasLtMatmul(h_, d.op, &alpha, first, d.first, second, d.second, &beta, D, d.out, D, d.out, &c.algo, workspace_,
                          workspace_bytes_, stream);
  }

  cublasLtHandle_t h_;
  Problem p_;
  void* workspace_;
  std::size_t workspace_bytes_;
  Oriented oriented_[2];
  std::vector<Candidate> candidates_;
  std::size_t chosen_ = 0;
  float tuned_ms_ = -1.f;
  cublasStatus_t first_error_ = CUBLAS_STATUS_SUCCESS;
  cublasStatus_t status_ = CUBLAS_STATUS_NOT_INITIALIZED;
};

}  // namespace tessel::verify
