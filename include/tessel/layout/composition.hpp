#pragma once
// Functional composition of layouts: R = A o B, R(c) = A(B(c)).

#include "admissibility.hpp"
#include "coalesce.hpp"

namespace tessel {

namespace detail {

// The admissibility rule (admissibility.hpp) on static values: the flat extents of coalesced
// A and the flat leaves of B. A dynamic extent, size or stride leaves the pair to the caller,
// as any index arithmetic on dynamic values is.
template <class LS, class RS, class RD>
constexpr layout_rules::CompositionVerdict static_composition_verdict() {
  using FA = decltype(wrap(LS{}));
  using FS = decltype(wrap(flatten(RS{})));
  using FD = decltype(wrap(flatten(RD{})));
  if constexpr (!(is_static_v<FA> && is_static_v<FS> && is_static_v<FD>)) {
    return {};
  } else {
    constexpr std::size_t R = tuple_size_v<FA>, K = tuple_size_v<FS>;
    std::int64_t a[R] = {}, n[K] = {}, d[K] = {};
    [&]<std::size_t... I>(std::index_sequence<I...>) { ((a[I] = tuple_element_t<I, FA>::value), ...); }(make_seq<R>{});
    [&]<std::size_t... J>(std::index_sequence<J...>) {
      ((n[J] = tuple_element_t<J, FS>::value, d[J] = tuple_element_t<J, FD>::value), ...);
    }(make_seq<K>{});
    return layout_rules::composition_verdict(a, int(R), n, d, int(K));
  }
}

template <class LS, class RS, class RD>
TESSEL_HD constexpr void check_composition() {
  using layout_rules::CompositionFault;
  constexpr auto v = static_composition_verdict<LS, RS, RD>();
  static_assert(v.fault != CompositionFault::negative_stride,
                "composition: a negative stride of B is not supported when A has several modes");
  static_assert(v.fault != CompositionFault::stride_divisibility,
                "composition: stride divisibility condition fails: a stride of B left after the modes of A it "
                "steps over must divide the next mode of A, or B must fit inside that mode");
  static_assert(v.fault != CompositionFault::shape_divisibility,
                "composition: shape divisibility condition fails: the elements of B left must fit in the next "
                "mode of A or be a multiple of its size");
  static_assert(v.fault != CompositionFault::carry,
                "composition: the modes of B carry: their largest digits in a mode of coalesced A sum past its "
                "size, so A(B(c)) is not the sum of A over B's modes");
}

// One step through mode s of A of what is left of B's stride: the elements of s B visits
// (1 where it steps over s whole; ceil(s / rest) where B lands in s or fits inside it), the
// factor by which the mode's stride grows, and the stride left for the modes after it.
template <class S, class Rest>
TESSEL_HD constexpr auto stride_step(S const& s, Rest const& rest) {
  auto visited = detail::lift_static([](auto x, auto r) { return r % x == 0 ? decltype(x)(1) : (x + r - 1) / r; }, s, rest);
  auto left = detail::lift_static([](auto x, auto r) { return r % x == 0 ? r / x : decltype(r)(1); }, s, rest);
  return make_tuple(visited, min(s, rest), left);
}

// What is left of B's size after a mode of t elements: 1 when it fits, else n / t (t divides n).
template <class N, class T>
TESSEL_HD constexpr auto size_left(N const& n, T const& t) {
  return detail::lift_static([](auto x, auto y) { return x <= y ? decltype(x)(1) : x / y; }, n, t);
}

// A (coalesced: an integer or a flat tuple) composed with one leaf mode rs:rd of B, for a pair
// the admissibility rule accepts.
template <class LS, class LD, class RS, class RD>
TESSEL_HD constexpr auto compose_leaf(LS const& ls, LD const& ld, RS const& rs, RD const& rd) {
  if constexpr (is_constant_v<0, RD>) {
    return make_layout(rs, rd);  // B revisits one element of A: so does the result
  } else if constexpr (!Tuple<LS>) {
    return make_layout(rs, rd * ld);  // A is a single mode, infinite past its end
  } else {
    constexpr std::size_t R = tuple_size_v<LS>;
    auto head_s = take<0, R - 1>(ls);
    auto head_d = take<0, R - 1>(ld);
    // Step over rd elements of A: the leading modes consumed by the stride shrink to the part
    // B actually visits, and their strides grow by the factor removed.
    auto stepped = fold(head_s, make_tuple(tuple<>{}, tuple<>{}, rd), [](auto const& acc, auto const& si) {
      auto step = stride_step(si, get<2>(acc));
      return make_tuple(append(get<0>(acc), get<0>(step)), append(get<1>(acc), get<1>(step)), get<2>(step));
    });
    auto s1 = get<0>(stepped);
    auto rest_stride = get<2>(stepped);
    auto d1 = transform(head_d, get<1>(stepped), [](auto const& d, auto const& f) { return d * f; });
    // Then take rs elements from the modes that remain, front to back.
    auto taken = fold(s1, make_tuple(tuple<>{}, rs), [](auto const& acc, auto const& si) {
      return make_tuple(append(get<0>(acc), min(si, get<1>(acc))), size_left(get<1>(acc), si));
    });
    auto s2 = get<0>(taken);
    auto rest_shape = get<1>(taken);
    // Whatever is left of B lands in A's last mode, which extends without bound.
    return coalesce_modes<int(R) - 2>(s2, d1, rest_shape, rest_stride * get<R - 1>(ld));
  }
}

template <class LS, class LD, class RS, class RD>
TESSEL_HD constexpr auto compose(LS const& ls, LD const& ld, RS const& rs, RD const& rd) {
  if constexpr (Tuple<RS>) {
    // Composition distributes over the modes of B, so the result keeps B's nesting.
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return make_layout(compose(ls, ld, get<I>(rs), get<I>(rd))...);
    }(make_seq<tuple_size_v<RS>>{});
  } else {
    return compose_leaf(ls, ld, rs, rd);
  }
}

}  // namespace detail

/// R = A o B: the layout with B's domain such that R(c) == A(B(c)) for every coordinate c of B.
/// CuTe 4.7's algorithm held to the admissibility rule of admissibility.hpp.
/// @pre the rule holds (a compile error for static layouts): stride and shape conditions per
///      leaf of B, and no carry between B's leaves, e.g. (6,2):(1,8) o (2,3):(3,2) is refused
///      and composition((4,6,8,10):(2,3,5,7), 6:12) = (2,3):(9,5)
/// @post compatible(shape(B), shape(R)); R(c) == A(B(c))
///   composition((6,2):(8,2), (4,3):(3,1)) = ((2,2),3):((24,2),8)
///   whose twelve indices are 0 24 2 26 8 32 10 34 16 40 18 42.
template <class LS, class LD, class RS, class RD>
TESSEL_HD constexpr auto composition(Layout<LS, LD> const& a, Layout<RS, RD> const& b) {
  auto flat = detail::coalesce_x(a);
  detail::check_composition<std::remove_cvref_t<decltype(flat.shape())>, RS, RD>();
  return detail::compose(flat.shape(), flat.stride(), b.shape(), b.stride());
}

/// Composition with a tiler: a tuple applies by mode (A's modes past the tiler are dropped),
/// an integer n means n:1, and an Underscore leaves A alone.
///   composition((12,(4,8)):(59,(13,1)), (3, 8:4)) = (3:59, (2,4):(13,1)) -- see the tests
template <class LS, class LD, class Tiler>
  requires(!LayoutType<Tiler>)
TESSEL_HD constexpr auto composition(Layout<LS, LD> const& a, Tiler const& t) {
  if constexpr (Tuple<Tiler>) {
    static_assert(tuple_size_v<Tiler> <= std::size_t(rank_v<LS>), "composition: the tiler has more modes than the layout");
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return make_layout(composition(layout<int(I)>(a), get<I>(t))...);
    }(make_seq<tuple_size_v<Tiler>>{});
  } else if constexpr (std::is_same_v<Tiler, Underscore>) {
    return a;
  } else {
    static_assert(Integral<Tiler>, "composition: the right operand must be a layout, a tuple tiler, an integer or _");
    return composition(a, make_layout(t, Int<1>{}));
  }
}

}  // namespace tessel
