#pragma once
// Structural algorithms on tessel::tuple: each returns a new tuple whose element types are
// computed at compile time, so static members stay static.

#include <utility>

#include "integer.hpp"
#include "tuple.hpp"

namespace tessel {

template <std::size_t N> using make_seq = std::make_index_sequence<N>;

// ---- transform / for_each / fold ----------------------------------------------------------

namespace detail {
template <class T, class F, std::size_t... I>
TESSEL_HD constexpr auto transform_impl(T const& t, F&& f, std::index_sequence<I...>) {
  return make_tuple(f(get<I>(t))...);
}
template <class T0, class T1, class F, std::size_t... I>
TESSEL_HD constexpr auto transform_impl(T0 const& t0, T1 const& t1, F&& f, std::index_sequence<I...>) {
  return make_tuple(f(get<I>(t0), get<I>(t1))...);
}
TESSEL_NO_HD_CHECK
template <class T, class F, std::size_t... I>
TESSEL_HD constexpr void for_each_impl(T const& t, F&& f, std::index_sequence<I...>) {
  (f(get<I>(t)), ...);
}
template <std::size_t I, std::size_t N, class T, class V, class F>
TESSEL_HD constexpr auto fold_impl(T const& t, V const& v, F&& f) {
  if constexpr (I == N) return v;
  else return fold_impl<I + 1, N>(t, f(v, get<I>(t)), f);
}
}  // namespace detail

/// (f(t0), f(t1), ...) for a tuple; f(t) for a non-tuple.
template <class T, class F>
TESSEL_HD constexpr auto transform(T const& t, F&& f) {
  if constexpr (Tuple<T>) return detail::transform_impl(t, f, make_seq<tuple_size_v<T>>{});
  else return f(t);
}
template <class T0, class T1, class F>
TESSEL_HD constexpr auto transform(T0 const& t0, T1 const& t1, F&& f) {
  if constexpr (Tuple<T0>) {
    static_assert(tuple_size_v<T0> == tuple_size_v<T1>, "transform: tuples of different ranks");
    return detail::transform_impl(t0, t1, f, make_seq<tuple_size_v<T0>>{});
  } else {
    return f(t0, t1);
  }
}
template <class T0, class T1, class T2, class F>
TESSEL_HD constexpr auto transform(T0 const& t0, T1 const& t1, T2 const& t2, F&& f) {
  if constexpr (Tuple<T0>) {
    static_assert(tuple_size_v<T0> == tuple_size_v<T1> && tuple_size_v<T0> == tuple_size_v<T2>,
                  "transform: tuples of different ranks");
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return make_tuple(f(get<I>(t0), get<I>(t1), get<I>(t2))...);
    }(make_seq<tuple_size_v<T0>>{});
  } else {
    return f(t0, t1, t2);
  }
}
/// (Int<0>, Int<1>, ..., Int<N-1>): a tuple to fold over when the index itself is needed.
template <std::size_t N>
TESSEL_HD constexpr auto make_seq_tuple() {
  return []<std::size_t... I>(std::index_sequence<I...>) { return make_tuple(Int<int(I)>{}...); }(make_seq<N>{});
}
TESSEL_NO_HD_CHECK
template <class T, class F>
TESSEL_HD constexpr void for_each(T const& t, F&& f) {
  if constexpr (Tuple<T>) detail::for_each_impl(t, f, make_seq<tuple_size_v<T>>{});
  else f(t);
}
/// f(...f(f(v, t0), t1)..., tn)
template <class T, class V, class F>
TESSEL_HD constexpr auto fold(T const& t, V const& v, F&& f) {
  if constexpr (Tuple<T>) return detail::fold_impl<0, tuple_size_v<T>>(t, v, f);
  else return f(v, t);
}

// ---- concatenation and editing ------------------------------------------------------------

namespace detail {
template <class A, class B, std::size_t... I, std::size_t... J>
TESSEL_HD constexpr auto cat2(A const& a, B const& b, std::index_sequence<I...>, std::index_sequence<J...>) {
  return make_tuple(get<I>(a)..., get<J>(b)...);
}
}  // namespace detail

TESSEL_HD constexpr tuple<> tuple_cat() { return {}; }
template <class A>
TESSEL_HD constexpr auto tuple_cat(A const& a) { return a; }
template <class A, class B, class... R>
TESSEL_HD constexpr auto tuple_cat(A const& a, B const& b, R const&... r) {
  return tuple_cat(detail::cat2(a, b, make_seq<tuple_size_v<A>>{}, make_seq<tuple_size_v<B>>{}), r...);
}

/// Elements [B, E) of t.
template <std::size_t B, std::size_t E, class T>
TESSEL_HD constexpr auto take(T const& t) {
  static_assert(B <= E && E <= tuple_size_v<T>, "take<B,E>: range out of bounds");
  return [&]<std::size_t... I>(std::index_sequence<I...>) { return make_tuple(get<B + I>(t)...); }(make_seq<E - B>{});
}

/// Wrap a non-tuple into a rank-1 tuple; leave a tuple alone.
template <class T>
TESSEL_HD constexpr auto wrap(T const& t) {
  if constexpr (Tuple<T>) return t;
  else return make_tuple(t);
}
/// Unwrap a rank-1 tuple to its element; leave anything else alone.
template <class T>
TESSEL_HD constexpr auto unwrap(T const& t) {
  if constexpr (Tuple<T>) {
    if constexpr (tuple_size_v<T> == 1) return unwrap(get<0>(t));
    else return t;
  } else {
    return t;
  }
}

template <class T, class X>
TESSEL_HD constexpr auto append(T const& t, X const& x) {
  if constexpr (Tuple<T>) return tuple_cat(t, make_tuple(x));
  else return make_tuple(t, x);
}
template <class T, class X>
TESSEL_HD constexpr auto prepend(T const& t, X const& x) {
  if constexpr (Tuple<T>) return tuple_cat(make_tuple(x), t);
  else return make_tuple(x, t);
}
/// Pad t with copies of x up to rank N.
template <std::size_t N, class T, class X>
TESSEL_HD constexpr auto append(T const& t, X const& x) {
  auto w = wrap(t);
  static_assert(tuple_size_v<decltype(w)> <= N, "append<N>: the tuple is already longer than N");
  if constexpr (tuple_size_v<decltype(w)> == N) return w;
  else return append<N>(append(w, x), x);
}
template <std::size_t N, class T, class X>
TESSEL_HD constexpr auto prepend(T const& t, X const& x) {
  auto w = wrap(t);
  static_assert(tuple_size_v<decltype(w)> <= N, "prepend<N>: the tuple is already longer than N");
  if constexpr (tuple_size_v<decltype(w)> == N) return w;
  else return prepend<N>(prepend(w, x), x);
}

template <std::size_t N, class T>
TESSEL_HD constexpr auto remove(T const& t) {
  return tuple_cat(take<0, N>(t), take<N + 1, tuple_size_v<T>>(t));
}
template <std::size_t N, class T, class X>
TESSEL_HD constexpr auto replace(T const& t, X const& x) {
  return tuple_cat(take<0, N>(t), make_tuple(x), take<N + 1, tuple_size_v<T>>(t));
}
template <class T, class X>
TESSEL_HD constexpr auto replace_front(T const& t, X const& x) {
  if constexpr (Tuple<T>) return replace<0>(t, x);
  else return x;
}
template <class T, class X>
TESSEL_HD constexpr auto replace_back(T const& t, X const& x) {
  if constexpr (Tuple<T>) return replace<tuple_size_v<T> - 1>(t, x);
  else return x;
}
template <class T>
TESSEL_HD constexpr auto front(T const& t) {
  if constexpr (Tuple<T>) return front(get<0>(t));
  else return t;
}
template <class T>
TESSEL_HD constexpr auto back(T const& t) {
  if constexpr (Tuple<T>) return back(get<tuple_size_v<T> - 1>(t));
  else return t;
}

/// (x, x, ..., x), N times, always a tuple.
template <std::size_t N, class X>
TESSEL_HD constexpr auto tuple_repeat(X const& x) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) { return make_tuple((void(I), x)...); }(make_seq<N>{});
}
/// As tuple_repeat, but x itself when N == 1: the form a coordinate for a rank-N mode takes.
template <std::size_t N, class X>
TESSEL_HD constexpr auto repeat(X const& x) {
  if constexpr (N == 1) return x;
  else return tuple_repeat<N>(x);
}
/// A tuple congruent with t whose every leaf is x.
template <class T, class X>
TESSEL_HD constexpr auto repeat_like(T const& t, X const& x) {
  if constexpr (Tuple<T>) return transform(t, [&](auto const& e) { return repeat_like(e, x); });
  else return x;
}

/// Concatenate f(ti) over the elements, where each f returns a tuple (possibly empty).
template <class T, class F>
TESSEL_HD constexpr auto filter_tuple(T const& t, F&& f) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) { return tuple_cat(f(get<I>(t))...); }(make_seq<tuple_size_v<T>>{});
}
template <class T0, class T1, class F>
TESSEL_HD constexpr auto filter_tuple(T0 const& t0, T1 const& t1, F&& f) {
  return [&]<std::size_t... I>(std::index_sequence<I...>) {
    return tuple_cat(f(get<I>(t0), get<I>(t1))...);
  }(make_seq<tuple_size_v<T0>>{});
}

/// Select the elements at the given indices.
template <std::size_t... I, class T>
TESSEL_HD constexpr auto select(T const& t) {
  return make_tuple(get<I>(t)...);
}

}  // namespace tessel
