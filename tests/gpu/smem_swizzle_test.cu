// The 128-, 64- and 32-byte shared-memory swizzles, end to end on the GPU: TMA loads a 64-row
// tile of A and of B (bf16, K-major, one swizzle row of K each) with CU_TENSOR_MAP_SWIZZLE_<S>B;
// 1. the bytes TMA wrote must sit exactly where the algebra's SmemSwizzle<S> puts them (the raw
//    shared memory is copied out, checked bit for bit, first mismatches printed);
// 2. wgmma reading both tiles through wgmma_desc<K, S> must compute D = A B^T exactly (small
//    integer operands: every sum is exact), so the descriptor's swizzle mode and stride agree with
//    what TMA wrote. Outputs are poisoned before the launch.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "sm90_test_support.hpp"
#include "tessel/arch/mbarrier_sm90.hpp"
#include "tessel/arch/tma_sm90.hpp"
#include "tessel/arch/wgmma_sm90.hpp"
#include "tessel/verify/device_buffer.cuh"
#include "tessel/verify/poison.hpp"

using namespace tessel;

namespace {

constexpr int kRows = 64;  // rows of A (M) and of B (N)

template <int S>
__global__ void __launch_bounds__(128) swizzle_kernel(const __grid_constant__ CUtensorMap map_a,
                                                      const __grid_constant__ CUtensorMap map_b, unsigned char* raw_a,
                                                      float* d) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Mma = arch::Wgmma<bfloat16_t, kRows, arch::Major::K, arch::Major::K>;
  constexpr int kTileBytes = kRows * S;
  extern __shared__ char smem_raw[];
  char* smem = smem_raw + ((1024u - (arch::cvta_to_shared(smem_raw) & 1023u)) & 1023u);
  char* sa = smem;
  char* sb = smem + kTileBytes;
  auto* bar = reinterpret_cast<std::uint64_t*>(smem + 2 * kTileBytes);
  int const t = int(threadIdx.x);
  if (t == 0) {
    arch::mbarrier_init(bar, 1);
    arch::mbarrier_init_fence();
  }
  __syncthreads();
  if (t == 0) {
    arch::mbarrier_arrive_expect_tx(bar, 2 * kTileBytes);
    arch::tma_load_3d(sa, &map_a, bar, 0, 0, 0);
    arch::tma_load_3d(sb, &map_b, bar, 0, 0, 0);
  }
  arch::mbarrier_wait(bar, 0);
  for (int i = t; i < kTileBytes; i += 128) raw_a[i] = static_cast<unsigned char>(sa[i]);

  float acc[Mma::kAccumulators];
#pragma unroll
  for (int v = 0; v < Mma::kAccumulators; ++v) acc[v] = 0.f;
  arch::wgmma_fence_registers(acc);
  arch::wgmma_fence();
#pragma unroll
  for (int ks = 0; ks < S / 32; ++ks)  // a K step of 16 bf16 is 32 bytes along the row
    Mma::mma(acc, arch::wgmma_desc<arch::Major::K, S>(sa + 32 * ks), arch::wgmma_desc<arch::Major::K, S>(sb + 32 * ks), 1);
  arch::wgmma_commit_group();
  arch::wgmma_wait_group<0>();
  arch::wgmma_fence_registers(acc);
  int const w = t / 32, l = t % 32;
#pragma unroll
  for (int v = 0; v < Mma::kAccumulators; ++v) {  // the accumulator layout of wgmma_sm90.hpp
    int const j = v / 4, i = v % 4;
    d[(16 * w + l / 4 + 8 * (i / 2)) * kRows + 8 * j + 2 * (l % 4) + i % 2] = acc[v];
  }
#endif
}

template <int S>
void check_swizzle() {
  constexpr int W = S / 2;  // bf16 elements of K per row
  std::vector<float> af, bf;
  auto const a = test::random_values<bfloat16_t>(kRows * W, 11 + S, verify::Distribution::integers(-3, 3), af);
  auto const b = test::random_values<bfloat16_t>(kRows * W, 12 + S, verify::Distribution::integers(-3, 3), bf);
  verify::DeviceBuffer<bfloat16_t> da(a), db(b);
  std::vector<unsigned char> raw(kRows * S, 0xA5);
  std::vector<float> d(kRows * kRows);
  verify::poison(d.data(), d.size());
  verify::DeviceBuffer<unsigned char> draw(raw);
  verify::DeviceBuffer<float> dd(d);

  CUtensorMap map_a{}, map_b{};
  auto swizzle = CUtensorMapSwizzle(arch::tma_swizzle_code(S));
  arch::TmaView va{da.data(), std::uint64_t(W), std::uint64_t(kRows), 1, std::uint64_t(W), 0, std::uint32_t(W), std::uint32_t(kRows)};
  arch::TmaView vb{db.data(), std::uint64_t(W), std::uint64_t(kRows), 1, std::uint64_t(W), 0, std::uint32_t(W), std::uint32_t(kRows)};
  ASSERT_TRUE(arch::make_tma_map(map_a, arch::tma_data_type<bfloat16_t>(), 2, va, swizzle, "A").ok());
  ASSERT_TRUE(arch::make_tma_map(map_b, arch::tma_data_type<bfloat16_t>(), 2, vb, swizzle, "B").ok());
  int const smem = 2 * kRows * S + 16 + 1024;
  auto kernel = swizzle_kernel<S>;
  ASSERT_EQ(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem), cudaSuccess);
  kernel<<<1, 128, smem>>>(map_a, map_b, draw.data(), dd.data());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  raw = draw.download();
  d = dd.download();

  int bad = 0;  // 1. every element of A where SmemSwizzle<S> says TMA put it
  for (int r = 0; r < kRows; ++r)
    for (int k = 0; k < W; ++k) {
      int const at = arch::SmemSwizzle<S>::apply(r * S + 2 * k);
      if (std::memcmp(&raw[std::size_t(at)], &a[std::size_t(r * W + k)], 2) != 0 && ++bad <= 5)
        ADD_FAILURE() << S << "-byte swizzle: A(" << r << ", " << k << ") is not at shared byte " << at;
    }
  EXPECT_EQ(bad, 0) << S << "-byte swizzle: " << bad << " of " << kRows * W << " elements misplaced";
  bad = 0;  // 2. wgmma through the descriptor of the same swizzle
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < kRows; ++c) {
      double want = 0;
      for (int k = 0; k < W; ++k) want += double(af[r * W + k]) * double(bf[c * W + k]);
      if (double(d[r * kRows + c]) != want && ++bad <= 5)
        ADD_FAILURE() << S << "-byte swizzle: D(" << r << ", " << c << ") = " << d[r * kRows + c] << ", expected " << want;
    }
  EXPECT_EQ(bad, 0) << S << "-byte swizzle: " << bad << " of " << kRows * kRows << " elements of D wrong";
}

}  // namespace

TEST(SmemSwizzle, Bytes128) {
  TESSEL_SKIP_WITHOUT_SM90();
  check_swizzle<128>();
}

TEST(SmemSwizzle, Bytes64) {
  TESSEL_SKIP_WITHOUT_SM90();
  check_swizzle<64>();
}

TEST(SmemSwizzle, Bytes32) {
  TESSEL_SKIP_WITHOUT_SM90();
  check_swizzle<32>();
}
