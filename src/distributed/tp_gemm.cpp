// TensorParallelGemm: the plans of tessel/distributed/tp_plan.hpp run on NCCL and tessel::gemm.

#include "tessel/distributed/tp_gemm.hpp"

#include <string>

#include "tessel/arch/runtime.hpp"

namespace tessel::distributed {

namespace {

constexpr std::int64_t kElementBytes = 2;  // f16 and bf16, what tessel::gemm serves

StatusInfo nccl_status(ncclResult_t r, char const* what) {
  if (r == ncclSuccess) return {};
  return {Status::kErrorInternal, std::string(what) + " failed: " + ncclGetErrorString(r)};
}

#define TESSEL_TP_TRY(expr)            \
  do {                                 \
    if (auto s_ = (expr); !s_.ok()) return s_; \
  } while (0)

/// One exchange on the communication stream: the send and the receive as one NCCL group, so that
/// two ranks that send to each other do not wait for each other's receive. Rows are `row_bytes`
/// wide; empty halves are left out (the peer's plan leaves out the matching half).
StatusInfo exchange(TpExchange const& e, char const* send_base, char* recv_base, std::int64_t recv_offset_rows,
                    std::int64_t row_bytes, ncclComm_t comm, cudaStream_t s) {
  TESSEL_TP_TRY(nccl_status(ncclGroupStart(), "ncclGroupStart"));
  StatusInfo st;
  if (e.send_rows.count > 0)
    st = nccl_status(ncclSend(send_base + e.send_rows.begin * row_bytes, std::size_t(e.send_rows.count * row_bytes), ncclChar,
                              e.send_to, comm, s),
                     "ncclSend");
  if (st.ok() && e.recv_rows.count > 0)
    st = nccl_status(ncclRecv(recv_base + (e.recv_rows.begin - recv_offset_rows) * row_bytes,
                              std::size_t(e.recv_rows.count * row_bytes), ncclChar, e.recv_from, comm, s),
                     "ncclRecv");
  // The group is closed on every path: one left open would swallow this thread's later NCCL calls.
  StatusInfo const end = nccl_status(ncclGroupEnd(), "ncclGroupEnd");
  return st.ok() ? end : st;
}

/// The caller's stream waits for everything enqueued on the communication stream, on every path
/// once anything was enqueued there: the buffers NCCL reads and writes may be reused after `stream`.
StatusInfo joined(StatusInfo s, cudaEvent_t done, cudaStream_t comm_stream, cudaStream_t stream) {
  StatusInfo j = arch::status_from_cuda(cudaEventRecord(done, comm_stream), "cudaEventRecord");
  if (j.ok()) j = arch::status_from_cuda(cudaStreamWaitEvent(stream, done, 0), "cudaStreamWaitEvent");
  return s.ok() ? j : s;
}

/// The front door's arguments for rows `rows` of A (row-major, lda) times B, into D (row-major,
/// ldd) from its row `d` on.
gemm::GemmArguments piece(RowRange rows, int n, int k, gemm::DataType type, char const* a, std::int64_t lda,
                          gemm::MatrixArgument const& b, char* d, std::int64_t ldd) {
  gemm::GemmArguments g;
  g.m = int(rows.count);
  g.n = n;
  g.k = k;
  g.A = {a + rows.begin * lda * kElementBytes, type, gemm::MatrixLayout::kRowMajor, lda};
  g.B = b;
  g.D = {d, type, gemm::MatrixLayout::kRowMajor, ldd};
  return g;
}

StatusInfo named(StatusInfo s, RowRange rows) {
  if (s.ok()) return s;
  return {s.status, "the GEMM of rows " + std::to_string(rows.begin) + " .. " + std::to_string(rows.end() - 1) + ": " + s.message};
}

/// Every GEMM of the plan, checked before anything is sent: a refusal after the exchanges were
/// enqueued would leave the peers' halves of them running.
template <class PieceOf>
StatusInfo check_gemms(TpPlan const& p, PieceOf piece_of) {
  for (TpGemm const& g : p.gemms)
    if (g.rows.count > 0) TESSEL_TP_TRY(named(gemm::gemm_can_implement(piece_of(g)), g.rows));
  return {};
}

StatusInfo check_common(std::vector<std::int64_t> const& rows, int world, int rank, int chunks, int n, int k,
                        gemm::MatrixArgument const& b, gemm::DataType type) {
  TESSEL_TP_TRY(check_tp_arguments(world, rank, rows, chunks));
  if (n <= 0 || k <= 0)
    return {Status::kErrorInvalidProblem, "n = " + std::to_string(n) + " and k = " + std::to_string(k) + ": both must be positive"};
  if (type != gemm::DataType::kF16 && type != gemm::DataType::kBF16)
    return {Status::kErrorInvalidDataType, "type is not a DataType value (kF16 or kBF16)"};
  if (b.type != type) return {Status::kErrorInvalidDataType, "B's element type differs from the arguments' type: give both the same"};
  std::int64_t total = 0;
  for (auto r : rows) total += r;
  if (total > 2147483647LL)
    return {Status::kErrorInvalidProblem, "the token count " + std::to_string(total) + " is above 2^31 - 1, the largest tessel::gemm takes"};
  return {};
}

}  // namespace

TensorParallelGemm::~TensorParallelGemm() {
  for (auto e : events_) cudaEventDestroy(e);
  if (ready_) cudaEventDestroy(ready_);
  if (done_) cudaEventDestroy(done_);
  if (comm_stream_) cudaStreamDestroy(comm_stream_);
}

StatusInfo TensorParallelGemm::initialize(ncclComm_t comm) {
  if (comm == nullptr) return {Status::kErrorInvalidProblem, "the NCCL communicator is null: pass this rank's ncclComm_t"};
  if (comm_stream_ != nullptr) return {Status::kErrorInvalidProblem, "this handle is initialized already: make one handle per communicator"};
  TESSEL_TP_TRY(nccl_status(ncclCommCount(comm, &world_), "ncclCommCount"));
  TESSEL_TP_TRY(nccl_status(ncclCommUserRank(comm, &rank_), "ncclCommUserRank"));
  TESSEL_TP_TRY(arch::status_from_cuda(cudaGetDevice(&device_), "cudaGetDevice"));
  // The communication stream and events are made on the current device: it must be the
  // communicator's, or every exchange would be enqueued on another device's stream.
  int comm_device = -1;
  TESSEL_TP_TRY(nccl_status(ncclCommCuDevice(comm, &comm_device), "ncclCommCuDevice"));
  if (comm_device != device_)
    return {Status::kErrorInvalidProblem, "the communicator is on device " + std::to_string(comm_device) + " but the current device is " +
                                              std::to_string(device_) + ": cudaSetDevice(" + std::to_string(comm_device) +
                                              ") before initialize"};
  // NOTES: a stream that does not synchronise with the legacy default stream, so that a caller's
  // work on stream 0 does not serialise the exchanges behind it.
  TESSEL_TP_TRY(arch::status_from_cuda(cudaStreamCreateWithFlags(&comm_stream_, cudaStreamNonBlocking), "creating the communication stream"));
  TESSEL_TP_TRY(arch::status_from_cuda(cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming), "cudaEventCreate"));
  TESSEL_TP_TRY(arch::status_from_cuda(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming), "cudaEventCreate"));
  comm_ = comm;
  return {};
}

StatusInfo TensorParallelGemm::initialized() const {
  if (comm_ == nullptr) return {Status::kErrorInvalidProblem, "the handle is not initialized: call initialize(comm) first"};
  return {};
}

StatusInfo TensorParallelGemm::events_for(std::size_t count) {
  while (events_.size() < count) {
    cudaEvent_t e;
    TESSEL_TP_TRY(arch::status_from_cuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate"));
    events_.push_back(e);
  }
  return {};
}

StatusInfo TensorParallelGemm::plan(TpKind kind, std::vector<std::int64_t> const& rows_per_rank, int chunks, TpPlan& out) const {
  TESSEL_TP_TRY(initialized());
  int device = -1;
  TESSEL_TP_TRY(arch::status_from_cuda(cudaGetDevice(&device), "cudaGetDevice"));
  if (device != device_)
    return {Status::kErrorInvalidProblem, "the current device is " + std::to_string(device) + " but the handle's communicator is on device " +
                                              std::to_string(device_) + ": cudaSetDevice(" + std::to_string(device_) + ") first"};
  TESSEL_TP_TRY(check_tp_arguments(world_, rank_, rows_per_rank, chunks));
  out = make_tp_plan(kind, world_, rank_, rows_per_rank, chunks);
  return {};
}

StatusInfo TensorParallelGemm::all_gather_gemm(AllGatherGemmArguments const& a, cudaStream_t stream) {
  TESSEL_TP_TRY(initialized());
  TESSEL_TP_TRY(check_common(a.rows_per_rank, world_, rank_, a.chunks, a.n, a.k, a.B, a.type));
  // x may be null on a rank without tokens; the gathered buffer and D hold every rank's.
  bool const x_missing = !a.x && a.rows_per_rank[std::size_t(rank_)] > 0;
  if (x_missing || !a.gathered || !a.D)
    return {Status::kErrorInvalidProblem, std::string("a null pointer for ") + (x_missing ? "x" : !a.gathered ? "gathered" : "D") +
                                              ": pass device pointers"};
  TpPlan p;
  TESSEL_TP_TRY(plan(TpKind::kAllGatherGemm, a.rows_per_rank, a.chunks, p));
  std::int64_t const row_bytes = std::int64_t(a.k) * kElementBytes, ldd = a.ldd ? a.ldd : a.n;
  auto* gathered = static_cast<char*>(a.gathered);
  char* own = gathered + p.offset(rank_) * row_bytes;
  auto const piece_of = [&](TpGemm const& g) {
    return piece(g.rows, a.n, a.k, a.type, gathered, a.k, a.B, static_cast<char*>(a.D) + g.rows.begin * ldd * kElementBytes, ldd);
  };
  TESSEL_TP_TRY(check_gemms(p, piece_of));
  TESSEL_TP_TRY(events_for(p.exchanges.size()));
  // After every check: a refused call leaves the gathered buffer as it was.
  if (a.x != own && p.own_rows() > 0)
    TESSEL_TP_TRY(arch::status_from_cuda(cudaMemcpyAsync(own, a.x, std::size_t(p.own_rows() * row_bytes), cudaMemcpyDeviceToDevice, stream),
                              "copying x into the gathered buffer"));
  // Every exchange is enqueued before the first GEMM: none waits for another, so the network
  // runs ahead while the GEMM of this rank's own rows runs.
  TESSEL_TP_TRY(arch::status_from_cuda(cudaEventRecord(ready_, stream), "cudaEventRecord"));
  TESSEL_TP_TRY(arch::status_from_cuda(cudaStreamWaitEvent(comm_stream_, ready_, 0), "cudaStreamWaitEvent"));
  auto const enqueue = [&]() -> StatusInfo {
    for (std::size_t i = 0; i < p.exchanges.size(); ++i) {
      TESSEL_TP_TRY(exchange(p.exchanges[i], gathered, gathered, 0, row_bytes, comm_, comm_stream_));
      TESSEL_TP_TRY(arch::status_from_cuda(cudaEventRecord(events_[i], comm_stream_), "cudaEventRecord"));
    }
    for (TpGemm const& g : p.gemms) {
      if (g.rows.count == 0) continue;
      if (g.waits_for_exchange >= 0)
        TESSEL_TP_TRY(arch::status_from_cuda(cudaStreamWaitEvent(stream, events_[std::size_t(g.waits_for_exchange)], 0), "cudaStreamWaitEvent"));
      TESSEL_TP_TRY(named(gemm::gemm(piece_of(g), stream), g.rows));
    }
    return {};
  };
  // Join: the caller's stream is past every send too (x and gathered may be reused after it).
  return joined(enqueue(), done_, comm_stream_, stream);
}

std::size_t TensorParallelGemm::reduce_scatter_workspace_size(GemmReduceScatterArguments const& a) const {
  if (comm_ == nullptr || !check_tp_arguments(world_, rank_, a.rows_per_rank, a.chunks).ok() || a.n <= 0) return 0;
  std::int64_t total = 0;
  for (auto r : a.rows_per_rank) total += r;
  std::int64_t const own = a.rows_per_rank[std::size_t(rank_)];
  return std::size_t((total + std::int64_t(world_ - 1) * own) * a.n * kElementBytes);
}

StatusInfo TensorParallelGemm::gemm_reduce_scatter(GemmReduceScatterArguments const& a, cudaStream_t stream) {
  TESSEL_TP_TRY(initialized());
  TESSEL_TP_TRY(check_common(a.rows_per_rank, world_, rank_, a.chunks, a.n, a.k, a.B, a.type));
  if (a.A.type != a.type) return {Status::kErrorInvalidDataType, "A's element type differs from the arguments' type: give both the same"};
  if (a.A.layout != gemm::MatrixLayout::kRowMajor)
    return {Status::kErrorInvalidLayout, "A must be row-major (tokens x K): its rows are cut among the ranks' exchanges"};
  // D may be null on a rank that keeps no rows.
  bool const d_missing = !a.D && a.rows_per_rank[std::size_t(rank_)] > 0;
  if (!a.A.ptr || d_missing)
    return {Status::kErrorInvalidProblem, std::string("a null pointer for ") + (!a.A.ptr ? "A" : "D") + ": pass device pointers"};
  std::size_t const need = reduce_scatter_workspace_size(a);
  if (need > 0 && (a.workspace == nullptr || a.workspace_bytes < need))
    return {a.workspace ? Status::kErrorInvalidProblem : Status::kErrorWorkspaceNull,
            "the workspace is " + std::to_string(a.workspace_bytes) + " bytes; this call needs " + std::to_string(need) +
                " (reduce_scatter_workspace_size): the partials it sends and receives"};
  TpPlan p;
  TESSEL_TP_TRY(plan(TpKind::kGemmReduceScatter, a.rows_per_rank, a.chunks, p));
  std::int64_t const row_bytes = std::int64_t(a.n) * kElementBytes, own_rows = p.own_rows();
  auto* send = static_cast<char*>(a.workspace);                 // M x n: the partials of the other ranks' rows
  char* recv = send + p.total_rows() * row_bytes;                // (W - 1) x own x n: the partials received
  auto const* a_base = static_cast<char const*>(a.A.ptr);
  auto const piece_of = [&](TpGemm const& g) {
    char* d = g.feeds_exchange >= 0 ? send + g.rows.begin * row_bytes : static_cast<char*>(a.D);  // own rows: into D
    return piece(g.rows, a.n, a.k, a.type, a_base, a.A.ld, a.B, d, a.n);
  };
  TESSEL_TP_TRY(check_gemms(p, piece_of));
  TESSEL_TP_TRY(events_for(p.gemms.size()));
  // The receives write the workspace: not before the stream's earlier work (a previous call's
  // reduction) is done with it.
  TESSEL_TP_TRY(arch::status_from_cuda(cudaEventRecord(ready_, stream), "cudaEventRecord"));
  TESSEL_TP_TRY(arch::status_from_cuda(cudaStreamWaitEvent(comm_stream_, ready_, 0), "cudaStreamWaitEvent"));
  std::size_t launched = 0;
  auto launch_through = [&](int last) -> StatusInfo {
    for (; int(launched) <= last; ++launched) {
      TpGemm const& g = p.gemms[launched];
      TESSEL_TP_TRY(named(gemm::gemm(piece_of(g), stream), g.rows));
      TESSEL_TP_TRY(arch::status_from_cuda(cudaEventRecord(events_[launched], stream), "cudaEventRecord"));
    }
    return {};
  };
  auto const enqueue = [&]() -> StatusInfo {
    for (std::size_t i = 0; i < p.exchanges.size(); ++i) {
      TpExchange const& e = p.exchanges[i];
      if (e.waits_for_gemm >= 0) {
        TESSEL_TP_TRY(launch_through(e.waits_for_gemm));
        TESSEL_TP_TRY(
            arch::status_from_cuda(cudaStreamWaitEvent(comm_stream_, events_[std::size_t(e.waits_for_gemm)], 0), "cudaStreamWaitEvent"));
      }
      // The partials from step t land in slot t - 1, at the piece's place in this rank's rows.
      std::int64_t const slot = std::int64_t(i) / p.chunks;
      TESSEL_TP_TRY(exchange(e, send, recv + slot * own_rows * row_bytes, p.offset(rank_), row_bytes, comm_, comm_stream_));
    }
    return launch_through(int(p.gemms.size()) - 1);
  };
  // Join on every path: the workspace and A may be reused after `stream`.
  TESSEL_TP_TRY(joined(enqueue(), done_, comm_stream_, stream));
  if (world_ == 1 || own_rows == 0) return {};
  return reduce_partials(a.type, a.D, recv, world_ - 1, own_rows * a.n, a.D, own_rows * a.n, stream);
}

}  // namespace tessel::distributed
