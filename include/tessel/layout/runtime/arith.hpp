#pragma once
// Checked 64-bit integer arithmetic for the run-time algebra.
//
// Layouts read from a command line can hold any int64, so every product or
// sum the algebra forms goes through these helpers: an overflow becomes an
// Error instead of a silently wrong layout.
#include <cstdint>
#include <string>

#include "error.hpp"

namespace tessel::rt::detail {

inline std::int64_t mul(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) {
    throw Error("integer overflow: " + std::to_string(a) + " * " + std::to_string(b) +
                " does not fit in 64 bits");
  }
  return r;
}

inline std::int64_t add(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_add_overflow(a, b, &r)) {
    throw Error("integer overflow: " + std::to_string(a) + " + " + std::to_string(b) +
                " does not fit in 64 bits");
  }
  return r;
}

inline std::int64_t abs(std::int64_t a) {
  if (a == INT64_MIN) throw Error("integer overflow: |" + std::to_string(a) + "|");
  return a < 0 ? -a : a;
}

inline std::int64_t signum(std::int64_t a) { return (a > 0) - (a < 0); }

// ceil(a / b) for a >= 0, b > 0 (the only way the algebra uses it).
inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a / b + (a % b != 0); }

// True when a and b divide one another: the condition under which CuTe's
// shape division is defined.
inline bool divides_either(std::int64_t a, std::int64_t b) {
  return (b != 0 && a % b == 0) || (a != 0 && b % a == 0);
}

// Shape division: a / b, rounded away from zero, so that dividing a shape by
// a larger stride leaves 1 rather than 0.
// @pre divides_either(a, b)
inline std::int64_t shape_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  return q != 0 ? q : signum(a) * signum(b);
}

}  // namespace tessel::rt::detail
