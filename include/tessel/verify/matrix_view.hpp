#pragma once
// A strided view of a matrix for the verification helpers: element (r, c) lives at
// data[r * row_stride + c * col_stride]. Row-major and column-major are the two cases GEMM
// arguments come in; any other stride pair works too (a transposed view, a sub-matrix).
//
// Deliberately independent of tessel's layout algebra: the references that check kernels built
// on the algebra must not share code with it.

#include <cstdint>
#include <string_view>
#include <type_traits>

#include "tessel/config.hpp"

namespace tessel::verify {

enum class Order { kRowMajor, kColumnMajor };

constexpr std::string_view to_string(Order order) {
  return order == Order::kRowMajor ? "row-major" : "column-major";
}

template <class T>
struct MatrixView {
  T* data = nullptr;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t row_stride = 0;
  std::int64_t col_stride = 0;

  TESSEL_HD std::int64_t offset(std::int64_t r, std::int64_t c) const {
    return r * row_stride + c * col_stride;
  }
  TESSEL_HD T& operator()(std::int64_t r, std::int64_t c) const { return data[offset(r, c)]; }

  // A view of mutable elements is also a view of const ones.
  // A template so that MatrixView<const T> does not declare a conversion to itself.
  template <class U>
    requires(std::is_same_v<U, const T> && !std::is_const_v<T>)
  TESSEL_HD operator MatrixView<U>() const {  // NOLINT: implicit on purpose
    return {data, rows, cols, row_stride, col_stride};
  }
};

// `ld` is the leading dimension: the distance between consecutive rows (row-major) or columns
// (column-major).
template <class T>
TESSEL_HD MatrixView<T> make_view(T* data, std::int64_t rows, std::int64_t cols, Order order,
                                  std::int64_t ld) {
  if (order == Order::kRowMajor) return {data, rows, cols, ld, 1};
  return {data, rows, cols, 1, ld};
}

// The number of elements an allocation needs to back such a view.
constexpr std::int64_t required_elements(std::int64_t rows, std::int64_t cols, Order order,
                                         std::int64_t ld) {
  if (rows == 0 || cols == 0) return 0;
  return order == Order::kRowMajor ? (rows - 1) * ld + cols : (cols - 1) * ld + rows;
}

}  // namespace tessel::verify
