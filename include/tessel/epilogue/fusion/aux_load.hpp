#pragma once
// Leaf: an auxiliary tensor with the output's shape, read element by element.
//
//   aux(r, c, b) = ptr[b * batch_stride + r * ld + c]
//
// For a second operand that is not scaled like C: a residual to add, a mask to multiply, the
// saved pre-activation of a forward pass when computing a backward one.
//
// Example: ptr = [[1, 2, 3], [4, 5, 6]] with ld = 4 (one padding element per row):
//   aux(1, 2, 0) = ptr[1 * 4 + 2] = 6.

#include <cstdint>
#include <string>

#include "tessel/epilogue/fusion/detail.hpp"

namespace tessel::epilogue::fusion {

template <class Element>
struct AuxLoad {
  using ElementOutput = float;
  struct Arguments {
    Element const* ptr = nullptr;
    std::int64_t ld = 0;
    std::int64_t batch_stride = 0;
  };
  struct Params {
    Element const* ptr;
    std::int64_t ld;
    std::int64_t batch_stride;
  };

  static Params to_params(Arguments const& a) { return {a.ptr, a.ld, a.batch_stride}; }
  static StatusInfo can_implement(Arguments const& a, int m, int n, int l) {
    if (auto s = detail::check_not_null(a.ptr, "aux load", "pass an M x N tensor"); !s.ok()) return s;
    return detail::check_matrix("aux load", a.ld, a.batch_stride, m, n, l, /*written=*/false);
  }
  static std::string name() { return "aux_" + detail::element_tag<Element>(); }

  struct Callbacks {
    Element const* ptr;
    std::int64_t ld;
    std::int64_t batch_stride;
    TESSEL_HD explicit Callbacks(Params const& p) : ptr(p.ptr), ld(p.ld), batch_stride(p.batch_stride) {}
    TESSEL_HD float visit(int row, int col, int batch, float) {
      return numeric_cast<float>(ptr[detail::matrix_offset(row, col, batch, ld, batch_stride)]);
    }
    TESSEL_HD void finish() {}
  };
  static_assert(std::is_trivially_copyable_v<Params>);
};

}  // namespace tessel::epilogue::fusion
