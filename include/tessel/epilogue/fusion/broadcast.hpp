#pragma once
// Leaves: a vector broadcast along one dimension of the output (a bias).
//
//   RowBroadcast:    v(r, c, b) = ptr[b * batch_stride + c]   one value per column: length N,
//                                                              the same for every row
//   ColumnBroadcast: v(r, c, b) = ptr[b * batch_stride + r]   one value per row: length M
//
// batch_stride = 0 shares one vector among all batches. The bias of a linear layer
// y = x W^T + b, with tokens along M and features along N, is a RowBroadcast.
//
// Example: ptr = [10, 20, 30], batch_stride = 0, a 2 x 3 output:
//   RowBroadcast    -> [[10, 20, 30], [10, 20, 30]]
//   ColumnBroadcast -> [[10, 10, 10], [20, 20, 20]]   (reads only ptr[0], ptr[1]: length M = 2)

#include <cstdint>
#include <string>

#include "tessel/epilogue/fusion/detail.hpp"

namespace tessel::epilogue::fusion {

namespace detail {
// Both broadcasts in one: `kAlongRow` picks which coordinate indexes the vector.
template <class Element, bool kAlongRow>
struct VectorBroadcast {
  using ElementOutput = float;
  struct Arguments {
    Element const* ptr = nullptr;
    std::int64_t batch_stride = 0;
  };
  struct Params {
    Element const* ptr;
    std::int64_t batch_stride;
  };

  static Params to_params(Arguments const& a) { return {a.ptr, a.batch_stride}; }
  static StatusInfo can_implement(Arguments const& a, int m, int n, int l) {
    const char* what = kAlongRow ? "row broadcast vector" : "column broadcast vector";
    if (auto s = check_not_null(a.ptr, what, kAlongRow ? "pass a vector of N elements" : "pass a vector of M elements");
        !s.ok()) {
      return s;
    }
    return check_vector(what, a.batch_stride, kAlongRow ? n : m, kAlongRow ? "N" : "M", l, /*written=*/false);
  }
  static std::string name() { return (kAlongRow ? "rowbcast_" : "colbcast_") + element_tag<Element>(); }

  struct Callbacks {
    Element const* ptr;
    std::int64_t batch_stride;
    TESSEL_HD explicit Callbacks(Params const& p) : ptr(p.ptr), batch_stride(p.batch_stride) {}
    TESSEL_HD float visit(int row, int col, int batch, float) {
      return numeric_cast<float>(ptr[vector_offset(kAlongRow ? col : row, batch, batch_stride)]);
    }
    TESSEL_HD void finish() {}
  };
  static_assert(std::is_trivially_copyable_v<Params>);
};
}  // namespace detail

/// A vector along N, indexed by the column: the same value down each column.
template <class Element>
struct RowBroadcast : detail::VectorBroadcast<Element, true> {};

/// A vector along M, indexed by the row: the same value across each row.
template <class Element>
struct ColumnBroadcast : detail::VectorBroadcast<Element, false> {};

}  // namespace tessel::epilogue::fusion
