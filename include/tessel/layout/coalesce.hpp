#pragma once
// coalesce and filter: simplify a layout without changing it as a function.

#include "layout.hpp"

namespace tessel {

namespace detail {

// Fold the flat modes [0, I] of (s, d), last first, into the accumulated layout ns:nd.
//   a mode of static size 1 is dropped;
//   an accumulated size-1 layout is replaced by the mode;
//   s_i:d_i merges into the front n0:e0 when s_i * d_i == e0 is statically true, giving (s_i*n0):d_i;
//   otherwise the mode is prepended.
// Only static facts decide, so the result's type is known at compile time.
template <int I, class S, class D, class NS, class ND>
TESSEL_HD constexpr auto coalesce_modes(S const& s, D const& d, NS const& ns, ND const& nd) {
  if constexpr (I < 0) {
    if constexpr (is_constant_v<1, NS>) return Layout<Int<1>, Int<0>>{};
    else return make_layout(ns, nd);
  } else {
    auto si = get<I>(s);
    auto di = get<I>(d);
    using Si = decltype(si);
    using Merge = decltype(si * di == front(nd));
    if constexpr (is_constant_v<1, Si>) {
      return coalesce_modes<I - 1>(s, d, ns, nd);
    } else if constexpr (is_constant_v<1, NS>) {
      return coalesce_modes<I - 1>(s, d, si, di);
    } else if constexpr (is_static_v<decltype(front(ns))> && is_constant_v<true, Merge>) {
      return coalesce_modes<I - 1>(s, d, replace_front(ns, si * front(ns)), replace_front(nd, di));
    } else {
      return coalesce_modes<I - 1>(s, d, prepend(ns, si), prepend(nd, di));
    }
  }
}

// Like coalesce, but keeps the function the same outside the domain too: a trailing static
// size-1 mode still carries its stride (as if it were larger), so L(i) for i >= size(L) agrees.
// Composition relies on this when the right operand reaches past the left's domain.
template <class S, class D>
TESSEL_HD constexpr auto coalesce_x(Layout<S, D> const& l) {
  auto fs = wrap(flatten(l.shape()));
  auto fd = wrap(flatten(l.stride()));
  constexpr int R = int(tuple_size_v<decltype(fs)>);
  if constexpr (is_constant_v<1, decltype(get<R - 1>(fs))>) {
    return coalesce_modes<R - 2>(fs, fd, Int<2>{}, get<R - 1>(fd));
  } else {
    return coalesce_modes<R - 2>(fs, fd, get<R - 1>(fs), get<R - 1>(fd));
  }
}

}  // namespace detail

/// Combine modes where the stride pattern allows it and drop size-1 modes.
/// @post size(result) == size(layout), depth(result) <= 1
/// @post result(i) == layout(i) for every i in [0, size(layout))
///   coalesce((2,(1,6)):(1,(6,2))) = 12:1
template <class S, class D>
TESSEL_HD constexpr auto coalesce(Layout<S, D> const& l) {
  auto fs = wrap(flatten(l.shape()));
  auto fd = wrap(flatten(l.stride()));
  constexpr int R = int(tuple_size_v<decltype(fs)>);
  return detail::coalesce_modes<R - 2>(fs, fd, get<R - 1>(fs), get<R - 1>(fd));
}

namespace detail {
template <class L, class P, std::size_t... I, std::size_t... J>
TESSEL_HD constexpr auto by_mode(L const& l, P const& p, auto&& f, std::index_sequence<I...>, std::index_sequence<J...>) {
  return make_layout(f(layout<int(I)>(l), get<I>(p))..., layout<int(sizeof...(I) + J)>(l)...);
}
}  // namespace detail

/// Apply f to each mode of l paired with the matching element of tuple p; modes of l past
/// rank(p) are kept as they are.
template <class S, class D, class P, class F>
TESSEL_HD constexpr auto transform_layout(Layout<S, D> const& l, P const& p, F&& f) {
  constexpr std::size_t R = tuple_size_v<P>;
  static_assert(R <= std::size_t(rank_v<S>), "the tiler or profile has more modes than the layout");
  return detail::by_mode(l, p, f, make_seq<R>{}, make_seq<std::size_t(rank_v<S>) - R>{});
}

/// Coalesce each mode of the profile separately: the result keeps the profile's rank.
///   coalesce((2,(1,6),4):(1,(6,2),12), (_1,_1,_1)) = (2,6,4):(1,2,12)
template <class S, class D, class Profile>
TESSEL_HD constexpr auto coalesce(Layout<S, D> const& l, Profile const& p) {
  if constexpr (Tuple<Profile>) {
    return transform_layout(l, p, [](auto const& m, auto const& q) { return coalesce(m, q); });
  } else {
    return coalesce(l);
  }
}

/// Shapes are coalesced too: neighbouring static sizes multiply, as do neighbouring dynamic ones.
template <IntTuple S>
TESSEL_HD constexpr auto coalesce(S const& s) {
  auto f = wrap(flatten(s));
  return unwrap(fold(take<1, tuple_size_v<decltype(f)>>(f), make_tuple(get<0>(f)), [](auto const& acc, auto const& a) {
    if constexpr (is_static_v<decltype(back(acc))> == is_static_v<decltype(a)>) return replace_back(acc, back(acc) * a);
    else return append(acc, a);
  }));
}

/// Replace every mode whose stride is static 0 by a mode of size 1.
template <class S, class D>
TESSEL_HD constexpr auto filter_zeros(Layout<S, D> const& l) {
  auto s = transform_leaves_with(l.stride(), l.shape(), [](auto const& d, auto const& x) {
    if constexpr (is_constant_v<0, decltype(d)>) return Int<1>{};
    else return x;
  });
  return make_layout(s, l.stride());
}

/// Drop stride-0 and size-1 modes, then coalesce: the layout's image without repetition.
/// @post filter(L) is injective on its domain when L's nonzero strides are
///   filter((4,2,3):(1,0,8)) = (4,3):(1,8)
template <class S, class D>
TESSEL_HD constexpr auto filter(Layout<S, D> const& l) {
  return coalesce(filter_zeros(l));
}
template <class S, class D, class Profile>
TESSEL_HD constexpr auto filter(Layout<S, D> const& l, Profile const& p) {
  if constexpr (Tuple<Profile>) return transform_layout(l, p, [](auto const& m, auto const& q) { return filter(m, q); });
  else return filter(l);
}

}  // namespace tessel
