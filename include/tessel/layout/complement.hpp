#pragma once
// complement: the layout of the indices a layout does not reach, up to a cotarget.

#include <array>

#include "composition.hpp"

namespace tessel {

namespace detail {

// The order in which the modes of a flat static stride tuple are visited: increasing stride,
// first occurrence first on ties.
template <class D>
constexpr auto stride_order() {
  constexpr std::size_t R = tuple_size_v<D>;
  std::array<std::size_t, R> order{};
  std::array<long long, R> v{};
  [&]<std::size_t... I>(std::index_sequence<I...>) { ((v[I] = (long long)tuple_element_t<I, D>::value), ...); }(make_seq<R>{});
  for (std::size_t i = 0; i < R; ++i) order[i] = i;
  for (std::size_t i = 1; i < R; ++i)  // insertion sort: stable
    for (std::size_t j = i; j > 0 && v[order[j]] < v[order[j - 1]]; --j) {
      auto t = order[j]; order[j] = order[j - 1]; order[j - 1] = t;
    }
  return order;
}

template <class A>
TESSEL_HD constexpr void check_injective(A const&) {
  if constexpr (StaticIntegral<A>) {
    static_assert(A::value != 0,
                  "complement: the layout is not injective: two of its modes overlap (a stride is smaller "
                  "than the extent of the modes with smaller strides)");
  }
}

// Complement of a filtered layout s:d (no stride-0 or size-1 modes) within the cotarget shape.
template <class S, class D, class T>
TESSEL_HD constexpr auto complement_filtered(S const& s, D const& d, T const& cotarget) {
  if constexpr (is_constant_v<0, D>) {
    // Nothing is reached: the complement is all of the cotarget.
    return make_layout(coalesce(cotarget));
  } else {
    auto fs = wrap(s);
    auto fd = wrap(d);
    using FD = decltype(fd);
    constexpr std::size_t R = tuple_size_v<FD>;
    static_assert(R == 1 || is_static_v<FD>, "complement: a layout of more than one mode needs static strides");
    // Visit the modes by increasing stride; each gap between the extent reached so far
    // (previous stride * previous size) and the next stride becomes a mode of the complement.
    auto sorted = [&] {
      if constexpr (R == 1) {
        return make_tuple(fs, fd);
      } else {
        constexpr auto order = stride_order<FD>();
        return [&]<std::size_t... I>(std::index_sequence<I...>) {
          return make_tuple(make_tuple(get<order[I]>(fs)...), make_tuple(get<order[I]>(fd)...));
        }(make_seq<R>{});
      }
    }();
    auto ss = get<0>(sorted);
    auto sd = get<1>(sorted);
    auto gaps = fold(make_seq_tuple<R>(), make_tuple(tuple<>{}, make_tuple(Int<1>{})), [&](auto const& acc, auto i) {
      constexpr std::size_t I = decltype(i)::value;
      auto gap = get<I>(sd) / back(get<1>(acc));
      check_injective(gap);
      return make_tuple(append(get<0>(acc), gap), append(get<1>(acc), get<I>(sd) * get<I>(ss)));
    });
    auto gap_shape = get<0>(gaps);                    // R modes
    auto all_strides = get<1>(gaps);                  // R + 1 strides: the last is the extent
    auto gap_stride = take<0, R>(all_strides);
    auto extent = get<R>(all_strides);
    // Then repeat the whole block until the cotarget is covered.
    auto rest_shape = coalesce(ceil_div(cotarget, extent));
    auto rest_stride = compact_major<LayoutLeft>(rest_shape, extent);
    return coalesce(make_layout(make_shape(gap_shape, rest_shape), make_stride(gap_stride, rest_stride)));
  }
}

}  // namespace detail

/// The complement of L with respect to a cotarget (an integer or a shape, by its size).
/// @pre L is injective on its nonzero-stride modes
/// @post R is ordered: R(i) < R(i+1) for i + 1 < size(R)
/// @post R(i) != L(j) for every i > 0 and every j
/// @post cosize(make_layout(L, R)) >= size(cotarget), size(R) >= size(cotarget) / size(filter(L))
///       (a compile error where static and violated: complement(6:3, (16,9)))
///   complement(4:2, 24) = (2,3):(1,8)       complement((2,2):(1,6), 24) = (3,2):(2,12)
namespace detail {
// complement's covering post-conditions (CuTe's), checked where everything is static:
//   cosize(make_layout(L, R)) >= size(M)   and   size(R) >= size(M) / size(filter(L)).
// complement(6:3, (16,9)) fails them: (3,5):(1,18) with L reaches only 90 of 144.
template <class L, class R, class T>
TESSEL_HD constexpr void check_complement_covers(L const& l, R const& r, T const& cotarget) {
  using Reach = decltype(cosize(make_layout(l, r)));
  using M = decltype(size(cotarget));
  using N = decltype(size(r));
  using F = decltype(size(filter(l)));
  if constexpr (StaticIntegral<Reach> && StaticIntegral<M> && StaticIntegral<N> && StaticIntegral<F>) {
    static_assert(Reach::value >= M::value,
                  "complement: L and its complement do not cover the cotarget (cosize(make_layout(L, R)) < size(M)): "
                  "a stride of L is not a multiple of the extent below it, or the cotarget's modes fold short");
    static_assert(N::value >= M::value / F::value, "complement: size(R) < size(M) / size(filter(L))");
  }
}
}  // namespace detail

template <class S, class D, class T>
TESSEL_HD constexpr auto complement(Layout<S, D> const& l, T const& cotarget) {
  auto f = filter(l);
  auto r = detail::complement_filtered(f.shape(), f.stride(), shape(cotarget));
  detail::check_complement_covers(l, r, shape(cotarget));
  return r;
}
/// complement(L) = complement(L, cosize(L)).
template <class S, class D>
TESSEL_HD constexpr auto complement(Layout<S, D> const& l) {
  auto f = filter(l);
  return detail::complement_filtered(f.shape(), f.stride(), cosize(f));
}

}  // namespace tessel
