#pragma once
// The Hopper kernel's collective epilogue: each consumer warpgroup's share of a tile, from the
// wgmma accumulator registers through the fusion's callbacks to D.
//
//   TMA stores:  the warpgroup's 64-row slabs go through swizzled shared-memory buffers and TMA
//                stores (whole 128-byte lines; the store drains while the next tile's mainloop
//                runs). Used where the warpgroup's rows and the tile's columns lie inside D,
//                and for the edge tiles of 16-bit kernels whose fusion reads nothing past D
//                (TMA drops what lies past D's extents).
//   direct:      straight from the registers, element pairs where aligned, bounds checked:
//                the other edge tiles (C read, grouped kernels, FP8 and TF32), column-major D
//                (D^T's problem), and kernels built without TMA stores.
//
// Each consumer warpgroup owns one Sm90CollectiveEpilogue; its shared memory is the warpgroup's
// Cfg::kEpilogueBuffers buffers of 64 rows x 128 bytes (Cfg::kEpilogueBytes for both).

#include <cstdint>
#include <type_traits>

#include "tessel/arch/tma_sm90.hpp"
#include "tessel/arch/warpgroup_sm90.hpp"
#include "tessel/gemm/kernel/sm90_config.hpp"
#include "tessel/gemm/kernel/grouped.hpp"
#include "tessel/gemm/kernel/sm90_params.hpp"
#include "tessel/numeric.hpp"

namespace tessel::gemm::collective {

using kernel::Sm90GemmParams;
using kernel::Sw128;

template <class T>
struct alignas(2 * sizeof(T)) Pair {
  T x, y;
};

#if defined(__CUDACC__)
/// Two floats rounded to nearest even into one 32-bit pair of 16-bit values, `lo` in the low half:
/// one cvt instruction instead of one per value and a third to pack them.
template <class T>
__device__ __forceinline__ std::uint32_t round_pair(float lo, float hi) {
  static_assert(std::is_same_v<T, bfloat16_t> || std::is_same_v<T, half_t>, "round_pair: bf16 or f16");
  std::uint32_t r;
  if constexpr (std::is_same_v<T, bfloat16_t>) asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  else asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

/// Epilogue straight from the accumulator registers (layout in wgmma_sm90.hpp): registers 4c+2h
/// and 4c+2h+1 are two neighbouring columns of one row, stored as one pair where the pair is
/// inside the problem and aligned. row0 is the first tile row of the calling warpgroup; `batch`
/// is D's batch, `group` the fusion's (see Sm90CollectiveEpilogue::store).
template <class Cfg, class Fusion, class Acc>
__device__ __forceinline__ void store_tile_direct(Sm90GemmParams<Fusion> const& p, typename Fusion::Callbacks& epi, Acc& acc,
                                                  int row0, int n0, int batch, int group, int m_end) {
  using ElementD = typename Fusion::ElementOutput;
  int const t = int(threadIdx.x) % 128, w = t / 32, l = t % 32;
  ElementD* d_batch = p.D + batch * p.batch_stride_D;
  // Strides of D's rows and columns: (ldd, 1), or (1, ldd) where D is column-major.
  std::int64_t const row_stride = p.d_column_major ? 1 : p.ldd, col_stride = p.d_column_major ? p.ldd : 1;
#pragma unroll
  for (int i = 0; i < Cfg::kMmaM; ++i)
#pragma unroll
    for (int c8 = 0; c8 < Cfg::BN / 8; ++c8)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        int r = row0 + 64 * i + 16 * w + l / 4 + 8 * h;
        int c = n0 + 8 * c8 + 2 * (l % 4);
        if (r >= m_end || c >= p.n) continue;
        ElementD* dst = d_batch + std::int64_t(r) * row_stride + std::int64_t(c) * col_stride;
        ElementD v0 = epi.visit(r, c, group, acc[i][4 * c8 + 2 * h]);
        if (c + 1 < p.n) {
          ElementD v1 = epi.visit(r, c + 1, group, acc[i][4 * c8 + 2 * h + 1]);
          if (p.pairs_aligned) {
            *reinterpret_cast<Pair<ElementD>*>(dst) = {v0, v1};
          } else {
            dst[0] = v0;
            dst[col_stride] = v1;
          }
        } else {
          dst[0] = v0;
        }
      }
}

/// Epilogue through shared memory: the warpgroup's 64 x BN rows go out in subtiles of 64 rows x
/// 128 bytes (W = 128 / sizeof(D) columns), each written into one of two swizzled buffers and
/// sent by one TMA store; a buffer is refilled once the store issued from it two subtiles ago
/// has read it. TMA writes only what lies inside D's map (M x N): rows and columns past it are
/// visited and dropped, so edge tiles come here only where visiting them touches no memory
/// (Sm90CollectiveEpilogue::store); others go through store_tile_direct. m_end: the first row
/// past D, or past the tile's group.
/// NOTES: without per-element bounds checks (and their branches) the compiler issues a
/// subtile's global loads (bias, C) together instead of waiting out each one's latency in turn;
/// with two warps per scheduler in the cooperative epilogue that latency, more than the
/// instruction count, set the fused epilogue's cost. A second, checked copy of this loop for
/// edge tiles made ptxas spill the plain kernels, hence the direct path for the edge tiles whose
/// fusion reads memory past D.
/// NOTES: Sw128 = Swizzle<3,4,3> on byte offsets (16-byte chunk j of row r lands at chunk
/// j ^ (r % 8)) is the 128-byte pattern TMA reads with; it also spreads a warp's 8 rows over all
/// banks.
template <class Cfg, class Fusion, class Acc>
__device__ __forceinline__ void store_tile_tma(Sm90GemmParams<Fusion> const& p, typename Fusion::Callbacks& epi, Acc& acc,
                                               char* buffers, int& next_buffer, int row0, int n0, int batch, int group,
                                               int m_end, int wg, bool leader) {
  using ElementD = typename Fusion::ElementOutput;
  constexpr int W = 128 / int(sizeof(ElementD));
  static_assert(Cfg::BN % W == 0, "TMA-store epilogue: BN must be a multiple of a 128-byte row of D");
  // A fusion that ends in a plain rounding to a 16-bit type can hand over its values unrounded.
  constexpr bool kRoundPairs = (std::is_same_v<ElementD, bfloat16_t> || std::is_same_v<ElementD, half_t>) &&
                               requires(typename Fusion::Callbacks const& e) { e.visit_unrounded(0, 0, 0, 0.f); };
  int const t = int(threadIdx.x) % 128, w = t / 32, l = t % 32;
  auto sync = [wg] { arch::named_barrier_sync<128>(kernel::Sm90Barrier::kEpilogue + wg); };
#pragma unroll
  for (int i = 0; i < Cfg::kMmaM; ++i) {
    // An edge tile's second 64 rows may lie wholly past D (the caller sees that the first do not).
    if constexpr (Cfg::kMmaM > 1) {
      if (i > 0 && row0 + 64 * i >= m_end) break;
    }
#pragma unroll
    for (int sub = 0; sub < Cfg::BN / W; ++sub) {
      // An edge tile's subtiles past N hold nothing of D: TMA would drop them whole.
      if (sub > 0 && n0 + sub * W >= p.n) break;
      char* buf = buffers + next_buffer * 8192;
      // Two buffers: the store before last must have read its buffer; one: the last store.
      if constexpr (Cfg::kEpilogueBuffers == 2) {
        next_buffer ^= 1;
        if (leader) arch::tma_store_wait_read<1>();
      } else {
        if (leader) arch::tma_store_wait_read<0>();
      }
      sync();
      // Constant trip counts at every level: the accumulator indices must fold to constants,
      // or the accumulators move to local memory.
#pragma unroll
      for (int j = 0; j < W / 8; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          int const c8 = sub * (W / 8) + j;
          int rl = 16 * w + l / 4 + 8 * h;  // row within the 64
          int cl = 8 * j + 2 * (l % 4);     // column within the subtile
          int r = row0 + 64 * i + rl, c = n0 + 8 * c8 + 2 * (l % 4);
          char* dst = buf + Sw128::apply(rl * 128 + cl * int(sizeof(ElementD)));
          float const a0 = acc[i][4 * c8 + 2 * h], a1 = acc[i][4 * c8 + 2 * h + 1];
          if constexpr (kRoundPairs) {
            *reinterpret_cast<std::uint32_t*>(dst) =
                round_pair<ElementD>(epi.visit_unrounded(r, c, group, a0), epi.visit_unrounded(r, c + 1, group, a1));
          } else {
            *reinterpret_cast<Pair<ElementD>*>(dst) = {epi.visit(r, c, group, a0), epi.visit(r, c + 1, group, a1)};
          }
        }
      arch::fence_proxy_async_shared();  // the writes above, before the TMA store reads them
      sync();
      if (leader) {
        arch::tma_store_3d(&p.tma_d, buf, n0 + sub * W, row0 + 64 * i, batch);
        arch::tma_store_commit();
      }
    }
  }
}

/// Row-wise scaled kernels (Cfg::kRowwiseScales): each accumulator (r, c) of the warpgroup's rows
/// times scales.a at row r of A (batched like A: tile.l) and scales.b at row c of B (batched like
/// B: tile.group), in f32, before the fusion sees it: D = fusion(acc * sa[r] * sb[c]), torch's
/// row-wise FP8 recipe. Rows past the group (m_end) and columns past N read no scale (those
/// elements are never stored).
///
/// Sm90RowScales::load reads a tile's scales into registers and apply() multiplies them in; the
/// kernel loads them before the tile's mainloop and applies them after it. NOTES: each thread
/// reads 2 kMmaM scales of A and BN / 32 of B (lane l holds column n0 + 32 j + l, one coalesced
/// load a lane per 32 columns), and apply() shuffles each thread's column pairs from the lanes
/// that hold them. Loaded per pair after the mainloop (BN / 4 loads a thread, 64 at BN = 256),
/// the row-wise kernels ran at 0.86-0.88x torch._scaled_mm at 4096 tokens where the same kernels
/// with per-tensor scales ran at 1.00x (H100, 2026-12-05c run 2): the loads sat exposed after
/// each tile's last wgmma; coalesced and loaded ahead of the mainloop, 0.97 and 0.95x (run 4).
/// One pass over the registers ahead of the store loops keeps those loops as they are for every
/// other kernel.
template <class Cfg>
struct Sm90RowScales {
  static_assert(Cfg::BN % 32 == 0, "Sm90RowScales: B's scales are loaded 32 columns at a time");
  float a[Cfg::kMmaM][2];  // the thread's rows: h = 0, 1 of each 64
  float b[Cfg::BN / 32];   // b[j] = scale_B(n0 + 32 j + lane)

  __device__ __forceinline__ void load(kernel::Sm90BlockScales const& scales, int row0, int n0, int n,
                                       kernel::GroupedTile const& tile) {
    int const t = int(threadIdx.x) % 128, w = t / 32, l = t % 32;
#pragma unroll
    for (int i = 0; i < Cfg::kMmaM; ++i)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        int const r = row0 + 64 * i + 16 * w + l / 4 + 8 * h;
        a[i][h] = r < tile.m_end ? __ldg(scales.a.at(r, 0, tile.l)) : 0.f;
      }
#pragma unroll
    for (int j = 0; j < Cfg::BN / 32; ++j) {
      int const c = n0 + 32 * j + l;
      b[j] = c < n ? __ldg(scales.b.at(c, 0, tile.group)) : 0.f;
    }
  }

  template <class Acc>
  __device__ __forceinline__ void apply(Acc& acc) const {
    int const l = int(threadIdx.x) % 32;
#pragma unroll
    for (int c8 = 0; c8 < Cfg::BN / 8; ++c8) {
      int const lane = 8 * (c8 % 4) + 2 * (l % 4);  // holds column n0 + 8 c8 + 2 (l % 4), the thread's pair's first
      float const sb0 = __shfl_sync(0xffffffffu, b[c8 / 4], lane);
      float const sb1 = __shfl_sync(0xffffffffu, b[c8 / 4], lane + 1);
#pragma unroll
      for (int i = 0; i < Cfg::kMmaM; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          acc[i][4 * c8 + 2 * h] *= a[i][h] * sb0;
          acc[i][4 * c8 + 2 * h + 1] *= a[i][h] * sb1;
        }
    }
  }
};
/// Kernels without row-wise scales: nothing to load or apply.
struct Sm90NoRowScales {
  template <class Acc>
  __device__ __forceinline__ void apply(Acc&) const {}
};
#endif

#if defined(__CUDACC__)
/// One consumer warpgroup's epilogue over all of its tiles.
template <class Cfg, class Fusion>
class Sm90CollectiveEpilogue {
 public:
  /// @param smem_d  the epilogue's shared memory (both warpgroups' buffers)
  /// @param wg      the consumer warpgroup, 0 or 1
  __device__ __forceinline__ Sm90CollectiveEpilogue(Sm90GemmParams<Fusion> const& p, char* smem_d, int wg, bool leader)
      : p_(p), epi_(p.epi), smem_d_(smem_d), wg_(wg), leader_(leader) {}

  /// Stores the warpgroup's rows of `tile` (first row row0 = tile.m0 + the warpgroup's offset,
  /// first column n0) from the accumulators. The fusion sees each element as (row, column,
  /// tile.group): its batch coordinate is B's, the group of a grouped kernel (so a vector with a
  /// batch stride holds one entry per group, a bias per expert), the batch of a batched one; D's
  /// batch is tile.l (contiguous groups share one D, whose rows the row coordinate counts).
  /// The row-wise scales of the warpgroup's rows of `tile` (first row row0, first column n0), read
  /// into registers: called before the tile's mainloop, so that the loads land while it runs.
  __device__ __forceinline__ auto load_row_scales(int row0, int n0, kernel::GroupedTile const& tile) const {
    if constexpr (Cfg::kRowwiseScales) {
      Sm90RowScales<Cfg> r;
      r.load(p_.scales, row0, n0, p_.n, tile);
      return r;
    } else {
      return Sm90NoRowScales{};
    }
  }

  template <class Acc, class RowScales>
  __device__ __forceinline__ void store(Acc& acc, int row0, int n0, kernel::GroupedTile const& tile, RowScales const& row_scales) {
    row_scales.apply(acc);
    bool via_tma = false;
    if constexpr (Cfg::kTmaStoreD) {
      bool const inside = row0 + 64 * Cfg::kMmaM <= tile.m_end && n0 + Cfg::BN <= p_.n;
      // Edge tiles: D's map is M x N, so TMA drops what lies past either edge. That serves a
      // fusion that touches no memory for those elements (kPointwise, C unread), in a kernel whose
      // tiles end at D's last row (a grouped tile ends at its group's, inside D), with 16-bit A
      // and B (kClipsEdges).
      // NOTES: from registers an edge tile took one store a column pair, with bounds checks, and a
      // one-wave launch waits for its edge tiles; a ping-pong tile alone on its SM stores with one
      // warpgroup of 128 threads (bench/NOTES.md, "Edge tiles through TMA").
      bool clipped = false;
      // (A cluster's padding tile may lie wholly past M or N: nothing to store there.)
      if constexpr (kClipsEdges) clipped = row0 < tile.m_end && n0 < p_.n && !epi_.reads_source();
      via_tma = p_.tma_store_d && (inside || clipped);
    }
    if (via_tma) {
      auto store = [&] {
        store_tile_tma<Cfg>(p_, epi_, acc, smem_d_ + wg_ * Cfg::kEpilogueBuffers * 8192, next_buffer_, row0, n0, tile.l, tile.group,
                            tile.m_end, wg_, leader_);
      };
      // NOTES: a fusion that can say whether it reads C (beta != 0) gets a copy of the store
      // loop in which it does not: the test there is known false, and the per-element C loads,
      // conversions and beta * C multiply-adds, which ptxas otherwise if-converts into
      // predicated loads plus unconditional math, drop out (a third of the plain epilogue).
      if constexpr (requires { epi_.reads_source(); }) {
        if (epi_.reads_source()) store();
        else store();
      } else {
        store();
      }
    } else {
      store_tile_direct<Cfg>(p_, epi_, acc, row0, n0, tile.l, tile.group, tile.m_end);
    }
  }

  /// After the last tile: the fusion's own finish, and D's last stores done reading the buffers
  /// before the CTA retires (its shared memory goes with it).
  /// NOTES: waiting for the reads only, not for the writes to complete: nothing in the kernel
  /// reads D back, and the grid's end publishes the writes. The full wait held each CTA's exit
  /// for a round trip to L2 (bench/NOTES.md, "Small GEMMs").
  __device__ __forceinline__ void finish() {
    epi_.finish();
    if constexpr (Cfg::kTmaStoreD) {
      if (leader_) arch::tma_store_wait_read<0>();
    }
  }

 private:
  // NOTES: 16-bit A and B only: the FP8 and TF32 kernels keep the register path for edge tiles
  // until their tests have run on the TMA one on a GPU (bench/NOTES.md, "Edge tiles through TMA").
  static constexpr bool kClipsEdges = !Cfg::kGrouped && sizeof(typename Cfg::ElementA) == 2 && requires { requires Fusion::kPointwise; };
  Sm90GemmParams<Fusion> const& p_;
  typename Fusion::Callbacks epi_;
  char* smem_d_;         // both warpgroups' buffers
  int next_buffer_ = 0;  // which of them the next subtile fills
  int wg_;
  bool leader_;
};
#endif

}  // namespace tessel::gemm::collective
