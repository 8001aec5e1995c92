#pragma once
// Swizzle<B,M,S> and ComposedLayout: the non-linear index maps that shared-memory tiles use.
//
// Swizzle<B,M,S> XORs B bits of an offset, taken from bit position M + S upward, into the B bits
// from position M upward:
//     f(x) = x ^ ((x & yyy) >> S),   yyy = ((1 << B) - 1) << (M + S)
// With M = log2(elements per 16-byte chunk) it permutes 16-byte chunks within each row of
// 2^(B+M+S)... elements, so that the rows a warp reads with ldmatrix fall into distinct banks.
//   Swizzle<3,3,3> on bf16 (8 elements per 16 bytes): chunk c of row r lands at chunk c ^ (r % 8).
// A ComposedLayout outer o offset o inner evaluates c -> outer(offset + inner(c)): a layout
// (inner) followed by a swizzle (outer), the form a swizzled shared-memory tile takes.

#include "print.hpp"
#include "recast.hpp"

namespace tessel {

template <int B, int M, int S>
struct Swizzle {
  static_assert(B >= 0 && M >= 0, "Swizzle<B,M,S>: B and M must be non-negative");
  static_assert(S >= B || S <= -B, "Swizzle<B,M,S>: |S| must be at least B so the bit fields do not overlap");
  static constexpr int num_bits = B, num_base = M, num_shift = S;
  static constexpr long long bit_mask = (1LL << B) - 1;
  static constexpr long long yyy_mask = bit_mask << (M + (S > 0 ? S : 0));
  static constexpr long long zzz_mask = bit_mask << (M - (S < 0 ? S : 0));

  template <Integral T>
  TESSEL_HD constexpr auto operator()(T const& x) const {
    if constexpr (StaticIntegral<T>) {
      return C<apply(T::value)>{};
    } else {
      return T(apply((long long)x));
    }
  }
  TESSEL_HD static constexpr long long apply(long long x) {
    long long y = x & yyy_mask;
    return x ^ (S >= 0 ? (y >> S) : (y << -S));
  }
};

template <class T> struct is_swizzle : std::false_type {};
template <int B, int M, int S> struct is_swizzle<Swizzle<B, M, S>> : std::true_type {};

template <class Outer, class Offset, class Inner>
struct ComposedLayout : private tuple<Outer, Offset, Inner> {
  using base = tuple<Outer, Offset, Inner>;
  static constexpr int rank = Inner::rank;
  TESSEL_HD constexpr ComposedLayout() {}
  TESSEL_HD constexpr ComposedLayout(Outer const& o, Offset const& off, Inner const& i) : base(o, off, i) {}

  TESSEL_HD constexpr auto outer() const { return get<0>(static_cast<base const&>(*this)); }
  TESSEL_HD constexpr auto offset() const { return get<1>(static_cast<base const&>(*this)); }
  TESSEL_HD constexpr auto inner() const { return get<2>(static_cast<base const&>(*this)); }
  TESSEL_HD constexpr auto shape() const { return inner().shape(); }

  template <class Coord>
  TESSEL_HD constexpr auto operator()(Coord const& c) const {
    if constexpr (has_underscore<Coord>()) {
      auto [sub, off] = slice_and_offset(c, inner());
      return ComposedLayout<Outer, decltype(offset() + off), decltype(sub)>(outer(), offset() + off, sub);
    } else {
      return outer()(offset() + inner()(c));
    }
  }
  template <class C0, class C1, class... Cs>
  TESSEL_HD constexpr auto operator()(C0 const& c0, C1 const& c1, Cs const&... cs) const {
    return operator()(make_tuple(c0, c1, cs...));
  }
};

template <class T> struct is_composed_layout : std::false_type {};
template <class O, class F, class I> struct is_composed_layout<ComposedLayout<O, F, I>> : std::true_type {};
template <class T>
concept ComposedLayoutType = is_composed_layout<std::remove_cvref_t<T>>::value;

template <class O, class F, class I>
TESSEL_HD constexpr auto make_composed_layout(O const& o, F const& f, I const& i) {
  return ComposedLayout<O, F, I>(o, f, i);
}

/// A swizzle applied after a layout: the result maps c to swz(L(c)).
template <int B, int M, int S, class Sh, class D>
TESSEL_HD constexpr auto composition(Swizzle<B, M, S> const& swz, Layout<Sh, D> const& l) {
  return make_composed_layout(swz, Int<0>{}, l);
}
/// Reshaping a composed layout reshapes its inner layout; the swizzle still applies last.
template <class O, class F, class I, class Tiler>
TESSEL_HD constexpr auto composition(ComposedLayout<O, F, I> const& c, Tiler const& t) {
  return make_composed_layout(c.outer(), c.offset(), composition(c.inner(), t));
}

template <int... N, class O, class F, class I>
TESSEL_HD constexpr auto shape(ComposedLayout<O, F, I> const& c) { return get_mode<N...>(c.shape()); }
template <int... N, class O, class F, class I>
TESSEL_HD constexpr auto size(ComposedLayout<O, F, I> const& c) { return size<N...>(c.inner()); }
template <int... N, class O, class F, class I>
TESSEL_HD constexpr auto rank(ComposedLayout<O, F, I> const& c) { return rank<N...>(c.inner()); }
template <class O, class F, class I>
TESSEL_HD constexpr auto cosize(ComposedLayout<O, F, I> const& c) { return cosize(c.inner()); }

template <class O, class F, class I, class Tiler>
TESSEL_HD constexpr auto logical_divide(ComposedLayout<O, F, I> const& c, Tiler const& t) {
  return make_composed_layout(c.outer(), c.offset(), logical_divide(c.inner(), t));
}
template <class O, class F, class I, class Tiler>
TESSEL_HD constexpr auto zipped_divide(ComposedLayout<O, F, I> const& c, Tiler const& t) {
  return make_composed_layout(c.outer(), c.offset(), zipped_divide(c.inner(), t));
}
template <class O, class F, class I, class Target, class Order = LayoutLeft>
TESSEL_HD constexpr auto tile_to_shape(ComposedLayout<O, F, I> const& c, Target const& t, Order const& o = {}) {
  return make_composed_layout(c.outer(), c.offset(), tile_to_shape(c.inner(), t, o));
}
template <class Crd, class O, class F, class I>
TESSEL_HD constexpr auto slice_and_offset(Crd const& crd, ComposedLayout<O, F, I> const& c) {
  return make_tuple(c(crd), Int<0>{});  // the offset stays inside: a swizzle is not linear
}

#if !defined(__CUDACC_RTC__)
template <int B, int M, int S>
std::string to_string(Swizzle<B, M, S> const&) {
  return "Sw<" + std::to_string(B) + "," + std::to_string(M) + "," + std::to_string(S) + ">";
}
template <class O, class F, class I>
std::string to_string(ComposedLayout<O, F, I> const& c) {
  return to_string(c.outer()) + " o " + to_string(c.offset()) + " o " + to_string(c.inner());
}
#endif

}  // namespace tessel
