#pragma once
// Random *static* layouts for property tests: a seed picks the layout at compile time, so every
// operation under test runs through the compile-time algebra exactly as a kernel would use it.
//
// Sizes and strides are powers of two, which makes every composition, divide and product
// admissible; hand-written tests cover the other sizes.

#include <array>
#include <utility>

#include "tessel/layout.hpp"

namespace tessel::test {

struct LayoutSpec {
  int leaves = 1;                   // number of leaf modes
  std::array<int, 6> shape{};       // leaf sizes
  std::array<int, 6> stride{};      // leaf strides
  int modes = 1;                    // top-level modes; leaves are dealt to them in order
  std::array<int, 6> per_mode{};    // leaves in each top-level mode
};

constexpr unsigned next(unsigned& state) {
  state = state * 1664525u + 1013904223u;
  return state >> 8;
}

/// A layout with `leaves` power-of-two sizes. Injective ones are compact layouts with permuted
/// mode order and optional holes (a stride gap of 2); the others draw strides freely, 0 included.
constexpr LayoutSpec make_spec(unsigned seed, bool injective, int max_leaves = 4) {
  unsigned st = seed * 2654435761u + (injective ? 17u : 91u);
  next(st);
  LayoutSpec sp{};
  sp.leaves = 1 + int(next(st) % unsigned(max_leaves));
  constexpr int sizes[] = {1, 2, 2, 4, 4, 8};
  for (int i = 0; i < sp.leaves; ++i) sp.shape[i] = sizes[next(st) % 6];
  if (injective) {
    std::array<int, 6> order{0, 1, 2, 3, 4, 5};
    for (int i = sp.leaves - 1; i > 0; --i) {
      int j = int(next(st) % unsigned(i + 1));
      int t = order[i]; order[i] = order[j]; order[j] = t;
    }
    int extent = 1;
    for (int k = 0; k < sp.leaves; ++k) {
      int leaf = order[k];
      int hole = (next(st) % 3 == 0) ? 2 : 1;
      sp.stride[leaf] = sp.shape[leaf] == 1 ? 0 : extent * hole;
      extent *= sp.shape[leaf] * hole;
    }
  } else {
    constexpr int strides[] = {0, 1, 1, 2, 4, 8, 16};
    for (int i = 0; i < sp.leaves; ++i) sp.stride[i] = strides[next(st) % 7];
  }
  int left = sp.leaves;
  sp.modes = 0;
  while (left > 0) {
    int take = 1 + int(next(st) % 2u);
    if (take > left) take = left;
    sp.per_mode[sp.modes++] = take;
    left -= take;
  }
  return sp;
}

namespace detail {
template <LayoutSpec sp, int First, std::size_t... I>
constexpr auto mode_shape(std::index_sequence<I...>) {
  if constexpr (sizeof...(I) == 1) return Int<sp.shape[First]>{};
  else return make_tuple(Int<sp.shape[First + int(I)]>{}...);
}
template <LayoutSpec sp, int First, std::size_t... I>
constexpr auto mode_stride(std::index_sequence<I...>) {
  if constexpr (sizeof...(I) == 1) return Int<sp.stride[First]>{};
  else return make_tuple(Int<sp.stride[First + int(I)]>{}...);
}
template <LayoutSpec sp>
constexpr int first_leaf(int m) {
  int f = 0;
  for (int k = 0; k < m; ++k) f += sp.per_mode[k];
  return f;
}
}  // namespace detail

/// The static layout a spec describes: rank sp.modes, each mode a leaf or a tuple of leaves.
template <LayoutSpec sp>
constexpr auto build_layout() {
  auto modes = [&]<std::size_t... M>(std::index_sequence<M...>) {
    return make_tuple(make_layout(
        detail::mode_shape<sp, detail::first_leaf<sp>(int(M))>(std::make_index_sequence<std::size_t(sp.per_mode[M])>{}),
        detail::mode_stride<sp, detail::first_leaf<sp>(int(M))>(std::make_index_sequence<std::size_t(sp.per_mode[M])>{}))...);
  }(std::make_index_sequence<std::size_t(sp.modes)>{});
  if constexpr (sp.modes == 1) {
    return get<0>(modes);
  } else {
    return [&]<std::size_t... M>(std::index_sequence<M...>) { return make_layout(get<M>(modes)...); }(
        std::make_index_sequence<std::size_t(sp.modes)>{});
  }
}

template <unsigned Seed, bool Injective, int MaxLeaves = 4>
using RandomLayout = decltype(build_layout<make_spec(Seed, Injective, MaxLeaves)>());

}  // namespace tessel::test
