#pragma once
// TiledMma: one tensor-core instruction repeated over a warp tile, and warps over a CTA tile.
//
// The CTA tile (BM,BN,BK) is split into warp tiles (WarpM,WarpN,BK): warp w owns the warp tile at
// coordinate (w % WarpsM, w / WarpsM). The warp tile is the unit of work: each warp issues
// (WarpM/AtomM) * (WarpN/AtomN) * (BK/AtomK) instructions per K tile, whatever the CTA tile.
// Inside a warp tile, each thread's share of A, B and C comes from the instruction's thread-value
// layouts (mma_traits.hpp) by composition, never from index arithmetic:
//
//   C warp tile (WarpM,WarpN) --zipped_divide by atom--> ((AtomM,AtomN),(IM,IN))
//                             --compose mode 0 with CLayout--> ((T32,V),(IM,IN))
//                             --slice the lane--> (V,IM,IN)

#include <cstdint>

#include "tessel/atom/mma_traits.hpp"

namespace tessel::atom {

template <class Op, class WarpTileMNK, class WarpsMN>
struct TiledMma {
  using Traits = MmaTraits<Op>;
  using ElementA = typename Traits::ElementA;
  using ElementB = typename Traits::ElementB;
  using ElementC = typename Traits::ElementC;
  static constexpr int kAtomM = tuple_element_t<0, typename Traits::Shape_MNK>::value;
  static constexpr int kAtomN = tuple_element_t<1, typename Traits::Shape_MNK>::value;
  static constexpr int kAtomK = tuple_element_t<2, typename Traits::Shape_MNK>::value;
  static constexpr int kWarpM = tuple_element_t<0, WarpTileMNK>::value;
  static constexpr int kWarpN = tuple_element_t<1, WarpTileMNK>::value;
  static constexpr int kWarpK = tuple_element_t<2, WarpTileMNK>::value;
  static constexpr int kWarpsM = tuple_element_t<0, WarpsMN>::value;
  static constexpr int kWarpsN = tuple_element_t<1, WarpsMN>::value;
  static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
  static constexpr int kIterM = kWarpM / kAtomM, kIterN = kWarpN / kAtomN, kIterK = kWarpK / kAtomK;

  static_assert(kWarpM % kAtomM == 0, "TiledMma: the warp tile's M must be a multiple of the instruction's M");
  static_assert(kWarpN % kAtomN == 0, "TiledMma: the warp tile's N must be a multiple of the instruction's N");
  static_assert(kWarpK % kAtomK == 0, "TiledMma: the warp tile's K must be a multiple of the instruction's K");

  using WarpTileA = Shape<Int<kWarpM>, Int<kWarpK>>;
  using WarpTileB = Shape<Int<kWarpN>, Int<kWarpK>>;
  using WarpTileC = Shape<Int<kWarpM>, Int<kWarpN>>;

  TESSEL_HD static constexpr int warp_m(int thread) { return (thread / 32) % kWarpsM; }
  TESSEL_HD static constexpr int warp_n(int thread) { return (thread / 32) / kWarpsM; }

  // (T32,V) x (I0,I1) of one warp tile, sliced at the lane: (V,I0,I1).
  template <class T, class AtomTile, class TV>
  TESSEL_HD static constexpr auto thread_slice(T const& warp_tile, AtomTile const& atom, TV const& tv, int lane) {
    auto tiled = zipped_divide(warp_tile, atom);                                      // ((A0,A1),(I0,I1))
    auto tv_tiled = make_tensor(tiled.data(), composition(tiled.layout(), make_tuple(tv, Underscore{})));  // ((T,V),(I0,I1))
    return tv_tiled(make_coord(make_coord(lane, Underscore{}), make_coord(Underscore{}, Underscore{})));   // (V,I0,I1)
  }

  /// This thread's part of a CTA tile of C (BM,BN): (V,IM,IN).
  template <class T>
  TESSEL_HD static constexpr auto partition_C(T const& cta_tile, int thread) {
    auto warp_tile = local_tile(cta_tile, WarpTileC{}, make_coord(warp_m(thread), warp_n(thread)));  // (WarpM,WarpN)
    return thread_slice(warp_tile, Shape<Int<kAtomM>, Int<kAtomN>>{}, typename Traits::CLayout{}, thread % 32);
  }
  /// This thread's part of a CTA tile of A (BM,BK): (V,IM,IK).
  template <class T>
  TESSEL_HD static constexpr auto partition_A(T const& cta_tile, int thread) {
    auto warp_tile = local_tile(cta_tile, WarpTileA{}, make_coord(warp_m(thread), 0));  // (WarpM,BK)
    return thread_slice(warp_tile, Shape<Int<kAtomM>, Int<kAtomK>>{}, typename Traits::ALayout{}, thread % 32);
  }
  /// This thread's part of a CTA tile of B (BN,BK): (V,IN,IK).
  template <class T>
  TESSEL_HD static constexpr auto partition_B(T const& cta_tile, int thread) {
    auto warp_tile = local_tile(cta_tile, WarpTileB{}, make_coord(warp_n(thread), 0));  // (WarpN,BK)
    return thread_slice(warp_tile, Shape<Int<kAtomN>, Int<kAtomK>>{}, typename Traits::BLayout{}, thread % 32);
  }

  // Register fragments: values of one instruction first, so each instruction's operands are
  // contiguous registers. A and B fragments hold one k-block of 16 (what one ldmatrix.x4 row of
  // blocks delivers), so a mainloop can load block kb+1 while the tensor cores work on block kb.
  static constexpr int kIterKBlock = 16 / kAtomK;
  static constexpr int kValuesA = decltype(size(typename Traits::ALayout{}.shape()))::value / 32;
  static constexpr int kValuesB = decltype(size(typename Traits::BLayout{}.shape()))::value / 32;
  static constexpr int kValuesC = decltype(size(typename Traits::CLayout{}.shape()))::value / 32;
  using FragmentA = decltype(make_tensor<ElementA>(make_layout(Shape<Int<kValuesA>, Int<kIterM>, Int<kIterKBlock>>{})));  // (V,IM,IKb)
  using FragmentB = decltype(make_tensor<ElementB>(make_layout(Shape<Int<kValuesB>, Int<kIterN>, Int<kIterKBlock>>{})));  // (V,IN,IKb)
  using FragmentC = decltype(make_tensor<ElementC>(make_layout(Shape<Int<kValuesC>, Int<kIterM>, Int<kIterN>>{})));       // (V,IM,IN)

  /// acc(V,IM,IN) += A(V,IM,IK) * B(V,IN,IK) over the K extent of the fragments.
  template <class FA, class FB, class FC>
  __device__ static void gemm(FC& acc, FA const& a, FB const& b) {
    constexpr int kK = decltype(size<2>(a.layout()))::value;
#pragma unroll
    for (int k = 0; k < kK; ++k)
#pragma unroll
      for (int m = 0; m < kIterM; ++m)
#pragma unroll
        for (int n0 = 0; n0 < kIterN; ++n0) {
          int n = (m % 2) ? kIterN - 1 - n0 : n0;  // serpentine: reuse the B registers just used
          auto const* ra = reinterpret_cast<std::uint32_t const*>(&a(0, m, k));
          auto const* rb = reinterpret_cast<std::uint32_t const*>(&b(0, n, k));
          float* rc = &acc(0, m, n);
          Op::fma(*reinterpret_cast<float(*)[4]>(rc), *reinterpret_cast<std::uint32_t const(*)[Op::kARegisters]>(ra),
                  *reinterpret_cast<std::uint32_t const(*)[Op::kBRegisters]>(rb), *reinterpret_cast<float const(*)[4]>(rc));
        }
  }
};

}  // namespace tessel::atom
