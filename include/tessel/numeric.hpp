#pragma once
// Element types and their widths.
//
// tessel uses the CUDA toolkit's own 16-bit float types rather than defining its own: they are
// what cuBLAS, PyTorch and every CUDA user already pass around, and their host-side conversions
// let host code (references, fills) read and write them. A host-only build without the CUDA
// headers still gets sizeof_bits and the float/double traits.

#include <climits>
#include <cstdint>
#include <type_traits>

#include "tessel/config.hpp"

#if __has_include(<cuda_fp16.h>) && __has_include(<cuda_bf16.h>)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#define TESSEL_HAS_CUDA_FP16 1
#else
#define TESSEL_HAS_CUDA_FP16 0
#endif

#if TESSEL_HAS_CUDA_FP16 && __has_include(<cuda_fp8.h>)
#include <cuda_fp8.h>
#define TESSEL_HAS_CUDA_FP8 1
#else
#define TESSEL_HAS_CUDA_FP8 0
#endif

namespace tessel {

#if TESSEL_HAS_CUDA_FP16
using half_t = __half;
using bfloat16_t = __nv_bfloat16;
#endif
#if TESSEL_HAS_CUDA_FP8
// The two OCP FP8 formats. e4m3 has no infinity (its largest finite value is 448), e5m2 keeps
// IEEE's infinities (largest finite 57344).
using float_e4m3_t = __nv_fp8_e4m3;
using float_e5m2_t = __nv_fp8_e5m2;
#endif

// Width of a type in bits: the unit alignment rules are stated in ("128-bit loads hold
// 128 / sizeof_bits<half_t> = 8 elements"), and which stays meaningful for sub-byte types.
template <class T>
struct sizeof_bits {
  static constexpr int value = static_cast<int>(sizeof(T) * CHAR_BIT);
};
template <class T>
struct sizeof_bits<const T> : sizeof_bits<T> {};
template <class T>
struct sizeof_bits<volatile T> : sizeof_bits<T> {};
template <class T>
struct sizeof_bits<const volatile T> : sizeof_bits<T> {};

template <class T>
inline constexpr int sizeof_bits_v = sizeof_bits<T>::value;

// Significand precision in bits, counting the implicit leading bit (IEEE's "p"): 11 for binary16,
// 8 for bfloat16, 24 for binary32, 53 for binary64. Error bounds are written in terms of the
// unit roundoff u = 2^-p.
template <class T>
struct precision_bits;  // undefined for types without a floating-point significand
template <>
struct precision_bits<float> : std::integral_constant<int, 24> {};
template <>
struct precision_bits<double> : std::integral_constant<int, 53> {};
#if TESSEL_HAS_CUDA_FP16
template <>
struct precision_bits<half_t> : std::integral_constant<int, 11> {};
template <>
struct precision_bits<bfloat16_t> : std::integral_constant<int, 8> {};
#endif
#if TESSEL_HAS_CUDA_FP8
template <>
struct precision_bits<float_e4m3_t> : std::integral_constant<int, 4> {};
template <>
struct precision_bits<float_e5m2_t> : std::integral_constant<int, 3> {};
#endif
template <class T>
struct precision_bits<const T> : precision_bits<T> {};

template <class T>
inline constexpr int precision_bits_v = precision_bits<T>::value;

// Unit roundoff u = 2^-p: the largest relative error of one correctly rounded operation.
// Machine epsilon (the gap from 1 to the next number) is 2u.
template <class T>
constexpr double unit_roundoff() {
  return 1.0 / static_cast<double>(std::uint64_t{1} << precision_bits_v<T>);
}

// Smallest positive normal number; results below it lose relative precision.
template <class T>
constexpr double min_normal();
template <>
constexpr double min_normal<float>() {
  return 1.0 / static_cast<double>(std::uint64_t{1} << 63) / static_cast<double>(std::uint64_t{1} << 63);  // 2^-126
}
template <>
constexpr double min_normal<double>() {
  // 2^-1022, built from exact powers of two so that it is a constant expression.
  double v = 1.0;
  for (int i = 0; i < 1022; ++i) v /= 2.0;
  return v;
}
#if TESSEL_HAS_CUDA_FP16
template <>
constexpr double min_normal<half_t>() {
  return 1.0 / static_cast<double>(std::uint64_t{1} << 14);  // 2^-14
}
template <>
constexpr double min_normal<bfloat16_t>() {
  return min_normal<float>();  // bfloat16 keeps binary32's exponent range
}
#endif

// Conversions between element types and double, for host references and fills. The 16-bit types
// go through float, which represents every one of their values exactly and which their
// constructors and conversion operators take.
template <class T>
TESSEL_HD constexpr double to_double(T x) {
  if constexpr (std::is_arithmetic_v<T>) {
    return static_cast<double>(x);
  } else {
    return static_cast<double>(static_cast<float>(x));
  }
}

template <class T>
TESSEL_HD T from_double(double x) {
  if constexpr (std::is_arithmetic_v<T>) {
    return static_cast<T>(x);
  } else {
    return T(static_cast<float>(x));
  }
}

/// Convert between element types with round-to-nearest-even, the way an epilogue stores its
/// results: float <-> half / bfloat16 through the CUDA conversion intrinsics. A conversion to FP8
/// saturates: values beyond the format's largest finite number (infinities included) become that
/// number, NaN stays NaN. Without saturation an overflowing e4m3 becomes NaN, which would turn
/// one outlier of an FP8 GEMM into a poisoned tensor.
template <class To, class From>
TESSEL_HD To numeric_cast(From x) {
  if constexpr (std::is_same_v<To, From>) {
    return x;
  } else if constexpr (std::is_arithmetic_v<To> && std::is_arithmetic_v<From>) {
    return static_cast<To>(x);
#if TESSEL_HAS_CUDA_FP16
  } else if constexpr (std::is_same_v<To, half_t>) {
    return __float2half_rn(static_cast<float>(x));
  } else if constexpr (std::is_same_v<To, bfloat16_t>) {
    return __float2bfloat16_rn(static_cast<float>(x));
#endif
#if TESSEL_HAS_CUDA_FP8
  } else if constexpr (std::is_same_v<To, float_e4m3_t> || std::is_same_v<To, float_e5m2_t>) {
    To out;
    out.__x = __nv_cvt_float_to_fp8(static_cast<float>(x), __NV_SATFINITE,
                                    std::is_same_v<To, float_e4m3_t> ? __NV_E4M3 : __NV_E5M2);
    return out;
#endif
  } else {
    return static_cast<To>(static_cast<float>(x));
  }
}

}  // namespace tessel
