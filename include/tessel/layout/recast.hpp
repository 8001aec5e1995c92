#pragma once
// upcast / downcast: the same memory seen through elements N times wider or narrower.

#include "product.hpp"

namespace tessel {

namespace detail {
template <int N, class S, class D>
TESSEL_HD constexpr auto upcast_modes(S const& s, D const& d) {
  if constexpr (Tuple<S>) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return make_layout(upcast_modes<N>(get<I>(s), get<I>(d))...);
    }(make_seq<tuple_size_v<S>>{});
  } else if constexpr (is_constant_v<0, D>) {
    return make_layout(s, d);
  } else if constexpr (StaticIntegral<D>) {
    // A stride below N folds that many elements into one: the mode shrinks by N / |d|.
    return make_layout(shape_div(s, shape_div(Int<N>{}, abs(d))), shape_div(d, Int<N>{}));
  } else {
    return make_layout(s, safe_div(d, Int<N>{}));  // dynamic strides are taken as multiples of N
  }
}
template <int N, class S, class D>
TESSEL_HD constexpr auto downcast_modes(S const& s, D const& d) {
  if constexpr (Tuple<S>) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return make_layout(downcast_modes<N>(get<I>(s), get<I>(d))...);
    }(make_seq<tuple_size_v<S>>{});
  } else if constexpr (is_constant_v<1, D> || is_constant_v<-1, D>) {
    return make_layout(s * Int<N>{}, d);
  } else {
    return make_layout(s, d * Int<N>{});
  }
}
}  // namespace detail

/// View a layout of elements as one of N-times-wider elements: the stride-1 mode's size is
/// divided by N, every other stride is divided by N.
///   upcast<2>((4,8):(1,4)) = (2,8):(1,2)
template <int N, class S, class D>
TESSEL_HD constexpr auto upcast(Layout<S, D> const& l) {
  return detail::upcast_modes<N>(l.shape(), l.stride());
}
/// View a layout of elements as one of N-times-narrower elements: the stride-1 mode's size is
/// multiplied by N, every other stride is multiplied by N.
///   downcast<2>((4,8):(1,4)) = (8,8):(1,8)
template <int N, class S, class D>
TESSEL_HD constexpr auto downcast(Layout<S, D> const& l) {
  return detail::downcast_modes<N>(l.shape(), l.stride());
}

}  // namespace tessel
