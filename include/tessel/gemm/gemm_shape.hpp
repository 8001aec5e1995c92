#pragma once
// Shapes and layout tags of the GEMM device API, named as in CUTLASS 2.x.

#include <cstdint>

#include "tessel/layout.hpp"

namespace tessel::gemm {

/// A compile-time M x N x K shape: threadblock, warp or instruction tile.
template <int M, int N, int K>
struct GemmShape {
  static constexpr int kM = M, kN = N, kK = K;
  using MNK = Shape<Int<M>, Int<N>, Int<K>>;
};

/// A run-time problem size.
struct GemmCoord {
  int m = 0, n = 0, k = 0;
};

/// Matrix layout tags: element (r, c) of a row-major matrix with leading dimension ld sits at
/// r * ld + c; of a column-major one at r + c * ld.
struct RowMajor {};
struct ColumnMajor {};

/// A pointer and a leading dimension, as CUTLASS's TensorRef.
template <class Element, class LayoutTag>
struct TensorRef {
  Element* data = nullptr;
  std::int64_t ld = 0;
};

struct OpClassTensorOp {};

}  // namespace tessel::gemm
