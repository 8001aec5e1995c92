#pragma once
// IntTuple: an integer or a tuple of IntTuples. Shapes, strides and coordinates are IntTuples.
//
//   rank((4,(2,3)))  = 2        depth((4,(2,3))) = 2      size((4,(2,3))) = 24
//   flatten((4,(2,3))) = (4,2,3)

#include "integer.hpp"
#include "tuple.hpp"
#include "tuple_algorithms.hpp"

namespace tessel {

/// Marks a whole mode in a coordinate: layout(_, 3) keeps mode 0 and fixes mode 1 at 3.
struct Underscore {};
TESSEL_INLINE_CONSTANT Underscore _{};

template <class T>
concept IntTuple = Integral<T> || Tuple<T>;

// ---- Static-ness ---------------------------------------------------------------------------

template <class T> struct is_static : std::is_empty<std::remove_cvref_t<T>> {};
template <class T> inline constexpr bool is_static_v = is_static<T>::value;

// ---- Rank, depth, size -------------------------------------------------------------------

/// Number of top-level modes: Int<1> for an integer.
template <class T>
TESSEL_HD constexpr auto rank(T const&) {
  if constexpr (Tuple<T>) return Int<int(tuple_size_v<T>)>{};
  else return Int<1>{};
}
template <int I, class T>
TESSEL_HD constexpr auto rank(T const& t) {
  return rank(get<I>(t));
}
template <class T> inline constexpr int rank_v = decltype(rank(std::declval<T>()))::value;

/// Nesting depth: 0 for an integer, 1 for a flat tuple.
template <class T>
TESSEL_HD constexpr auto depth(T const& t) {
  if constexpr (Tuple<T>) {
    return fold(t, Int<1>{}, [](auto d, auto const& e) { return max(d, Int<1>{} + depth(e)); });
  } else {
    return Int<0>{};
  }
}

/// Product of all leaves.
template <class T>
TESSEL_HD constexpr auto product(T const& t) {
  if constexpr (Tuple<T>) return fold(t, Int<1>{}, [](auto p, auto const& e) { return p * product(e); });
  else return t;
}
/// Sum of all leaves.
template <class T>
TESSEL_HD constexpr auto sum(T const& t) {
  if constexpr (Tuple<T>) return fold(t, Int<0>{}, [](auto p, auto const& e) { return p + sum(e); });
  else return t;
}
/// The product of each top-level mode: product_each((2,(3,4))) = (2,12).
template <class T>
TESSEL_HD constexpr auto product_each(T const& t) {
  return transform(wrap(t), [](auto const& e) { return product(e); });
}
/// Sum over leaves of a_i * b_i, for congruent a and b.
template <class A, class B>
TESSEL_HD constexpr auto inner_product(A const& a, B const& b) {
  if constexpr (Tuple<A>) {
    static_assert(tuple_size_v<A> == tuple_size_v<B>, "inner_product: mismatched ranks");
    return fold(transform(a, b, [](auto const& x, auto const& y) { return inner_product(x, y); }), Int<0>{},
                [](auto s, auto v) { return s + v; });
  } else {
    return a * b;
  }
}
/// Leafwise a * b, where b may be coarser than a.
template <class A, class B>
TESSEL_HD constexpr auto elem_scale(A const& a, B const& b) {
  if constexpr (Tuple<A>) return transform(a, b, [](auto const& x, auto const& y) { return elem_scale(x, y); });
  else return a * product(b);
}

/// f applied to every leaf, keeping the nesting.
template <class T, class F>
TESSEL_HD constexpr auto transform_leaves(T const& t, F&& f) {
  if constexpr (Tuple<T>) return transform(t, [&](auto const& e) { return transform_leaves(e, f); });
  else return f(t);
}

/// f(a_leaf, b_leaf) over two congruent IntTuples, keeping the nesting.
template <class A, class B, class F>
TESSEL_HD constexpr auto transform_leaves_with(A const& a, B const& b, F&& f) {
  if constexpr (Tuple<A>) return transform(a, b, [&](auto const& x, auto const& y) { return transform_leaves_with(x, y, f); });
  else return f(a, b);
}

// ---- Flatten ------------------------------------------------------------------------------

template <class T>
TESSEL_HD constexpr auto flatten_to_tuple(T const& t) {
  if constexpr (Tuple<T>) return filter_tuple(t, [](auto const& e) { return flatten_to_tuple(e); });
  else return make_tuple(t);
}
/// The leaves of t as a flat tuple; an integer stays an integer.
template <class T>
TESSEL_HD constexpr auto flatten(T const& t) {
  if constexpr (Tuple<T>) return flatten_to_tuple(t);
  else return t;
}

// ---- Division and minimum on shapes -------------------------------------------------------

/// shape_div generalised: tuple / tuple is modewise; tuple / int divides the int out of the
/// modes from left to right: shape_div((4,6), 8) = (1,3).
template <class A, class B>
  requires(Tuple<A> || Tuple<B>)
TESSEL_HD constexpr auto shape_div(A const& a, B const& b) {
  if constexpr (Tuple<A> && Tuple<B>) {
    return transform(a, b, [](auto const& x, auto const& y) { return shape_div(x, y); });
  } else if constexpr (Tuple<A>) {
    auto r = fold(a, make_tuple(tuple<>{}, b), [](auto const& acc, auto const& ai) {
      return make_tuple(append(get<0>(acc), shape_div(ai, get<1>(acc))), shape_div(get<1>(acc), product(ai)));
    });
    return get<0>(r);
  } else {
    return shape_div(a, product(b));
  }
}
/// ceil_div generalised in the same way: ceil_div((3,8), 4) = (1,4).
template <class A, class B>
  requires(Tuple<A> || Tuple<B>)
TESSEL_HD constexpr auto ceil_div(A const& a, B const& b) {
  if constexpr (Tuple<A> && Tuple<B>) {
    return transform(a, b, [](auto const& x, auto const& y) { return ceil_div(x, y); });
  } else if constexpr (Tuple<A>) {
    auto r = fold(a, make_tuple(tuple<>{}, b), [](auto const& acc, auto const& ai) {
      return make_tuple(append(get<0>(acc), ceil_div(ai, get<1>(acc))), ceil_div(get<1>(acc), product(ai)));
    });
    return get<0>(r);
  } else {
    return ceil_div(a, product(b));
  }
}
/// min for shapes: modewise; tuple vs int takes the int from the front modes.
template <class A, class B>
TESSEL_HD constexpr auto shape_min(A const& a, B const& b) {
  if constexpr (Tuple<A> || Tuple<B>) {
    static_assert(Tuple<A> && Tuple<B>, "shape_min: not implemented for a tuple against an integer");
    return transform(a, b, [](auto const& x, auto const& y) { return shape_min(x, y); });
  } else {
    return min(a, b);
  }
}

// ---- Compact strides ----------------------------------------------------------------------

/// Mode order tags for make_layout: column-major (first mode fastest) or row-major.
struct LayoutLeft {};
struct LayoutRight {};

namespace detail {
// Exclusive prefix products of the leaves of s, starting at `current`, in the order of s.
template <class S, class D>
TESSEL_HD constexpr auto compact_left(S const& s, D const& current) {
  if constexpr (Tuple<S>) {
    auto r = fold(s, make_tuple(tuple<>{}, current), [](auto const& acc, auto const& si) {
      auto sub = compact_left(si, get<1>(acc));
      return make_tuple(append(get<0>(acc), get<0>(sub)), get<1>(sub));
    });
    return r;
  } else if constexpr (is_constant_v<1, S>) {
    return make_tuple(Int<0>{}, current);  // a mode of size 1 never moves: its stride is 0
  } else {
    return make_tuple(current, current * s);
  }
}
template <class T, std::size_t... I>
TESSEL_HD constexpr auto reverse_impl(T const& t, std::index_sequence<I...>) {
  return make_tuple(get<tuple_size_v<T> - 1 - I>(t)...);
}
template <class T>
TESSEL_HD constexpr auto reverse_deep(T const& t) {
  if constexpr (Tuple<T>) return transform(reverse_impl(t, make_seq<tuple_size_v<T>>{}), [](auto const& e) { return reverse_deep(e); });
  else return t;
}
}  // namespace detail

/// The strides of a compact layout of shape s in the given mode order, scaled by `current`:
/// compact_major<LayoutLeft>((2,(3,4))) = (1,(2,6)), compact_major<LayoutRight>((2,(3,4))) = (12,(4,1)).
template <class Major, class S, class D = Int<1>>
TESSEL_HD constexpr auto compact_major(S const& s, D const& current = {}) {
  if constexpr (std::is_same_v<Major, LayoutLeft>) {
    return get<0>(detail::compact_left(s, current));
  } else {
    return detail::reverse_deep(get<0>(detail::compact_left(detail::reverse_deep(s), current)));
  }
}
template <class S>
TESSEL_HD constexpr auto compact_col_major(S const& s) { return compact_major<LayoutLeft>(s); }
template <class S>
TESSEL_HD constexpr auto compact_row_major(S const& s) { return compact_major<LayoutRight>(s); }

// ---- Coordinates ------------------------------------------------------------------------

/// True when a coordinate contains an Underscore.
template <class T>
TESSEL_HD constexpr bool has_underscore() {
  using U = std::remove_cvref_t<T>;
  if constexpr (std::is_same_v<U, Underscore>) return true;
  else if constexpr (Tuple<U>)
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return (has_underscore<tuple_element_t<I, U>>() || ...);
    }(make_seq<tuple_size_v<U>>{});
  else return false;
}

/// The index of coordinate c in the layout shape:stride.
/// A tuple coordinate is applied modewise; an integer coordinate against a tuple shape is first
/// split colexicographically (the last mode takes the remainder, so the function extends past
/// the domain): crd2idx(5, (2,3), (1,10)) = 1*1 + 2*10 = 21.
template <class Crd, class S, class D>
TESSEL_HD constexpr auto crd2idx(Crd const& c, S const& s, D const& d) {
  if constexpr (Tuple<Crd>) {
    static_assert(Tuple<S> && tuple_size_v<Crd> == tuple_size_v<S>,
                  "crd2idx: the coordinate's rank does not match the shape's");
    return sum(transform(c, s, d, [](auto const& ci, auto const& si, auto const& di) { return crd2idx(ci, si, di); }));
  } else if constexpr (Tuple<S>) {
    constexpr std::size_t R = tuple_size_v<S>;
    auto r = fold(make_seq_tuple<R>(), make_tuple(Int<0>{}, c), [&](auto const& acc, auto i) {
      constexpr std::size_t I = decltype(i)::value;
      if constexpr (I + 1 == R) {
        return make_tuple(get<0>(acc) + crd2idx(get<1>(acc), get<I>(s), get<I>(d)), Int<0>{});
      } else {
        auto n = product(get<I>(s));
        return make_tuple(get<0>(acc) + crd2idx(get<1>(acc) % n, get<I>(s), get<I>(d)), get<1>(acc) / n);
      }
    });
    return get<0>(r);
  } else {
    return c * d;
  }
}

/// The natural (hierarchical) coordinate of a 1-D index in shape s, colexicographic:
/// idx2crd(5, (2,3)) = (1,2).
template <class Idx, class S>
TESSEL_HD constexpr auto idx2crd(Idx const& idx, S const& s) {
  if constexpr (Tuple<Idx>) {
    return transform(idx, s, [](auto const& i, auto const& si) { return idx2crd(i, si); });
  } else if constexpr (Tuple<S>) {
    auto d = compact_col_major(s);
    return transform(s, d, [&](auto const& si, auto const& di) { return idx2crd(idx, si, di); });
  } else {
    return idx;
  }
}
/// Leafwise (idx / d) % s.
template <class Idx, class S, class D>
TESSEL_HD constexpr auto idx2crd(Idx const& idx, S const& s, D const& d) {
  if constexpr (Tuple<S>) return transform(s, d, [&](auto const& si, auto const& di) { return idx2crd(idx, si, di); });
  else return (idx / d) % s;
}

// ---- Shape relations ----------------------------------------------------------------------

/// Same nesting (profile), leaf values ignored.
template <class A, class B>
TESSEL_HD constexpr bool congruent() {
  if constexpr (Tuple<A> && Tuple<B>) {
    if constexpr (tuple_size_v<A> != tuple_size_v<B>) return false;
    else return []<std::size_t... I>(std::index_sequence<I...>) {
      return (congruent<tuple_element_t<I, A>, tuple_element_t<I, B>>() && ...);
    }(make_seq<tuple_size_v<A>>{});
  } else {
    return !Tuple<A> && !Tuple<B>;
  }
}

/// a evenly divides b modewise (each size(a_i) divides size(b_i)).
template <class A, class B>
TESSEL_HD constexpr auto evenly_divides(A const& a, B const& b) {
  if constexpr (Tuple<A>) {
    return fold(transform(a, take<0, tuple_size_v<A>>(wrap(b)), [](auto const& x, auto const& y) { return evenly_divides(x, y); }),
                true_type{}, [](auto acc, auto v) { return acc && v; });
  } else {
    return product(b) % a == Int<0>{};
  }
}

}  // namespace tessel
