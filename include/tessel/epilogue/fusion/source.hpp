#pragma once
// Leaf: the source matrix C, scaled by beta.
//
//   src(r, c, b) = beta * C[b * batch_stride_C + r * ldc + c]   when beta != 0
//                = 0                                             when beta == 0 (C is not read)
//
// C is row-major M x N per batch; batch_stride_C = 0 shares one C among all batches. beta is a
// value or a pointer read once where the Callbacks are constructed, like Scalar. beta lives in
// this leaf, not in a Multiply above it, so that the leaf can skip the load: with beta == 0 C is
// never dereferenced and may be null, as BLAS promises (and a NaN in C does not leak into D).
//
// Example: beta = 0.5, C = [[1, 2], [3, 4]] (ldc = 2): src(1, 0, 0) = 0.5 * 3 = 1.5.

#include <cstdint>
#include <string>

#include "tessel/epilogue/fusion/detail.hpp"

namespace tessel::epilogue::fusion {

template <class ElementC>
struct SourceC {
  using ElementOutput = float;
  struct Arguments {
    float beta = 0.f;
    float const* ptr_beta = nullptr;  // overrides beta when set
    ElementC const* ptr_C = nullptr;
    std::int64_t ldc = 0;
    std::int64_t batch_stride_C = 0;
  };
  struct Params {
    float beta;
    float const* ptr_beta;
    ElementC const* ptr_C;
    std::int64_t ldc;
    std::int64_t batch_stride_C;
  };

  static Params to_params(Arguments const& a) { return {a.beta, a.ptr_beta, a.ptr_C, a.ldc, a.batch_stride_C}; }

  static StatusInfo can_implement(Arguments const& a, int m, int n, int l) {
    // A beta on the device may be nonzero, so C must then be there.
    if (a.ptr_beta == nullptr && a.beta == 0.f) return {};
    if (auto s = detail::check_not_null(a.ptr_C, "source C",
                                        a.ptr_beta != nullptr
                                            ? "beta is read from device memory, so C may be read; pass C"
                                            : "beta is " + detail::format_float(a.beta) + ", so C is read; pass C, or set beta to 0");
        !s.ok()) {
      return s;
    }
    return detail::check_matrix("source C", a.ldc, a.batch_stride_C, m, n, l, /*written=*/false);
  }
  static std::string name() { return "beta_c_" + detail::element_tag<ElementC>(); }

  struct Callbacks {
    float beta;
    ElementC const* ptr;
    std::int64_t ld;
    std::int64_t batch_stride;

    TESSEL_HD explicit Callbacks(Params const& p)
        : beta(p.ptr_beta != nullptr ? *p.ptr_beta : p.beta), ptr(p.ptr_C), ld(p.ldc), batch_stride(p.batch_stride_C) {}
    TESSEL_HD bool reads_source() const { return beta != 0.f; }
    TESSEL_HD float visit(int row, int col, int batch, float) {
      if (beta == 0.f) return 0.f;
      return beta * numeric_cast<float>(ptr[detail::matrix_offset(row, col, batch, ld, batch_stride)]);
    }
    TESSEL_HD void finish() {}
  };
  static_assert(std::is_trivially_copyable_v<Params>);
};

}  // namespace tessel::epilogue::fusion
