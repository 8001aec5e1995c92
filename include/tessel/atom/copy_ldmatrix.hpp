#pragma once
// Shared memory -> registers for the mma operands, through ldmatrix.x4.
//
// One ldmatrix.x4 reads four 8x8 matrices of 16-bit elements: a 16x16 block of the operand tile
// in (MN,K) coordinates. Lane l supplies the address of one 16-byte row of matrix l / 8, and the
// register j it receives holds two consecutive values of its mma fragment. Which matrices go
// where is fixed by the fragment order:
//   A:   (m0,k0) (m8,k0) (m0,k8) (m8,k8)   -- values a0..a7 of m16n8k16, or two k8 instructions
//   B16: (n0,k0) (n0,k8) (n8,k0) (n8,k8)   -- b0..b3 of two n-adjacent m16n8k16 instructions
//   B8:  (n0,k0) (n8,k0) (n0,k8) (n8,k8)   -- one value pair of four m16n8k8 instructions
// The lane -> row-address map is a layout on the 16x16 block (index mn + 16*k): lanes 0-7 walk
// the 8 rows of the first matrix, lanes 8-15 and 16-23 step to the second and third. A K-major
// tile stores rows along MN (a row is 8 contiguous k), so the walk is along MN (stride 1); an
// MN-major tile stores rows along K (stride 16) and uses ldmatrix.trans.

#include <cstdint>

#include "tessel/arch/ldmatrix_sm75.hpp"
#include "tessel/atom/tiled_mma.hpp"

namespace tessel::atom {

enum class Operand { A, B };

template <class TiledMmaT, Operand Which, bool KMajor>
struct LdmatrixCopy {
  static constexpr bool kIsA = Which == Operand::A;
  static constexpr int kAtomK = TiledMmaT::kAtomK;
  // The second matrix steps along K only for B of a k16 instruction (b2,b3 follow b0,b1).
  static constexpr bool kSecondStepsK = !kIsA && kAtomK == 16;
  static constexpr int kStride2 = kSecondStepsK ? 128 : 8;
  static constexpr int kStride3 = kSecondStepsK ? 8 : 128;
  using SrcLayout = Layout<Shape<_8, _2, _2>, Stride<Int<KMajor ? 1 : 16>, Int<kStride2>, Int<kStride3>>>;
  using Block = Shape<_16, _16>;

  static constexpr int kWarpMN = kIsA ? TiledMmaT::kWarpM : TiledMmaT::kWarpN;
  static constexpr int kWarpK = TiledMmaT::kWarpK;
  static_assert(kWarpMN % 16 == 0 && kWarpK % 16 == 0,
                "ldmatrix.x4 reads 16x16 blocks: the warp tile's M, N and K must be multiples of 16");

  /// This thread's row addresses in a CTA tile of the operand (BMN,BK): (IB_mn, IB_k) blocks.
  template <class T>
  TESSEL_HD static constexpr auto partition_S(T const& cta_tile, int thread) {
    int w = kIsA ? TiledMmaT::warp_m(thread) : TiledMmaT::warp_n(thread);
    auto warp_tile = local_tile(cta_tile, Shape<Int<kWarpMN>, Int<kWarpK>>{}, make_coord(w, 0));  // (WarpMN,BK)
    auto blocks = zipped_divide(warp_tile, Block{});                                               // ((16,16),(IBmn,IBk))
    auto rows = make_tensor(blocks.data(), composition(blocks.layout(), make_tuple(SrcLayout{}, Underscore{})));
    return rows(make_coord(thread % 32, make_coord(Underscore{}, Underscore{})));                  // (IBmn,IBk)
  }

  /// The fragment values one ldmatrix.x4 fills, block by block: ((8 values),(1,IBmn,1)).
  template <class Frag>
  TESSEL_HD static constexpr auto fragment_blocks(Frag& frag) {
    constexpr int V = decltype(size<0>(frag.layout()))::value;
    using BlockShape = Shape<Int<V>, Int<kIsA ? 1 : (16 / TiledMmaT::kAtomN)>, Int<16 / kAtomK>>;
    return zipped_divide(frag, BlockShape{});
  }

#if defined(__CUDACC__)
  /// Load k-block kb (16 elements of K) of the warp tile into a one-k-block fragment.
  template <class Src, class Frag>
  __device__ static void copy(Src const& src, int kb, Frag& frag) {
    auto blocks = fragment_blocks(frag);
    constexpr int kBlocksMN = kWarpMN / 16;
#pragma unroll
    for (int b = 0; b < kBlocksMN; ++b) {
      std::uint32_t r[4];
      arch::ldmatrix<4, !KMajor>(r, &src(b, kb));
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        auto* dst = &blocks(make_coord(2 * j, make_coord(0, b, 0)));
        *reinterpret_cast<std::uint32_t*>(dst) = r[j];
      }
    }
  }
#endif
};

}  // namespace tessel::atom
