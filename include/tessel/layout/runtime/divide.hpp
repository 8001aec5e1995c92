#pragma once
// Layout division: split a layout into a tile and the layout of the tiles.
#include <cstdint>
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

// The second rule of admissibility.hpp on coalesced A (flat modes `a`, `size_a` elements) and the
// tiler (B, B*).
inline layout_rules::PaddedDivideVerdict padded_divide_verdict(std::vector<Mode> const& a, std::int64_t size_a,
                                                              Layout const& b, Layout const& tiler) {
  std::vector<std::int64_t> ext, str, n, d;
  for (auto const& m : a) {
    ext.push_back(m.shape);
    str.push_back(m.stride);
  }
  for (auto const& m : flat_modes(tiler)) {
    n.push_back(m.shape);
    d.push_back(m.stride);
  }
  return layout_rules::padded_divide_verdict(ext.data(), str.data(), static_cast<int>(ext.size()), size_a, n.data(),
                                             d.data(), static_cast<int>(flat_modes(b).size()),
                                             static_cast<int>(n.size()));
}

// Why CuTe's padded answer is no divide, as the sentence after the composition's own fault.
inline std::string padded_fault_text(layout_rules::PaddedDivideVerdict const& v, std::vector<Mode> const& a,
                                     Layout const& tiler) {
  using layout_rules::PaddedDivideFault;
  auto const& mi = a[static_cast<std::size_t>(v.mode)];
  std::string const last_stride = std::to_string(a.back().stride);
  std::string s = "the tiler does not divide A, and CuTe 4.7's padded answer, which widens mode " + std::to_string(v.mode) +
                  " of coalesced A (extent " + std::to_string(v.extent) + ") to " + std::to_string(v.padded) +
                  ", is no divide: ";
  switch (v.fault) {
    case PaddedDivideFault::padded_composition:
      return s + "against the widened A, " + fault_text(v.inner, tiler);
    case PaddedDivideFault::tiler_not_bijective:
      return s + "(B, B*) = " + to_string(tiler) + " is not one-to-one onto the widened A's domain, so the answer would not cover A once";
    case PaddedDivideFault::negative_stride:
      return s + "a negative stride (" + std::to_string(mi.stride) + " of that mode, " + last_stride +
             " of the last) leaves open whether the padding is A's last mode extended";
    case PaddedDivideFault::padding_off_extension:
      return s + "the padding reaches offsets that A's extended last mode never does (the least k with k * " +
             std::to_string(mi.stride) + " a multiple of the last stride " + last_stride + " is " +
             (v.step == 0 ? std::string("none") : std::to_string(v.step)) + ", past " + std::to_string(v.extent) + ")";
    case PaddedDivideFault::padding_repeats:
      return s + (v.repeat_shown ? "the widened A repeats an offset, though A is not shown to repeat any"
                                 : "A may reach each of its offsets once, and the widened A is not shown to repeat none");
    case PaddedDivideFault::padded:
    case PaddedDivideFault::composition_fault: break;
  }
  return s;
}

// logical_divide(A, B) by a layout. Where (B, B*) is admissible against A, the composition; where
// it is not because the tiler does not divide A, CuTe 4.7's padded answer when the second rule of
// admissibility.hpp shows it a divide (it is CuTe's construction, compose_tree, on A); else the
// composition's fault, followed by why the padded answer is not a divide.
// CuTe 4.7 takes the complement against A's coalesced shape, so the rest mode covers all of A:
// against (8,2,6) itself, complement(6:2, (8,2,6)) folds to (2,6):(1,12) and drops a quarter of A.
inline Layout logical_divide_impl(Layout const& a, Layout const& b) {
  a.validate();
  Layout const tiler = make_layout(b, complement(b, coalesce(a).shape));
  // The result has size(tiler) elements; fewer than A's leave some of A out. The complement's own
  // check rounds size(M) / size(filter(B)) down, so a stride of B that is no multiple of the extent
  // below it can pass it: logical_divide(2097151:4294967296, (256,(12)):(2,(16383))) had 2095104.
  if (size(tiler) < size(a)) {
    throw Error("(B, complement(B)) = " + to_string(tiler) + " has " + std::to_string(size(tiler)) + " elements, fewer than the " +
                std::to_string(size(a)) + " of A, so the divide would leave elements of A out (a stride of B is no multiple "
                "of the extent below it); give B strides that are multiples of the extents below them");
  }
  auto const flat_a = flat_modes(coalesce_x(a));
  auto const verdict = composition_verdict(flat_a, tiler);
  if (verdict.ok()) return compose_tree(flat_a, tiler.shape, tiler.stride);  // composition(a, tiler)
  auto const padded = padded_divide_verdict(flat_a, size(a), b, tiler);
  if (padded.fault == layout_rules::PaddedDivideFault::composition_fault) return composition(a, tiler);  // throws
  if (!padded.ok()) {
    throw Error("composition(" + to_string(a) + ", " + to_string(tiler) + "): " + fault_text(verdict, tiler) + "; " +
                padded_fault_text(padded, flat_a, tiler));
  }
  return compose_tree(flat_a, tiler.shape, tiler.stride);
}

}  // namespace detail

// logical_divide(A, B) = A o (B, B*) with B* = complement(B, shape(coalesce(A))) (CuTe 4.7).
// Mode 0 holds the elements B points to (the tile); mode 1 walks the tiles.
// @post rank(result) == 2, layout<0>(result) == composition(A, B)
// @post every A(i) is some result(c); exactly once, and size(result) == size(A), when B tiles A
//       exactly; otherwise A is padded along its extended last mode: every offset of the result
//       that is not A's is A's last mode extended, and a padded answer (one where (B, B*) does
//       not compose with A itself) reaches no offset twice where A reaches none twice
// @throws Error when the complement is refused, or the composition is and CuTe 4.7's padded
//         answer is not a divide (admissibility.hpp, conditions (a) to (e)).
// Example: logical_divide((8,2,6):(1,8,16), 6:2) = (6,(2,8)):(2,(1,12)), all 96 elements of A.
// Example: logical_divide((4,2,3):(2,1,8), 4:2) = ((2,2),(2,3)):((4,1),(2,8)).
// Example: logical_divide((5,5):(5,1), 4:1) = (4,(2,5)):(5,(20,1)): 4 does not divide 5, mode 0
//          of A is widened to 8, and the 40 offsets are A's 25 and 25..39 (A's last mode extended).
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
