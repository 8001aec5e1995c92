// The FP8 cast (numeric_cast and the Convert node) against a model written from the formats'
// definitions: decode every code, round to nearest even over that table, saturate, keep NaN.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

#include "epilogue_fusion_model.hpp"

namespace {

using namespace tessel;
using namespace tessel::epilogue::fusion;
using namespace fusion_test;

// A format by its exponent and mantissa widths and bias.
struct Format {
  int exponent_bits, mantissa_bits, bias;
  bool has_infinity;  // e5m2: IEEE-like; e4m3: exponent 1111 is finite except S.1111.111 (NaN)
};
constexpr Format kE4M3{4, 3, 7, false};
constexpr Format kE5M2{5, 2, 15, true};

double decode(Format f, std::uint8_t code) {
  const int man = code & ((1 << f.mantissa_bits) - 1);
  const int exp = (code >> f.mantissa_bits) & ((1 << f.exponent_bits) - 1);
  const double sign = (code & 0x80) ? -1.0 : 1.0;
  const int max_exp = (1 << f.exponent_bits) - 1;
  if (f.has_infinity && exp == max_exp) return man == 0 ? sign * INFINITY : NAN;
  if (!f.has_infinity && exp == max_exp && man == (1 << f.mantissa_bits) - 1) return NAN;
  const double frac = double(man) / (1 << f.mantissa_bits);
  if (exp == 0) return sign * std::ldexp(frac, 1 - f.bias);
  return sign * std::ldexp(1.0 + frac, exp - f.bias);
}

// Round to nearest, ties to the even code, saturating to the largest finite magnitude.
std::uint8_t encode(Format f, double x) {
  if (std::isnan(x)) return 0x7f;  // a NaN; callers compare NaN-ness, not the code
  const std::uint8_t sign = std::signbit(x) ? 0x80 : 0x00;
  const double a = std::fabs(x);
  // Positive finite codes in increasing order of value are 0, 1, 2, ... up to the largest.
  int largest = 0;
  while (largest + 1 < 0x80 && std::isfinite(decode(f, static_cast<std::uint8_t>(largest + 1)))) ++largest;
  if (a >= decode(f, static_cast<std::uint8_t>(largest))) return static_cast<std::uint8_t>(sign | largest);
  int lo = 0;
  while (decode(f, static_cast<std::uint8_t>(lo + 1)) <= a) ++lo;
  const double below = decode(f, static_cast<std::uint8_t>(lo)), above = decode(f, static_cast<std::uint8_t>(lo + 1));
  int code = lo;
  if (a - below > above - a || (a - below == above - a && (lo & 1))) code = lo + 1;
  return static_cast<std::uint8_t>(sign | code);
}

template <class T>
std::uint8_t bits(T x) {
  std::uint8_t b;
  std::memcpy(&b, &x, 1);
  return b;
}

template <class T>
void check_against_model(Format f, float x) {
  const T got = numeric_cast<T>(x);
  if (std::isnan(x)) {
    EXPECT_TRUE(std::isnan(decode(f, bits(got)))) << "NaN became code " << int(bits(got));
    return;
  }
  EXPECT_EQ(int(bits(got)), int(encode(f, x))) << "x = " << x;
}

TEST(FusionFp8, LargestFiniteValuesAreTheFormats) {
  EXPECT_EQ(decode(kE4M3, 0x7e), 448.0);
  EXPECT_EQ(decode(kE5M2, 0x7b), 57344.0);
  EXPECT_EQ(decode(kE4M3, 0x01), std::ldexp(1.0, -9));   // smallest subnormal
  EXPECT_EQ(decode(kE5M2, 0x01), std::ldexp(1.0, -16));
}

TEST(FusionFp8, EveryFiniteCodeRoundTrips) {
  for (int code = 0; code < 256; ++code) {
    for (Format f : {kE4M3, kE5M2}) {
      const double v = decode(f, static_cast<std::uint8_t>(code));
      if (!std::isfinite(v)) continue;
      const auto got = f.has_infinity ? bits(numeric_cast<float_e5m2_t>(float(v))) : bits(numeric_cast<float_e4m3_t>(float(v)));
      EXPECT_EQ(int(got), code) << (f.has_infinity ? "e5m2 " : "e4m3 ") << v;
    }
  }
}

TEST(FusionFp8, MidpointsTieToEvenAndNeighboursRoundToNearest) {
  for (Format f : {kE4M3, kE5M2}) {
    for (int code = 0; code + 1 < 0x80; ++code) {
      const double lo = decode(f, static_cast<std::uint8_t>(code)), hi = decode(f, static_cast<std::uint8_t>(code + 1));
      if (!std::isfinite(hi)) break;
      const double mid = (lo + hi) / 2;
      for (double x : {mid, std::nextafter(mid, 0.0), std::nextafter(mid, 1e9), -mid}) {
        if (f.has_infinity) {
          check_against_model<float_e5m2_t>(f, float(x));
        } else {
          check_against_model<float_e4m3_t>(f, float(x));
        }
      }
    }
  }
}

TEST(FusionFp8, RandomValuesOverEveryBinade) {
  for (unsigned seed : kSeeds) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> mant(-1.f, 1.f);
    std::uniform_int_distribution<int> exp(-20, 18);
    for (int i = 0; i < 4000; ++i) {
      const float x = std::ldexp(mant(rng), exp(rng));
      check_against_model<float_e4m3_t>(kE4M3, x);
      check_against_model<float_e5m2_t>(kE5M2, x);
    }
  }
}

TEST(FusionFp8, SaturatesToTheLargestFiniteValue) {
  const float inf = std::numeric_limits<float>::infinity();
  for (float x : {448.5f, 464.f, 1000.f, 1e30f, inf}) {
    EXPECT_EQ(float(numeric_cast<float_e4m3_t>(x)), 448.f) << x;
    EXPECT_EQ(float(numeric_cast<float_e4m3_t>(-x)), -448.f) << x;
  }
  for (float x : {57345.f, 61440.f, 1e30f, inf}) {
    EXPECT_EQ(float(numeric_cast<float_e5m2_t>(x)), 57344.f) << x;
    EXPECT_EQ(float(numeric_cast<float_e5m2_t>(-x)), -57344.f) << x;
  }
}

TEST(FusionFp8, NaNStaysNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(float(numeric_cast<float_e4m3_t>(nan))));
  EXPECT_TRUE(std::isnan(float(numeric_cast<float_e5m2_t>(nan))));
  EXPECT_TRUE(std::isnan(float(numeric_cast<float_e4m3_t>(-nan))));
}

TEST(FusionFp8, ConvertNodeIsTheCast) {
  for (unsigned seed : kSeeds) {
    std::mt19937 rng(seed);
    const auto frag = random_fragment(rng, 8, 8, 2, 1000, 600.f);  // past 448: some saturate
    const auto e4 = run<Convert<float_e4m3_t, Accumulator>>({}, frag);
    const auto e5 = run<Convert<float_e5m2_t, Accumulator>>({}, frag);
    for (std::size_t i = 0; i < frag.size(); ++i) {
      EXPECT_EQ(int(bits(e4[i])), int(encode(kE4M3, frag[i].acc)));
      EXPECT_EQ(int(bits(e5[i])), int(encode(kE5M2, frag[i].acc)));
    }
  }
}

TEST(FusionFp8, WorkedExampleOfConvert) {
  EXPECT_EQ(float(numeric_cast<float_e4m3_t>(1000.f)), 448.f);
  EXPECT_EQ(float(numeric_cast<float_e4m3_t>(0.3f)), 0.3125f);
  EXPECT_EQ(float(numeric_cast<float_e4m3_t>(17.f)), 16.f);
}

}  // namespace
