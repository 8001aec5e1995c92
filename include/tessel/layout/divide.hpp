#pragma once
// Divides: split a layout into "inside a tile" and "which tile".

#include "inverse.hpp"

namespace tessel {

namespace detail {
// ((a0,b0),(a1,b1),...) -> ((a0,a1,...),(b0,b1,...)) following the profile of the tiler: each
// terminal of the tiler marks a rank-2 mode of t to split; t's modes past the tiler go with the b's.
template <class T, class G>
TESSEL_HD constexpr auto zip2_by(T const& t, G const& g) {
  if constexpr (Tuple<G>) {
    constexpr std::size_t RG = tuple_size_v<G>, RT = tuple_size_v<T>;
    static_assert(RG <= RT, "tiler has more modes than the layout");
    auto split = [&]<std::size_t... I>(std::index_sequence<I...>) {
      return make_tuple(zip2_by(get<I>(t), get<I>(g))...);
    }(make_seq<RG>{});
    auto firsts = transform(split, [](auto const& p) { return get<0>(p); });
    auto seconds = transform(split, [](auto const& p) { return get<1>(p); });
    return make_tuple(firsts, tuple_cat(seconds, take<RG, RT>(t)));
  } else {
    static_assert(tuple_size_v<T> == 2, "zip2_by: a terminal of the tiler must meet a rank-2 mode");
    return t;
  }
}
}  // namespace detail

/// Regroup a layout whose modes are (tile, rest) pairs into ((tiles...), (rests...)).
template <class S, class D, class Tiler>
TESSEL_HD constexpr auto tile_unzip(Layout<S, D> const& l, Tiler const& t) {
  return make_layout(detail::zip2_by(l.shape(), t), detail::zip2_by(l.stride(), t));
}

/// logical_divide(A, B) = A o (B, complement(B, shape(coalesce(A)))) (CuTe 4.7: the complement
/// is taken against A's coalesced shape, so the rest mode covers all of A): mode 0 walks the
/// elements that B selects (one tile), mode 1 walks the tiles. A tuple tiler divides by mode.
/// @post size(result) == size(A) when B tiles A evenly, every A(i) covered exactly once; else A
///       is padded along its extended last mode; layout<0>(result) == A o B
///   logical_divide((8,2,6):(1,8,16), 6:2) = (6,(2,8)):(2,(1,12))
///   logical_divide((4,2,3):(2,1,8), 4:2) = ((2,2),(2,3)):((4,1),(2,8))
template <class S, class D, class TS, class TD>
TESSEL_HD constexpr auto logical_divide(Layout<S, D> const& a, Layout<TS, TD> const& b) {
  return composition(a, make_layout(b, complement(b, coalesce(a).shape())));
}
template <class S, class D, class Tiler>
  requires(!LayoutType<Tiler>)
TESSEL_HD constexpr auto logical_divide(Layout<S, D> const& a, Tiler const& t) {
  if constexpr (Tuple<Tiler>) {
    return transform_layout(a, t, [](auto const& m, auto const& ti) { return logical_divide(m, ti); });
  } else if constexpr (std::is_same_v<Tiler, Underscore>) {
    return a;
  } else {
    static_assert(Integral<Tiler>, "logical_divide: the tiler must be a layout, a tuple, an integer or _");
    return logical_divide(a, make_layout(t, Int<1>{}));
  }
}

/// ((tile modes...), (rest modes...)): the form to index as (element in tile, tile).
///   zipped_divide((256,128):(128,1), (16,16)) = ((16,16),(16,8)):((128,1),(2048,16))
template <class S, class D, class Tiler>
TESSEL_HD constexpr auto zipped_divide(Layout<S, D> const& a, Tiler const& t) {
  return tile_unzip(logical_divide(a, t), t);
}
/// ((tile modes...), rest0, rest1, ...)
template <class S, class D, class Tiler>
TESSEL_HD constexpr auto tiled_divide(Layout<S, D> const& a, Tiler const& t) {
  auto z = zipped_divide(a, t);
  return z(Underscore{}, repeat<std::size_t(rank_v<decltype(shape<1>(z))>)>(Underscore{}));
}
/// (tile0, tile1, ..., rest0, rest1, ...)
template <class S, class D, class Tiler>
TESSEL_HD constexpr auto flat_divide(Layout<S, D> const& a, Tiler const& t) {
  auto z = zipped_divide(a, t);
  return z(repeat<std::size_t(rank_v<decltype(shape<0>(z))>)>(Underscore{}), repeat<std::size_t(rank_v<decltype(shape<1>(z))>)>(Underscore{}));
}

}  // namespace tessel
