// wgmma with A from registers (Wgmma::mma_rs), on the GPU: one warpgroup multiplies a 64 x KB
// tile of A, packed into register fragments straight from global memory by the layout written in
// wgmma_sm90.hpp, with an N x KB tile of B in shared memory (K-major, 128-byte swizzle, written
// element by element through the algebra's Sw128), over the KB / kK instructions of one 128-byte
// swizzle row. Small integer operands make every product and sum exact in any precision, so D
// must equal the double reference bit for bit; a wrong fragment layout puts a value in the wrong
// row or column and shows as a mismatch (the first ones are printed). D is poisoned before.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "sm90_test_support.hpp"
#include "tessel/arch/tma_sm90.hpp"
#include "tessel/arch/wgmma_sm90.hpp"
#include "tessel/layout/swizzle.hpp"
#include "tessel/verify/device_buffer.cuh"
#include "tessel/verify/poison.hpp"

using namespace tessel;

namespace {

using Sw128 = Swizzle<3, 4, 3>;  // the 128-byte swizzle on byte offsets, as TMA writes it

template <class T, int N>
__global__ void __launch_bounds__(128) wgmma_rs_kernel(T const* a, T const* b, float* d) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Mma = arch::Wgmma<T, N, arch::Major::K, arch::Major::K>;
  constexpr int KB = 128 / int(sizeof(T));  // K of one swizzle row
  constexpr int E = 4 / int(sizeof(T));     // elements per 32-bit register
  extern __shared__ char smem_raw[];
  char* smem = smem_raw + ((1024u - (arch::cvta_to_shared(smem_raw) & 1023u)) & 1023u);
  int const t = int(threadIdx.x), w = t / 32, l = t % 32;
  for (int i = t; i < N * KB; i += 128) {  // B(r, kk) at the swizzled byte of row r, column kk
    int const r = i / KB, kk = i % KB;
    *reinterpret_cast<T*>(smem + Sw128::apply(r * 128 + kk * int(sizeof(T)))) = b[i];
  }
  arch::fence_proxy_async_shared();  // generic-proxy writes, read next by wgmma
  __syncthreads();

  float acc[N / 2];
#pragma unroll
  for (int v = 0; v < N / 2; ++v) acc[v] = 0.f;
#pragma unroll
  for (int ks = 0; ks < KB / Mma::kK; ++ks) {
    std::uint32_t frag[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      int const row = 16 * w + l / 4 + 8 * (j % 2);
      int const col = ks * Mma::kK + E * (l % 4) + (j / 2) * (Mma::kK / 2);
      std::memcpy(&frag[j], a + row * KB + col, 4);  // E consecutive elements, lower K in lower bits
    }
    arch::wgmma_fence_registers(acc);
    arch::wgmma_fence();
    Mma::mma_rs(acc, frag, arch::wgmma_desc_sw128<arch::Major::K>(smem + ks * 32), 1);
    arch::wgmma_commit_group();
    arch::wgmma_wait_group<0>();
    arch::wgmma_fence_registers(acc);
  }
#pragma unroll
  for (int v = 0; v < N / 2; ++v) {  // the accumulator layout of wgmma_sm90.hpp
    int const j = v / 4, i = v % 4;
    int const row = 16 * w + l / 4 + 8 * (i / 2), col = 8 * j + 2 * (l % 4) + i % 2;
    d[row * N + col] = acc[v];
  }
#endif
}

template <class T, int N>
void check_rs() {
  constexpr int KB = 128 / int(sizeof(T)), M = 64;
  std::vector<float> af, bf;
  auto const a = test::random_values<T>(M * KB, 7 + N, verify::Distribution::integers(-2, 2), af);
  auto const b = test::random_values<T>(N * KB, 8 + N, verify::Distribution::integers(-2, 2), bf);
  std::vector<float> d(M * N);
  verify::poison(d.data(), d.size());
  verify::DeviceBuffer<T> da(a), db(b);
  verify::DeviceBuffer<float> dd(d);
  int const smem = N * 128 + 1024;
  auto kernel = wgmma_rs_kernel<T, N>;
  ASSERT_EQ(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem), cudaSuccess);
  kernel<<<1, 128, smem>>>(da.data(), db.data(), dd.data());
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  d = dd.download();
  int bad = 0;
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c) {
      double want = 0;
      for (int k = 0; k < KB; ++k) want += double(af[r * KB + k]) * double(bf[c * KB + k]);
      float const got = d[r * N + c];
      if (double(got) != want && ++bad <= 5) ADD_FAILURE() << "N = " << N << ": D(" << r << ", " << c << ") = " << got << ", expected " << want;
    }
  EXPECT_EQ(bad, 0) << bad << " of " << M * N << " elements wrong (N = " << N << ", " << sizeof(T) << "-byte elements)";
}

}  // namespace

TEST(WgmmaRegisterA, Bf16) {
  TESSEL_SKIP_WITHOUT_SM90();
  check_rs<bfloat16_t, 64>();
  check_rs<bfloat16_t, 256>();
}

TEST(WgmmaRegisterA, F16) {
  TESSEL_SKIP_WITHOUT_SM90();
  check_rs<half_t, 128>();
}

TEST(WgmmaRegisterA, E4m3) {
  TESSEL_SKIP_WITHOUT_SM90();
  check_rs<float_e4m3_t, 128>();
}
