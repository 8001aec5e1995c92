#pragma once
// Layout = Shape:Stride, a function from coordinates to indices.
//
// A layout maps a coordinate c of its shape to the index inner_product(c, stride). It accepts
// 1-D coordinates (an integer in [0, size)), n-D coordinates (one integer per top-level mode)
// and hierarchical ones (congruent with the shape); all three name the same element:
//
//   L = (4,(2,3)):(2,(1,8))     L(5) == L(1,1) == L(1,(1,0)) == 2 + 1 == 3
//
// Shape and stride are stored in an empty-base tuple: a fully static layout is an empty type.

#include "int_tuple.hpp"

namespace tessel {

namespace detail {
/// False when a static leaf of the shape is < 1: a non-positive extent is a compile error.
template <class S>
constexpr bool static_extents_positive() {
  if constexpr (Tuple<S>) {
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return (static_extents_positive<tuple_element_t<I, S>>() && ...);
    }(make_seq<tuple_size_v<S>>{});
  } else if constexpr (StaticIntegral<S>) {
    return std::remove_cvref_t<S>::value >= 1;
  } else {
    return true;
  }
}
}  // namespace detail

template <class Shape, class Stride>
struct Layout : private tuple<Shape, Stride> {
  using shape_type = Shape;
  using stride_type = Stride;
  static constexpr int rank = rank_v<Shape>;

  static_assert(congruent<Shape, Stride>(), "Layout: shape and stride must have the same nesting");
  static_assert(detail::static_extents_positive<Shape>(), "Layout: every static extent of the shape must be >= 1");

  TESSEL_HD constexpr Layout() {}
  TESSEL_HD constexpr Layout(Shape const& s, Stride const& d) : tuple<Shape, Stride>(s, d) {}

  TESSEL_HD constexpr decltype(auto) shape() const { return get<0>(static_cast<tuple<Shape, Stride> const&>(*this)); }
  TESSEL_HD constexpr decltype(auto) stride() const { return get<1>(static_cast<tuple<Shape, Stride> const&>(*this)); }

  /// Evaluate at a coordinate, or slice when the coordinate holds an Underscore.
  template <class Coord>
  TESSEL_HD constexpr auto operator()(Coord const& c) const {
    if constexpr (has_underscore<Coord>()) return slice(c, *this);
    else return crd2idx(c, shape(), stride());
  }
  template <class C0, class C1, class... Cs>
  TESSEL_HD constexpr auto operator()(C0 const& c0, C1 const& c1, Cs const&... cs) const {
    return operator()(make_tuple(c0, c1, cs...));
  }
};

template <class T> struct is_layout : std::false_type {};
template <class S, class D> struct is_layout<Layout<S, D>> : std::true_type {};
template <class T>
concept LayoutType = is_layout<std::remove_cvref_t<T>>::value;

/// A coordinate, a shape or a stride built from integers: spelled as in CuTe.
template <class... T> TESSEL_HD constexpr auto make_shape(T const&... t) { return make_tuple(t...); }
template <class... T> TESSEL_HD constexpr auto make_stride(T const&... t) { return make_tuple(t...); }
template <class... T> TESSEL_HD constexpr auto make_coord(T const&... t) { return make_tuple(t...); }
template <class... T> using Shape = tuple<T...>;
template <class... T> using Stride = tuple<T...>;
template <class... T> using Coord = tuple<T...>;
template <class... T> using Step = tuple<T...>;
template <class... T> using Tile = tuple<T...>;

// ---- Construction -------------------------------------------------------------------------

/// make_layout(shape, stride); make_layout(shape) is column-major (LayoutLeft);
/// make_layout(shape, LayoutRight{}) is row-major.
template <IntTuple S, IntTuple D>
TESSEL_HD constexpr auto make_layout(S const& s, D const& d) {
  return Layout<S, D>(s, d);
}
template <IntTuple S>
TESSEL_HD constexpr auto make_layout(S const& s) {
  return make_layout(s, compact_major<LayoutLeft>(s));
}
template <IntTuple S, class Major>
  requires(std::is_same_v<Major, LayoutLeft> || std::is_same_v<Major, LayoutRight>)
TESSEL_HD constexpr auto make_layout(S const& s, Major) {
  return make_layout(s, compact_major<Major>(s));
}
/// Concatenate layouts as the modes of a new layout: make_layout(A, B) = (shape A, shape B):(stride A, stride B).
template <LayoutType... L>
  requires(sizeof...(L) >= 1)
TESSEL_HD constexpr auto make_layout(L const&... l) {
  return make_layout(make_shape(l.shape()...), make_stride(l.stride()...));
}

// ---- Accessors: on layouts and on IntTuples alike ---------------------------------------

/// The sub-tuple at mode I... (nested); mode 0 of an integer is the integer itself.
template <int... I, class T>
TESSEL_HD constexpr auto get_mode(T const& t) {
  if constexpr (sizeof...(I) == 0) {
    return t;
  } else {
    return [&]<int H, int... R>(std::integer_sequence<int, H, R...>) {
      if constexpr (Tuple<T>) {
        return get_mode<R...>(get<H>(t));
      } else {
        static_assert(H == 0, "mode index out of range: an integer has only mode 0");
        return get_mode<R...>(t);
      }
    }(std::integer_sequence<int, I...>{});
  }
}

template <int... I, class S, class D>
TESSEL_HD constexpr auto shape(Layout<S, D> const& l) { return get_mode<I...>(l.shape()); }
template <int... I, IntTuple T>
TESSEL_HD constexpr auto shape(T const& t) { return get_mode<I...>(t); }

template <int... I, class S, class D>
TESSEL_HD constexpr auto stride(Layout<S, D> const& l) { return get_mode<I...>(l.stride()); }

/// The sub-layout at mode I (of mode I... when nested): layout<1,0>(L).
template <int... I, class S, class D>
TESSEL_HD constexpr auto layout(Layout<S, D> const& l) {
  if constexpr (sizeof...(I) == 0) return l;
  else return make_layout(get_mode<I...>(l.shape()), get_mode<I...>(l.stride()));
}
/// get<I>(L) for a layout is its mode I as a layout.
template <std::size_t I, class S, class D>
TESSEL_HD constexpr auto get(Layout<S, D> const& l) {
  return layout<int(I)>(l);
}

template <int... I, class S, class D>
TESSEL_HD constexpr auto rank(Layout<S, D> const& l) { return rank(get_mode<I...>(l.shape())); }
template <int... I, class S, class D>
TESSEL_HD constexpr auto depth(Layout<S, D> const& l) { return depth(get_mode<I...>(l.shape())); }

/// Number of coordinates in the domain.
template <int... I, class S, class D>
TESSEL_HD constexpr auto size(Layout<S, D> const& l) { return product(get_mode<I...>(l.shape())); }
template <int... I, IntTuple T>
TESSEL_HD constexpr auto size(T const& t) { return product(get_mode<I...>(t)); }

/// One past the index of the last coordinate: L(size(L) - 1) + 1, the extent of memory a
/// layout with non-negative strides touches. cosize((4,2):(2,1)) = L(7) + 1 = 3*2 + 1*1 + 1 = 8.
template <int... I, class S, class D>
TESSEL_HD constexpr auto cosize(Layout<S, D> const& l) {
  auto sub = layout<I...>(l);
  return sub(size(sub) - Int<1>{}) + Int<1>{};
}

/// Select modes I... as a new layout: select<1,0>(L) swaps the two modes.
template <int... I, class S, class D>
TESSEL_HD constexpr auto select(Layout<S, D> const& l) {
  return make_layout(make_shape(get<I>(l.shape())...), make_stride(get<I>(l.stride())...));
}

template <class S, class D>
TESSEL_HD constexpr auto flatten(Layout<S, D> const& l) {
  return make_layout(flatten(l.shape()), flatten(l.stride()));
}

template <class S, class D, class S2 = Int<1>, class D2 = Int<0>>
TESSEL_HD constexpr auto append(Layout<S, D> const& l, Layout<S2, D2> const& x = {}) {
  return make_layout(append(l.shape(), x.shape()), append(l.stride(), x.stride()));
}
template <class S, class D, class S2 = Int<1>, class D2 = Int<0>>
TESSEL_HD constexpr auto prepend(Layout<S, D> const& l, Layout<S2, D2> const& x = {}) {
  return make_layout(prepend(l.shape(), x.shape()), prepend(l.stride(), x.stride()));
}
/// Pad to rank N with x (by default the trivial 1:0).
template <std::size_t N, class S, class D, class S2 = Int<1>, class D2 = Int<0>>
TESSEL_HD constexpr auto append(Layout<S, D> const& l, Layout<S2, D2> const& x = {}) {
  return make_layout(append<N>(l.shape(), x.shape()), append<N>(l.stride(), x.stride()));
}
template <std::size_t N, class S, class D, class S2 = Int<1>, class D2 = Int<0>>
TESSEL_HD constexpr auto prepend(Layout<S, D> const& l, Layout<S2, D2> const& x = {}) {
  return make_layout(prepend<N>(l.shape(), x.shape()), prepend<N>(l.stride(), x.stride()));
}

/// Gather modes [B, E) into one mode: group<0,2>((a,b,c):(x,y,z)) = ((a,b),c):((x,y),z).
template <std::size_t B, std::size_t E, class T>
TESSEL_HD constexpr auto group(T const& t) {
  if constexpr (LayoutType<T>) {
    return make_layout(group<B, E>(t.shape()), group<B, E>(t.stride()));
  } else {
    return tuple_cat(take<0, B>(t), make_tuple(take<B, E>(t)), take<E, tuple_size_v<T>>(t));
  }
}

// ---- Slicing --------------------------------------------------------------------------------

namespace detail {
// The modes of t selected by underscores in c, as a flat tuple.
template <class Crd, class T>
TESSEL_HD constexpr auto lift_slice(Crd const& c, T const& t) {
  if constexpr (Tuple<Crd>) {
    static_assert(Tuple<T> && tuple_size_v<Crd> == tuple_size_v<T>, "slice: the coordinate's rank does not match the layout's");
    return filter_tuple(c, t, [](auto const& ci, auto const& ti) { return lift_slice(ci, ti); });
  } else if constexpr (std::is_same_v<Crd, Underscore>) {
    return make_tuple(t);
  } else {
    return tuple<>{};
  }
}
// The coordinate with each Underscore replaced by 0.
template <class Crd>
TESSEL_HD constexpr auto underscore_to_zero(Crd const& c) {
  if constexpr (Tuple<Crd>) return transform(c, [](auto const& e) { return underscore_to_zero(e); });
  else if constexpr (std::is_same_v<Crd, Underscore>) return Int<0>{};
  else return c;
}
}  // namespace detail

/// The modes of an IntTuple that the coordinate leaves free.
template <class Crd, class T>
  requires(!LayoutType<T>)
TESSEL_HD constexpr auto slice(Crd const& c, T const& t) {
  if constexpr (Tuple<Crd>) return detail::lift_slice(c, t);
  else if constexpr (std::is_same_v<Crd, Underscore>) return t;
  else return tuple<>{};
}
/// The sub-layout left free by the coordinate's underscores: slice((_,2), (4,8):(1,4)) = (4):(1).
template <class Crd, class S, class D>
TESSEL_HD constexpr auto slice(Crd const& c, Layout<S, D> const& l) {
  return make_layout(slice(c, l.shape()), slice(c, l.stride()));
}
/// The slice and the offset of the fixed part: L(c) = offset + slice(c_free).
template <class Crd, class S, class D>
TESSEL_HD constexpr auto slice_and_offset(Crd const& c, Layout<S, D> const& l) {
  return make_tuple(slice(c, l), crd2idx(detail::underscore_to_zero(c), l.shape(), l.stride()));
}

template <class Idx, class S, class D>
TESSEL_HD constexpr auto crd2idx(Idx const& c, Layout<S, D> const& l) {
  return crd2idx(c, l.shape(), l.stride());
}

}  // namespace tessel
