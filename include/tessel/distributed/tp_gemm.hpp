#pragma once
// Tensor-parallel GEMMs over NCCL, the communication overlapped with the GEMMs:
//
//   AllGather + GEMM (column-parallel):  D = gather(X_0 .. X_{W-1}) @ B_r       on every rank r
//   GEMM + ReduceScatter (row-parallel): D_r = (sum over ranks of A_q @ B_q)[rows of r]
//
// Each is one call on a TensorParallelGemm handle, which holds the communicator, a
// communication stream and its events. The schedule is tessel/distributed/tp_plan.hpp's: the
// collective is cut into pairwise exchanges of row pieces (ncclSend / ncclRecv on the
// communication stream), and each GEMM (tessel::gemm::gemm, the front door, on the caller's
// stream) waits only for the exchange that delivers its rows, or is waited for by the exchange
// that sends them. NVLink multicast (NVLS) is neither used nor needed.
//
//   ncclComm_t comm;  ncclCommInitRank(&comm, world, id, rank);           // one per rank
//   tessel::distributed::TensorParallelGemm tp;
//   tp.initialize(comm);
//   tessel::distributed::AllGatherGemmArguments a;
//   a.rows_per_rank = {4096, 4096};  a.n = 14336 / 2;  a.k = 4096;       // Llama MLP up, TP = 2
//   a.x = x_local;  a.gathered = x_all;  a.B = {w_shard, DataType::kBF16, MatrixLayout::kColumnMajor, 4096};
//   a.D = y;
//   tessel::StatusInfo s = tp.all_gather_gemm(a, stream);               // s.what() on failure
//
// Served: f16 and bf16 (what tessel::gemm serves: A row-major, B column-major, D row-major, a
// Hopper GPU); ragged token counts, zeros included, the same list on every rank. Every rank must
// make the same calls in the same order with the same rows_per_rank and chunks, as with any
// NCCL collective. Linked as tessel::distributed (CMake target tessel_distributed), built where
// NCCL is found.

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tessel/distributed/tp_plan.hpp"
#include "tessel/gemm/front_door.hpp"
#include "tessel/status.hpp"

namespace tessel::distributed {

struct AllGatherGemmArguments {
  std::vector<std::int64_t> rows_per_rank;  // every rank's token count, the same list on every rank
  int n = 0, k = 0;                          // this rank's columns of D (its weight shard's N), and K
  gemm::DataType type = gemm::DataType::kBF16;
  void const* x = nullptr;    // this rank's tokens: rows_per_rank[rank] x k, row-major, contiguous (null if none)
  gemm::MatrixArgument B;     // this rank's weight shard, k x n (column-major: W.t() of a row-major n x k W)
  void* gathered = nullptr;   // written: every rank's tokens, M x k row-major, contiguous (M: the sum of
                              // rows_per_rank). x may be this rank's rows of it (in place)
  void* D = nullptr;          // written: M x n, row-major
  std::int64_t ldd = 0;       // D's leading dimension; 0: n
  int chunks = 0;             // pieces per rank's rows; 0: tessel chooses (default_chunks)
};

struct GemmReduceScatterArguments {
  std::vector<std::int64_t> rows_per_rank;  // rows of the result each rank keeps, the same list on every rank
  int n = 0, k = 0;                          // the result's columns, and this rank's K (its shard of K)
  gemm::DataType type = gemm::DataType::kBF16;
  gemm::MatrixArgument A;     // this rank's shard of the activations, M x k (row-major)
  gemm::MatrixArgument B;     // this rank's weight shard, k x n (column-major)
  void* D = nullptr;          // written: rows_per_rank[rank] x n row-major, contiguous: this rank's rows of the sum
                              // (null if it keeps none)
  void* workspace = nullptr;  // reduce_scatter_workspace_size() bytes of device memory
  std::size_t workspace_bytes = 0;
  int chunks = 0;
};

class TensorParallelGemm {
 public:
  TensorParallelGemm() = default;
  TensorParallelGemm(TensorParallelGemm const&) = delete;
  TensorParallelGemm& operator=(TensorParallelGemm const&) = delete;
  ~TensorParallelGemm();

  /// Takes this rank's communicator (not owned: the caller destroys it after this handle) and
  /// makes the communication stream on the current device.
  StatusInfo initialize(ncclComm_t comm);
  int world() const { return world_; }
  int rank() const { return rank_; }

  /// The plan a call with these arguments runs on this rank (for tools and tests).
  StatusInfo plan(TpKind kind, std::vector<std::int64_t> const& rows_per_rank, int chunks, TpPlan& out) const;

  /// D = gather(x) @ B, enqueued on `stream` (and the communication stream, joined back to
  /// `stream` before the call returns), without a host synchronisation.
  StatusInfo all_gather_gemm(AllGatherGemmArguments const& args, cudaStream_t stream);

  /// The workspace gemm_reduce_scatter needs: the partials it sends (M x n) and the W - 1 it
  /// receives (its rows x n each).
  std::size_t reduce_scatter_workspace_size(GemmReduceScatterArguments const& args) const;

  /// D = this rank's rows of the sum over ranks of A @ B, enqueued on `stream`.
  StatusInfo gemm_reduce_scatter(GemmReduceScatterArguments const& args, cudaStream_t stream);

 private:
  StatusInfo initialized() const;
  StatusInfo events_for(std::size_t count);

  ncclComm_t comm_ = nullptr;
  int world_ = 0, rank_ = 0, device_ = -1;
  cudaStream_t comm_stream_ = nullptr;
  cudaEvent_t ready_ = nullptr, done_ = nullptr;
  std::vector<cudaEvent_t> events_;  // one per exchange (all-gather) or per fed GEMM (reduce-scatter)
};

/// out[i] = sum of own[i] and the `count` slices partials[s * slice + i], rounded once from f32.
/// n_elements elements; own and out may be the same. On `stream`. (src/distributed/reduce_partials.cu)
StatusInfo reduce_partials(gemm::DataType type, void const* own, void const* partials, int count, std::int64_t slice,
                           void* out, std::int64_t n_elements, cudaStream_t stream);

}  // namespace tessel::distributed
