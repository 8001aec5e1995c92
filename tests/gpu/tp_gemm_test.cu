// tessel::distributed on the GPUs of this machine, one thread per rank over ncclCommInitAll: the
// overlapped AllGather + GEMM and GEMM + ReduceScatter equal the unsplit GEMM (float64 on the host)
// within bf16's rounding, for ragged token counts with a rank that has none and for every rank
// with tokens (two ranks that send to each other in one group); outputs start poisoned (NaN).
// Each handle makes two calls back to back (no host synchronisation between), the second with
// more chunks: its events and the workspace are reused while the first call may still run. One
// Hopper GPU runs the one-rank group (the plan's GEMMs and no exchange); two or more run the real
// exchanges. A rank that does not finish within a minute (a peer refused, or an exchange is
// unmatched) aborts its communicator, so that the test fails instead of hanging.

#include <gtest/gtest.h>
#include <nccl.h>

#include <chrono>
#include <cmath>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "sm90_test_support.hpp"
#include "tessel/arch/runtime.hpp"
#include "tessel/distributed/tp_gemm.hpp"
#include "tessel/verify/device_buffer.cuh"
#include "tessel/verify/poison.hpp"

namespace {

using namespace tessel;
using namespace tessel::distributed;
using gemm::DataType;
using gemm::MatrixLayout;
using Bf16 = bfloat16_t;

int hopper_gpus() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) return 0;
  int hopper = 0;
  for (int d = 0; d < n; ++d) {
    arch::DeviceArch a;
    if (arch::query_device_arch(d, a).ok() && a.compute_capability == 90) ++hopper;
  }
  return hopper;
}

std::vector<Bf16> random_bf16(std::size_t n, std::uint64_t seed, std::vector<float>& as_float) {
  return test::random_values<Bf16>(n, seed, verify::Distribution::uniform(-1, 1), as_float);
}

// D's elements, poisoned, on the device.
verify::DeviceBuffer<Bf16> poisoned(std::size_t n) {
  std::vector<Bf16> h(n);
  verify::poison(h.data(), n);
  return verify::DeviceBuffer<Bf16>(h);
}

// Ragged token counts, none a multiple of a tile; with `empty_rank`, rank 1 without any.
std::vector<std::int64_t> ragged_rows(int world, bool empty_rank) {
  std::vector<std::int64_t> rows(static_cast<std::size_t>(world));
  for (int w = 0; w < world; ++w) rows[std::size_t(w)] = w == 1 && empty_rank ? 0 : 700 + 331 * w;
  return rows;
}

std::int64_t offset_of(std::vector<std::int64_t> const& rows, int rank) {
  std::int64_t o = 0;
  for (int q = 0; q < rank; ++q) o += rows[std::size_t(q)];
  return o;
}

// |got - want| within bf16's rounding of terms of total magnitude `mag`, reported at the first miss.
::testing::AssertionResult near(std::vector<Bf16> const& got, std::vector<double> const& want, std::vector<double> const& mag) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << got.size() << " elements, want " << want.size();
  for (std::size_t i = 0; i < got.size(); ++i) {
    double const g = float(got[i]);
    if (!(std::fabs(g - want[i]) <= std::ldexp(mag[i], -7) + 1e-3))
      return ::testing::AssertionFailure() << "element " << i << ": got " << g << ", want " << want[i];
  }
  return ::testing::AssertionSuccess();
}

// A group of the first `size` GPUs, one communicator each.
struct World {
  int size = 0;
  std::vector<ncclComm_t> comms;
  std::vector<char> aborted;  // per rank, set by finish() on a timeout
  explicit World(int n) : size(n), comms(static_cast<std::size_t>(n)), aborted(static_cast<std::size_t>(n), 0) {
    std::vector<int> devices(static_cast<std::size_t>(n));
    for (int d = 0; d < n; ++d) devices[std::size_t(d)] = d;
    EXPECT_EQ(ncclCommInitAll(comms.data(), n, devices.data()), ncclSuccess);
  }
  ~World() {
    for (std::size_t r = 0; r < comms.size(); ++r)
      if (!aborted[r]) ncclCommDestroy(comms[r]);
  }
  // Waits for rank r's stream; past the deadline, aborts r's communicator (its NCCL kernels
  // return) and says so: a rank whose peer refused a call would otherwise wait forever.
  bool finish(int r, cudaStream_t stream) {
    auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    cudaError_t e;
    while ((e = cudaStreamQuery(stream)) == cudaErrorNotReady) {
      if (std::chrono::steady_clock::now() > deadline) {
        ncclCommAbort(comms[std::size_t(r)]);
        aborted[std::size_t(r)] = 1;
        cudaStreamSynchronize(stream);
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return e == cudaSuccess;
  }
  // rank_call(rank, handle, stream) on one thread per rank, each on its own device and stream with
  // an initialized handle; returns per rank what the call said (or threw), empty for success.
  // rank_call waits for its stream with finish(), which fails on a hang instead of blocking.
  template <class Fn>
  std::vector<std::string> run(Fn rank_call) {
    std::vector<std::string> errors(static_cast<std::size_t>(size));
    std::vector<std::thread> threads;
    for (int r = 0; r < size; ++r)
      threads.emplace_back([&, r] {
        try {
          cudaSetDevice(r);
          cudaStream_t stream;
          cudaStreamCreate(&stream);
          TensorParallelGemm tp;
          StatusInfo const init = tp.initialize(comms[std::size_t(r)]);
          StatusInfo const s = init.ok() ? rank_call(r, tp, stream) : init;
          bool const finished = finish(r, stream);
          cudaStreamDestroy(stream);
          errors[std::size_t(r)] = !s.ok() ? s.what() : finished ? "" : "rank " + std::to_string(r) + " did not finish within a minute "
                                                                     "(its communicator aborted): an exchange no peer matched?";
        } catch (std::exception const& e) {
          errors[std::size_t(r)] = e.what();
        }
      });
    for (auto& t : threads) t.join();
    return errors;
  }
};

void check_all_gather(int world_size, int chunks, bool empty_rank) {
  SCOPED_TRACE("world " + std::to_string(world_size) + ", chunks " + std::to_string(chunks) + " then " + std::to_string(chunks + 1) +
               (empty_rank ? ", rank 1 without tokens" : ""));
  auto const rows = ragged_rows(world_size, empty_rank);
  std::int64_t const M = offset_of(rows, world_size);
  constexpr int K = 128, N = 128;  // N: each rank's shard of the output features
  std::vector<float> x;
  auto const hx = random_bf16(std::size_t(M * K), 11, x);
  std::size_t const ranks = static_cast<std::size_t>(world_size);
  std::vector<std::vector<float>> w(ranks);
  std::vector<std::vector<Bf16>> hw, got(ranks), got2(ranks), got_gathered(ranks);
  for (int r = 0; r < world_size; ++r) hw.push_back(random_bf16(std::size_t(N) * K, 12 + r, w[std::size_t(r)]));  // N x K: B = W^T
  World world(world_size);
  auto const errors = world.run([&](int r, TensorParallelGemm& tp, cudaStream_t stream) {
    std::int64_t const offset = offset_of(rows, r);
    verify::DeviceBuffer<Bf16> dx(std::vector<Bf16>(hx.begin() + offset * K, hx.begin() + (offset + rows[std::size_t(r)]) * K));
    verify::DeviceBuffer<Bf16> dw(hw[std::size_t(r)]), gathered(static_cast<std::size_t>(M * K)), d = poisoned(std::size_t(M * N)),
        d2 = poisoned(std::size_t(M * N));
    AllGatherGemmArguments a;
    a.rows_per_rank = rows;
    a.n = N;
    a.k = K;
    a.x = dx.data();
    a.B = {dw.data(), DataType::kBF16, MatrixLayout::kColumnMajor, K};
    a.gathered = gathered.data();
    a.D = d.data();
    a.chunks = chunks;
    StatusInfo const first = tp.all_gather_gemm(a, stream);
    a.D = d2.data();  // again at once, into another D: the same events and gathered buffer, more pieces
    a.chunks = chunks + 1;
    StatusInfo const s = first.ok() ? tp.all_gather_gemm(a, stream) : first;
    if (!world.finish(r, stream)) return StatusInfo{Status::kErrorInternal, "timed out (communicator aborted)"};
    got[std::size_t(r)] = d.download();
    got2[std::size_t(r)] = d2.download();
    got_gathered[std::size_t(r)] = gathered.download();
    return s;
  });
  for (int r = 0; r < world_size; ++r) {
    ASSERT_EQ(errors[std::size_t(r)], "") << "rank " << r;
    bool same = got_gathered[std::size_t(r)].size() == hx.size();
    for (std::size_t i = 0; same && i < hx.size(); ++i) same = float(got_gathered[std::size_t(r)][i]) == float(hx[i]);
    EXPECT_TRUE(same) << "rank " << r << "'s gathered activations differ from every rank's x";
    std::vector<double> want(std::size_t(M * N)), mag(std::size_t(M * N));
    for (std::int64_t i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        double s = 0, m = 0;
        for (int q = 0; q < K; ++q) {
          double const t = double(x[std::size_t(i * K + q)]) * w[std::size_t(r)][std::size_t(j * K + q)];
          s += t;
          m += std::fabs(t);
        }
        want[std::size_t(i * N + j)] = s;
        mag[std::size_t(i * N + j)] = m;
      }
    EXPECT_TRUE(near(got[std::size_t(r)], want, mag)) << "rank " << r;
    EXPECT_TRUE(near(got2[std::size_t(r)], want, mag)) << "rank " << r << ", second call";
  }
}

void check_reduce_scatter(int world_size, int chunks, bool empty_rank) {
  SCOPED_TRACE("world " + std::to_string(world_size) + ", chunks " + std::to_string(chunks) + " then " + std::to_string(chunks + 1) +
               (empty_rank ? ", rank 1 without tokens" : ""));
  auto const rows = ragged_rows(world_size, empty_rank);
  std::int64_t const M = offset_of(rows, world_size);
  constexpr int K = 128, N = 136;  // K: each rank's shard of the input features
  std::size_t const ranks = static_cast<std::size_t>(world_size);
  std::vector<std::vector<float>> x(ranks), w(ranks);
  std::vector<std::vector<Bf16>> hx, hw, got(ranks), got2(ranks);
  for (int r = 0; r < world_size; ++r) {
    hx.push_back(random_bf16(std::size_t(M * K), 21 + 2 * r, x[std::size_t(r)]));
    hw.push_back(random_bf16(std::size_t(N) * K, 22 + 2 * r, w[std::size_t(r)]));
  }
  World world(world_size);
  auto const errors = world.run([&](int r, TensorParallelGemm& tp, cudaStream_t stream) {
    verify::DeviceBuffer<Bf16> dx(hx[std::size_t(r)]), dw(hw[std::size_t(r)]), d = poisoned(std::size_t(rows[std::size_t(r)] * N)),
        d2 = poisoned(std::size_t(rows[std::size_t(r)] * N));
    GemmReduceScatterArguments a;
    a.rows_per_rank = rows;
    a.n = N;
    a.k = K;
    a.A = {dx.data(), DataType::kBF16, MatrixLayout::kRowMajor, K};
    a.B = {dw.data(), DataType::kBF16, MatrixLayout::kColumnMajor, K};
    a.D = d.data();
    a.chunks = chunks;
    a.workspace_bytes = tp.reduce_scatter_workspace_size(a);
    verify::DeviceBuffer<char> workspace(a.workspace_bytes);
    a.workspace = workspace.data();
    StatusInfo const first = tp.gemm_reduce_scatter(a, stream);
    a.D = d2.data();  // again at once, into another D: the same events and workspace, more pieces
    a.chunks = chunks + 1;
    StatusInfo const s = first.ok() ? tp.gemm_reduce_scatter(a, stream) : first;
    if (!world.finish(r, stream)) return StatusInfo{Status::kErrorInternal, "timed out (communicator aborted)"};
    got[std::size_t(r)] = d.download();
    got2[std::size_t(r)] = d2.download();
    return s;
  });
  for (int r = 0; r < world_size; ++r) {
    ASSERT_EQ(errors[std::size_t(r)], "") << "rank " << r;
    std::int64_t const own = rows[std::size_t(r)], offset = offset_of(rows, r);
    std::vector<double> want(std::size_t(own * N), 0.0), mag(std::size_t(own * N), 0.0);
    for (int q = 0; q < world_size; ++q)
      for (std::int64_t i = 0; i < own; ++i)
        for (int j = 0; j < N; ++j)
          for (int c = 0; c < K; ++c) {
            double const t = double(x[std::size_t(q)][std::size_t((offset + i) * K + c)]) * w[std::size_t(q)][std::size_t(j * K + c)];
            want[std::size_t(i * N + j)] += t;
            mag[std::size_t(i * N + j)] += std::fabs(t);
          }
    EXPECT_TRUE(near(got[std::size_t(r)], want, mag)) << "rank " << r;
    EXPECT_TRUE(near(got2[std::size_t(r)], want, mag)) << "rank " << r << ", second call";
  }
}

TEST(TpGemm, RefusesUseBeforeInitialize) {
  TensorParallelGemm tp;
  EXPECT_EQ(tp.initialize(nullptr).status, Status::kErrorInvalidProblem);
  AllGatherGemmArguments a;
  auto const s = tp.all_gather_gemm(a, nullptr);
  EXPECT_EQ(s.status, Status::kErrorInvalidProblem);
  EXPECT_NE(s.message.find("call initialize(comm) first"), std::string::npos) << s.message;
}

TEST(TpGemm, OneRankGroup) {
  if (hopper_gpus() < 1) GTEST_SKIP() << "tessel::distributed runs tessel::gemm's Hopper kernels: no sm_90 GPU here";
  check_all_gather(1, 2, false);
  check_reduce_scatter(1, 2, false);
}

TEST(TpGemm, AllGatherGemmEqualsTheUnsplitGemm) {
  int const n = hopper_gpus();
  if (n < 2) GTEST_SKIP() << "the exchanges need 2 or more Hopper GPUs; this machine has " << n;
  for (bool empty_rank : {true, false})
    for (int chunks : {1, 3}) check_all_gather(n, chunks, empty_rank);
}

TEST(TpGemm, GemmReduceScatterEqualsTheUnsplitGemm) {
  int const n = hopper_gpus();
  if (n < 2) GTEST_SKIP() << "the exchanges need 2 or more Hopper GPUs; this machine has " << n;
  for (bool empty_rank : {true, false})
    for (int chunks : {1, 3}) check_reduce_scatter(n, chunks, empty_rank);
}

}  // namespace
