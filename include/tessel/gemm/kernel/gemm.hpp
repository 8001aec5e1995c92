#pragma once
// The GEMM kernel for the Sm75 and Sm80 paths: one CTA per (BM,BN) output tile, a mainloop
// (collective) over K, and an epilogue from the accumulator registers straight to D.
//
//   D(M,N) = epilogue(A(M,K) * B(K,N), C(M,N))
//
// A is viewed as (M,K), B as (N,K), C and D as (M,N), each with the strides its layout tag gives,
// so one kernel serves every combination of row- and column-major operands.

#include <cstdint>

#include "tessel/arch/tags.hpp"
#include "tessel/atom/copy_g2s.hpp"
#include "tessel/gemm/gemm_shape.hpp"
#include "tessel/gemm/kernel/tile_scheduler.hpp"

namespace tessel::gemm::kernel {

/// (rows, cols) with leading dimension ld as a layout: row-major rows*ld + col, column-major row + col*ld.
template <class LayoutTag>
TESSEL_HD constexpr auto matrix_layout(int rows, int cols, std::int64_t ld) {
  if constexpr (std::is_same_v<LayoutTag, RowMajor>) return make_layout(make_shape(rows, cols), make_stride(ld, _1{}));
  else return make_layout(make_shape(rows, cols), make_stride(_1{}, ld));
}

template <class Config>
struct GemmParams {
  using ElementA = typename Config::ElementA;
  using ElementB = typename Config::ElementB;
  using ElementC = typename Config::ElementC;
  GemmCoord problem;
  ElementA const* A;
  std::int64_t lda;
  ElementB const* B;
  std::int64_t ldb;
  ElementC const* C;
  std::int64_t ldc;
  ElementC* D;
  std::int64_t ldd;
  typename Config::Epilogue epilogue;
  GroupedRaster raster;
};

template <class Config>
__global__ void __launch_bounds__(Config::TiledMma::kThreads) gemm_kernel(GemmParams<Config> p) {
  using Mainloop = typename Config::Mainloop;
  using TiledMma = typename Config::TiledMma;
  constexpr int BM = Config::BM, BN = Config::BN, BK = Config::BK;
  if constexpr (arch::device_pass_supports<typename Config::ArchTag>()) {
    extern __shared__ __align__(128) char smem[];
    int const thread = int(threadIdx.x);
    TileCoord const tile = p.raster.tile(int(blockIdx.x));
    int const m0 = tile.m * BM, n0 = tile.n * BN;
    int const M = p.problem.m, N = p.problem.n, K = p.problem.k;

    // B(K,N) in the layout of its tag, seen as (N,K): swap the tag's roles.
    using BTag = std::conditional_t<std::is_same_v<typename Config::LayoutB, RowMajor>, ColumnMajor, RowMajor>;
    auto mA = make_tensor(make_gmem_ptr(p.A), matrix_layout<typename Config::LayoutA>(M, K, p.lda));  // (M,K)
    auto mB = make_tensor(make_gmem_ptr(p.B), matrix_layout<BTag>(N, K, p.ldb));                      // (N,K)
    auto gA = local_tile(mA, make_shape(Int<BM>{}, Int<BK>{}), make_coord(tile.m, Underscore{}));  // (BM,BK,k)
    auto gB = local_tile(mB, make_shape(Int<BN>{}, Int<BK>{}), make_coord(tile.n, Underscore{}));  // (BN,BK,k)

    typename TiledMma::FragmentC acc;
#pragma unroll
    for (int i = 0; i < int(size(acc.layout())); ++i) acc[i] = 0.f;

    Mainloop::run(gA, gB, acc, M - m0, N - n0, K, smem, thread);

    // Epilogue: each accumulator value to its element of D, inside the problem only.
    auto mD = make_tensor(make_gmem_ptr(p.D), matrix_layout<typename Config::LayoutC>(M, N, p.ldd));  // (M,N)
    auto gD = local_tile(mD, make_shape(Int<BM>{}, Int<BN>{}), make_coord(tile.m, tile.n));  // (BM,BN)
    auto tD = TiledMma::partition_C(gD, thread);                                                                 // (V,IM,IN)
    auto tCrd = TiledMma::partition_C(make_tensor(atom::CountingIterator{}, make_layout(Shape<Int<BM>, Int<BN>>{})), thread);
    bool const read_c = p.epilogue.reads_source();
    auto mC = make_tensor(make_gmem_ptr(p.C), matrix_layout<typename Config::LayoutC>(M, N, p.ldc));
    auto gC = local_tile(mC, make_shape(Int<BM>{}, Int<BN>{}), make_coord(tile.m, tile.n));
    auto tC = TiledMma::partition_C(gC, thread);
#pragma unroll
    for (int i = 0; i < int(size(acc.layout())); ++i) {
      int lin = tCrd[i];
      int m = lin % BM, n = lin / BM;
      if (m < M - m0 && n < N - n0) {
        tD[i] = read_c ? p.epilogue(acc[i], tC[i]) : p.epilogue(acc[i]);
      }
    }
  }
}

}  // namespace tessel::gemm::kernel
