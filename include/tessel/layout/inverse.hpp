#pragma once
// Right and left inverses, and the largest common vector of two layouts.

#include "complement.hpp"

namespace tessel {

namespace detail {

// Static values of a flat tuple's leaves; `known[i]` is false for a dynamic leaf.
template <class T>
struct static_leaves {
  static constexpr std::size_t R = tuple_size_v<T>;
  std::array<long long, R> value{};
  std::array<bool, R> known{};
  constexpr static_leaves() {
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((known[I] = StaticIntegral<tuple_element_t<I, T>>, value[I] = (long long)static_value_or<tuple_element_t<I, T>, 0>), ...);
    }(make_seq<R>{});
  }
};

// Indices of the flat modes that chain from stride 1: the mode of stride 1, then the mode whose
// stride is that mode's extent (size * stride), and so on while everything is static.
template <class S, class D>
constexpr auto inverse_chain() {
  constexpr std::size_t R = tuple_size_v<S>;
  constexpr static_leaves<S> s{};
  constexpr static_leaves<D> d{};
  struct Chain { std::array<std::size_t, R> idx{}; std::size_t n = 0; };
  Chain c{};
  long long want = 1;
  while (c.n < R) {
    std::size_t found = R;
    for (std::size_t i = 0; i < R && found == R; ++i)
      if (d.known[i] && (d.value[i] < 0 ? -d.value[i] : d.value[i]) == want) found = i;
    if (found == R) break;
    c.idx[c.n++] = found;
    long long next = s.value[found] * (d.value[found] < 0 ? -d.value[found] : d.value[found]);
    if (!s.known[found] || next == want) break;
    want = next;
  }
  return c;
}

}  // namespace detail

/// The right inverse R of L: L(R(i)) == i for every i < size(R), and R is as large as the
/// stride-1 chain of L allows (all of L when L is a bijection onto [0, size(L))).
/// @pre L's strides along the chain are static
///   right_inverse((4,8):(8,1)) = (8,4):(4,1)
template <class S, class D>
TESSEL_HD constexpr auto right_inverse(Layout<S, D> const& l) {
  auto flat = coalesce(l);
  auto fs = wrap(flat.shape());
  auto fd = wrap(flat.stride());
  constexpr auto chain = detail::inverse_chain<decltype(fs), decltype(fd)>();
  if constexpr (chain.n == 0) {
    return Layout<Int<1>, Int<0>>{};
  } else {
    auto rstride = compact_major<LayoutLeft>(fs);
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return make_layout(unwrap(make_tuple(get<chain.idx[I]>(fs)...)),
                         unwrap(make_tuple((signum(get<chain.idx[I]>(fd)) * get<chain.idx[I]>(rstride))...)));
    }(make_seq<chain.n>{});
  }
}

namespace detail {
// CuTe 4.7's left inverse on the static flat modes of coalesced L (the run-time twin documents
// it): by increasing stride d_k, the mode (d_k / d_{k-1}):p_{k-1} (p the compact column-major
// position of a mode's coordinate; d_{-1} = 1, p_{-1} = 0), then s_last:p_last.
// fault: 0 none, 1 negative stride, 2 not injective, 3 stride divisibility.
template <class FS, class FD>
constexpr auto left_inverse_spec() {
  constexpr std::size_t R = tuple_size_v<FS>;
  struct Spec { long long s[R + 1] = {}, d[R + 1] = {}; int fault = 0; };
  Spec sp{};
  long long shp[R] = {}, str[R] = {}, pos[R] = {};
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((shp[I] = tuple_element_t<I, FS>::value, str[I] = tuple_element_t<I, FD>::value), ...);
  }(make_seq<R>{});
  long long p = 1;
  for (std::size_t i = 0; i < R; ++i) { pos[i] = p; p *= shp[i]; }
  constexpr auto order = stride_order<FD>();
  long long covered = 1, previous = 1, position = 0;
  for (std::size_t k = 0; k < R; ++k) {
    std::size_t i = order[k];
    if (str[i] < 0) { sp.fault = 1; break; }
    if (str[i] == 0 || str[i] < covered) { sp.fault = 2; break; }
    if (str[i] % previous != 0) { sp.fault = 3; break; }
    sp.s[k] = str[i] / previous; sp.d[k] = position;
    previous = str[i]; position = pos[i];
    covered = str[i] * shp[i];
    sp.s[R] = shp[i]; sp.d[R] = pos[i];  // the last mode, overwritten until the last
  }
  return sp;
}
}  // namespace detail

/// The left inverse R of an injective L: R(L(i)) == i for every i < size(L) (CuTe 4.7's
/// construction; offsets below L's smallest stride map to 0). The run-time twin documents it.
/// @pre L static, injective, each stride (by increasing stride) a multiple of the one before
///   left_inverse((4,8):(8,1)) = (8,4):(4,1)       left_inverse(16:2) = (2,16):(0,1)
template <class S, class D>
TESSEL_HD constexpr auto left_inverse(Layout<S, D> const& l) {
  auto c = coalesce(l);
  static_assert(is_static_v<decltype(c.shape())> && is_static_v<decltype(c.stride())>, "left_inverse: needs a static layout");
  if constexpr (decltype(size(c))::value == 1) {
    return Layout<Int<1>, Int<0>>{};
  } else {
    using FS = decltype(wrap(c.shape()));
    using FD = decltype(wrap(c.stride()));
    constexpr auto sp = detail::left_inverse_spec<FS, FD>();
    static_assert(sp.fault != 1, "left_inverse: the layout has a negative stride");
    static_assert(sp.fault != 2, "left_inverse: the layout is not injective");
    static_assert(sp.fault != 3, "left_inverse: stride divisibility fails: a stride is not a multiple of the stride "
                                 "before it");
    if constexpr (sp.fault != 0) {
      return Layout<Int<1>, Int<0>>{};
    } else {
      return coalesce([]<std::size_t... I>(std::index_sequence<I...>) {
        return make_layout(make_tuple(Int<int(sp.s[I])>{}...), make_tuple(Int<int(sp.d[I])>{}...));
      }(make_seq<tuple_size_v<FS> + 1>{}));
    }
  }
}

/// The largest layout R of contiguous common elements: a(R(i)) == i and b(R(i)) == i.
template <class SA, class DA, class SB, class DB>
TESSEL_HD constexpr auto max_common_layout(Layout<SA, DA> const& a, Layout<SB, DB> const& b) {
  auto inv_b = right_inverse(b);
  auto common = coalesce(composition(a, inv_b));
  if constexpr (is_static_v<decltype(shape<0>(common))> && is_constant_v<1, decltype(stride<0>(common))>) {
    return composition(inv_b, layout<0>(common));
  } else {
    return Layout<Int<1>, Int<0>>{};
  }
}

/// The number of contiguous elements that a and b map alike: how wide a vector copy between two
/// tensors of these layouts can be.
///   max_common_vector((4,8):(1,4), (4,8):(1,4)) = 32;  max_common_vector((4,8):(1,4), (4,8):(8,1)) = 1
template <class SA, class DA, class SB, class DB>
TESSEL_HD constexpr auto max_common_vector(Layout<SA, DA> const& a, Layout<SB, DB> const& b) {
  auto common = coalesce(composition(a, right_inverse(b)));
  if constexpr (is_static_v<decltype(shape<0>(common))> && is_constant_v<1, decltype(stride<0>(common))>) {
    return shape<0>(common);
  } else {
    return Int<1>{};
  }
}

}  // namespace tessel
