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

namespace detail {

// The padded-divide rule (admissibility.hpp) on static values: coalesced A's flat extents FS and
// strides FD, A's size N, B's shape TS, and the shape and stride of the tiler (B, B*). Anything
// dynamic leaves the divide to composition, whose own rule then applies.
template <class FS, class FD, class N, class TS, class BS, class BD>
constexpr layout_rules::PaddedDivideVerdict static_padded_divide_verdict() {
  using WA = decltype(wrap(FS{}));
  using WE = decltype(wrap(FD{}));
  using WT = decltype(wrap(flatten(TS{})));
  using WS = decltype(wrap(flatten(BS{})));
  using WD = decltype(wrap(flatten(BD{})));
  layout_rules::PaddedDivideVerdict v{};
  if constexpr (!(is_static_v<WA> && is_static_v<WE> && StaticIntegral<N> && is_static_v<WS> && is_static_v<WD>)) {
    v.fault = layout_rules::PaddedDivideFault::composition_fault;
    return v;
  } else {
    constexpr std::size_t R = tuple_size_v<WA>, K = tuple_size_v<WS>;
    std::int64_t a[R] = {}, e[R] = {}, n[K] = {}, d[K] = {};
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((a[I] = tuple_element_t<I, WA>::value, e[I] = tuple_element_t<I, WE>::value), ...);
    }(make_seq<R>{});
    [&]<std::size_t... J>(std::index_sequence<J...>) {
      ((n[J] = tuple_element_t<J, WS>::value, d[J] = tuple_element_t<J, WD>::value), ...);
    }(make_seq<K>{});
    return layout_rules::padded_divide_verdict(a, e, int(R), N::value, n, d, int(tuple_size_v<WT>), int(K));
  }
}

template <class FS, class FD, class N, class TS, class BS, class BD>
TESSEL_HD constexpr void check_padded_divide() {
  using layout_rules::PaddedDivideFault;
  constexpr auto v = static_padded_divide_verdict<FS, FD, N, TS, BS, BD>();
  static_assert(v.fault != PaddedDivideFault::padded_composition,
                "logical_divide: the tiler does not divide A, and CuTe 4.7's padded answer (a mode of coalesced A "
                "widened to a multiple of the tiler's extent) is no divide: (B, B*) does not compose with the "
                "widened A either");
  static_assert(v.fault != PaddedDivideFault::tiler_not_bijective,
                "logical_divide: the tiler does not divide A, and (B, B*) is not one-to-one onto the widened A's "
                "domain, so CuTe 4.7's padded answer would not cover A once");
  static_assert(v.fault != PaddedDivideFault::negative_stride,
                "logical_divide: the tiler does not divide A, and a negative stride of A leaves open whether CuTe "
                "4.7's padding is A's last mode extended");
  static_assert(v.fault != PaddedDivideFault::padding_off_extension,
                "logical_divide: the tiler does not divide A, and CuTe 4.7's padded answer reaches offsets that A's "
                "extended last mode never does (no k <= extent of the widened mode makes k * its stride a multiple "
                "of A's last stride)");
  static_assert(v.fault != PaddedDivideFault::padding_repeats,
                "logical_divide: the tiler does not divide A, and CuTe 4.7's padded answer repeats an offset (or is "
                "not shown not to) though A reaches each of its offsets once");
}

}  // namespace detail

/// logical_divide(A, B) = A o (B, complement(B, shape(coalesce(A)))) (CuTe 4.7: the complement
/// is taken against A's coalesced shape, so the rest mode covers all of A): mode 0 walks the
/// elements that B selects (one tile), mode 1 walks the tiles. A tuple tiler divides by mode.
/// Where the tiler does not divide A, (B, B*) may not compose with A; the answer is then CuTe
/// 4.7's padded one, A with one mode widened composed with (B, B*), where the padded-divide rule
/// of admissibility.hpp shows it a divide, and a compile error where it does not.
/// @post layout<0>(result) == A o B
/// @post size(result) == size(A) when B tiles A evenly, every A(i) covered exactly once; else A
///       is padded along its extended last mode: every A(i) covered, each offset not A's one of
///       A's last mode extended, and no offset twice where A has none twice (padded answers)
///   logical_divide((8,2,6):(1,8,16), 6:2) = (6,(2,8)):(2,(1,12))
///   logical_divide((4,2,3):(2,1,8), 4:2) = ((2,2),(2,3)):((4,1),(2,8))
///   logical_divide((5,2):(2,1), 4:1) = (4,(2,2)):(2,(8,1)): (4,4):(1,4) does not compose with
///     (5,2) (the rest mode 4:4 runs past 5), but with (8,2):(2,1) it does; offsets 0..15
template <class S, class D, class TS, class TD>
TESSEL_HD constexpr auto logical_divide(Layout<S, D> const& a, Layout<TS, TD> const& b) {
  auto tiler = make_layout(b, complement(b, coalesce(a).shape()));
  auto flat = detail::coalesce_x(a);
  using FS = std::remove_cvref_t<decltype(flat.shape())>;
  using FD = std::remove_cvref_t<decltype(flat.stride())>;
  using BS = std::remove_cvref_t<decltype(tiler.shape())>;
  using BD = std::remove_cvref_t<decltype(tiler.stride())>;
  using N = std::remove_cvref_t<decltype(size(a))>;
  if constexpr (detail::static_composition_verdict<FS, BS, BD>().ok() ||
                detail::static_padded_divide_verdict<FS, FD, N, TS, BS, BD>().fault ==
                    layout_rules::PaddedDivideFault::composition_fault) {
    return composition(a, tiler);  // exact, or refused with the composition's own condition
  } else {
    detail::check_padded_divide<FS, FD, N, TS, BS, BD>();
    return detail::compose(flat.shape(), flat.stride(), tiler.shape(), tiler.stride());  // CuTe's construction
  }
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
