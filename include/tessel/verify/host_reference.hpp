#pragma once
// Host reference GEMM in double: D = alpha * A B + beta * C over strided views, so that every
// combination of row- and column-major operands goes through the same code.
//
// Next to each result it keeps what the error budget (tolerance.hpp) is made of: the magnitude
// |alpha| sum_k |A(i,k)||B(k,j)| and |beta C(i,j)|. Products are summed in ascending k.
// As in the kernels, C is not read when beta is zero (it may then be null or hold NaN).

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tessel/numeric.hpp"
#include "tessel/verify/matrix_view.hpp"

namespace tessel::verify {

// An M x N reference, stored row-major.
struct GemmReference {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::vector<double> value;         // alpha * sum_k a*b + beta * c
  std::vector<double> ab_magnitude;  // |alpha| * sum_k |a|*|b|
  std::vector<double> c_magnitude;   // |beta * c|

  std::int64_t index(std::int64_t i, std::int64_t j) const { return i * n + j; }
};

namespace detail {
inline std::string dims(std::int64_t r, std::int64_t c) {
  return std::to_string(r) + "x" + std::to_string(c);
}
}  // namespace detail

// Throws std::invalid_argument when the shapes do not fit together.
template <class TA, class TB, class TC>
GemmReference host_reference_gemm(double alpha, MatrixView<const TA> a, MatrixView<const TB> b,
                                  double beta, MatrixView<const TC> c) {
  if (a.rows < 0 || a.cols < 0 || b.cols < 0) {
    throw std::invalid_argument("reference GEMM: negative extent");
  }
  if (b.rows != a.cols) {
    throw std::invalid_argument("reference GEMM: A is " + detail::dims(a.rows, a.cols) +
                                " but B is " + detail::dims(b.rows, b.cols) +
                                "; B needs as many rows as A has columns");
  }
  const bool read_c = beta != 0.0;
  if (read_c && (c.rows != a.rows || c.cols != b.cols)) {
    throw std::invalid_argument("reference GEMM: C is " + detail::dims(c.rows, c.cols) +
                                " but A B is " + detail::dims(a.rows, b.cols));
  }
  GemmReference ref;
  ref.m = a.rows;
  ref.n = b.cols;
  ref.k = a.cols;
  const auto mn = static_cast<std::size_t>(ref.m * ref.n);
  ref.value.assign(mn, 0.0);
  ref.ab_magnitude.assign(mn, 0.0);
  ref.c_magnitude.assign(mn, 0.0);

  std::vector<double> sum(static_cast<std::size_t>(ref.n));
  std::vector<double> mag(static_cast<std::size_t>(ref.n));
  for (std::int64_t i = 0; i < ref.m; ++i) {
    std::fill(sum.begin(), sum.end(), 0.0);
    std::fill(mag.begin(), mag.end(), 0.0);
    // k outermost within a row keeps B's row in cache for row-major B; the per-element order of
    // the additions is still ascending k.
    for (std::int64_t kk = 0; kk < ref.k; ++kk) {
      const double av = to_double(a(i, kk));
      const double aa = av < 0 ? -av : av;
      for (std::int64_t j = 0; j < ref.n; ++j) {
        const double bv = to_double(b(kk, j));
        sum[static_cast<std::size_t>(j)] += av * bv;
        mag[static_cast<std::size_t>(j)] += aa * (bv < 0 ? -bv : bv);
      }
    }
    for (std::int64_t j = 0; j < ref.n; ++j) {
      const auto e = static_cast<std::size_t>(ref.index(i, j));
      const double cv = read_c ? beta * to_double(c(i, j)) : 0.0;
      ref.value[e] = alpha * sum[static_cast<std::size_t>(j)] + cv;
      ref.ab_magnitude[e] = (alpha < 0 ? -alpha : alpha) * mag[static_cast<std::size_t>(j)];
      ref.c_magnitude[e] = cv < 0 ? -cv : cv;
    }
  }
  return ref;
}

}  // namespace tessel::verify
