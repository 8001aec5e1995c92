#pragma once
// Hopper GEMM kernel: TMA loads, wgmma, warp specialization (cooperative schedule).
//
//   D(M,N) = alpha * A(M,K) * B(N,K)^T + beta * C(M,N)     A, B bf16 K-major; D, C row-major
//
// Persistent CTAs of three warpgroups, each walking BM x BN output tiles. Warpgroup 0 is the producer: one thread
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

/// Two neighbouring output elements in one store.
template <class ElementD>
__device__ __forceinline__ void store_pair(ElementD* dst, float v0, float v1) {
  if constexpr (std::is_same_v<ElementD, float>) {
    *reinterpret_cast<float2*>(dst) = make_float2(v0, v1);
  } else {
    *reinterpret_cast<__nv_bfloat162*>(dst) = __floats2bfloat162_rn(v0, v1);
  }
}

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
  int const k_tiles = (p.k + BK - 1) / BK;
  int const tile_count = p.raster.tile_count();

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

  // Persistent: each CTA walks the tiles blockIdx.x, blockIdx.x + gridDim.x, ... The ring of
  // stages runs on across tiles (`it` counts K tiles over all of this CTA's output tiles), so
  // the producer fetches the next tile's first stages while the consumers run the epilogue.
  if (warpgroup == 0) {
    // Producer. NOTES: it needs few registers; giving them up lets the consumers hold their
    // 64xBN accumulators without spilling.
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    if (threadIdx.x == 0) {
      int it = 0;
      for (int id = int(blockIdx.x); id < tile_count; id += int(gridDim.x)) {
        TileCoord const tile = p.raster.tile(id);
        for (int kt = 0; kt < k_tiles; ++kt, ++it) {
          int s = it % Stages;
          // A fresh barrier counts as having completed the phase before its first one, so the
          // first pass over the ring does not wait: the buffers start empty.
          arch::mbarrier_wait(&empty[s], ((it / Stages) & 1) ^ 1);
          arch::mbarrier_arrive_expect_tx(&full[s], Cfg::kStageBytesA + Cfg::kStageBytesB);
          arch::tma_load_2d(smem_a + s * Cfg::kStageBytesA, &tma_a, &full[s], kt * BK, tile.m * BM);
          arch::tma_load_2d(smem_b + s * Cfg::kStageBytesB, &tma_b, &full[s], kt * BK, tile.n * BN);
        }
      }
    }
  } else {
    // Consumers: warpgroup 1 computes rows [0,64) of the tile, warpgroup 2 rows [64,128).
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
    using Mma = arch::WgmmaBf16F32<BN>;
    int const rows = (warpgroup - 1) * 64;
    int it = 0;
    for (int id = int(blockIdx.x); id < tile_count; id += int(gridDim.x)) {
      TileCoord const tile = p.raster.tile(id);
      int const m0 = tile.m * BM, n0 = tile.n * BN;
      float acc[Mma::kAccumulators];
#pragma unroll
      for (int i = 0; i < Mma::kAccumulators; ++i) acc[i] = 0.f;
      arch::wgmma_fence_registers(acc);
      for (int kt = 0; kt < k_tiles; ++kt, ++it) {
        int s = it % Stages;
        arch::mbarrier_wait(&full[s], (it / Stages) & 1);
        char const* a = smem_a + s * Cfg::kStageBytesA + rows * 128;
        char const* b = smem_b + s * Cfg::kStageBytesB;
        arch::wgmma_fence();
#pragma unroll
        for (int k = 0; k < BK / 16; ++k) {
          Mma::mma(acc, arch::wgmma_desc_sw128(a + 32 * k), arch::wgmma_desc_sw128(b + 32 * k), (kt > 0 || k > 0) ? 1 : 0);
        }
        arch::wgmma_commit_group();
        // Keep this K tile's wgmma in flight; once the previous one has finished, its stage is
        // free for the producer.
        arch::wgmma_wait_group<1>();
        if (kt > 0 && threadIdx.x % 128 == 0) arch::mbarrier_arrive(&empty[(it - 1) % Stages]);
      }
      arch::wgmma_wait_group<0>();
      arch::wgmma_fence_registers(acc);
      if (threadIdx.x % 128 == 0) arch::mbarrier_arrive(&empty[(it - 1) % Stages]);

      // Epilogue: straight from the accumulator registers (layout in wgmma_sm90.hpp). Registers
      // 4j+2h and 4j+2h+1 hold two neighbouring columns of one row: stored as one pair when the
      // pair is inside the problem and aligned, element by element otherwise.
      int const t = int(threadIdx.x) % 128, w = t / 32, l = t % 32;
      bool const read_c = p.beta != 0.f;
      bool const pairs_aligned = (p.ldd % 2 == 0) && (reinterpret_cast<std::uintptr_t>(p.D) % (2 * sizeof(ElementD)) == 0);
#pragma unroll
      for (int j = 0; j < BN / 8; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          int r = m0 + rows + 16 * w + l / 4 + 8 * h;
          int c = n0 + 8 * j + 2 * (l % 4);
          if (r >= p.m) continue;
          float v0 = p.alpha * acc[4 * j + 2 * h], v1 = p.alpha * acc[4 * j + 2 * h + 1];
          ElementD const* src = p.C + std::int64_t(r) * p.ldc + c;
          ElementD* dst = p.D + std::int64_t(r) * p.ldd + c;
          if (c + 1 < p.n && pairs_aligned && !read_c) {
            store_pair(dst, v0, v1);
          } else {
            if (c < p.n) dst[0] = numeric_cast<ElementD>(read_c ? v0 + p.beta * float(src[0]) : v0);
            if (c + 1 < p.n) dst[1] = numeric_cast<ElementD>(read_c ? v1 + p.beta * float(src[1]) : v1);
          }
        }
    }
  }
#endif
}

}  // namespace tessel::gemm::kernel
