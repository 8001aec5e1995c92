#pragma once
// When is composition A o B a layout? The admissibility rule, written once and shared by the
// compile-time algebra (include/tessel/layout, which turns a failure into a static_assert) and
// the run-time algebra (include/tessel/layout/runtime, which turns it into an rt::Error). The
// divides and products compose too, so they are held to the same rule.
//
// The model. A is coalesced to flat modes a_0:e_0, ..., a_{r-1}:e_{r-1}, its last mode read as
// unbounded (CuTe's extension of A past its domain). A 1-D index x of A has mixed-radix digits
// x_p in [0, a_p) for p < r-1 and an unbounded last digit, and A(x) = sum_p x_p * e_p.
// Composition right-distributes over the leaves n_j:d_j of B, so the candidate result is
//   R(c) = sum_j A(c_j * d_j).
// R(c) == A(B(c)) holds at every coordinate when
//   (1) every leaf alone lands on digits of A without carrying: c_j * d_j, for c_j < n_j, is
//       an affine run through whole digits of A (the stride and shape conditions below), and
//   (2) the leaves together never carry: at every mode p < r-1 of A the largest digits the
//       leaves reach sum to at most a_p - 1.
// Then the digits of B(c) = sum_j c_j d_j are the sums of the leaves' digits, and A is linear in
// its digits, so A(B(c)) = sum_j A(c_j d_j) = R(c). The rule is sufficient; it is also what
// CuTe's result needs, because a single carry at mode p moves the index by e_{p+1} - a_p e_p,
// never 0 once A is coalesced (tests/host/layout_sweep_test.cpp checks both directions on every
// small pair and counts what it refuses).
//
// One leaf n:d (n >= 2, d >= 1; n == 1 or d == 0 touch only A(0) = 0):
//   stride:  skip the leading modes whose extent divides what is left of d (they are stepped
//            over whole); at the first mode a_i it does not divide, d' = what is left must divide
//            a_i (d' | a_i), or B must fit inside that mode (n <= ceil(a_i / d'): CuTe 4.7's
//            weaker condition, right only when no element of B leaves the mode);
//   shape:   from there take n elements front to back: a mode of t elements either holds all
//            that is left of n (n <= t, CuTe 4.7's "fits") or is used whole (t | n).
// All of it is O(leaves(B) * modes(A)) integer steps on values, cheap enough for constexpr.
//
// Worked examples (A coalesced first):
//   (4,6,8,10):(2,3,5,7) o 6:12   admissible: 12 steps over a_0 = 4 (d' = 3), 3 | 6 leaves 2
//                                  elements of stride 9, then 3 of the 8 of a_2: (2,3):(9,5).
//   (4,4):(4,1) o 4:3             refused, stride: 3 and 4 divide neither way and the 4 elements
//                                  0,3,6,9 leave mode 0 (CuTe 4.7 answers (2,2):(12,1), not A o B).
//   (6,2):(1,8) o (2,3):(3,2)     refused, carry: the leaves reach digits 3 and 4 of mode 0,
//                                  3 + 4 > 5 (R(5) would be 7, A(B(5)) = A(7) = 9).
#include <cstdint>

namespace tessel::layout_rules {

/// Why a composition is not admissible; `admissible` when it is.
enum class CompositionFault {
  admissible,
  negative_stride,       // a leaf of B has a negative stride and A has several modes
  stride_divisibility,   // leaf `leaf`: the stride left, `value`, and a_mode divide neither way, and B leaves the mode
  shape_divisibility,    // leaf `leaf`: the `value` elements left neither fit in a_mode nor are a multiple of it
  carry,                 // the leaves' largest digits at mode `mode` sum to `value` > a_mode - 1
};

struct CompositionVerdict {
  CompositionFault fault = CompositionFault::admissible;
  int leaf = -1;             // the leaf of B (flat, left to right) that fails, for the first three faults
  int mode = -1;             // the mode of coalesced A where it fails
  std::int64_t value = 0;    // the stride left, the elements left, or the digit sum
  std::int64_t extent = 0;   // a_mode
  constexpr bool ok() const { return fault == CompositionFault::admissible; }
};

/// The largest digit leaf n:d reaches at mode `at` of A (the flat extents a[0..r), r >= 2), or a
/// fault of that leaf alone. Shared by both checks below, so the walk is written once.
/// @pre n >= 1, every a[p] >= 1
constexpr CompositionVerdict walk_leaf(std::int64_t const* a, int r, std::int64_t n, std::int64_t d, int leaf, int at,
                                       std::int64_t& digit_at) {
  digit_at = 0;
  CompositionVerdict v{};
  if (n == 1 || d == 0) return v;
  if (d < 0) return {CompositionFault::negative_stride, leaf, -1, d, 0};
  int i = 0;
  std::int64_t rest = d;
  while (i < r - 1 && rest % a[i] == 0) rest /= a[i++];  // modes stepped over whole: digit 0
  if (i == r - 1) return v;                              // lands in the unbounded last mode
  if (a[i] % rest != 0) {
    std::int64_t fits = a[i] / rest + (a[i] % rest != 0);  // ceil(a_i / d')
    if (n > fits) return {CompositionFault::stride_divisibility, leaf, i, rest, a[i]};
    if (i == at) digit_at = (n - 1) * rest;
    return v;
  }
  std::int64_t t = a[i] / rest;
  if (n <= t) {
    if (i == at) digit_at = (n - 1) * rest;
    return v;
  }
  if (n % t != 0) return {CompositionFault::shape_divisibility, leaf, i, n, t};
  if (i == at) digit_at = a[i] - rest;
  n /= t;
  for (++i; i < r - 1; ++i) {
    if (n <= a[i]) {
      if (i == at) digit_at = n - 1;
      return v;
    }
    if (n % a[i] != 0) return {CompositionFault::shape_divisibility, leaf, i, n, a[i]};
    if (i == at) digit_at = a[i] - 1;
    n /= a[i];
  }
  return v;  // what is left of n runs along the unbounded last mode
}

/// The admissibility of A o B for coalesced A with flat extents a[0..r) and B with flat leaves
/// n[0..k):d[0..k) (B's nesting does not matter: composition distributes over it).
/// @pre r >= 1, every a[p] >= 1 and n[j] >= 1
/// @post ok() iff conditions (1) and (2) of this file hold; then R(c) == A(B(c)) for every c.
constexpr CompositionVerdict composition_verdict(std::int64_t const* a, int r, std::int64_t const* n,
                                                 std::int64_t const* d, int k) {
  if (r == 1) return {};  // A is linear: A(x) = x * e_0 everywhere
  std::int64_t digit = 0;
  for (int j = 0; j < k; ++j) {
    CompositionVerdict v = walk_leaf(a, r, n[j], d[j], j, -1, digit);
    if (!v.ok()) return v;
  }
  for (int p = 0; p < r - 1; ++p) {
    std::int64_t sum = 0;
    for (int j = 0; j < k; ++j) {
      walk_leaf(a, r, n[j], d[j], j, p, digit);
      if (digit > a[p] - 1 - sum) return {CompositionFault::carry, -1, p, sum + digit, a[p]};
      sum += digit;
    }
  }
  return {};
}

}  // namespace tessel::layout_rules
