// tessel::distributed's executor (src/distributed/tp_gemm.cpp) on the host, without a GPU or NCCL:
// fake CUDA streams, events and copies, fake NCCL (grouped send/recv matched per pair of ranks, in
// order), a fake tessel::gemm over int16 "elements" (exact), and a scheduler that runs every rank's
// streams in a random interleaving. Checked: the results equal the unsplit product; no read of a
// receive region before its receive completed; no write to a send buffer while the send is in
// flight; every access inside an allocation (the workspace's size included); no deadlock; every
// NCCL group closed; after a failed send, the group closed and the caller's stream joined.
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tessel/distributed/tp_gemm.hpp"

using namespace tessel;
using namespace tessel::distributed;

static int g_errors = 0;
#define SIM_FAIL(...)                    \
  do {                               \
    std::fprintf(stderr, "FAIL: "); \
    std::fprintf(stderr, __VA_ARGS__); \
    std::fprintf(stderr, "\n");      \
    ++g_errors;                      \
  } while (0)

// ---- memory registry ----------------------------------------------------------------------------
struct Alloc { char* p; std::size_t n; int rank; };
static std::vector<Alloc> g_allocs;
static void check_range(int rank, void const* p, std::size_t bytes, char const* what) {
  if (bytes == 0) return;
  auto c = static_cast<char const*>(p);
  for (auto const& a : g_allocs)
    if (c >= a.p && c + bytes <= a.p + a.n) {
      if (a.rank != rank && a.rank != -1) SIM_FAIL("rank %d %s touches rank %d's memory", rank, what, a.rank);
      return;
    }
  SIM_FAIL("rank %d %s: %zu bytes at %p outside every allocation", rank, what, bytes, p);
}

// ---- streams, events, ops -------------------------------------------------------------------------
struct P2P { bool send; void* buf; std::size_t bytes; int peer; bool done = false; std::vector<char> snapshot; };
struct Op {
  enum Kind { Memcpy, Gemm, Record, Wait, Group, Reduce } kind;
  explicit Op(Kind k) : kind(k) {}
  long id = 0;
  // Memcpy
  void* dst = nullptr; void const* src = nullptr; std::size_t bytes = 0;
  // Gemm
  gemm::GemmArguments g;
  // Record / Wait
  cudaEvent_t ev = nullptr; long wait_for = -1;
  // Group
  std::vector<std::shared_ptr<P2P>> p2p; bool posted = false;
  // Reduce
  void const* own = nullptr; void const* partials = nullptr; int count = 0; std::int64_t slice = 0; void* out = nullptr; std::int64_t n = 0;
};
struct CUstream_st { int rank; std::string name; std::deque<Op> ops; };
struct CUevent_st { int rank; long last = -1; bool destroyed = false; };
struct ncclComm { int rank, world; };

static int g_rank = 0;  // the rank whose host thread is "running"
static long g_next_id = 1;
static std::set<long> g_completed;
static std::vector<CUstream_st*> g_streams;
static std::vector<std::unique_ptr<CUstream_st>> g_stream_store;
static std::vector<std::unique_ptr<CUevent_st>> g_event_store;
static int g_group_depth[64];
static std::vector<std::shared_ptr<P2P>> g_group_ops[64];
static cudaStream_t g_group_stream[64];
static int g_fail_send_at = -1;  // make the n-th ncclSend fail
static int g_sends = 0;

// Pending receive regions per rank (begin, end)
struct Region { int rank; char const* b; char const* e; };
static std::vector<Region> g_pending_recv;
static void check_not_pending(int rank, void const* p, std::size_t bytes, char const* what) {
  auto c = static_cast<char const*>(p);
  for (auto const& r : g_pending_recv)
    if (r.rank == rank && c < r.e && c + bytes > r.b) SIM_FAIL("rank %d %s reads a receive buffer before the receive completed", rank, what);
}

static void enqueue(cudaStream_t s, Op op) {
  if (!s) { SIM_FAIL("rank %d enqueues on the null stream", g_rank); return; }
  if (s->rank != g_rank) SIM_FAIL("rank %d enqueues on rank %d's stream %s", g_rank, s->rank, s->name.c_str());
  op.id = g_next_id++;
  s->ops.push_back(std::move(op));
}

extern "C" {
cudaError_t cudaGetDevice(int* d) { *d = 0; return cudaSuccess; }
const char* cudaGetErrorName(cudaError_t) { return "cudaErrorFake"; }
const char* cudaGetErrorString(cudaError_t) { return "fake"; }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned int) {
  g_stream_store.push_back(std::make_unique<CUstream_st>(CUstream_st{g_rank, "comm" + std::to_string(g_rank), {}}));
  *s = g_stream_store.back().get();
  g_streams.push_back(*s);
  return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t s) {
  if (!s->ops.empty()) SIM_FAIL("stream %s destroyed with %zu ops pending", s->name.c_str(), s->ops.size());
  return cudaSuccess;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned int) {
  g_event_store.push_back(std::make_unique<CUevent_st>(CUevent_st{g_rank}));
  *e = g_event_store.back().get();
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t e) { e->destroyed = true; return cudaSuccess; }
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  if (e->rank != g_rank) SIM_FAIL("rank %d records rank %d's event", g_rank, e->rank);
  Op op(Op::Record);
  op.ev = e;
  enqueue(s, op);
  e->last = s->ops.back().id;
  return cudaSuccess;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned int) {
  Op op(Op::Wait);
  op.ev = e;
  op.wait_for = e->last;
  if (e->last < 0) SIM_FAIL("rank %d waits for an event never recorded", g_rank);
  enqueue(s, op);
  return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind, cudaStream_t s) {
  Op op(Op::Memcpy);
  op.dst = dst; op.src = src; op.bytes = count;
  enqueue(s, op);
  return cudaSuccess;
}

const char* ncclGetErrorString(ncclResult_t) { return "fake nccl error"; }
ncclResult_t ncclCommCount(const ncclComm_t c, int* n) { *n = c->world; return ncclSuccess; }
ncclResult_t ncclCommUserRank(const ncclComm_t c, int* r) { *r = c->rank; return ncclSuccess; }
ncclResult_t ncclCommCuDevice(const ncclComm_t, int* d) { *d = 0; return ncclSuccess; }
ncclResult_t ncclGroupStart() { ++g_group_depth[g_rank]; return ncclSuccess; }
static void flush_group(int r) {
  auto& ops = g_group_ops[r];
  if (ops.empty()) return;
  Op op(Op::Group);
  op.p2p = ops;
  ops.clear();
  enqueue(g_group_stream[r], op);
  g_group_stream[r] = nullptr;
}
ncclResult_t ncclGroupEnd() {
  if (g_group_depth[g_rank] <= 0) { SIM_FAIL("rank %d: ncclGroupEnd without ncclGroupStart", g_rank); return ncclInvalidUsage; }
  if (--g_group_depth[g_rank] == 0) flush_group(g_rank);
  return ncclSuccess;
}
static ncclResult_t p2p(bool send, void* buf, size_t count, ncclDataType_t t, int peer, ncclComm_t comm, cudaStream_t s) {
  if (t != ncclChar && t != ncclInt8 && t != ncclUint8) SIM_FAIL("datatype %d: the simulation counts bytes", int(t));
  if (comm->rank != g_rank) SIM_FAIL("rank %d uses rank %d's communicator", g_rank, comm->rank);
  if (peer < 0 || peer >= comm->world || peer == comm->rank) SIM_FAIL("rank %d: bad peer %d", g_rank, peer);
  if (count == 0) SIM_FAIL("rank %d: zero-byte p2p", g_rank);
  check_range(g_rank, buf, count, send ? "ncclSend" : "ncclRecv");
  if (g_group_stream[g_rank] && g_group_stream[g_rank] != s) SIM_FAIL("one group on two streams");
  g_group_stream[g_rank] = s;
  auto p = std::make_shared<P2P>();
  p->send = send; p->buf = buf; p->bytes = count; p->peer = peer;
  g_group_ops[g_rank].push_back(p);
  if (g_group_depth[g_rank] == 0) flush_group(g_rank);
  return ncclSuccess;
}
ncclResult_t ncclSend(const void* b, size_t c, ncclDataType_t t, int peer, ncclComm_t comm, cudaStream_t s) {
  if (g_fail_send_at >= 0 && g_sends++ == g_fail_send_at) return ncclInternalError;
  return p2p(true, const_cast<void*>(b), c, t, peer, comm, s);
}
ncclResult_t ncclRecv(void* b, size_t c, ncclDataType_t t, int peer, ncclComm_t comm, cudaStream_t s) {
  return p2p(false, b, c, t, peer, comm, s);
}
}

// ---- fake tessel::gemm and reduce ---------------------------------------------------------------
namespace tessel::gemm {
StatusInfo gemm_can_implement(GemmArguments const& g) {
  if (g.m <= 0 || g.n <= 0 || g.k <= 0) return {Status::kErrorInvalidProblem, "empty"};
  if (!g.A.ptr || !g.B.ptr || !g.D.ptr) return {Status::kErrorInvalidProblem, "null"};
  if (g.A.layout != MatrixLayout::kRowMajor || g.B.layout != MatrixLayout::kColumnMajor || g.D.layout != MatrixLayout::kRowMajor)
    return {Status::kErrorInvalidLayout, "layout"};
  if (g.A.ld < g.k || g.B.ld < g.k || g.D.ld < g.n) return {Status::kErrorInvalidProblem, "ld"};
  if (g.A.type != g.B.type || g.A.type != g.D.type) return {Status::kErrorInvalidDataType, "type"};
  return {};
}
StatusInfo gemm(GemmArguments const& args, cudaStream_t s, void*, std::size_t) {
  if (auto st = gemm_can_implement(args); !st.ok()) return st;
  Op op(Op::Gemm);
  op.g = args;
  enqueue(s, op);
  return {};
}
}  // namespace tessel::gemm

namespace tessel::distributed {
StatusInfo reduce_partials(gemm::DataType, void const* own, void const* partials, int count, std::int64_t slice, void* out,
                           std::int64_t n, cudaStream_t s) {
  if (n <= 0) return {};
  Op op(Op::Reduce);
  op.own = own; op.partials = partials; op.count = count; op.slice = slice; op.out = out; op.n = n;
  enqueue(s, op);
  return {};
}
}  // namespace tessel::distributed

// ---- execution ------------------------------------------------------------------------------------
static void run_gemm(int r, gemm::GemmArguments const& g) {
  auto A = static_cast<std::int16_t const*>(g.A.ptr);
  auto B = static_cast<std::int16_t const*>(g.B.ptr);
  auto D = static_cast<std::int16_t*>(const_cast<void*>(g.D.ptr));
  check_range(r, A, std::size_t(((g.m - 1) * g.A.ld + g.k) * 2), "GEMM A");
  check_range(r, B, std::size_t(((g.n - 1) * g.B.ld + g.k) * 2), "GEMM B");
  check_range(r, D, std::size_t(((g.m - 1) * g.D.ld + g.n) * 2), "GEMM D");
  for (int i = 0; i < g.m; ++i) check_not_pending(r, A + i * g.A.ld, std::size_t(g.k) * 2, "GEMM A");
  for (int i = 0; i < g.m; ++i)
    for (int j = 0; j < g.n; ++j) {
      int s = 0;
      for (int q = 0; q < g.k; ++q) s += A[i * g.A.ld + q] * B[j * g.B.ld + q];
      D[i * g.D.ld + j] = std::int16_t(s);
    }
}

struct Channel { std::deque<std::shared_ptr<P2P>> sends, recvs; };  // src -> dst
static std::map<std::pair<int, int>, Channel> g_channels;

// One step: returns false when nothing could run.
static bool step(std::mt19937& rng) {
  std::vector<std::function<void()>> runnable;
  for (auto* s : g_streams) {
    if (s->ops.empty()) continue;
    Op& op = s->ops.front();
    int const r = s->rank;
    switch (op.kind) {
      case Op::Memcpy:
        runnable.push_back([s, r] {
          Op op = s->ops.front();
          check_range(r, op.dst, op.bytes, "memcpy dst");
          check_not_pending(r, op.src, op.bytes, "memcpy src");
          std::memmove(op.dst, op.src, op.bytes);
          g_completed.insert(op.id);
          s->ops.pop_front();
        });
        break;
      case Op::Gemm:
        runnable.push_back([s, r] {
          Op op = s->ops.front();
          run_gemm(r, op.g);
          g_completed.insert(op.id);
          s->ops.pop_front();
        });
        break;
      case Op::Reduce:
        runnable.push_back([s, r] {
          Op op = s->ops.front();
          auto own = static_cast<std::int16_t const*>(op.own);
          auto par = static_cast<std::int16_t const*>(op.partials);
          auto out = static_cast<std::int16_t*>(op.out);
          check_range(r, own, std::size_t(op.n) * 2, "reduce own");
          check_range(r, out, std::size_t(op.n) * 2, "reduce out");
          for (int p = 0; p < op.count; ++p) {
            check_range(r, par + p * op.slice, std::size_t(op.n) * 2, "reduce partials");
            check_not_pending(r, par + p * op.slice, std::size_t(op.n) * 2, "reduce partials");
          }
          for (std::int64_t i = 0; i < op.n; ++i) {
            int sum = own[i];
            for (int p = 0; p < op.count; ++p) sum += par[p * op.slice + i];
            out[i] = std::int16_t(sum);
          }
          g_completed.insert(op.id);
          s->ops.pop_front();
        });
        break;
      case Op::Record:
        runnable.push_back([s] { g_completed.insert(s->ops.front().id); s->ops.pop_front(); });
        break;
      case Op::Wait:
        if (g_completed.count(op.wait_for)) runnable.push_back([s] { g_completed.insert(s->ops.front().id); s->ops.pop_front(); });
        break;
      case Op::Group:
        if (!op.posted) {
          runnable.push_back([s, r] {
            Op& op = s->ops.front();
            op.posted = true;
            for (auto& p : op.p2p) {
              if (p->send) {
                check_not_pending(r, p->buf, p->bytes, "ncclSend");
                p->snapshot.assign(static_cast<char*>(p->buf), static_cast<char*>(p->buf) + p->bytes);
                g_channels[{r, p->peer}].sends.push_back(p);
              } else {
                std::memset(p->buf, 0x7f, p->bytes);  // garbage until it arrives
                g_pending_recv.push_back({r, static_cast<char*>(p->buf), static_cast<char*>(p->buf) + p->bytes});
                g_channels[{p->peer, r}].recvs.push_back(p);
              }
            }
          });
        } else {
          bool done = true;
          for (auto& p : op.p2p) done = done && p->done;
          if (done) runnable.push_back([s] { g_completed.insert(s->ops.front().id); s->ops.pop_front(); });
        }
        break;
    }
  }
  for (auto& [key, ch] : g_channels) {
    if (ch.sends.empty() || ch.recvs.empty()) continue;
    auto* chp = &ch;
    int const src = key.first, dst = key.second;
    runnable.push_back([chp, src, dst] {
      auto snd = chp->sends.front(), rcv = chp->recvs.front();
      chp->sends.pop_front();
      chp->recvs.pop_front();
      if (snd->bytes != rcv->bytes) SIM_FAIL("rank %d sends %zu bytes to rank %d, which receives %zu", src, snd->bytes, dst, rcv->bytes);
      if (std::memcmp(snd->snapshot.data(), snd->buf, snd->bytes) != 0)
        SIM_FAIL("rank %d's send buffer to rank %d was written while the send was in flight", src, dst);
      std::memcpy(rcv->buf, snd->snapshot.data(), std::min(snd->bytes, rcv->bytes));
      for (auto it = g_pending_recv.begin(); it != g_pending_recv.end(); ++it)
        if (it->rank == dst && it->b == static_cast<char*>(rcv->buf)) { g_pending_recv.erase(it); break; }
      snd->done = rcv->done = true;
    });
  }
  if (runnable.empty()) return false;
  runnable[std::uniform_int_distribution<std::size_t>(0, runnable.size() - 1)(rng)]();
  return true;
}

static void drain(std::mt19937& rng, char const* what) {
  while (step(rng)) {
  }
  for (auto* s : g_streams)
    if (!s->ops.empty()) {
      SIM_FAIL("%s: deadlock, stream %s has %zu ops left (head kind %d)", what, s->name.c_str(), s->ops.size(), int(s->ops.front().kind));
      s->ops.clear();
    }
  g_channels.clear();
  g_pending_recv.clear();
}

// ---- scenarios ------------------------------------------------------------------------------------
template <class T>
static T* alloc(int rank, std::size_t n, std::vector<std::unique_ptr<char[]>>& keep) {
  std::size_t bytes = std::max<std::size_t>(n * sizeof(T), 1);
  keep.push_back(std::unique_ptr<char[]>(new char[bytes]));
  std::memset(keep.back().get(), 0x55, bytes);
  g_allocs.push_back({keep.back().get(), n * sizeof(T), rank});
  return reinterpret_cast<T*>(keep.back().get());
}

static std::vector<std::int16_t> rnd(std::mt19937& rng, std::size_t n) {
  std::vector<std::int16_t> v(n);
  for (auto& x : v) x = std::int16_t(std::uniform_int_distribution<int>(-3, 3)(rng));
  return v;
}

struct Rank {
  std::unique_ptr<ncclComm> comm;
  std::unique_ptr<TensorParallelGemm> tp;
  cudaStream_t stream;
};

static std::vector<Rank> make_world(int world) {
  std::vector<Rank> ranks(static_cast<std::size_t>(world));
  for (int r = 0; r < world; ++r) {
    g_rank = r;
    ranks[r].comm.reset(new ncclComm{r, world});
    ranks[r].tp.reset(new TensorParallelGemm);
    auto st = ranks[r].tp->initialize(ranks[r].comm.get());
    if (!st.ok()) SIM_FAIL("initialize: %s", st.message.c_str());
    g_stream_store.push_back(std::make_unique<CUstream_st>(CUstream_st{r, "user" + std::to_string(r), {}}));
    ranks[r].stream = g_stream_store.back().get();
    g_streams.push_back(ranks[r].stream);
  }
  return ranks;
}

static void end_world(std::vector<Rank>& ranks) {
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    g_rank = int(r);
    ranks[r].tp.reset();
  }
  g_streams.clear();
}

// Two calls back to back per rank (no host sync between), different x the second time.
static void all_gather(std::vector<std::int64_t> const& rows, int chunks, unsigned seed, bool in_place, std::int64_t ldd_pad) {
  std::mt19937 rng(seed);
  int const world = int(rows.size());
  constexpr int K = 3, N = 2;
  std::int64_t M = 0;
  for (auto r : rows) M += r;
  std::vector<std::unique_ptr<char[]>> keep;
  auto ranks = make_world(world);
  std::int64_t const ldd = N + ldd_pad;
  std::vector<std::vector<std::int16_t>> xs(2), ws(static_cast<std::size_t>(world));
  for (int c = 0; c < 2; ++c) xs[c] = rnd(rng, std::size_t(M * K));
  std::vector<std::vector<std::int16_t*>> D(2, std::vector<std::int16_t*>(std::size_t(world)));
  std::int64_t off = 0;
  for (int r = 0; r < world; ++r) {
    g_rank = r;
    ws[r] = rnd(rng, std::size_t(N * K));
    auto* w = alloc<std::int16_t>(r, ws[r].size(), keep);
    std::memcpy(w, ws[r].data(), ws[r].size() * 2);
    auto* gathered = alloc<std::int16_t>(r, std::size_t(M * K), keep);
    std::int16_t* x = in_place ? gathered + off * K : alloc<std::int16_t>(r, std::size_t(rows[r] * K), keep);
    for (int c = 0; c < 2; ++c) {
      // the caller writes its x on its stream, then calls
      auto* staging = alloc<std::int16_t>(r, std::size_t(rows[r] * K), keep);
      std::memmove(staging, xs[c].data() + off * K, std::size_t(rows[r] * K) * 2);
      if (rows[r]) cudaMemcpyAsync(x, staging, std::size_t(rows[r] * K) * 2, cudaMemcpyHostToDevice, ranks[r].stream);
      D[c][r] = alloc<std::int16_t>(r, std::size_t(M > 0 ? (M - 1) * ldd + N : 0), keep);
      AllGatherGemmArguments a;
      a.rows_per_rank = rows;
      a.n = N;
      a.k = K;
      a.x = rows[r] ? x : nullptr;
      a.B = {w, gemm::DataType::kBF16, gemm::MatrixLayout::kColumnMajor, K};
      a.gathered = gathered;
      a.D = D[c][r];
      a.ldd = ldd_pad ? ldd : 0;
      a.chunks = chunks;
      auto st = ranks[r].tp->all_gather_gemm(a, ranks[r].stream);
      if (!st.ok()) SIM_FAIL("all_gather_gemm rank %d: %s", r, st.message.c_str());
    }
    off += rows[r];
  }
  drain(rng, "all_gather");
  for (int c = 0; c < 2; ++c)
    for (int r = 0; r < world; ++r)
      for (std::int64_t i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
          int s = 0;
          for (int q = 0; q < K; ++q) s += xs[c][i * K + q] * ws[r][j * K + q];
          if (D[c][r][i * ldd + j] != s) {
            SIM_FAIL("all_gather world %d chunks %d seed %u call %d rank %d D[%ld][%d] = %d, want %d", world, chunks, seed, c, r, long(i), j,
                 D[c][r][i * ldd + j], s);
            goto done;
          }
        }
done:
  end_world(ranks);
  g_allocs.clear();
}

static void reduce_scatter(std::vector<std::int64_t> const& rows, int chunks, unsigned seed, std::int64_t lda_pad) {
  std::mt19937 rng(seed);
  int const world = int(rows.size());
  constexpr int K = 3, N = 2;
  std::int64_t const lda = K + lda_pad;
  std::int64_t M = 0;
  for (auto r : rows) M += r;
  std::vector<std::unique_ptr<char[]>> keep;
  auto ranks = make_world(world);
  std::vector<std::vector<std::vector<std::int16_t>>> xs(2, std::vector<std::vector<std::int16_t>>(std::size_t(world)));
  std::vector<std::vector<std::int16_t>> ws(static_cast<std::size_t>(world));
  std::vector<std::vector<std::int16_t*>> D(2, std::vector<std::int16_t*>(std::size_t(world)));
  for (int r = 0; r < world; ++r) {
    g_rank = r;
    ws[r] = rnd(rng, std::size_t(N * K));
    auto* w = alloc<std::int16_t>(r, ws[r].size(), keep);
    std::memcpy(w, ws[r].data(), ws[r].size() * 2);
    auto* x = alloc<std::int16_t>(r, std::size_t(M * lda), keep);
    GemmReduceScatterArguments a;
    a.rows_per_rank = rows;
    a.n = N;
    a.k = K;
    a.A = {x, gemm::DataType::kBF16, gemm::MatrixLayout::kRowMajor, lda};
    a.B = {w, gemm::DataType::kBF16, gemm::MatrixLayout::kColumnMajor, K};
    a.chunks = chunks;
    a.workspace_bytes = ranks[r].tp->reduce_scatter_workspace_size(a);
    a.workspace = alloc<char>(r, a.workspace_bytes, keep);
    for (int c = 0; c < 2; ++c) {
      xs[c][r] = rnd(rng, std::size_t(M * lda));
      auto* staging = alloc<std::int16_t>(r, std::size_t(M * lda), keep);
      std::memmove(staging, xs[c][r].data(), std::size_t(M * lda) * 2);
      if (M) cudaMemcpyAsync(x, staging, std::size_t(M * lda) * 2, cudaMemcpyHostToDevice, ranks[r].stream);
      D[c][r] = alloc<std::int16_t>(r, std::size_t(rows[r] * N), keep);
      a.D = rows[r] ? D[c][r] : nullptr;
      auto st = ranks[r].tp->gemm_reduce_scatter(a, ranks[r].stream);
      if (!st.ok()) SIM_FAIL("gemm_reduce_scatter rank %d: %s", r, st.message.c_str());
    }
  }
  drain(rng, "reduce_scatter");
  std::int64_t off = 0;
  for (int r = 0; r < world; ++r) {
    for (int c = 0; c < 2; ++c)
      for (std::int64_t i = 0; i < rows[r]; ++i)
        for (int j = 0; j < N; ++j) {
          int s = 0;
          for (int q = 0; q < world; ++q)
            for (int kk = 0; kk < K; ++kk) s += xs[c][q][(off + i) * lda + kk] * ws[q][j * K + kk];
          if (D[c][r][i * N + j] != s) {
            SIM_FAIL("reduce_scatter world %d chunks %d seed %u call %d rank %d D[%ld][%d] = %d, want %d", world, chunks, seed, c, r, long(i), j,
                 D[c][r][i * N + j], s);
            goto next;
          }
        }
  next:
    off += rows[r];
  }
  end_world(ranks);
  g_allocs.clear();
}

static void failing_send() {
  // An ncclSend that fails: the call reports it, and leaves no NCCL group open on the thread.
  std::vector<std::unique_ptr<char[]>> keep;
  auto ranks = make_world(2);
  g_rank = 0;
  auto* x = alloc<std::int16_t>(0, 8 * 8, keep);
  auto* w = alloc<std::int16_t>(0, 8 * 8, keep);
  auto* gathered = alloc<std::int16_t>(0, 16 * 8, keep);
  auto* d = alloc<std::int16_t>(0, 16 * 8, keep);
  AllGatherGemmArguments a;
  a.rows_per_rank = {8, 8};
  a.n = 8;
  a.k = 8;
  a.x = x;
  a.B = {w, gemm::DataType::kBF16, gemm::MatrixLayout::kColumnMajor, 8};
  a.gathered = gathered;
  a.D = d;
  a.chunks = 1;
  g_fail_send_at = 0;
  g_sends = 0;
  auto st = ranks[0].tp->all_gather_gemm(a, ranks[0].stream);
  g_fail_send_at = -1;
  if (st.ok()) SIM_FAIL("a failed ncclSend was not reported");
  if (g_group_depth[0] != 0) SIM_FAIL("a failed ncclSend left an NCCL group open (depth %d)", g_group_depth[0]);
  g_group_depth[0] = 0;
  g_group_ops[0].clear();
  g_group_stream[0] = nullptr;
  // Whatever was enqueued, the caller's stream must not be left behind the communication stream.
  bool user_waits = false;
  for (auto& op : ranks[0].stream->ops) user_waits = user_waits || op.kind == Op::Wait;
  if (!user_waits) SIM_FAIL("after a failed ncclSend the caller's stream does not wait for the communication stream");
  for (auto* s : g_streams) s->ops.clear();
  end_world(ranks);
  g_allocs.clear();
}

TEST(TpGemmSimulation, RandomInterleavingsOfEveryRank) {
  std::mt19937 rng(7);
  for (int world = 1; world <= 5; ++world)
    for (int chunks : {0, 1, 2, 3, 7})
      for (int rep = 0; rep < 6; ++rep) {
        std::vector<std::int64_t> rows(static_cast<std::size_t>(world));
        for (auto& r : rows) r = std::uniform_int_distribution<int>(0, 6)(rng);
        unsigned const seed = unsigned(rng());
        all_gather(rows, chunks, seed, rep % 2 == 1, rep % 3 == 2 ? 5 : 0);
        reduce_scatter(rows, chunks, seed, rep % 3 == 1 ? 4 : 0);
      }
  all_gather({0, 0, 0}, 2, 1, false, 0);
  reduce_scatter({0, 0, 0}, 2, 1, 0);
  EXPECT_EQ(g_errors, 0) << "see the FAIL lines above";
}

TEST(TpGemmSimulation, AFailedSendClosesItsGroupAndJoinsTheStreams) {
  int const before = g_errors;
  failing_send();
  EXPECT_EQ(g_errors, before) << "see the FAIL lines above";
}
