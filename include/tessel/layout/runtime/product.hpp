#pragma once
// Layout products: reproduce a layout (the block) according to another (the tiler).
#include <algorithm>
#include <string>
#include <vector>

#include "divide.hpp"

namespace tessel::rt {

namespace detail {

inline Layout logical_product_impl(Layout const& a, Layout const& b) {
  return make_layout(a, composition(complement(a, mul(size(a), cosize(b))), b));
}

}  // namespace detail

// logical_product(A, B) = (A, A* o B) with A* = complement(A, size(A)*cosize(B)).
// Mode 0 is A; mode 1 places one copy of A per element of B, in B's order,
// in the space A leaves free.
// @post rank(result) == 2, layout<0>(result) == A, compatible(shape(B), shape<1>(result))
// Example: logical_product((2,2):(4,1), 6:1) = ((2,2),(2,3)):((4,1),(2,8)).
inline Layout logical_product(Layout const& a, Layout const& b) {
  return detail::with_context(
      "logical_product", [&] { return to_string(a) + ", " + to_string(b); },
      [&] { return detail::logical_product_impl(a, b); });
}

// By-mode logical_product: ((A0 x B0), (A1 x B1), ..., A_k, ...).
inline Layout logical_product(Layout const& a, Tiler const& t) {
  return detail::with_context(
      "logical_product", [&] { return to_string(a) + ", " + to_string(t); },
      [&] { return detail::transform_by_mode(a, t, detail::logical_product_impl, true); });
}

namespace detail {

inline Layout zipped_product_impl(Layout const& a, Layout const& b) { return logical_product_impl(a, b); }
inline Layout zipped_product_impl(Layout const& a, Tiler const& t) {
  return tile_unzip(transform_by_mode(a, t, logical_product_impl, true), t);
}

}  // namespace detail

// zipped_product: ((M,N,...),(TileM,TileN,...,L,...)) from the by-mode
// product; with a single layout as tiler it is logical_product.
// Example: zipped_product((2,5):(5,1), [3:1,4:1]) = ((2,5),(3,4)):((5,1),(1,5)).
template <class B>
Layout zipped_product(Layout const& a, B const& b) {
  return detail::with_context(
      "zipped_product", [&] { return to_string(a) + ", " + to_string(b); },
      [&] { return detail::zipped_product_impl(a, b); });
}

// tiled_product: ((M,N,...),TileM,TileN,...,L,...).
template <class B>
Layout tiled_product(Layout const& a, B const& b) {
  return detail::with_context(
      "tiled_product", [&] { return to_string(a) + ", " + to_string(b); },
      [&] { return detail::unpack_modes(detail::zipped_product_impl(a, b), false, true); });
}

// flat_product: (M,N,...,TileM,TileN,...,L,...).
template <class B>
Layout flat_product(Layout const& a, B const& b) {
  return detail::with_context(
      "flat_product", [&] { return to_string(a) + ", " + to_string(b); },
      [&] { return detail::unpack_modes(detail::zipped_product_impl(a, b), true, true); });
}

namespace detail {

// At rank 1 each half of the product is one mode, whatever its nesting: the rest mode of
// logical_product(2:2, 4:1) is (2,2):(1,4), one mode (as CuTe's append<1> wraps it), not two.
inline IntTuple sole_mode(IntTuple const& t) { return !t.is_leaf() && t.rank() == 1 ? t[0] : t; }

inline Layout rank_sensitive_product(Layout const& block, Layout const& tiler, bool raked) {
  int r = std::max(rank(block), rank(tiler));
  Layout p = logical_product(append_to_rank(block, r), append_to_rank(tiler, r));
  Layout first = layout(p, raked ? 1 : 0), second = layout(p, raked ? 0 : 1);
  if (r == 1) {
    return Layout(tuple(tuple(sole_mode(first.shape), sole_mode(second.shape))),
                  tuple(tuple(sole_mode(first.stride), sole_mode(second.stride))));
  }
  return zip(first, second);
}

}  // namespace detail

// blocked_product(A, B): A repeated as whole blocks over B, mode by mode.
// Both are padded to the same rank r with 1:0 modes, multiplied with
// logical_product, and like modes paired, not coalesced (CuTe 4.7; 3.7 coalesced each mode):
//   mode i = (A_i, (A* o B)_i).
// @post rank(result) == max(rank(A), rank(B)), layout<i,0>(result) == mode i of A
// Example: blocked_product((2,5):(5,1), (3,4):(1,3)) = ((2,3),(5,4)):((5,10),(1,30)):
//          a 2x5 row-major block tiled 3x4 column-major.
inline Layout blocked_product(Layout const& block, Layout const& tiler) {
  return detail::with_context(
      "blocked_product", [&] { return to_string(block) + ", " + to_string(tiler); },
      [&] { return detail::rank_sensitive_product(block, tiler, false); });
}

// raked_product(A, B): like blocked_product, but each mode is B's part then
// A's, so copies of A interleave ("cyclic distribution").
// Example: raked_product((2,5):(5,1), (3,4):(1,3)) = ((3,2),(4,5)):((10,5),(30,1)).
inline Layout raked_product(Layout const& block, Layout const& tiler) {
  return detail::with_context(
      "raked_product", [&] { return to_string(block) + ", " + to_string(tiler); },
      [&] { return detail::rank_sensitive_product(block, tiler, true); });
}

// tile_to_shape(A, S): repeat A (blocked) until it has shape S, the repeats
// ordered column-major (LayoutLeft, default) or row-major (LayoutRight).
// @pre rank(A) <= rank(S), and each mode's size of A divides that of S
// @post compatible-by-mode: size of mode i of the result == size of S_i
// Example: tile_to_shape((2,2):(1,2), (4,6)) = ((2,2),(2,3)):((1,4),(2,8)):
//          2x2 blocks, then 2x3 of them, each block 4 elements apart.
template <class Major = LayoutLeft>
Layout tile_to_shape(Layout const& block, IntTuple const& trg_shape, Major major = {}) {
  return detail::with_context(
      "tile_to_shape", [&] { return to_string(block) + ", " + to_string(trg_shape); },
      [&] {
        detail::check_shape_positive(trg_shape, trg_shape);
        int r = trg_shape.rank();
        if (rank(block) > r) {
          throw Error("the block has rank " + std::to_string(rank(block)) + " but the target shape has rank " +
                      std::to_string(r));
        }
        Layout padded = append_to_rank(block, r);
        IntTuple bs = product_each(padded.shape);
        IntTuple ts = product_each(trg_shape);
        std::vector<IntTuple> reps;
        for (int i = 0; i < r; ++i) {
          if (ts[i].value() % bs[i].value() != 0) {
            throw Error("block size " + std::to_string(bs[i].value()) + " of mode " + std::to_string(i) +
                        " does not divide the target size " + std::to_string(ts[i].value()));
          }
          reps.emplace_back(ts[i].value() / bs[i].value());
        }
        IntTuple product_shape = IntTuple::tuple(std::move(reps));
        return coalesce(blocked_product(padded, make_layout(product_shape, major)), product_shape);
      });
}

}  // namespace tessel::rt
