#pragma once
// Layout: a shape and a stride of the same nesting; a function from
// coordinates of the shape to integers.
//
//   L = (s0,s1,...):(d0,d1,...),   L(c0,c1,...) = c0*d0 + c1*d1 + ...
//
// with hierarchical shapes handled mode by mode and a 1-D coordinate split
// colexicographically (see crd2idx in coord.hpp).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "coord.hpp"
#include "int_tuple.hpp"

namespace tessel::rt {

struct LayoutLeft {};   // column-major: the leftmost mode has stride 1
struct LayoutRight {};  // row-major: the rightmost mode has stride 1

namespace detail {

inline void check_shape_positive(IntTuple const& s, IntTuple const& whole) {
  if (s.is_leaf()) {
    if (s.value() < 1) {
      throw Error("shape " + to_string(whole) + " has a non-positive extent " +
                  std::to_string(s.value()));
    }
    return;
  }
  if (s.rank() == 0) throw Error("shape " + to_string(whole) + " contains an empty tuple");
  for (auto const& e : s.elems()) check_shape_positive(e, whole);
}

// Compact strides for `shape`, starting at `current`; modes of extent 1 get
// stride 0 (they never move, and CuTe gives them a static 0). Returns the
// stride and advances `current` past the shape.
inline IntTuple compact(IntTuple const& shape, std::int64_t& current, bool left) {
  if (shape.is_leaf()) {
    if (shape.value() == 1) return 0;
    std::int64_t d = current;
    current = mul(current, shape.value());
    return d;
  }
  std::vector<IntTuple> out(shape.elems().size());
  int n = shape.rank();
  for (int k = 0; k < n; ++k) {
    int i = left ? k : n - 1 - k;
    out[static_cast<std::size_t>(i)] = compact(shape[i], current, left);
  }
  return IntTuple::tuple(std::move(out));
}

}  // namespace detail

// Column-major (LayoutLeft) compact strides of shape, scaled by `current`.
// Example: compact_col_major((2,(3,4))) = (1,(2,6)).
inline IntTuple compact_col_major(IntTuple const& shape, std::int64_t current = 1) {
  return detail::compact(shape, current, true);
}

// Row-major (LayoutRight) compact strides. Example: compact_row_major((2,3,4)) = (12,4,1).
inline IntTuple compact_row_major(IntTuple const& shape, std::int64_t current = 1) {
  return detail::compact(shape, current, false);
}

struct Layout {
  IntTuple shape = 1;
  IntTuple stride = 0;

  Layout() = default;

  // @throws Error unless shape and stride are congruent, every extent is >= 1 and the nesting
  //         is at most kMaxNesting deep.
  Layout(IntTuple shp, IntTuple str) : shape(std::move(shp)), stride(std::move(str)) { validate(); }

  void validate() const {
    detail::check_shape_positive(shape, shape);
    if (!congruent(shape, stride)) {
      throw Error("shape " + to_string(shape) + " and stride " + to_string(stride) +
                  " are not congruent");
    }
    // Every reader of layouts (text, Python values, the calculator) stops at kMaxNesting; a
    // deeper result of the algebra (make_layout(L) applied 65 times) could not be read back, so
    // its str() and pickle would not round-trip. One limit, here, for every layout.
    if (int d = depth(shape); d > kMaxNesting) {
      throw Error("the layout is nested " + std::to_string(d) + " levels deep, more than the " + std::to_string(kMaxNesting) +
                  " levels a layout may have; flatten or coalesce some of its modes first");
    }
  }

  // L(c): the index of coordinate c (integer, n-D or hierarchical).
  // @throws Error when c is out of range, has the wrong rank, or holds `_`
  //         (use slice() for that).
  std::int64_t operator()(Coord const& c) const {
    if (c.has_underscore()) throw Error("coordinate " + to_string(c) + " holds `_`: use slice()");
    return crd2idx(c, shape, stride);
  }
  template <class C0, class C1, class... Cs>
  std::int64_t operator()(C0 const& c0, C1 const& c1, Cs const&... cs) const {
    return (*this)(make_coord(c0, c1, cs...));
  }

  friend bool operator==(Layout const& a, Layout const& b) {
    return a.shape == b.shape && a.stride == b.stride;
  }
  friend bool operator!=(Layout const& a, Layout const& b) { return !(a == b); }
};

// ---- construction ------------------------------------------------------------

inline Layout make_layout(IntTuple const& shape, IntTuple const& stride) { return Layout(shape, stride); }

// The compact column-major layout of shape (CuTe's default).
// Example: make_layout((4,(2,3))) = (4,(2,3)):(1,(4,8)).
inline Layout make_layout(IntTuple const& shape, LayoutLeft = {}) {
  detail::check_shape_positive(shape, shape);
  return Layout(shape, compact_col_major(shape));
}

// Example: make_layout((4,(2,3)), LayoutRight{}) = (4,(2,3)):(6,(3,1)).
inline Layout make_layout(IntTuple const& shape, LayoutRight) {
  detail::check_shape_positive(shape, shape);
  return Layout(shape, compact_row_major(shape));
}

// Concatenation of layouts as modes: make_layout(A, B) = (shape A, shape B):(stride A, stride B).
// One layout gives a rank-1 layout ((shape A)):((stride A)), as in CuTe.
inline Layout make_layout(std::vector<Layout> const& ls) {
  if (ls.empty()) throw Error("make_layout needs at least one layout");
  std::vector<IntTuple> sh, st;
  for (auto const& l : ls) {
    sh.push_back(l.shape);
    st.push_back(l.stride);
  }
  return Layout(IntTuple::tuple(std::move(sh)), IntTuple::tuple(std::move(st)));
}
inline Layout make_layout(Layout const& a) { return make_layout(std::vector<Layout>{a}); }
inline Layout make_layout(Layout const& a, Layout const& b) { return make_layout(std::vector<Layout>{a, b}); }
template <class... Ls>
Layout make_layout(Layout const& a, Layout const& b, Layout const& c, Ls const&... ls) {
  return make_layout(std::vector<Layout>{a, b, c, ls...});
}

// ---- accessors ---------------------------------------------------------------

inline IntTuple const& shape(Layout const& l) { return l.shape; }
inline IntTuple const& stride(Layout const& l) { return l.stride; }
inline int rank(Layout const& l) { return l.shape.rank(); }
inline int depth(Layout const& l) { return depth(l.shape); }
inline std::int64_t size(Layout const& l) { return size(l.shape); }

// Mode i as a layout; mode 0 of a rank-1 leaf layout is the layout itself.
inline Layout layout(Layout const& l, int i) { return Layout(l.shape[i], l.stride[i]); }
inline Layout get(Layout const& l, int i) { return layout(l, i); }
// Nested access: layout(L, {i, j}) is mode j of mode i.
inline Layout layout(Layout const& l, std::vector<int> const& path) {
  Layout r = l;
  for (int i : path) r = layout(r, i);
  return r;
}
inline IntTuple const& shape(Layout const& l, int i) { return l.shape[i]; }
inline IntTuple const& stride(Layout const& l, int i) { return l.stride[i]; }
inline std::int64_t size(Layout const& l, int i) { return size(l.shape[i]); }

// Codomain size: 1 + the largest index reached with |strides|, i.e. the
// smallest M with L(c) < M for all c.
// Example: cosize((2,3):(3,1)) = 1 + 1*3 + 2*1 = 6.
inline std::int64_t cosize(Layout const& l) {
  auto s = leaves(l.shape);
  auto d = leaves(l.stride);
  std::int64_t hi = 0;
  for (std::size_t i = 0; i < s.size(); ++i) hi = detail::add(hi, detail::mul(s[i] - 1, detail::abs(d[i])));
  return detail::add(hi, 1);
}

// ---- rearranging modes -------------------------------------------------------

inline Layout select(Layout const& l, std::vector<int> const& idx) {
  return Layout(select(l.shape, idx), select(l.stride, idx));
}
inline Layout take(Layout const& l, int b, int e) { return Layout(take(l.shape, b, e), take(l.stride, b, e)); }
inline Layout flatten(Layout const& l) { return Layout(flatten(l.shape), flatten(l.stride)); }
inline Layout group(Layout const& l, int b, int e) { return Layout(group(l.shape, b, e), group(l.stride, b, e)); }
// append(L, X) adds X as a last mode (default X = 1:0, which changes nothing as a function).
inline Layout append(Layout const& l, Layout const& x = Layout()) {
  return Layout(append(l.shape, x.shape), append(l.stride, x.stride));
}
inline Layout prepend(Layout const& l, Layout const& x = Layout()) {
  return Layout(prepend(l.shape, x.shape), prepend(l.stride, x.stride));
}
// L padded with copies of x (default 1:0) up to rank n; unchanged if already rank n.
inline Layout append_to_rank(Layout const& l, int n, Layout const& x = Layout()) {
  return Layout(append_to_rank(l.shape, n, x.shape), append_to_rank(l.stride, n, x.stride));
}

// zip(A, B) for two layouts of matching rank: ((a0,b0),(a1,b1),...). When A is
// rank-1 with a leaf shape, the pair itself becomes the single mode: ((a,b)).
inline IntTuple zip(IntTuple const& a, IntTuple const& b) {
  if (a.is_leaf()) return tuple(tuple(a, b));
  if (b.rank() < a.rank()) {
    throw Error("zip: " + to_string(b) + " has fewer modes than " + to_string(a));
  }
  std::vector<IntTuple> out;
  for (int i = 0; i < a.rank(); ++i) out.push_back(tuple(a[i], b[i]));
  return IntTuple::tuple(std::move(out));
}
inline Layout zip(Layout const& a, Layout const& b) {
  return Layout(zip(a.shape, b.shape), zip(a.stride, b.stride));
}

// ---- slicing -----------------------------------------------------------------

// The sub-layout of the `_` modes of c. Example: slice((_,2), (4,8):(1,4)) = (4):(1).
inline Layout slice(Coord const& c, Layout const& l) {
  if (!c.has_underscore()) throw Error("slice coordinate " + to_string(c) + " holds no `_`");
  // Range/rank errors surface through crd2idx, so check the coordinate first.
  crd2idx(c, l.shape, l.stride);
  return Layout(slice(c, l.shape), slice(c, l.stride));
}

// The slice together with the index of its origin: L(c) with `_` read as 0.
inline std::pair<Layout, std::int64_t> slice_and_offset(Coord const& c, Layout const& l) {
  return {slice(c, l), crd2idx(c, l.shape, l.stride)};
}

// ---- printing ----------------------------------------------------------------

// CuTe notation: shape:stride, e.g. ((2,2),8):((1,16),2) or 8:1.
inline std::string to_string(Layout const& l) { return to_string(l.shape) + ":" + to_string(l.stride); }

}  // namespace tessel::rt
