#pragma once
// When is composition A o B a layout? The admissibility rule, written once and shared by the
// compile-time algebra (include/tessel/layout, which turns a failure into a static_assert) and
// the run-time algebra (include/tessel/layout/runtime, which turns it into an rt::Error). The
// divides and products compose too, so they are held to the same rule; a divide whose tiler
// does not divide A gets CuTe 4.7's padded answer where the second rule, at the end of this
// file, shows it to be a divide.
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

/// The extents the rule reads: a[0..r) of coalesced A, except that mode `pad` may read
/// `pad_to` (A padded, below) and the last mode `last` (the real extent of A's last mode, where
/// the extents describe A's domain rather than the unbounded last mode composition reads).
struct Extents {
  std::int64_t const* a = nullptr;
  int r = 0;
  int pad = -1;
  std::int64_t pad_to = 0;
  std::int64_t last = -1;
  constexpr std::int64_t operator[](int p) const {
    if (p == pad) return pad_to;
    if (p == r - 1 && last >= 0) return last;
    return a[p];
  }
};

/// The largest digit leaf n:d reaches at mode `at` of A (the flat extents a[0..r), r >= 2), or a
/// fault of that leaf alone. Shared by both checks below, so the walk is written once.
/// @pre n >= 1, every a[p] >= 1
constexpr CompositionVerdict walk_leaf(Extents a, int r, std::int64_t n, std::int64_t d, int leaf, int at,
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

/// composition_verdict below, on extents read through `a`.
constexpr CompositionVerdict composition_verdict(Extents a, int r, std::int64_t const* n, std::int64_t const* d,
                                                 int k) {
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

/// The admissibility of A o B for coalesced A with flat extents a[0..r) and B with flat leaves
/// n[0..k):d[0..k) (B's nesting does not matter: composition distributes over it).
/// @pre r >= 1, every a[p] >= 1 and n[j] >= 1
/// @post ok() iff conditions (1) and (2) of this file hold; then R(c) == A(B(c)) for every c.
constexpr CompositionVerdict composition_verdict(std::int64_t const* a, int r, std::int64_t const* n,
                                                 std::int64_t const* d, int k) {
  return composition_verdict(Extents{a, r}, r, n, d, k);
}

// ---------------------------------------------------------------------------------------------
// Divides whose tiler does not divide A: CuTe 4.7's padded answer, and when it is a divide.
//
// logical_divide(A, B) = A o (B, B*), B* = complement(B, shape(coalesce(A))). B* ends with its
// rest mode R:E (E the extent of B and its holes, R the ceiling of A's shape over E folded mode
// by mode). When E steps over the modes of coalesced A before mode i and leaves d' = E / (a_0
// ... a_{i-1}) with d' < a_i and d' not dividing a_i, the tiler does not divide A, and (B, B*)
// is not admissible against A: R:E takes ceil(a_i / d') elements of mode i at stride d', the
// last of which lie past a_i. CuTe 4.7 answers anyway, by ceil_div in its shape division; its
// answer is exactly A_pad o (B, B*), where A_pad is A with mode i widened to
//   a_i+ = d' * ceil(a_i / d')      (strides unchanged, the last mode unbounded as before),
// because every other leaf of (B, B*) stays below E, where A and A_pad have the same digits.
// That answer is a divide -- mode 0 is A o B, it covers A, and what it adds is A's last mode
// extended -- exactly when, per mode:
//   (a) A o B is admissible (mode 0 is the tile; the rule above, against A itself);
//   (b) A_pad o (B, B*) is admissible (then the answer is A_pad(B(c), B*(c')) at every
//       coordinate, by the rule above on A_pad's extents);
//   (c) (B, B*) is a bijection onto [0, N), R:E its mode of largest stride, and N reaches past
//       A's domain inside A_pad (then the answer's offsets are A_pad's, each once, A's among them);
//   (d) the padding is A's last mode extended: an offset x e_i + ... with a_i <= x < a_i+ is A's
//       offset (x - k) e_i + ... + (y + k e_i / e_last) e_last for a k in [x - a_i + 1, x] with
//       e_last | k e_i; an interval of a_i integers holds such a k iff the least one,
//       m = e_last / gcd(e_i, e_last), is <= a_i (for e_last = 0: iff e_i = 0). Sufficient at
//       any rank; also necessary when coalesced A has two modes (no other mode can absorb x);
//   (e) A injective => A_pad injective (on its domain): exactly once where A is once. Decided per
//       pair of modes (a pair (s,t):(u,v) repeats iff v/g < s and u/g < t, g = gcd(u, v)), which
//       is exact for two modes; for more, a layout passes when its modes sorted by stride do not
//       overlap, and fails when a pair repeats; otherwise the padded answer is refused.
// The sweeps (tests/host/layout_sweep_test.cpp) hold both directions on every small pair: each
// accepted answer meets the definition at every coordinate, and each refused one where CuTe's
// answer happens to meet it has an A that is not injective.
//
// Worked example: zipped_divide((5,2):(2,1), 4:1). B* = complement(4:1, (5,2)) = 4:4 (ceil(5/4)
// = 2 times 2); 4:4 lands in mode 0 (d' = 4 < 5, 4 does not divide 5), so A_pad = (8,2):(2,1).
// (a) 4:1 fits mode 0; (b) (4,4):(1,4) against (8,2) is admissible; (c) (4,4):(1,4) is 16:1;
// (d) m = 1 / gcd(2, 1) = 1 <= 5; (e) (8,2):(2,1) is injective. The answer is
// (4,(2,2)):(2,(8,1)): offsets 0..15, A's ten (0..9) and A's last mode extended (10..15).
// Refused: logical_divide((6,2):(1,7), 4:1) pads mode 0 to 8 and reaches 6, which no
// y0 + 7 y1 with y0 < 6 is (m = 7 > 6).

/// Why CuTe 4.7's padded divide is not a divide; `padded` when it is.
enum class PaddedDivideFault {
  padded,
  composition_fault,      // the rest mode pads no mode of A, or A o B fails: the composition's own fault stands
  padded_composition,     // (b): `inner` is the fault of A_pad o (B, B*)
  tiler_not_bijective,    // (c)
  negative_stride,        // e_i or e_last is negative: (d) is not decided
  padding_off_extension,  // (d): `step` is m
  padding_repeats,        // (e): A is (or may be) injective, A_pad is not (or cannot be shown to be)
};

struct PaddedDivideVerdict {
  PaddedDivideFault fault = PaddedDivideFault::padded;
  int mode = -1;               // the padded mode i of coalesced A
  std::int64_t extent = 0;     // a_i
  std::int64_t padded = 0;     // a_i+
  std::int64_t step = 0;       // m, for padding_off_extension
  bool repeat_shown = false;   // for padding_repeats: the widened A is shown to repeat an offset (else undecided)
  CompositionVerdict inner{};  // for padded_composition
  constexpr bool ok() const { return fault == PaddedDivideFault::padded; }
};

enum class Injectivity { injective, not_injective, unknown };

constexpr std::int64_t abs64(std::int64_t x) { return x < 0 ? -x : x; }
// x * y and x + y for x, y >= 0, held at INT64_MAX: the run-time algebra takes extents near 2^62,
// and a bound that saturates only makes the checks below refuse, never wrongly accept.
constexpr std::int64_t kSaturated = 0x7fffffffffffffff;
constexpr std::int64_t sat_mul(std::int64_t x, std::int64_t y) {
  return x != 0 && y > kSaturated / x ? kSaturated : x * y;
}
constexpr std::int64_t sat_add(std::int64_t x, std::int64_t y) { return x > kSaturated - y ? kSaturated : x + y; }
constexpr std::int64_t gcd64(std::int64_t x, std::int64_t y) {
  x = abs64(x);
  y = abs64(y);
  while (y != 0) {
    std::int64_t t = x % y;
    x = y;
    y = t;
  }
  return x;
}

/// Whether the layout of extents s[0..r) and strides e[0..r) is injective, per pair of modes.
/// @post injective or not_injective is the truth; unknown only for three or more modes
constexpr Injectivity injectivity(Extents s, std::int64_t const* e, int r) {
  int modes = 0;
  for (int p = 0; p < r; ++p) {
    if (s[p] < 2) continue;
    ++modes;
    if (e[p] == 0) return Injectivity::not_injective;
    for (int q = p + 1; q < r; ++q) {
      if (s[q] < 2) continue;
      std::int64_t g = gcd64(e[p], e[q]);
      // u e_p = w e_q with 0 < |u| < s_p, |w| < s_q: the least such u is |e_q| / g.
      if (e[q] != 0 && abs64(e[q]) / g < s[p] && abs64(e[p]) / g < s[q]) return Injectivity::not_injective;
    }
  }
  if (modes <= 2) return Injectivity::injective;  // no pair repeats: exact for two modes
  for (int p = 0; p < r; ++p) {
    if (s[p] < 2) continue;
    std::int64_t below = 0;  // the reach of the modes of smaller stride (ties: the earlier first)
    for (int q = 0; q < r; ++q) {
      if (q == p || s[q] < 2) continue;
      if (abs64(e[q]) < abs64(e[p]) || (abs64(e[q]) == abs64(e[p]) && q < p))
        below = sat_add(below, sat_mul(s[q] - 1, abs64(e[q])));
    }
    if (below >= abs64(e[p])) return Injectivity::unknown;
  }
  return Injectivity::injective;
}

/// Whether CuTe 4.7's answer to logical_divide(A, B) is a divide where (B, B*) is not admissible
/// against A. A is coalesced (coalesce_x: extents a[0..r), strides e[0..r)) and has `size_a`
/// elements; the leaves n[0..k):d[0..k) are those of (B, B*), B's the first k_tile of them.
/// @pre composition_verdict(a, r, n, d, k) is not ok; every a[p] >= 1 and n[j] >= 1
/// @post ok() iff conditions (a) to (e) above hold; then CuTe's construction of A o (B, B*)
///       (the ceil_div one) is A_pad o (B, B*) at every coordinate, and a divide
constexpr PaddedDivideVerdict padded_divide_verdict(std::int64_t const* a, std::int64_t const* e, int r,
                                                    std::int64_t size_a, std::int64_t const* n,
                                                    std::int64_t const* d, int k_tile, int k) {
  PaddedDivideVerdict v{};
  v.fault = PaddedDivideFault::composition_fault;
  if (r < 2 || k <= k_tile || !composition_verdict(a, r, n, d, k_tile).ok()) return v;  // (a)
  std::int64_t const rest_n = n[k - 1], rest_d = d[k - 1];  // B*'s rest mode R:E
  if (rest_n < 2 || rest_d <= 0) return v;
  int i = 0;
  std::int64_t rest = rest_d;
  while (i < r - 1 && rest % a[i] == 0) rest /= a[i++];
  if (i == r - 1 || rest >= a[i] || a[i] % rest == 0) return v;  // R:E pads no mode of A
  v.mode = i;
  v.extent = a[i];
  v.padded = rest * (a[i] / rest + 1);
  Extents const pad{a, r, i, v.padded};
  v.inner = composition_verdict(pad, r, n, d, k);  // (b)
  if (!v.inner.ok()) {
    v.fault = PaddedDivideFault::padded_composition;
    return v;
  }
  // (c): the leaves of extent > 1, by stride, must be 1, n_0, n_0 n_1, ... (each found once).
  std::int64_t reach = 1;
  int moving = 0, found = 0;
  for (int j = 0; j < k; ++j) moving += n[j] > 1;
  for (bool more = true; more;) {
    more = false;
    for (int j = 0; j < k; ++j) {
      if (n[j] > 1 && d[j] == reach) {
        reach = sat_mul(reach, n[j]);
        ++found;
        more = true;
        break;
      }
    }
  }
  std::int64_t lower = 1;  // A's extents but the last: size_a / lower is the last mode's real extent
  for (int p = 0; p + 1 < r; ++p) lower *= a[p];
  std::int64_t const last = size_a / lower;
  std::int64_t need = last;
  for (int p = 0; p + 1 < r; ++p) need = sat_mul(need, pad[p]);
  if (found != moving || sat_mul(rest_d, rest_n) != reach || reach < need || reach == kSaturated) {
    v.fault = PaddedDivideFault::tiler_not_bijective;
    return v;
  }
  std::int64_t const ei = e[i], el = e[r - 1];
  if (ei < 0 || el < 0) {
    v.fault = PaddedDivideFault::negative_stride;
    return v;
  }
  if (el == 0 ? ei != 0 : el / gcd64(ei, el) > a[i]) {  // (d)
    v.fault = PaddedDivideFault::padding_off_extension;
    v.step = el == 0 ? 0 : el / gcd64(ei, el);
    return v;
  }
  Extents const domain{a, r, -1, 0, last}, padded_domain{a, r, i, v.padded, last};
  Injectivity const widened = injectivity(padded_domain, e, r);
  if (injectivity(domain, e, r) != Injectivity::not_injective && widened != Injectivity::injective) {  // (e)
    v.fault = PaddedDivideFault::padding_repeats;
    v.repeat_shown = widened == Injectivity::not_injective;
    return v;
  }
  v.fault = PaddedDivideFault::padded;
  return v;
}

}  // namespace tessel::layout_rules
