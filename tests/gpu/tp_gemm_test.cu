// tessel::distributed on the GPUs of this machine, one thread per rank over ncclCommInitAll: the
// overlapped AllGather + GEMM and GEMM + ReduceScatter equal the unsplit GEMM (float64 on the host)
// within bf16's rounding, for ragged token counts with a rank that has none; outputs start
// poisoned (NaN). One Hopper GPU runs the one-rank group (the plan's GEMMs and no exchange); two
// or more run the real exchanges.

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <nccl.h>

#include <cmath>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tessel/distributed/tp_gemm.hpp"

namespace {

using namespace tessel;
using namespace tessel::distributed;
using gemm::DataType;
using gemm::MatrixLayout;

int hopper_gpus() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) return 0;
  int hopper = 0;
  for (int d = 0; d < n; ++d) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, d) == cudaSuccess && p.major == 9) ++hopper;
  }
  return hopper;
}

std::vector<__nv_bfloat16> random_bf16(std::mt19937& rng, std::size_t n) {
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<__nv_bfloat16> v(n);
  for (auto& x : v) x = __float2bfloat16(u(rng));
  return v;
}

template <class T>
T* to_device(std::vector<T> const& h) {
  T* d = nullptr;
  EXPECT_EQ(cudaMalloc(&d, h.size() * sizeof(T) + 16), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  return d;
}

// Ragged token counts, rank 1 without any, none a multiple of a tile.
std::vector<std::int64_t> ragged_rows(int world) {
  std::vector<std::int64_t> rows(static_cast<std::size_t>(world));
  for (int w = 0; w < world; ++w) rows[std::size_t(w)] = w == 1 ? 0 : 700 + 331 * w;
  return rows;
}

// |got - want| within bf16's rounding of terms of total magnitude `mag`, reported at the first miss.
::testing::AssertionResult near(std::vector<__nv_bfloat16> const& got, std::vector<double> const& want, std::vector<double> const& mag) {
  for (std::size_t i = 0; i < got.size(); ++i) {
    double const g = __bfloat162float(got[i]);
    if (!(std::fabs(g - want[i]) <= std::ldexp(mag[i], -7) + 1e-3))
      return ::testing::AssertionFailure() << "element " << i << ": got " << g << ", want " << want[i];
  }
  return ::testing::AssertionSuccess();
}

struct World {
  int size = 0;
  std::vector<ncclComm_t> comms;
  explicit World(int n) : size(n), comms(static_cast<std::size_t>(n)) {
    std::vector<int> devices(static_cast<std::size_t>(n));
    for (int d = 0; d < n; ++d) devices[std::size_t(d)] = d;
    EXPECT_EQ(ncclCommInitAll(comms.data(), n, devices.data()), ncclSuccess);
  }
  ~World() {
    for (auto c : comms) ncclCommDestroy(c);
  }
  // fn(rank) on one thread per rank, each on its own device.
  template <class Fn>
  void run(Fn fn) {
    std::vector<std::thread> threads;
    for (int r = 0; r < size; ++r)
      threads.emplace_back([&, r] {
        cudaSetDevice(r);
        fn(r);
      });
    for (auto& t : threads) t.join();
  }
};

void check_all_gather(int world_size, int chunks) {
  SCOPED_TRACE("world " + std::to_string(world_size) + ", chunks " + std::to_string(chunks));
  auto const rows = ragged_rows(world_size);
  std::int64_t M = 0;
  for (auto r : rows) M += r;
  constexpr int K = 128, N = 128;  // N: each rank's shard of the output features
  std::mt19937 rng(11);
  auto const x = random_bf16(rng, std::size_t(M * K));
  std::vector<std::vector<__nv_bfloat16>> w, got(static_cast<std::size_t>(world_size));
  for (int r = 0; r < world_size; ++r) w.push_back(random_bf16(rng, std::size_t(N) * K));  // N x K row-major: B = W^T column-major
  World world(world_size);
  std::vector<std::string> errors(static_cast<std::size_t>(world_size));  // per rank; empty: success
  world.run([&](int r) {
    std::int64_t offset = 0;
    for (int q = 0; q < r; ++q) offset += rows[std::size_t(q)];
    std::vector<__nv_bfloat16> mine(x.begin() + offset * K, x.begin() + (offset + rows[std::size_t(r)]) * K);
    auto* dx = to_device(mine);
    auto* dw = to_device(w[std::size_t(r)]);
    __nv_bfloat16 *gathered = nullptr, *d = nullptr;
    cudaMalloc(&gathered, std::size_t(M * K) * 2);
    cudaMalloc(&d, std::size_t(M * N) * 2);
    cudaMemset(d, 0xff, std::size_t(M * N) * 2);  // NaN
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    TensorParallelGemm tp;
    auto call = [&]() -> StatusInfo {
      if (auto s = tp.initialize(world.comms[std::size_t(r)]); !s.ok()) return s;
      AllGatherGemmArguments a;
      a.rows_per_rank = rows;
      a.n = N;
      a.k = K;
      a.x = dx;
      a.B = {dw, DataType::kBF16, MatrixLayout::kColumnMajor, K};
      a.gathered = gathered;
      a.D = d;
      a.chunks = chunks;
      return tp.all_gather_gemm(a, stream);
    };
    StatusInfo const s = call();
    errors[std::size_t(r)] = s.ok() ? "" : s.what();
    cudaStreamSynchronize(stream);
    got[std::size_t(r)].resize(std::size_t(M * N));
    cudaMemcpy(got[std::size_t(r)].data(), d, std::size_t(M * N) * 2, cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dw);
    cudaFree(gathered);
    cudaFree(d);
    cudaStreamDestroy(stream);
  });
  for (int r = 0; r < world_size; ++r) {
    ASSERT_EQ(errors[std::size_t(r)], "") << "rank " << r;
    std::vector<double> want(std::size_t(M * N)), mag(std::size_t(M * N));
    for (std::int64_t i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        double s = 0, m = 0;
        for (int q = 0; q < K; ++q) {
          double const t = double(__bfloat162float(x[std::size_t(i * K + q)])) * __bfloat162float(w[std::size_t(r)][std::size_t(j * K + q)]);
          s += t;
          m += std::fabs(t);
        }
        want[std::size_t(i * N + j)] = s;
        mag[std::size_t(i * N + j)] = m;
      }
    EXPECT_TRUE(near(got[std::size_t(r)], want, mag)) << "rank " << r;
  }
}

void check_reduce_scatter(int world_size, int chunks) {
  SCOPED_TRACE("world " + std::to_string(world_size) + ", chunks " + std::to_string(chunks));
  auto const rows = ragged_rows(world_size);
  std::int64_t M = 0;
  for (auto r : rows) M += r;
  constexpr int K = 128, N = 136;  // K: each rank's shard of the input features
  std::mt19937 rng(12);
  std::vector<std::vector<__nv_bfloat16>> x, w, got(static_cast<std::size_t>(world_size));
  for (int r = 0; r < world_size; ++r) {
    x.push_back(random_bf16(rng, std::size_t(M * K)));
    w.push_back(random_bf16(rng, std::size_t(N) * K));
  }
  World world(world_size);
  std::vector<std::string> errors(static_cast<std::size_t>(world_size));  // per rank; empty: success
  world.run([&](int r) {
    std::int64_t const own = rows[std::size_t(r)];
    auto* dx = to_device(x[std::size_t(r)]);
    auto* dw = to_device(w[std::size_t(r)]);
    __nv_bfloat16* d = nullptr;
    cudaMalloc(&d, std::size_t(own * N) * 2 + 16);
    cudaMemset(d, 0xff, std::size_t(own * N) * 2);
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    TensorParallelGemm tp;
    void* workspace = nullptr;
    auto call = [&]() -> StatusInfo {
      if (auto s = tp.initialize(world.comms[std::size_t(r)]); !s.ok()) return s;
      GemmReduceScatterArguments a;
      a.rows_per_rank = rows;
      a.n = N;
      a.k = K;
      a.A = {dx, DataType::kBF16, MatrixLayout::kRowMajor, K};
      a.B = {dw, DataType::kBF16, MatrixLayout::kColumnMajor, K};
      a.D = d;
      a.chunks = chunks;
      a.workspace_bytes = tp.reduce_scatter_workspace_size(a);
      cudaMalloc(&workspace, a.workspace_bytes + 16);
      a.workspace = workspace;
      return tp.gemm_reduce_scatter(a, stream);
    };
    StatusInfo const s = call();
    errors[std::size_t(r)] = s.ok() ? "" : s.what();
    cudaStreamSynchronize(stream);
    got[std::size_t(r)].resize(std::size_t(own * N));
    cudaMemcpy(got[std::size_t(r)].data(), d, std::size_t(own * N) * 2, cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dw);
    cudaFree(d);
    cudaFree(workspace);
    cudaStreamDestroy(stream);
  });
  std::int64_t offset = 0;
  for (int r = 0; r < world_size; ++r) {
    ASSERT_EQ(errors[std::size_t(r)], "") << "rank " << r;
    std::int64_t const own = rows[std::size_t(r)];
    std::vector<double> want(std::size_t(own * N), 0.0), mag(std::size_t(own * N), 0.0);
    for (int q = 0; q < world_size; ++q)
      for (std::int64_t i = 0; i < own; ++i)
        for (int j = 0; j < N; ++j)
          for (int c = 0; c < K; ++c) {
            double const t = double(__bfloat162float(x[std::size_t(q)][std::size_t((offset + i) * K + c)])) *
                             __bfloat162float(w[std::size_t(q)][std::size_t(j * K + c)]);
            want[std::size_t(i * N + j)] += t;
            mag[std::size_t(i * N + j)] += std::fabs(t);
          }
    EXPECT_TRUE(near(got[std::size_t(r)], want, mag)) << "rank " << r;
    offset += own;
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
  check_all_gather(1, 2);
  check_reduce_scatter(1, 2);
}

TEST(TpGemm, AllGatherGemmEqualsTheUnsplitGemm) {
  int const n = hopper_gpus();
  if (n < 2) GTEST_SKIP() << "the exchanges need 2 or more Hopper GPUs; this machine has " << n;
  for (int chunks : {1, 3}) check_all_gather(n, chunks);
}

TEST(TpGemm, GemmReduceScatterEqualsTheUnsplitGemm) {
  int const n = hopper_gpus();
  if (n < 2) GTEST_SKIP() << "the exchanges need 2 or more Hopper GPUs; this machine has " << n;
  for (int chunks : {1, 3}) check_reduce_scatter(n, chunks);
}

}  // namespace
