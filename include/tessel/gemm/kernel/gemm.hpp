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
#include "tessel/gemm/kernel/gemm_params.hpp"
#include "tessel/gemm/kernel/tile_scheduler.hpp"

namespace tessel::gemm {

/// Which Sm80 mainloop a device::Gemm uses (its last template parameter, KernelPolicySm80):
/// kFast, the default, is MainloopSm80CpAsyncFast (v4 in bench/NOTES.md: XOR-split shared
/// addresses, 32-bit shared pointers, unpredicated copies for interior tiles; ~20% faster on the
/// H200 and free of spills where v3 spills); kClassic is MainloopSm80CpAsync (v3: one predicated
/// K loop, the form the Sm75/Sm80 seed example keeps).
enum class Sm80Mainloop { kClassic, kFast };

/// Kernel policy for the Sm75/Sm80 handle: the mainloop, the minimum number of CTAs per SM the
/// compiler must fit in the register file (__launch_bounds__'s second argument: 2 with 256
/// threads caps a thread at 128 registers), and whether the epilogue stages D through shared
/// memory for 16-byte stores (when beta is 0; with beta != 0 it reads C element by element as before).
template <Sm80Mainloop Mainloop_ = Sm80Mainloop::kFast, int MinBlocksPerSm_ = 1, bool SmemEpilogue_ = false>
struct KernelPolicySm80 {
  static constexpr Sm80Mainloop kMainloop = Mainloop_;
  static constexpr int kMinBlocksPerSm = MinBlocksPerSm_;
  static constexpr bool kSmemEpilogue = SmemEpilogue_;
  static_assert(MinBlocksPerSm_ >= 1, "KernelPolicySm80: at least one CTA per SM");
};
using KernelPolicySm80Default = KernelPolicySm80<>;

}  // namespace tessel::gemm

namespace tessel::gemm::kernel {

namespace detail {
// Configurations without these members (the JIT's) get the defaults.
template <class Config>
constexpr int min_blocks_per_sm() {
  if constexpr (requires { Config::kMinBlocksPerSm; }) return Config::kMinBlocksPerSm;
  else return 1;
}
template <class Config>
constexpr bool smem_epilogue() {
  if constexpr (requires { Config::kSmemEpilogue; }) return Config::kSmemEpilogue;
  else return false;
}
}  // namespace detail

/// Padded (BM,BN) tile of D in shared memory for the staged epilogue, contiguous along D's
/// contiguous mode; 16 bytes of padding per line keep vectors aligned and spread the
/// fragment writes over the banks.
template <class Config>
TESSEL_HD constexpr auto epilogue_smem_layout() {
  constexpr int kPad = 16 / int(sizeof(typename Config::ElementC));
  if constexpr (std::is_same_v<typename Config::LayoutC, RowMajor>)
    return Layout<Shape<Int<Config::BM>, Int<Config::BN>>, Stride<Int<Config::BN + kPad>, _1>>{};
  else
    return Layout<Shape<Int<Config::BM>, Int<Config::BN>>, Stride<_1, Int<Config::BM + kPad>>>{};
}
template <class Config>
constexpr int epilogue_smem_bytes() {
  if constexpr (detail::smem_epilogue<Config>())
    return int(sizeof(typename Config::ElementC)) * int(decltype(cosize(epilogue_smem_layout<Config>()))::value);
  else
    return 0;
}

/// (rows, cols) with leading dimension ld as a layout: row-major rows*ld + col, column-major row + col*ld.
template <class LayoutTag>
TESSEL_HD constexpr auto matrix_layout(int rows, int cols, std::int64_t ld) {
  if constexpr (std::is_same_v<LayoutTag, RowMajor>) return make_layout(make_shape(rows, cols), make_stride(ld, _1{}));
  else return make_layout(make_shape(rows, cols), make_stride(_1{}, ld));
}


/// D = epilogue(acc) through shared memory: every thread writes its converted fragment into a
/// padded (BM,BN) tile, then the CTA stores 16-byte vectors along D's contiguous mode (a warp
/// writes whole 128-byte lines instead of 2- or 4-byte scattered values). Vectors that cross the
/// edge of the problem, or a D whose base or leading dimension is not 16-byte aligned, are
/// stored element by element from the same tile. D is the (M,N) problem's, (m0,n0) the tile's origin.
template <class Config, class Acc>
__device__ void epilogue_through_smem(GemmParams<Config> const& p, typename Config::ElementC* D, int M, int N, Acc const& acc,
                                     char* smem, int thread, int m0, int n0) {
  using TiledMma = typename Config::TiledMma;
  using ElementC = typename Config::ElementC;
  constexpr int BM = Config::BM, BN = Config::BN;
  constexpr int kThreads = TiledMma::kThreads;
  constexpr bool kRowMajor = std::is_same_v<typename Config::LayoutC, RowMajor>;
  constexpr int kVec = 16 / int(sizeof(ElementC));
  constexpr int kContig = kRowMajor ? BN : BM, kOther = kRowMajor ? BM : BN;
  static_assert(kContig % kVec == 0, "staged epilogue: the contiguous extent of the CTA tile must hold whole 16-byte vectors");
  constexpr int kVecsPerLine = kContig / kVec;
  constexpr int kVectors = kVecsPerLine * kOther;

  auto sD = make_tensor(make_smem_ptr(reinterpret_cast<ElementC*>(smem)), epilogue_smem_layout<Config>());  // (BM,BN)
  __syncthreads();  // every warp is done with the mainloop's shared memory
  auto tS = TiledMma::partition_C(sD, thread);
#pragma unroll
  for (int i = 0; i < int(size(acc.layout())); ++i) tS[i] = p.epilogue(acc[i]);
  __syncthreads();

  int const rem_m = M - m0, rem_n = N - n0;
  int const rem_contig = kRowMajor ? rem_n : rem_m, rem_other = kRowMajor ? rem_m : rem_n;
  bool const aligned = (reinterpret_cast<std::uintptr_t>(D) % 16 == 0) && (p.ldd % kVec == 0);
  ElementC* const d0 = D + (kRowMajor ? std::int64_t(m0) * p.ldd + n0 : std::int64_t(n0) * p.ldd + m0);
  constexpr int kLineStride = int(decltype(stride<kRowMajor ? 0 : 1>(epilogue_smem_layout<Config>()))::value);
#pragma unroll 4
  for (int v = thread; v < kVectors; v += kThreads) {
    int const c = (v % kVecsPerLine) * kVec, o = v / kVecsPerLine;
    if (o >= rem_other) continue;
    ElementC const* src = reinterpret_cast<ElementC const*>(smem) + o * kLineStride + c;
    ElementC* dst = d0 + std::int64_t(o) * p.ldd + c;
    if (aligned && c + kVec <= rem_contig) {
      *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<uint4 const*>(src);
    } else {
#pragma unroll
      for (int j = 0; j < kVec; ++j)
        if (c + j < rem_contig) dst[j] = src[j];
    }
  }
}

/// One (BM,BN) tile of D = epilogue(A B, C): the mainloop over K and the epilogue, for the tile at
/// (tile_m, tile_n) of an (M,N,K) problem whose operands start at A, B, C and D (leading
/// dimensions, epilogue and problem-independent members from p). The grouped kernel calls it
/// with each group's operands, so a group is a problem of its own here.
template <class Config>
__device__ __forceinline__ void gemm_tile(GemmParams<Config> const& p, typename Config::ElementA const* A,
                                          typename Config::ElementB const* B, typename Config::ElementC const* C,
                                          typename Config::ElementC* D, int M, int N, int K, TileCoord tile, char* smem,
                                          int thread) {
  using Mainloop = typename Config::Mainloop;
  using TiledMma = typename Config::TiledMma;
  constexpr int BM = Config::BM, BN = Config::BN, BK = Config::BK;
  int const m0 = tile.m * BM, n0 = tile.n * BN;

  // B(K,N) in the layout of its tag, seen as (N,K): swap the tag's roles.
  using BTag = std::conditional_t<std::is_same_v<typename Config::LayoutB, RowMajor>, ColumnMajor, RowMajor>;
  auto mA = make_tensor(make_gmem_ptr(A), matrix_layout<typename Config::LayoutA>(M, K, p.lda));  // (M,K)
  auto mB = make_tensor(make_gmem_ptr(B), matrix_layout<BTag>(N, K, p.ldb));                      // (N,K)
  auto gA = local_tile(mA, make_shape(Int<BM>{}, Int<BK>{}), make_coord(tile.m, Underscore{}));  // (BM,BK,k)
  auto gB = local_tile(mB, make_shape(Int<BN>{}, Int<BK>{}), make_coord(tile.n, Underscore{}));  // (BN,BK,k)

  typename TiledMma::FragmentC acc;
#pragma unroll
  for (int i = 0; i < int(size(acc.layout())); ++i) acc[i] = 0.f;

  Mainloop::run(gA, gB, acc, M - m0, N - n0, K, smem, thread);

  // Epilogue: each accumulator value to its element of D, inside the problem only.
  auto mD = make_tensor(make_gmem_ptr(D), matrix_layout<typename Config::LayoutC>(M, N, p.ldd));  // (M,N)
  auto gD = local_tile(mD, make_shape(Int<BM>{}, Int<BN>{}), make_coord(tile.m, tile.n));  // (BM,BN)
  auto tCrd = TiledMma::partition_C(make_tensor(atom::CountingIterator{}, make_layout(Shape<Int<BM>, Int<BN>>{})), thread);
  bool const read_c = p.epilogue.reads_source();
  if constexpr (detail::smem_epilogue<Config>()) {
    if (!read_c) {
      epilogue_through_smem<Config>(p, D, M, N, acc, smem, thread, m0, n0);
      return;
    }
  }
  auto tD = TiledMma::partition_C(gD, thread);                                                                 // (V,IM,IN)
  auto mC = make_tensor(make_gmem_ptr(C), matrix_layout<typename Config::LayoutC>(M, N, p.ldc));  // (M,N)
  auto gC = local_tile(mC, make_shape(Int<BM>{}, Int<BN>{}), make_coord(tile.m, tile.n));  // (BM,BN)
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

template <class Config>
__global__ void __launch_bounds__(Config::TiledMma::kThreads, detail::min_blocks_per_sm<Config>()) gemm_kernel(GemmParams<Config> p) {
  if constexpr (arch::device_pass_supports<typename Config::ArchTag>()) {
    extern __shared__ __align__(128) char smem[];
    gemm_tile<Config>(p, p.A, p.B, p.C, p.D, p.problem.m, p.problem.n, p.problem.k, p.raster.tile(int(blockIdx.x)), smem,
                      int(threadIdx.x));
  }
}

}  // namespace tessel::gemm::kernel
