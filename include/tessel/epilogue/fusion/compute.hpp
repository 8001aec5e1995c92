#pragma once
// Compute node: a functor applied to the values of one to three children.
//
//   Elementwise<Fn, A, B>(r, c, b) = fn(A(r, c, b), B(r, c, b))
//
// Children are visited left to right, each value converted to f32 first (a child may be a
// Convert to a narrower type, whose rounding then shows). The functor is stored in Arguments and
// Params, so it may carry run-time state (Clamp's bounds); a stateless one costs nothing to fill.
//
// Any callable with `TESSEL_HD float operator()(float...) const` works; a static `name()` gives
// it a readable part in the fusion's name ("fn" otherwise). The named nodes below are this with
// tessel's arithmetic functors:
//
//   Add<A, B>             a + b
//   Multiply<A, B>        a * b
//   MultiplyAdd<A, B, C>  a * b + c, rounded once (fmaf): host and device give the same bits
//
// Example: Add<Multiply<Scalar, Accumulator>, RowBroadcast<float>> with scalar 2, acc 3 and a
// bias of 0.5 at the element's column visits to 2 * 3 + 0.5 = 6.5.

#include <string>
#include <type_traits>
#include <utility>

#if !defined(__CUDACC_RTC__)
#include <cmath>
#endif

#include "tessel/epilogue/fusion/detail.hpp"

namespace tessel::epilogue::fusion {

template <class Fn, class... Children>
struct Elementwise {
  static_assert(sizeof...(Children) >= 1 && sizeof...(Children) <= 3,
                "Elementwise takes one to three children; nest nodes for longer expressions");
  using ElementOutput = float;
  using Arguments = detail::Pack<Fn, typename Children::Arguments...>;
  using Params = detail::Pack<Fn, typename Children::Params...>;
  static_assert(std::is_trivially_copyable_v<Params>, "a kernel takes Params by value: they must be trivially copyable");

 private:
  using Indices = std::make_integer_sequence<int, sizeof...(Children)>;

  template <int... Is>
  static Params to_params(Arguments const& a, std::integer_sequence<int, Is...>) {
    Params p{};
    ((detail::child<Is>(p) = Children::to_params(detail::child<Is>(a))), ...);
    p.fn = a.fn;
    return p;
  }
  template <int... Is>
  static StatusInfo can_implement(Arguments const& a, int m, int n, int l, std::integer_sequence<int, Is...>) {
    StatusInfo out;
    // The first failure wins: && stops the fold there.
    auto check = [&](StatusInfo s) {
      std::swap(out, s);
      return out.ok();
    };
    (void)(check(Children::can_implement(detail::child<Is>(a), m, n, l)) && ...);
    return out;
  }

 public:
  static Params to_params(Arguments const& a) { return to_params(a, Indices{}); }
  static StatusInfo can_implement(Arguments const& a, int m, int n, int l) { return can_implement(a, m, n, l, Indices{}); }
  static std::string name() { return detail::functor_name<Fn>() + ((std::string("_") + Children::name()) + ...); }

  class Callbacks {
   public:
    TESSEL_HD explicit Callbacks(Params const& p) : Callbacks(p, Indices{}) {}
    TESSEL_HD float visit(int row, int col, int batch, float acc) { return apply(row, col, batch, acc, Indices{}); }
    TESSEL_HD bool reads_source() const { return reads_source(Indices{}); }
    TESSEL_HD void finish() { finish(Indices{}); }

   private:
    detail::Pack<Fn, typename Children::Callbacks...> parts_;

    template <int... Is>
    TESSEL_HD Callbacks(Params const& p, std::integer_sequence<int, Is...>)
        : parts_{typename Children::Callbacks(detail::child<Is>(p))..., p.fn} {}
    template <int... Is>
    TESSEL_HD float apply(int row, int col, int batch, float acc, std::integer_sequence<int, Is...>) {
      // A braced list is evaluated left to right, so side effects below (stores, reductions)
      // happen in the order the children are written.
      const float v[] = {numeric_cast<float>(detail::child<Is>(parts_).visit(row, col, batch, acc))...};
      return parts_.fn(v[Is]...);
    }
    template <int... Is>
    TESSEL_HD bool reads_source(std::integer_sequence<int, Is...>) const {
      return (detail::reads_source(detail::child<Is>(parts_)) || ...);
    }
    template <int... Is>
    TESSEL_HD void finish(std::integer_sequence<int, Is...>) {
      (detail::child<Is>(parts_).finish(), ...);
    }
  };
};

// ---- Arithmetic functors -------------------------------------------------------------------------

struct Plus {
  static constexpr const char* name() { return "add"; }
  TESSEL_HD float operator()(float a, float b) const { return a + b; }
};
struct Multiplies {
  static constexpr const char* name() { return "mul"; }
  TESSEL_HD float operator()(float a, float b) const { return a * b; }
};
struct FusedMultiplyAdd {
  static constexpr const char* name() { return "fma"; }
  TESSEL_HD float operator()(float a, float b, float c) const { return fmaf(a, b, c); }
};

template <class A, class B>
using Add = Elementwise<Plus, A, B>;
template <class A, class B>
using Multiply = Elementwise<Multiplies, A, B>;
template <class A, class B, class C>
using MultiplyAdd = Elementwise<FusedMultiplyAdd, A, B, C>;

}  // namespace tessel::epilogue::fusion
