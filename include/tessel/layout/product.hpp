#pragma once
// Products: repeat a layout (the block) in the pattern of another (the tiler).

#include "divide.hpp"

namespace tessel {

/// logical_product(A, B) = (A, complement(A, size(A) * cosize(B)) o B): mode 0 is one block,
/// mode 1 places the copies of it as B orders them. A tuple tiler multiplies mode by mode.
/// @post layout<0>(result) == A; size(result) == size(A) * size(B)
///   logical_product((2,2):(4,1), 6:1) = ((2,2),(2,3)):((4,1),(2,8))
template <class S, class D, class TS, class TD>
TESSEL_HD constexpr auto logical_product(Layout<S, D> const& a, Layout<TS, TD> const& b) {
  return make_layout(a, composition(complement(a, size(a) * cosize(b)), b));
}
template <class S, class D, class Tiler>
  requires(!LayoutType<Tiler>)
TESSEL_HD constexpr auto logical_product(Layout<S, D> const& a, Tiler const& t) {
  if constexpr (Tuple<Tiler>) {
    return transform_layout(a, t, [](auto const& m, auto const& ti) { return logical_product(m, ti); });
  } else if constexpr (std::is_same_v<Tiler, Underscore>) {
    return a;
  } else {
    static_assert(Integral<Tiler>, "logical_product: the tiler must be a layout, a tuple, an integer or _");
    return logical_product(a, make_layout(t, Int<1>{}));
  }
}

template <class S, class D, class Tiler>
TESSEL_HD constexpr auto zipped_product(Layout<S, D> const& a, Tiler const& t) {
  return tile_unzip(logical_product(a, t), t);
}
template <class S, class D, class Tiler>
TESSEL_HD constexpr auto tiled_product(Layout<S, D> const& a, Tiler const& t) {
  auto z = zipped_product(a, t);
  return z(Underscore{}, repeat<std::size_t(rank_v<decltype(shape<1>(z))>)>(Underscore{}));
}
template <class S, class D, class Tiler>
TESSEL_HD constexpr auto flat_product(Layout<S, D> const& a, Tiler const& t) {
  auto z = zipped_product(a, t);
  return z(repeat<std::size_t(rank_v<decltype(shape<0>(z))>)>(Underscore{}), repeat<std::size_t(rank_v<decltype(shape<1>(z))>)>(Underscore{}));
}

/// Pair the modes of two layouts of equal rank: ((a0,b0),(a1,b1),...).
template <class SA, class DA, class SB, class DB>
TESSEL_HD constexpr auto zip(Layout<SA, DA> const& a, Layout<SB, DB> const& b) {
  static_assert(rank_v<SA> == rank_v<SB>, "zip: layouts of different ranks");
  auto pair = [](auto const& x, auto const& y) { return make_tuple(x, y); };
  return make_layout(transform(wrap(a.shape()), wrap(b.shape()), pair), transform(wrap(a.stride()), wrap(b.stride()), pair));
}

/// The block repeated as B lays out its copies, one copy after another in each mode:
/// mode i of the result is (block_i, tiler_i), paired and not coalesced (CuTe 4.7; 3.7
/// coalesced each mode, so layout<0> of the result was another mode).
/// @post rank(result) == max(rank(A), rank(B))
///   blocked_product((2,5):(5,1), (3,4):(1,3)) = ((2,3),(5,4)):((5,10),(1,30))
template <class SA, class DA, class SB, class DB>
TESSEL_HD constexpr auto blocked_product(Layout<SA, DA> const& a, Layout<SB, DB> const& b) {
  constexpr std::size_t R = std::size_t(rank_v<SA> > rank_v<SB> ? rank_v<SA> : rank_v<SB>);
  auto p = logical_product(append<R>(a), append<R>(b));
  return zip(layout<0>(p), layout<1>(p));
}
/// The copies interleaved instead: mode i of the result is (tiler_i, block_i), not coalesced.
///   raked_product((2,5):(5,1), (3,4):(1,3)) = ((3,2),(4,5)):((10,5),(30,1))
template <class SA, class DA, class SB, class DB>
TESSEL_HD constexpr auto raked_product(Layout<SA, DA> const& a, Layout<SB, DB> const& b) {
  constexpr std::size_t R = std::size_t(rank_v<SA> > rank_v<SB> ? rank_v<SA> : rank_v<SB>);
  auto p = logical_product(append<R>(a), append<R>(b));
  return zip(layout<1>(p), layout<0>(p));
}

/// A compact layout of shape s whose modes are laid out in the given order: order (1,0)
/// makes mode 1 fastest. LayoutLeft / LayoutRight are the two usual orders.
template <class S, class Order>
TESSEL_HD constexpr auto make_ordered_layout(S const& s, Order const& order) {
  if constexpr (std::is_same_v<Order, LayoutLeft> || std::is_same_v<Order, LayoutRight>) {
    return make_layout(s, Order{});
  } else {
    auto fs = flatten_to_tuple(s);
    auto fo = flatten_to_tuple(order);
    auto stride = transform_leaves_with(s, order, [&](auto const& si, auto const& oi) {
      auto before = fold(transform(fs, fo, [&](auto const& x, auto const& o) {
                           if constexpr (decltype(o < oi)::value) return product(x);
                           else return Int<1>{};
                         }),
                         Int<1>{}, [](auto acc, auto v) { return acc * v; });
      return compact_major<LayoutLeft>(si, before);
    });
    return make_layout(s, stride);
  }
}

/// Repeat the block until it fills the target shape, mode by mode (the order says which mode
/// of the target the copies advance along first).
/// @pre rank(block) <= rank(target); each mode of the block divides the matching target mode
///   tile_to_shape((2,2):(1,2), (4,6)) = ((2,2),(2,3)):((1,4),(2,8))
template <class S, class D, class Target, class Order = LayoutLeft>
TESSEL_HD constexpr auto tile_to_shape(Layout<S, D> const& block, Target const& target, Order const& order = {}) {
  constexpr std::size_t R = tuple_size_v<decltype(wrap(target))>;
  static_assert(std::size_t(rank_v<S>) <= R, "tile_to_shape: the block has more modes than the target shape");
  auto padded = append<R>(block);
  auto block_shape = product_each(padded.shape());
  auto target_shape = product_each(target);
  if constexpr (is_static_v<decltype(target_shape)> && is_static_v<decltype(block_shape)>) {
    static_assert(decltype(evenly_divides(block_shape, target_shape))::value,
                  "tile_to_shape: a mode of the block does not divide the matching mode of the target shape");
  }
  auto product_shape = ceil_div(target_shape, block_shape);
  return coalesce(blocked_product(padded, make_ordered_layout(product_shape, order)), product_shape);
}

}  // namespace tessel
