#pragma once
// Seeded random fills that give the same values on the host and on the device.
//
// Element i of a fill is a pure function of (seed, i): a SplitMix64 hash turned into a double,
// mapped onto the requested range with one fused multiply-add (correctly rounded on both sides,
// so host and device agree bit for bit), then rounded to the element type. A device fill of a
// large operand can therefore be mirrored on the host without copying it back.
//
// Values are never zero: a zero in A or B would hide a kernel that skips the product it belongs
// to. A draw that rounds to zero is redrawn.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "tessel/config.hpp"
#include "tessel/numeric.hpp"

namespace tessel::verify {

struct Distribution {
  enum class Kind {
    kUniform,   // real values in [lo, hi), rounded to the element type
    kIntegers,  // integers in [lo, hi]: products and sums stay exact in f32 for moderate K,
                // which makes a result comparable bit for bit
  };
  Kind kind = Kind::kUniform;
  double lo = -1.0;
  double hi = 1.0;

  static constexpr Distribution uniform(double lo, double hi) { return {Kind::kUniform, lo, hi}; }
  static constexpr Distribution integers(double lo, double hi) {
    return {Kind::kIntegers, lo, hi};
  }
};

// Throws std::invalid_argument for a range that is empty or holds no nonzero value.
inline void validate(const Distribution& d) {
  const bool integers = d.kind == Distribution::Kind::kIntegers;
  if (!(d.lo < d.hi) && !(integers && d.lo == d.hi)) {
    throw std::invalid_argument("random fill range [" + std::to_string(d.lo) + ", " +
                                std::to_string(d.hi) + "] is empty");
  }
  if (integers && (d.lo != std::floor(d.lo) || d.hi != std::floor(d.hi))) {
    throw std::invalid_argument("integer fill bounds must be integers, got [" +
                                std::to_string(d.lo) + ", " + std::to_string(d.hi) + "]");
  }
  if (d.lo == 0.0 && d.hi == 0.0) {
    throw std::invalid_argument("random fill range holds only zero; fills never produce zeros");
  }
}

TESSEL_HD constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// A double in [0, 1) with 53 random bits, for draw `attempt` of element `index`.
TESSEL_HD constexpr double uniform01(std::uint64_t seed, std::uint64_t index,
                                     std::uint32_t attempt) {
  const std::uint64_t h =
      splitmix64(splitmix64(seed ^ (std::uint64_t{attempt} << 56)) + index);
  return static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);  // 2^-53
}

template <class T>
TESSEL_HD T random_element(std::uint64_t seed, std::uint64_t index, Distribution d) {
  T value = from_double<T>(d.hi != 0.0 ? d.hi : d.lo);
  for (std::uint32_t attempt = 0; attempt < 64; ++attempt) {
    const double u = uniform01(seed, index, attempt);
    double x;
    if (d.kind == Distribution::Kind::kIntegers) {
      x = std::floor(::fma(u, d.hi - d.lo + 1.0, d.lo));
      if (x > d.hi) x = d.hi;
    } else {
      x = ::fma(u, d.hi - d.lo, d.lo);
    }
    value = from_double<T>(x);
    if (to_double(value) != 0.0) return value;
  }
  // 64 zero draws in a row: the range is (almost) only zero; fall back to its nonzero end.
  return from_double<T>(d.hi != 0.0 ? d.hi : d.lo);
}

// Fill `count` contiguous elements.
template <class T>
void fill_random(T* data, std::size_t count, std::uint64_t seed, Distribution d) {
  validate(d);
  for (std::size_t i = 0; i < count; ++i) data[i] = random_element<T>(seed, i, d);
}

}  // namespace tessel::verify
