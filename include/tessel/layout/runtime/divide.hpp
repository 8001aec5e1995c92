#pragma once
// Layout division: split a layout into a tile and the layout of the tiles.
#include <string>
#include <vector>

#include "complement.hpp"
#include "composition.hpp"

namespace tessel::rt {

namespace detail {

// Gathers the rank-2 modes at the tiler's positions:
//   ((T0,R0),(T1,R1),X,...) -> ((T0,T1),(R0,R1,X,...))
inline IntTuple unzip_by_tiler(IntTuple const& t, std::size_t tiler_rank) {
  std::vector<IntTuple> tiles, rests;
  for (int i = 0; i < t.rank(); ++i) {
    if (i < static_cast<int>(tiler_rank)) {
      if (t[i].is_leaf() || t[i].rank() != 2) throw Error("expected a rank-2 mode at " + std::to_string(i));
      tiles.push_back(t[i][0]);
      rests.push_back(t[i][1]);
    } else {
      rests.push_back(t[i]);
    }
  }
  return tuple(IntTuple::tuple(std::move(tiles)), IntTuple::tuple(std::move(rests)));
}

inline Layout tile_unzip(Layout const& l, Tiler const& t) {
  return Layout(unzip_by_tiler(l.shape, t.size()), unzip_by_tiler(l.stride, t.size()));
}

// Splices the elements of the listed top-level modes into the top level:
// CuTe's slice with (_,...,_) in those modes.
inline Layout unpack_modes(Layout const& l, bool unpack0, bool unpack1) {
  std::vector<IntTuple> s, d;
  for (int i = 0; i < rank(l); ++i) {
    bool unpack = (i == 0 && unpack0) || (i == 1 && unpack1);
    // A mode of rank 1 is kept whole: CuTe's repeat<1>(_) is a single `_`.
    if (unpack && l.shape[i].rank() > 1) {
      for (int j = 0; j < l.shape[i].rank(); ++j) {
        s.push_back(l.shape[i][j]);
        d.push_back(l.stride[i][j]);
      }
    } else {
      s.push_back(l.shape[i]);
      d.push_back(l.stride[i]);
    }
  }
  return Layout(IntTuple::tuple(std::move(s)), IntTuple::tuple(std::move(d)));
}

// CuTe 4.7 takes the complement against A's coalesced shape, so the rest mode covers all of A:
// against (8,2,6) itself, complement(6:2, (8,2,6)) folds to (2,6):(1,12) and drops a quarter of A.
inline Layout logical_divide_impl(Layout const& a, Layout const& b) {
  return composition(a, make_layout(b, complement(b, coalesce(a).shape)));
}

}  // namespace detail

// logical_divide(A, B) = A o (B, B*) with B* = complement(B, shape(coalesce(A))) (CuTe 4.7).
// Mode 0 holds the elements B points to (the tile); mode 1 walks the tiles.
// @post rank(result) == 2, layout<0>(result) == composition(A, B)
// @post every A(i) is some result(c); exactly once, and size(result) == size(A), when B tiles A
//       exactly; otherwise A is padded along its extended last mode
// @throws Error when the complement or the composition is refused.
// Example: logical_divide((8,2,6):(1,8,16), 6:2) = (6,(2,8)):(2,(1,12)), all 96 elements of A.
// Example: logical_divide((4,2,3):(2,1,8), 4:2) = ((2,2),(2,3)):((4,1),(2,8)).
inline Layout logical_divide(Layout const& a, Layout const& b) {
  return detail::with_context(
      "logical_divide", [&] { return to_string(a) + ", " + to_string(b); },
      [&] { return detail::logical_divide_impl(a, b); });
}

// By-mode logical_divide: ((A0 / B0), (A1 / B1), ..., A_k, ...).
// Example: logical_divide((256,128):(128,1), [16:1,16:1])
//          = ((16,16),(16,8)):((128,2048),(1,16)).
inline Layout logical_divide(Layout const& a, Tiler const& t) {
  return detail::with_context(
      "logical_divide", [&] { return to_string(a) + ", " + to_string(t); },
      [&] { return detail::transform_by_mode(a, t, detail::logical_divide_impl, true); });
}

namespace detail {

inline Layout zipped_divide_impl(Layout const& a, Layout const& b) { return logical_divide_impl(a, b); }
inline Layout zipped_divide_impl(Layout const& a, Tiler const& t) {
  return tile_unzip(transform_by_mode(a, t, logical_divide_impl, true), t);
}

}  // namespace detail

// zipped_divide: the tiles gathered into mode 0 and everything else into
// mode 1: ((TileM,TileN,...),(RestM,RestN,...,L,...)). With a single layout
// as tiler it is logical_divide.
// @post layout<0>(result) == composition(A, tiler)
// Example: zipped_divide((256,128):(128,1), [16:1,16:1])
//          = ((16,16),(16,8)):((128,1),(2048,16)).
template <class B>
Layout zipped_divide(Layout const& a, B const& b) {
  return detail::with_context(
      "zipped_divide", [&] { return to_string(a) + ", " + to_string(b); },
      [&] { return detail::zipped_divide_impl(a, b); });
}

// tiled_divide: zipped_divide with the rest mode unpacked:
// ((TileM,TileN,...),RestM,RestN,...,L,...).
// Example: tiled_divide((256,128):(128,1), [16:1,16:1]) = ((16,16),16,8):((128,1),2048,16).
template <class B>
Layout tiled_divide(Layout const& a, B const& b) {
  return detail::with_context(
      "tiled_divide", [&] { return to_string(a) + ", " + to_string(b); },
      [&] { return detail::unpack_modes(detail::zipped_divide_impl(a, b), false, true); });
}

// flat_divide: both modes unpacked: (TileM,TileN,...,RestM,RestN,...,L,...).
// Example: flat_divide((256,128):(128,1), [16:1,16:1]) = (16,16,16,8):(128,1,2048,16).
template <class B>
Layout flat_divide(Layout const& a, B const& b) {
  return detail::with_context(
      "flat_divide", [&] { return to_string(a) + ", " + to_string(b); },
      [&] { return detail::unpack_modes(detail::zipped_divide_impl(a, b), true, true); });
}

}  // namespace tessel::rt
