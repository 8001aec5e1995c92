#pragma once
// Thread-value layouts of the warp-level tensor-core instructions.
//
// For each instruction, three layouts map (thread, value) to the element of the instruction's
// tile that this thread's value-th register element holds, as a column-major index:
//   A: (T32, V) -> m + M*k     B: (T32, V) -> n + N*k     C: (T32, V) -> m + M*n
// They restate the PTX ISA's fragment tables ("Matrix Fragments for mma.m16n8k8 / m16n8k16")
// in the algebra: with group = lane / 4 and tig = lane % 4, value 0 of A sits at row group and
// column 2*tig, so the thread mode is (4,8) with strides (2*M, 1) and so on.
// tests/host/mma_traits_test.cpp checks each layout against those formulas, element by element.

#include "tessel/arch/mma_sm75.hpp"
#include "tessel/arch/mma_sm80.hpp"
#include "tessel/layout.hpp"
#include "tessel/numeric.hpp"

namespace tessel::atom {

template <class Op> struct MmaTraits;

// mma.sync.m16n8k8.row.col.f32.f16.f16.f32 (sm_75)
template <>
struct MmaTraits<arch::Mma16x8x8F32F16F16F32> {
  using Op = arch::Mma16x8x8F32F16F16F32;
  using ElementA = half_t;
  using ElementB = half_t;
  using ElementC = float;
  using Shape_MNK = Shape<_16, _8, _8>;
  using ALayout = Layout<Shape<Shape<_4, _8>, Shape<_2, _2>>, Stride<Stride<_32, _1>, Stride<_16, _8>>>;
  using BLayout = Layout<Shape<Shape<_4, _8>, _2>, Stride<Stride<_16, _1>, _8>>;
  using CLayout = Layout<Shape<Shape<_4, _8>, Shape<_2, _2>>, Stride<Stride<_32, _1>, Stride<_16, _8>>>;
};

namespace detail {
struct Sm80_16x8x16_Layouts {
  using Shape_MNK = Shape<_16, _8, _16>;
  using ALayout = Layout<Shape<Shape<_4, _8>, Shape<_2, _2, _2>>, Stride<Stride<_32, _1>, Stride<_16, _8, _128>>>;
  using BLayout = Layout<Shape<Shape<_4, _8>, Shape<_2, _2>>, Stride<Stride<_16, _1>, Stride<_8, _64>>>;
  using CLayout = Layout<Shape<Shape<_4, _8>, Shape<_2, _2>>, Stride<Stride<_32, _1>, Stride<_16, _8>>>;
};
}  // namespace detail

// mma.sync.m16n8k16.row.col.f32.f16.f16.f32 (sm_80)
template <>
struct MmaTraits<arch::Mma16x8x16F32F16F16F32> : detail::Sm80_16x8x16_Layouts {
  using Op = arch::Mma16x8x16F32F16F16F32;
  using ElementA = half_t;
  using ElementB = half_t;
  using ElementC = float;
};

// mma.sync.m16n8k16.row.col.f32.bf16.bf16.f32 (sm_80)
template <>
struct MmaTraits<arch::Mma16x8x16F32BF16BF16F32> : detail::Sm80_16x8x16_Layouts {
  using Op = arch::Mma16x8x16F32BF16BF16F32;
  using ElementA = bfloat16_t;
  using ElementB = bfloat16_t;
  using ElementC = float;
};

}  // namespace tessel::atom
