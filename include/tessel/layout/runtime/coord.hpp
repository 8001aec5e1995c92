#pragma once
// Coordinates for evaluating and slicing run-time layouts.
//
// A Coord is an integer, the slice marker `_`, or a tuple of Coords. It is a
// separate type from IntTuple because `_` is not a number: a shape never
// holds one, and a coordinate holding one asks for a sub-layout instead of an
// index.
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "int_tuple.hpp"

namespace tessel::rt {

// The slice marker: keep this mode.
struct Underscore {};
inline constexpr Underscore _{};

class Coord {
 public:
  enum class Kind { Int, Under, Tuple };

  Coord() = default;
  template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  Coord(I v) : value_(static_cast<std::int64_t>(v)) {}  // NOLINT: implicit on purpose
  Coord(Underscore) : kind_(Kind::Under) {}            // NOLINT: implicit on purpose
  Coord(IntTuple const& t) {                            // NOLINT: implicit on purpose
    if (t.is_leaf()) {
      value_ = t.value();
    } else {
      kind_ = Kind::Tuple;
      for (auto const& e : t.elems()) elems_.emplace_back(e);
    }
  }

  static Coord tuple(std::vector<Coord> elems) {
    Coord c;
    c.kind_ = Kind::Tuple;
    c.elems_ = std::move(elems);
    return c;
  }

  Kind kind() const { return kind_; }
  bool is_int() const { return kind_ == Kind::Int; }
  bool is_underscore() const { return kind_ == Kind::Under; }
  bool is_tuple() const { return kind_ == Kind::Tuple; }
  std::int64_t value() const { return value_; }
  std::vector<Coord> const& elems() const { return elems_; }
  int rank() const { return is_tuple() ? static_cast<int>(elems_.size()) : 1; }

  // True when `_` appears anywhere inside.
  bool has_underscore() const {
    if (is_underscore()) return true;
    for (auto const& e : elems_) {
      if (e.has_underscore()) return true;
    }
    return false;
  }

 private:
  Kind kind_ = Kind::Int;
  std::int64_t value_ = 0;
  std::vector<Coord> elems_;
};

// make_coord(1, _, make_coord(2, 3)) is (1,_,(2,3)).
template <class... Ts>
Coord make_coord(Ts const&... ts) {
  return Coord::tuple(std::vector<Coord>{Coord(ts)...});
}

inline std::string to_string(Coord const& c) {
  if (c.is_int()) return std::to_string(c.value());
  if (c.is_underscore()) return "_";
  std::string s = "(";
  for (std::size_t i = 0; i < c.elems().size(); ++i) {
    if (i) s += ',';
    s += to_string(c.elems()[i]);
  }
  return s + ")";
}

namespace detail {

inline void check_in_range(std::int64_t c, std::int64_t extent) {
  if (c < 0 || c >= extent) {
    throw Error("coordinate " + std::to_string(c) + " is out of range [0," +
                std::to_string(extent) + ")");
  }
}

}  // namespace detail

// crd2idx(c, shape, stride): the index a coordinate maps to.
//   integer c, leaf shape s, stride d:  c*d                    (0 <= c < s)
//   integer c, tuple shape:             split c colexicographically over the
//                                       modes (mode 0 fastest), then recurse
//   tuple c, tuple shape:               sum over modes
//   `_`:                                contributes 0 (the slice's offset)
// @throws Error when c is out of range or its nesting does not fit the shape.
// Example: crd2idx(5, (2,3), (3,1)) = crd2idx((1,2), ...) = 1*3 + 2*1 = 5.
inline std::int64_t crd2idx(Coord const& c, IntTuple const& shape, IntTuple const& stride) {
  if (c.is_underscore()) return 0;
  if (c.is_tuple()) {
    if (shape.is_leaf() || shape.rank() != c.rank()) {
      throw Error("coordinate " + to_string(c) + " has rank " + std::to_string(c.rank()) +
                  " but the shape " + to_string(shape) + " has " +
                  (shape.is_leaf() ? std::string("no modes") : "rank " + std::to_string(shape.rank())));
    }
    std::int64_t idx = 0;
    for (int i = 0; i < c.rank(); ++i) {
      idx = detail::add(idx, crd2idx(c.elems()[static_cast<std::size_t>(i)], shape[i], stride[i]));
    }
    return idx;
  }
  std::int64_t v = c.value();
  detail::check_in_range(v, size(shape));
  if (shape.is_leaf()) return detail::mul(v, stride.value());
  std::int64_t idx = 0;
  for (int i = 0; i < shape.rank(); ++i) {
    std::int64_t s = size(shape[i]);
    idx = detail::add(idx, crd2idx(v % s, shape[i], stride[i]));
    v /= s;
  }
  return idx;
}

// idx2crd(i, shape): the natural (congruent) coordinate of the 1-D coordinate
// i, splitting colexicographically.
// Example: idx2crd(5, ((2,2),3)) = ((1,0),1).
inline IntTuple idx2crd(std::int64_t i, IntTuple const& shape) {
  detail::check_in_range(i, size(shape));
  if (shape.is_leaf()) return i;
  std::vector<IntTuple> out;
  for (auto const& s : shape.elems()) {
    std::int64_t n = size(s);
    out.push_back(idx2crd(i % n, s));
    i /= n;
  }
  return IntTuple::tuple(std::move(out));
}

// The 1-D (colexicographic) coordinate of a coordinate within shape.
// Example: crd2idx(((1,0),1), ((2,2),3)) = 5.
inline std::int64_t crd2idx(Coord const& c, IntTuple const& shape) {
  if (c.is_underscore()) throw Error("`_` has no 1-D coordinate");
  if (c.is_int()) {
    detail::check_in_range(c.value(), size(shape));
    return c.value();
  }
  if (shape.is_leaf() || shape.rank() != c.rank()) {
    throw Error("coordinate " + to_string(c) + " does not match the rank of shape " +
                to_string(shape));
  }
  std::int64_t idx = 0, scale = 1;
  for (int i = 0; i < c.rank(); ++i) {
    idx = detail::add(idx, detail::mul(crd2idx(c.elems()[static_cast<std::size_t>(i)], shape[i]), scale));
    scale = detail::mul(scale, size(shape[i]));
  }
  return idx;
}

namespace detail {

// The modes of t kept by c, appended to out (CuTe's lifted slice: a `_`
// keeps its whole mode as one element, an integer drops it, a tuple recurses
// and splices).
inline void slice_into(Coord const& c, IntTuple const& t, std::vector<IntTuple>& out) {
  if (c.is_underscore()) {
    out.push_back(t);
  } else if (c.is_tuple()) {
    if (t.is_leaf() || t.rank() != c.rank()) {
      throw Error("slice coordinate " + to_string(c) + " does not match the rank of " + to_string(t));
    }
    for (int i = 0; i < c.rank(); ++i) slice_into(c.elems()[static_cast<std::size_t>(i)], t[i], out);
  }
}

}  // namespace detail

// slice(c, t): the parts of t at the `_` positions of c.
//   slice(_, t) = t;  slice(integer, t) = ();  slice((c0,c1,...), t) = the
//   kept modes of every t_i spliced into one flat tuple of kept modes.
// Example: slice((_,(1,_)), (4,(2,8))) = (4,8).
inline IntTuple slice(Coord const& c, IntTuple const& t) {
  if (c.is_underscore()) return t;
  std::vector<IntTuple> out;
  if (c.is_tuple()) detail::slice_into(c, t, out);
  return IntTuple::tuple(std::move(out));
}

}  // namespace tessel::rt
