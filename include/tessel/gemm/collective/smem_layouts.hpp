#pragma once
// Shared-memory layouts of the operand tiles: swizzled so that the eight row addresses of every
// ldmatrix phase fall into eight different 16-byte bank slots (tests/host/smem_layout_test.cpp
// checks this for each layout below).
//
// A K-major tile (rows of BK contiguous elements) is tiled from an 8-row atom whose row is 64
// elements (128 bytes, Swizzle<3,3,3>) or 32 elements (64 bytes, Swizzle<2,3,3>); an MN-major tile
// from a 64-element-wide column atom with Swizzle<3,3,3>. The stage index is the last mode.

#include "tessel/layout.hpp"

namespace tessel::gemm::collective {

template <int BMN, int BK, bool KMajor>
TESSEL_HD constexpr auto smem_atom() {
  if constexpr (KMajor) {
    static_assert(BK % 32 == 0, "shared-memory tiles: a K-major tile needs BK to be a multiple of 32");
    if constexpr (BK % 64 == 0) return composition(Swizzle<3, 3, 3>{}, Layout<Shape<_8, _64>, Stride<_64, _1>>{});
    else return composition(Swizzle<2, 3, 3>{}, Layout<Shape<_8, _32>, Stride<_32, _1>>{});
  } else {
    static_assert(BMN % 64 == 0, "shared-memory tiles: an MN-major tile needs its M or N to be a multiple of 64");
    return composition(Swizzle<3, 3, 3>{}, Layout<Shape<_64, _8>, Stride<_1, _64>>{});
  }
}

/// (BMN, BK, Stages) for 16-bit elements.
template <int BMN, int BK, bool KMajor, int Stages>
TESSEL_HD constexpr auto smem_layout() {
  return tile_to_shape(smem_atom<BMN, BK, KMajor>(), Shape<Int<BMN>, Int<BK>, Int<Stages>>{});
}

}  // namespace tessel::gemm::collective
