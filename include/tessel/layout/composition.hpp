#pragma once
// Functional composition of layouts: R = A o B, R(c) = A(B(c)).

#include "coalesce.hpp"

namespace tessel {

namespace detail {

// Which divisibility condition a static composition breaks, found by running the algorithm
// below on values first: 0 none, 1 stride divisibility, 2 shape divisibility. Checking up front
// lets a bad composition fail with one message that names its rule.
template <class LS, class RS, class RD>
constexpr int composition_violation() {
  if constexpr (!(is_static_v<LS> && StaticIntegral<RS> && StaticIntegral<RD>)) {
    return 0;  // dynamic sizes are the caller's responsibility, as in any index arithmetic
  } else {
    constexpr std::size_t R = tuple_size_v<LS>;
    auto divides_either = [](long long a, long long b) { return (b != 0 && a % b == 0) || (a != 0 && b % a == 0); };
    auto sdiv = [](long long a, long long b) { long long q = a / b; return q != 0 ? q : 1LL; };
    long long shapes[R] = {};
    [&]<std::size_t... I>(std::index_sequence<I...>) { ((shapes[I] = (long long)tuple_element_t<I, LS>::value), ...); }(make_seq<R>{});
    long long rest = RD::value;
    for (std::size_t i = 0; i + 1 < R; ++i) {
      if (!divides_either(shapes[i], rest)) return 1;
      long long s1 = sdiv(shapes[i], rest);
      rest = sdiv(rest, shapes[i]);
      shapes[i] = s1;
    }
    long long take = RS::value;
    for (std::size_t i = 0; i + 1 < R; ++i) {
      if (!divides_either(take, shapes[i])) return 2;
      take = sdiv(take, shapes[i]);
    }
    return 0;
  }
}

// A (coalesced: an integer or a flat tuple) composed with one leaf mode rs:rd of B.
template <class LS, class LD, class RS, class RD>
TESSEL_HD constexpr auto compose_leaf(LS const& ls, LD const& ld, RS const& rs, RD const& rd) {
  if constexpr (is_constant_v<0, RD>) {
    return make_layout(rs, rd);  // B revisits one element of A: so does the result
  } else if constexpr (!Tuple<LS>) {
    return make_layout(rs, rd * ld);  // A is a single mode, infinite past its end
  } else if constexpr (constexpr int v = composition_violation<LS, RS, RD>(); v != 0) {
    static_assert(v != 1, "composition: stride divisibility condition fails: a stride of B must divide, or be "
                          "divisible by, the sizes of the leading modes of A it steps over");
    static_assert(v != 2, "composition: shape divisibility condition fails: a size of B must divide, or be "
                          "divisible by, the sizes of the modes of A it covers");
    return make_layout(rs, rd);  // not reached: keeps the compiler from piling on further errors
  } else {
    constexpr std::size_t R = tuple_size_v<LS>;
    auto head_s = take<0, R - 1>(ls);
    auto head_d = take<0, R - 1>(ld);
    // Step over rd elements of A: the leading modes consumed by the stride shrink to the part
    // B actually visits (s_i / rest), and their strides grow by the factor removed.
    auto stepped = fold(head_s, make_tuple(tuple<>{}, rd), [](auto const& acc, auto const& si) {
      return make_tuple(append(get<0>(acc), shape_div(si, get<1>(acc))), shape_div(get<1>(acc), si));
    });
    auto s1 = get<0>(stepped);
    auto rest_stride = get<1>(stepped);
    auto d1 = transform(head_d, head_s, s1, [](auto const& d, auto const& s, auto const& t) { return d * shape_div(s, t); });
    // Then take rs elements from the modes that remain, front to back.
    auto taken = fold(s1, make_tuple(tuple<>{}, rs), [](auto const& acc, auto const& si) {
      return make_tuple(append(get<0>(acc), min(si, get<1>(acc))), shape_div(get<1>(acc), si));
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
/// @pre the stride and shape divisibility conditions (checked at compile time for static layouts)
/// @post compatible(shape(B), shape(R)); R(c) == A(B(c))
///   composition((6,2):(8,2), (4,3):(3,1)) = ((2,2),3):((24,2),8)
///   whose twelve indices are 0 24 2 26 8 32 10 34 16 40 18 42.
template <class LS, class LD, class RS, class RD>
TESSEL_HD constexpr auto composition(Layout<LS, LD> const& a, Layout<RS, RD> const& b) {
  auto flat = detail::coalesce_x(a);
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
