#pragma once
// Small-N ("decode") GEMM on mma.sync m16n8k16 bf16:
//
//   D(M,N) = alpha * A(M,K) B(N,K)^T + beta * D,   A: weights, row-major (K contiguous)
//                                                  B: activations, N x K (K contiguous), N <= 64
//
// With N this small, the FLOPs per weight byte are N (2N flops per 2-byte weight): 16 at N = 16
// against a machine balance of ~180 on an H200, so the time is reading A once, M*K*2 bytes at
// DRAM bandwidth. Everything here serves that: the weights go global -> registers -> tensor core
// with no shared-memory round trip and enough loads in flight per SM to cover DRAM latency.
//
// Fragment trick. The m16n8k16 A fragment gives lane (g, t) = (lane/4, lane%4) of a warp the
// elements (row g and g+8) x (k = 2t, 2t+1, 2t+8, 2t+9), and the B fragment the same four k of
// column g (atom/mma_traits.hpp). A dot product over k does not care in which order k is
// visited, so any permutation pi of k applied to A and B alike gives the same D. Choose pi so
// that lane t's four k of two consecutive mma are the 8 consecutive elements 8t..8t+7 of a
// 32-wide k block:
//   mma 0: logical k {2t, 2t+1 | 2t+8, 2t+9} <- physical {8t, 8t+1 | 8t+2, 8t+3}
//   mma 1: logical k {2t, 2t+1 | 2t+8, 2t+9} <- physical {8t+4, 8t+5 | 8t+6, 8t+7}
// so each lane reads its rows with one 16-byte load per 32 k (LDG.128, 4 lanes -> 64 contiguous
// bytes of a row), and the B fragments apply the same pi (they are stored that way in smem).
//
// Work split. A CTA of 8 warps owns 128 rows (one m16 block per warp) and a range of k-chunks
// (kChunk = 32 * kBlocks deep); per chunk each lane holds kBlocks x 2 x 16 bytes of A in flight
// (8 KB per warp at kBlocks = 8), all issued before the first mma. B's chunk (N x kChunk, a few
// KB, read by every CTA, L2-resident) is copied into shared memory in fragment order, one chunk
// ahead, double buffered, one barrier per chunk. When 128-row blocks are too few to fill the GPU (M = 4096 is
// 32 of them), K is split across CTAs (Decomposition, SplitK over chunks) and the slices meet in
// the wait-free deterministic fixup of stream_k_fixup.hpp: D has the same bits on every run.

#include <cstdint>
#include <type_traits>

#include "tessel/arch/cp_async_sm80.hpp"
#include "tessel/arch/ld_global_stream_sm80.hpp"
#include "tessel/arch/mma_sm80.hpp"
#include "tessel/arch/mma_sm89.hpp"
#include "tessel/arch/tags.hpp"
#include "tessel/atom/mma_traits.hpp"
#include "tessel/gemm/kernel/decomposition.hpp"
#include "tessel/gemm/kernel/small_n_rules.hpp"
#include "tessel/gemm/kernel/stream_k_fixup.hpp"
#include "tessel/numeric.hpp"

namespace tessel::gemm::kernel {

namespace detail {
using SmallNMma = arch::Mma16x8x16F32BF16BF16F32;
/// The instruction for A and B of type Element: m16n8k16 for bf16 or f16, m16n8k32 for FP8 (e4m3,
/// e5m2). Their fragments hold the same bytes (arch/mma_sm89.hpp), so the permutation below,
/// which places them by byte, holds for all four.
template <class Element>
using SmallNMmaFor = std::conditional_t<
    std::is_same_v<Element, half_t>, arch::Mma16x8x16F32F16F16F32,
    std::conditional_t<std::is_same_v<Element, float_e4m3_t>, arch::Mma16x8x32F32E4M3E4M3F32,
                       std::conditional_t<std::is_same_v<Element, float_e5m2_t>, arch::Mma16x8x32F32E5M2E5M2F32, SmallNMma>>>;
using SmallNTraits = atom::MmaTraits<SmallNMma>;
// The fragment positions the permutation above relies on, read from the traits (index m + 16k
// for A, n + 8k for B, m + 16n for C): lane (g, t) = thread coordinate (t, g).
static_assert(SmallNTraits::ALayout{}(make_coord(make_coord(1, 2), make_coord(0, 0, 0))) == 2 + 16 * 2,
              "A value 0 of lane (g, t) is (row g, k 2t)");
static_assert(SmallNTraits::ALayout{}(make_coord(make_coord(1, 2), make_coord(0, 1, 1))) == 2 + 8 + 16 * (2 + 8),
              "A value 6 of lane (g, t) is (row g+8, k 2t+8)");
static_assert(SmallNTraits::BLayout{}(make_coord(make_coord(1, 2), make_coord(1, 1))) == 2 + 8 * (2 + 8 + 1),
              "B value 3 of lane (g, t) is (k 2t+9, col g)");
static_assert(SmallNTraits::CLayout{}(make_coord(make_coord(1, 2), make_coord(1, 1))) == 2 + 8 + 16 * (2 + 1),
              "C value 3 of lane (g, t) is (row g+8, col 2t+1)");
}  // namespace detail

/// The CTA tile for N padded to 8 * N8 columns.
template <int N8>
struct SmallNTile {
  static_assert(N8 == 1 || N8 == 2 || N8 == 4 || N8 == 8, "SmallNTile: N8 is 1, 2, 4 or 8 (N up to 64)");
  static constexpr int kWarps = 8;
  static constexpr int kThreads = 32 * kWarps;
  static constexpr int kRows = 16 * kWarps;  // rows of A and D per CTA, one m16 block per warp
  static constexpr int kCols = 8 * N8;       // columns of D per CTA (N rounded up to 8)
  // NOTES: 32-deep k blocks per chunk = independent 16-byte loads per lane and row. 8 keeps
  // 8 KB per warp in flight (64 KB per CTA, 128 KB per SM at two CTAs) where ~32 KB per SM
  // covers DRAM latency at full bandwidth; from N8 = 4 on, the accumulators leave room for 4
  // (64 KB per SM) within the 128 registers two CTAs per SM allow.
  static constexpr int kBlocks = N8 <= 2 ? 8 : 4;
  static constexpr int kChunk = 32 * kBlocks;                // k per chunk
  static constexpr int kStageVectors = kBlocks * N8 * 32;    // 16-byte B fragments per chunk
  static constexpr int kSmemBytes = 2 * kStageVectors * 16;  // double-buffered B chunk
  static constexpr int kAccumulators = 4 * N8;               // f32 per thread: N8 C fragments
  static_assert(kStageVectors % kThreads == 0, "SmallNTile: the B chunk is a whole number of copies per thread");
};

namespace detail {

// B[n][k0 + kChunk) into `stage` in fragment order: vector v = (block j, n8 block q, lane l)
// holds B(8q + l/4, k0 + 32j + 8(l%4) .. +8), which is what lane l feeds both mma of block j
// (its 16 bytes per lane are read conflict-free, 32 lanes = 512 contiguous bytes).
template <int N8, class ElementD>
__device__ __forceinline__ void stage_b_chunk(uint4* stage, const SmallNParams<ElementD>& p, int k0) {
  using Tile = SmallNTile<N8>;
#pragma unroll
  for (int i = 0; i < Tile::kStageVectors / Tile::kThreads; ++i) {
    const int v = int(threadIdx.x) + i * Tile::kThreads;
    const int l = v % 32, q = (v / 32) % N8, j = v / (32 * N8);
    const int row = 8 * q + l / 4, k = k0 + 32 * j + 8 * (l % 4);
    const bool valid = row < p.n && k < p.k;  // K % 8 == 0: a vector is all in or all out
    arch::cp_async_cg_16_zfill(stage + v, valid ? p.B + row * p.ldb + k : p.B, valid);
  }
}

// blockIdx.x, read with an instruction the compiler cannot merge with an earlier read.
// NOTES: the kernel derives its unit and rows from it twice, before and after the mainloop, so
// that nothing but the k range stays live through the loop: at N8 = 8 on sm_90 a value kept
// live across it was spilled.
__device__ __forceinline__ int fresh_cta_index() {
  int v;
  asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(v));
  return v;
}

/// The two mma of one 32-wide k block in the permuted order above: the lane's 8 consecutive k of
/// rows g and g + 8 as the 16-byte vectors x and y, and of column 8q + g of B as b_of(q), added
/// into C fragment q of acc (values 4q .. 4q + 3) for every n8 block q.
template <int N8, class Mma = SmallNMma, class BOf>
__device__ __forceinline__ void mma_k32_block(float (&acc)[4 * N8], uint4 const& x, uint4 const& y, BOf&& b_of) {
  const std::uint32_t a_lo[4] = {x.x, y.x, x.y, y.y};  // the first 4 of the 8 k
  const std::uint32_t a_hi[4] = {x.z, y.z, x.w, y.w};  // the last 4
#pragma unroll
  for (int q = 0; q < N8; ++q) {
    const uint4 b = b_of(q);
    const std::uint32_t b_lo[2] = {b.x, b.y}, b_hi[2] = {b.z, b.w};
    float d[4] = {acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]};
    Mma::fma(d, a_lo, b_lo, d);
    Mma::fma(d, a_hi, b_hi, d);
#pragma unroll
    for (int e = 0; e < 4; ++e) acc[4 * q + e] = d[e];
  }
}

template <class ElementD>
__device__ __forceinline__ ElementD from_f32(float v) {
  if constexpr (std::is_same_v<ElementD, float>) return v;
  else if constexpr (std::is_same_v<ElementD, half_t>) return __float2half_rn(v);
  else return __float2bfloat16_rn(v);
}

template <class ElementD>
__device__ __forceinline__ float to_f32(ElementD v) {
  if constexpr (std::is_same_v<ElementD, float>) return v;
  else if constexpr (std::is_same_v<ElementD, half_t>) return __half2float(v);
  else return __bfloat162float(v);
}

/// The FP8 dequantization factors (p.scale_a, p.scale_b) of one lane's C fragment, 1 where p has
/// none or the element is past the edge. NOTES: loaded as a batch before the stores, and by the
/// TMA ring before its row block's reduction: read between the stores, each waited for the one
/// before it (a store through D may alias them), and cost the e4m3 ring about 4 us per call at
/// 14336 weight rows with row-wise scales (bench/NOTES.md).
template <int N8>
struct SmallNFragmentScales {
  float row[2];      // rows row0 and row0 + 8
  float col[N8][2];  // columns 8q + 2t + i
  template <class ElementD>
  __device__ __forceinline__ void load(const SmallNParams<ElementD>& p, int row0, int t) {
#pragma unroll
    for (int h = 0; h < 2; ++h) row[h] = p.scale_a && row0 + 8 * h < p.m ? p.scale_a[(row0 + 8 * h) * p.scale_a_stride] : 1.f;
#pragma unroll
    for (int q = 0; q < N8; ++q)
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const int c = 8 * q + 2 * t + i;
        col[q][i] = p.scale_b && c < p.n ? p.scale_b[c * p.scale_b_stride] : 1.f;
      }
  }
};

/// D = alpha * scales * acc + beta * D for one warp's 16 rows starting at row0: in the C fragment,
/// value (h, i) of n8 block q is D(row0 + 8h, 8q + 2t + i) (t = lane % 4). Edges are skipped.
template <int N8, class ElementD>
__device__ __forceinline__ void store_c_fragment(const SmallNParams<ElementD>& p, const float (&acc)[4 * N8], int row0, int t,
                                                 const SmallNFragmentScales<N8>& scales) {
#pragma unroll
  for (int q = 0; q < N8; ++q)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = row0 + 8 * h;
      if (row >= p.m) continue;
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        const int col = 8 * q + 2 * t + i;
        if (col >= p.n) continue;
        ElementD* out = p.D + row * p.ldd + col * p.d_col_stride;
        float v = p.alpha * acc[4 * q + 2 * h + i] * scales.row[h] * scales.col[q][i];
        if (p.beta != 0.f) v += p.beta * to_f32(*out);
        *out = from_f32<ElementD>(v);
      }
    }
}
/// The same, its scales loaded here.
template <int N8, class ElementD>
__device__ __forceinline__ void store_c_fragment(const SmallNParams<ElementD>& p, const float (&acc)[4 * N8], int row0, int t) {
  SmallNFragmentScales<N8> scales;
  scales.load(p, row0, t);
  store_c_fragment<N8>(p, acc, row0, t, scales);
}
}  // namespace detail

template <int N8, class ElementD>
__global__ void __launch_bounds__(SmallNTile<N8>::kThreads, 2) sm80_gemm_small_n(SmallNParams<ElementD> p) {
  using Tile = SmallNTile<N8>;
  if constexpr (arch::device_pass_supports<arch::Sm80>()) {
    extern __shared__ uint4 smem_b[];  // [2][kBlocks][N8][32 lanes] B fragments
    const int lane = int(threadIdx.x) % 32, warp = int(threadIdx.x) / 32;
    const int g = lane / 4, t = lane % 4;
    const WorkUnit u = p.split.split_k_unit(detail::fresh_cta_index(), 0);  // one unit per CTA

    // This lane's two rows of A (and D): row0 and row0 + 8 of the warp's m16 block.
    const int row0 = u.tile * Tile::kRows + warp * 16 + g;
    const bool in0 = row0 < p.m, in1 = row0 + 8 < p.m;
    // Its 8 k of each 32-wide block. Row 1 is 8 rows further (never read when out of range).
    // NOTES: one live 64-bit pointer, not two: at N8 = 8 the second one was spilled on sm_90.
    const bfloat16_t* a0 = p.A + (in0 ? row0 : 0) * p.lda + 8 * t;

    float acc[Tile::kAccumulators] = {};  // (N8, 4): C fragment of n8 block q at 4q
    detail::stage_b_chunk<N8>(smem_b, p, u.k_begin * Tile::kChunk);
    arch::cp_async_commit_group();
    for (int c = u.k_begin; c < u.k_end; ++c) {
      const int k0 = c * Tile::kChunk;
      // All of the chunk's A loads first: 2 x kBlocks x 16 bytes per lane in flight.
      uint4 x[Tile::kBlocks], y[Tile::kBlocks];  // (kBlocks): row0 / row1, k 8t..8t+7 of block j
#pragma unroll
      for (int j = 0; j < Tile::kBlocks; ++j) {
        const int k = k0 + 32 * j;
        const bool kin = k + 8 * t < p.k;
        x[j] = arch::ld_global_stream_128(a0 + k, in0 && kin);
        y[j] = arch::ld_global_stream_128(a0 + 8 * p.lda + k, in1 && kin);
      }
      // B chunk c was copied one chunk ago; after the barrier every thread is done with chunk
      // c - 1, so its buffer takes chunk c + 1 while chunk c is computed.
      // NOTES: one barrier per chunk suffices for two buffers, and it keeps the A loads above it
      // in flight together (the loads are ordered by the barrier, see ld_global_stream_sm80.hpp).
      arch::cp_async_wait_all();
      __syncthreads();
      const int buffer = (c - u.k_begin) & 1;
      if (c + 1 < u.k_end) {
        detail::stage_b_chunk<N8>(smem_b + (buffer ^ 1) * Tile::kStageVectors, p, k0 + Tile::kChunk);
        arch::cp_async_commit_group();
      }
      const uint4* stage = smem_b + buffer * Tile::kStageVectors;

#pragma unroll
      for (int j = 0; j < Tile::kBlocks; ++j) {
        // Physical k 8t..8t+7 of block j; B's column 8q+g at the same k, staged in fragment order.
        detail::mma_k32_block<N8>(acc, x[j], y[j], [&](int q) { return stage[(j * N8 + q) * 32 + lane]; });
      }
    }

    // K split across CTAs: all but the last-arriving slice leave their partial and stop.
    const WorkUnit done = p.split.split_k_unit(detail::fresh_cta_index(), 0);  // == u
    if (!done.whole_tile() && !fixup_partial_tile<Tile::kThreads>(p.fixup, p.split, done, acc)) return;
    detail::store_c_fragment<N8>(p, acc, done.tile * Tile::kRows + warp * 16 + g, t);
  }
}

}  // namespace tessel::gemm::kernel
