#pragma once
// Static and dynamic integers.
//
// A static integer C<v> carries its value in its type, so it costs no storage and every
// operation between two static integers yields another static integer. A dynamic integer is
// any built-in integral type. Mixing the two yields a dynamic integer through C's conversion.
//
//   Int<3>{} * Int<4>{}   -> Int<12>   (static, an empty type)
//   Int<3>{} * 4          -> int 12    (dynamic)

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "config.hpp"

namespace tessel {

template <auto v>
struct C {
  using type = C;
  using value_type = decltype(v);
  static constexpr value_type value = v;
  TESSEL_HD constexpr operator value_type() const noexcept { return value; }
  TESSEL_HD constexpr value_type operator()() const noexcept { return value; }
};

template <int N> using Int = C<N>;
template <bool B> using bool_constant = C<B>;
using true_type  = bool_constant<true>;
using false_type = bool_constant<false>;

using _m1 = Int<-1>;
using _0 = Int<0>;     using _1 = Int<1>;     using _2 = Int<2>;     using _3 = Int<3>;
using _4 = Int<4>;     using _5 = Int<5>;     using _6 = Int<6>;     using _7 = Int<7>;
using _8 = Int<8>;     using _9 = Int<9>;     using _10 = Int<10>;   using _12 = Int<12>;
using _16 = Int<16>;   using _24 = Int<24>;   using _32 = Int<32>;   using _48 = Int<48>;
using _64 = Int<64>;   using _96 = Int<96>;   using _128 = Int<128>; using _192 = Int<192>;
using _256 = Int<256>; using _512 = Int<512>; using _1024 = Int<1024>;
using _2048 = Int<2048>; using _4096 = Int<4096>; using _8192 = Int<8192>;

// ---- Traits -----------------------------------------------------------------------------

template <class T> struct is_static_int : std::false_type {};
template <auto v> struct is_static_int<C<v>> : std::bool_constant<std::is_integral_v<decltype(v)>> {};

/// An integer in the algebra's sense: built-in integral or static integral constant.
template <class T>
concept Integral = std::is_integral_v<std::remove_cvref_t<T>> || is_static_int<std::remove_cvref_t<T>>::value;

template <class T>
concept StaticIntegral = is_static_int<std::remove_cvref_t<T>>::value;

/// True when T is the static integer N.
template <auto N, class T>
inline constexpr bool is_constant_v = [] {
  using U = std::remove_cvref_t<T>;
  if constexpr (is_static_int<U>::value || std::is_same_v<U, C<true>> || std::is_same_v<U, C<false>>)
    return U::value == N;
  else
    return false;
}();

// ---- Arithmetic between static integers stays static --------------------------------------

#define TESSEL_STATIC_BINARY_OP(OP)                                              \
  template <auto a, auto b>                                                      \
  TESSEL_HD constexpr C<(a OP b)> operator OP(C<a>, C<b>) noexcept { return {}; }
TESSEL_STATIC_BINARY_OP(+)
TESSEL_STATIC_BINARY_OP(-)
TESSEL_STATIC_BINARY_OP(*)
TESSEL_STATIC_BINARY_OP(/)
TESSEL_STATIC_BINARY_OP(%)
TESSEL_STATIC_BINARY_OP(==)
TESSEL_STATIC_BINARY_OP(!=)
TESSEL_STATIC_BINARY_OP(<)
TESSEL_STATIC_BINARY_OP(<=)
TESSEL_STATIC_BINARY_OP(>)
TESSEL_STATIC_BINARY_OP(>=)
TESSEL_STATIC_BINARY_OP(&&)
TESSEL_STATIC_BINARY_OP(||)
TESSEL_STATIC_BINARY_OP(&)
TESSEL_STATIC_BINARY_OP(|)
TESSEL_STATIC_BINARY_OP(^)
TESSEL_STATIC_BINARY_OP(<<)
TESSEL_STATIC_BINARY_OP(>>)
#undef TESSEL_STATIC_BINARY_OP

template <auto a> TESSEL_HD constexpr C<-a> operator-(C<a>) noexcept { return {}; }
template <auto a> TESSEL_HD constexpr C<!a> operator!(C<a>) noexcept { return {}; }

// ---- Integer functions: static in, static out ---------------------------------------------
// Each is written once over values and lifted: if every argument is static, the result is the
// static integer of the same value.

namespace detail {
template <class F, class... T>
TESSEL_HD constexpr auto lift_static(F f, T... t) {
  if constexpr ((StaticIntegral<T> && ...)) {
    return C<F{}(std::remove_cvref_t<T>::value...)>{};
  } else {
    return f(t...);
  }
}
}  // namespace detail

template <Integral A, Integral B>
TESSEL_HD constexpr auto min(A a, B b) {
  return detail::lift_static([](auto x, auto y) { return x < y ? x : y; }, a, b);
}
template <Integral A, Integral B>
TESSEL_HD constexpr auto max(A a, B b) {
  return detail::lift_static([](auto x, auto y) { return x < y ? y : x; }, a, b);
}
template <Integral A>
TESSEL_HD constexpr auto abs(A a) {
  return detail::lift_static([](auto x) { return x < 0 ? -x : x; }, a);
}
template <Integral A>
TESSEL_HD constexpr auto signum(A a) {
  return detail::lift_static([](auto x) { return decltype(x)((0 < x) - (x < 0)); }, a);
}
template <Integral A, Integral B>
TESSEL_HD constexpr auto gcd(A a, B b) {
  return detail::lift_static(
      [](auto x, auto y) {
        using R = decltype(x + y);
        R u = x < 0 ? -x : x, v = y < 0 ? -y : y;
        while (v != 0) { R t = u % v; u = v; v = t; }
        return u;
      },
      a, b);
}
template <Integral A, Integral B>
TESSEL_HD constexpr auto lcm(A a, B b) {
  return detail::lift_static(
      [](auto x, auto y) {
        using R = decltype(x + y);
        if (x == 0 || y == 0) return R(0);
        R u = x < 0 ? -x : x, v = y < 0 ? -y : y, p = u, q = v;
        while (q != 0) { R t = p % q; p = q; q = t; }
        return R(u / p * v);
      },
      a, b);
}
/// ceil(a / b) for positive b.
template <Integral A, Integral B>
TESSEL_HD constexpr auto ceil_div(A a, B b) {
  return detail::lift_static([](auto x, auto y) { return (x + y - 1) / y; }, a, b);
}

/// The quotient the algebra uses when it divides a shape by a stride or a shape by a shape:
/// a / b when b divides a, and 1 (with the sign of a*b) when a divides b.
/// @pre a % b == 0 or b % a == 0; for static arguments a violation is a compile error.
template <Integral A, Integral B>
TESSEL_HD constexpr auto shape_div(A a, B b) {
  if constexpr (StaticIntegral<A> && StaticIntegral<B>) {
    constexpr auto x = std::remove_cvref_t<A>::value;
    constexpr auto y = std::remove_cvref_t<B>::value;
    static_assert(y != 0 && (x % y == 0 || (x != 0 && y % x == 0)),
                  "shape_div: divisibility condition fails: neither operand divides the other "
                  "(a shape must be divisible by the stride or tile applied to it, or divide it)");
    return C<(x / y != 0 ? x / y : ((x < 0) != (y < 0) ? -1 : 1))>{};
  } else {
    auto q = a / b;
    return q != 0 ? q : decltype(q)(((a < 0) != (b < 0)) ? -1 : 1);
  }
}

/// a / b, asserted exact for static arguments.
template <Integral A, Integral B>
TESSEL_HD constexpr auto safe_div(A a, B b) {
  if constexpr (StaticIntegral<A> && StaticIntegral<B>) {
    static_assert(std::remove_cvref_t<A>::value % std::remove_cvref_t<B>::value == 0,
                  "safe_div: the divisor does not divide the dividend");
  }
  return a / b;
}

/// The static value of an integer type when it is static, else `fallback`.
template <class T, auto fallback>
inline constexpr auto static_value_or = [] {
  if constexpr (StaticIntegral<T>) return std::remove_cvref_t<T>::value;
  else return fallback;
}();

}  // namespace tessel
