#pragma once
// Hopper GEMM kernel: TMA loads, wgmma, warp specialization (cooperative schedule).
//
//   D(M,N) = alpha * A(M,K) * B(N,K)^T + beta * C(M,N)     A, B bf16 K-major; D, C row-major
//
// One CTA of three warpgroups per BM x BN output tile. Warpgroup 0 is the producer: one thread
// issues the TMA loads of A and B into a ring of Stages shared-memory buffers. Warpgroups 1 and 2
// are consumers: each owns 64 of the BM = 128 rows and runs wgmma m64nBNk16 over the stage, then
// hands the buffer back. Full and empty mbarriers carry the stage between them.

#include <cuda.h>

#include <cstdint>

#include "tessel/arch/mbarrier_sm90.hpp"
#include "tessel/arch/tags.hpp"
#include "tessel/arch/tma_sm90.hpp"
#include "tessel/arch/wgmma_sm90.hpp"
#include "tessel/gemm/kernel/tile_scheduler.hpp"
#include "tessel/numeric.hpp"

namespace tessel::gemm::kernel {

template <int TileM, int TileN, int TileK, int StageCount>
struct Sm90TileConfig {
  static constexpr int BM = TileM, BN = TileN, BK = TileK, Stages = StageCount;
  static_assert(BM == 128, "sm90 cooperative kernel: BM is 128 (two consumer warpgroups of 64 rows)");
  static_assert(BN == 64 || BN == 128 || BN == 256, "sm90 kernel: BN must be 64, 128 or 256 (a wgmma N)");
  static_assert(BK == 64, "sm90 kernel: BK is 64 bf16 = one 128-byte swizzle row");
  static constexpr int kThreads = 384;
  static constexpr int kStageBytesA = BM * BK * 2, kStageBytesB = BN * BK * 2;
  static constexpr int kBarrierBytes = 2 * Stages * 8;
  // 1024 bytes of slack: the dynamic shared memory base is aligned up to the 128-byte swizzle's
  // 1024-byte period inside the kernel.
  static constexpr int kSmemBytes = Stages * (kStageBytesA + kStageBytesB) + kBarrierBytes + 1024;
};

template <class ElementD>
struct Sm90GemmParams {
  int m, n, k;
  ElementD const* C;
  std::int64_t ldc;
  ElementD* D;
  std::int64_t ldd;
  float alpha, beta;
  GroupedRaster raster;
};

template <class Cfg, class ElementD>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    sm90_gemm_tma_warpspecialized(const __grid_constant__ CUtensorMap tma_a, const __grid_constant__ CUtensorMap tma_b,
                                  Sm90GemmParams<ElementD> p) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, Stages = Cfg::Stages;
  extern __shared__ char smem_raw[];
  char* smem = reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(smem_raw) + 1023) & ~std::uintptr_t(1023));
  char* smem_a = smem;                                  // [Stages][BM rows][128 bytes]
  char* smem_b = smem + Stages * Cfg::kStageBytesA;     // [Stages][BN rows][128 bytes]
  auto* full = reinterpret_cast<std::uint64_t*>(smem_b + Stages * Cfg::kStageBytesB);
  auto* empty = full + Stages;

  int const warpgroup = int(threadIdx.x) / 128;
  TileCoord const tile = p.raster.tile(int(blockIdx.x));
  int const m0 = tile.m * BM, n0 = tile.n * BN;
  int const k_tiles = (p.k + BK - 1) / BK;

  if (threadIdx.x == 0) {
    arch::tma_prefetch_descriptor(&tma_a);
    arch::tma_prefetch_descriptor(&tma_b);
    for (int s = 0; s < Stages; ++s) {
      arch::mbarrier_init(&full[s], 1);   // the producer's arrive; the bytes come from TMA
      arch::mbarrier_init(&empty[s], 2);  // one arrive per consumer warpgroup
    }
    arch::mbarrier_init_fence();
  }
  __syncthreads();

  if (warpgroup == 0) {
    // Producer. NOTES: it needs few registers; giving them up lets the consumers hold their
    // 64xBN accumulators without spilling.
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    if (threadIdx.x == 0) {
      for (int kt = 0; kt < k_tiles; ++kt) {
        int s = kt % Stages;
        // A fresh barrier counts as having completed the phase before its first one, so the
        // first pass over the ring does not wait: the buffers start empty.
        arch::mbarrier_wait(&empty[s], ((kt / Stages) & 1) ^ 1);
        arch::mbarrier_arrive_expect_tx(&full[s], Cfg::kStageBytesA + Cfg::kStageBytesB);
        arch::tma_load_2d(smem_a + s * Cfg::kStageBytesA, &tma_a, &full[s], kt * BK, m0);
        arch::tma_load_2d(smem_b + s * Cfg::kStageBytesB, &tma_b, &full[s], kt * BK, n0);
      }
    }
  } else {
    // Consumers: warpgroup 1 computes rows [0,64) of the tile, warpgroup 2 rows [64,128).
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
    using Mma = arch::WgmmaBf16F32<BN>;
    float acc[Mma::kAccumulators];
#pragma unroll
    for (int i = 0; i < Mma::kAccumulators; ++i) acc[i] = 0.f;
    int const rows = (warpgroup - 1) * 64;
    for (int kt = 0; kt < k_tiles; ++kt) {
      int s = kt % Stages;
      arch::mbarrier_wait(&full[s], (kt / Stages) & 1);
      char const* a = smem_a + s * Cfg::kStageBytesA + rows * 128;
      char const* b = smem_b + s * Cfg::kStageBytesB;
      arch::wgmma_fence_registers(acc);
      arch::wgmma_fence();
#pragma unroll
      for (int k = 0; k < BK / 16; ++k) {
        Mma::mma(acc, arch::wgmma_desc_sw128(a + 32 * k), arch::wgmma_desc_sw128(b + 32 * k), (kt > 0 || k > 0) ? 1 : 0);
      }
      arch::wgmma_commit_group();
      arch::wgmma_wait_group<0>();
      arch::wgmma_fence_registers(acc);
      if (threadIdx.x % 128 == 0) arch::mbarrier_arrive(&empty[s]);
    }

    // Epilogue: straight from the accumulator registers (layout in wgmma_sm90.hpp).
    int const t = int(threadIdx.x) % 128, w = t / 32, l = t % 32;
    bool const read_c = p.beta != 0.f;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        int r = m0 + rows + 16 * w + l / 4 + 8 * (i / 2);
        int c = n0 + 8 * j + 2 * (l % 4) + (i % 2);
        if (r < p.m && c < p.n) {
          float v = p.alpha * acc[4 * j + i];
          if (read_c) v += p.beta * float(p.C[std::int64_t(r) * p.ldc + c]);
          p.D[std::int64_t(r) * p.ldd + c] = numeric_cast<ElementD>(v);
        }
      }
  }
#endif
}

}  // namespace tessel::gemm::kernel
