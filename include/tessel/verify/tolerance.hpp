#pragma once
// The error budget of one GEMM output element, D(i,j) = alpha * sum_k A(i,k) B(k,j) + beta C(i,j).
//
// The reference (host_reference.hpp) reads the very element values the kernel read and sums
// their products in double, so the budget has to cover only what the kernel does differently:
//
//   accumulation  lambda * g(K) * eps_acc * |alpha| sum_k |A(i,k)| |B(k,j)|
//       A K-term sum in a type of machine epsilon eps_acc commits one rounding per addition,
//       each at most eps_acc/2 relative to a partial sum, and every partial sum is bounded by
//       sum |a||b|. Added up in the worst case that is K * eps_acc/2 (Higham's gamma_K); when the
//       roundings behave like independent random variables, as they do for inputs of mixed sign,
//       the sum grows like sqrt(K) instead (Higham and Mary, "A new approach to probabilistic
//       rounding error analysis", 2019). g(K) = sqrt(K) by default, K on request.
//       eps_acc is the accumulator's machine epsilon (2u, not u) because tensor cores do not
//       round their internal additions to nearest; the budget must hold for a truncating adder.
//       The products of f16/bf16 inputs are exact in f32, so no term for them.
//       Why the accumulator's epsilon and not the input type's: with f16 inputs and f32
//       accumulation a budget in f16's epsilon is 2^13 times larger, wide enough to pass a kernel
//       that drops a whole K-tile of products. In f32's epsilon, at K = 8192 and lambda = 8, one
//       missing product of average size already exceeds the budget.
//   input rounding  eps_in * |alpha| sum |a||b|
//       Zero when the kernel reads exactly what the reference reads. A kernel that rounds its
//       inputs first (f32 operands fed to a tf32 tensor core) sets eps_in to that format's
//       epsilon: each product then carries a relative error of at most about 2u_in = eps_in.
//   epilogue  eps_acc * (|alpha| sum |a||b| + |beta C(i,j)|)
//       The alpha and beta multiplications and their sum, in the compute type.
//   output rounding  u_out * |reference| + min_normal(D)
//       One rounding to D's type, plus one unit of its smallest normal for results that land
//       in the subnormal range.
//
// lambda (`safety`) defaults to 8. The budget is per element: an element with small sum |a||b|
// gets a small budget, so an error cannot hide among large neighbours.

#include <cmath>
#include <cstdint>

#include "tessel/config.hpp"
#include "tessel/numeric.hpp"

namespace tessel::verify {

enum class KScaling {
  kSqrtK,   // probabilistic bound: rounding errors of mixed sign partly cancel
  kLinearK  // worst case: every rounding error has the same sign (e.g. all-positive data)
};

struct Tolerance {
  double accumulate_eps = 0;  // machine epsilon of the accumulator type
  double input_eps = 0;       // epsilon of a rounding the kernel applies to its inputs, else 0
  double output_u = 0;        // unit roundoff of D's element type
  double absolute_floor = 0;  // smallest normal of D's element type
  double safety = 8;          // lambda
  KScaling scaling = KScaling::kSqrtK;

  // `ab_magnitude` = |alpha| sum_k |A(i,k)||B(k,j)|, `c_magnitude` = |beta C(i,j)|, `reference`
  // the exact result.
  TESSEL_HD double budget(std::int64_t k, double ab_magnitude, double c_magnitude,
                          double reference) const {
    const double kk = k < 1 ? 1.0 : static_cast<double>(k);
    const double growth = scaling == KScaling::kSqrtK ? std::sqrt(kk) : kk;
    return safety * growth * accumulate_eps * ab_magnitude + input_eps * ab_magnitude +
           accumulate_eps * (ab_magnitude + c_magnitude) + output_u * std::fabs(reference) +
           absolute_floor;
  }
};

// The budget for a kernel that accumulates in `Accumulator` and writes `Output`.
template <class Accumulator, class Output>
constexpr Tolerance make_tolerance(KScaling scaling = KScaling::kSqrtK, double safety = 8) {
  Tolerance t;
  t.accumulate_eps = 2 * unit_roundoff<Accumulator>();
  t.input_eps = 0;
  t.output_u = unit_roundoff<Output>();
  t.absolute_floor = min_normal<Output>();
  t.safety = safety;
  t.scaling = scaling;
  return t;
}

}  // namespace tessel::verify
