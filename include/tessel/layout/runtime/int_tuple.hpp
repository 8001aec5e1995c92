#pragma once
// IntTuple: an integer, or a tuple of IntTuples, whose nesting is only known
// at run time.
//
// This is the run-time twin of CuTe's IntTuple concept. A leaf and a rank-1
// tuple are different values: `8` and `(8)` print differently and CuTe's
// algebra produces both, so both are kept.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "arith.hpp"
#include "error.hpp"

namespace tessel::rt {

// The deepest nesting a reader of layouts (text, Python values, calculator expressions) accepts.
// The readers recurse once per level, so a bound keeps hostile input from exhausting the stack.
// Layout::validate holds every layout to it too, so whatever the algebra returns reads back.
inline constexpr int kMaxNesting = 64;

class IntTuple {
 public:
  // A default IntTuple is the leaf 0.
  IntTuple() = default;

  // Any integer converts to a leaf, so `IntTuple s = 8;` reads naturally.
  template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  IntTuple(I v) : value_(static_cast<std::int64_t>(v)) {}  // NOLINT: implicit on purpose

  // A tuple of the given elements. There is deliberately no initializer_list
  // constructor: with one, IntTuple{5} would silently be the tuple (5).
  static IntTuple tuple(std::vector<IntTuple> elems) {
    IntTuple t;
    t.leaf_ = false;
    t.elems_ = std::move(elems);
    return t;
  }

  bool is_leaf() const { return leaf_; }
  bool is_tuple() const { return !leaf_; }

  std::int64_t value() const {
    if (!leaf_) throw Error("expected an integer, got a tuple");
    return value_;
  }

  // The elements of a tuple; a leaf has none.
  std::vector<IntTuple> const& elems() const { return elems_; }

  // Number of top-level modes: 1 for a leaf.
  int rank() const { return leaf_ ? 1 : static_cast<int>(elems_.size()); }

  // Mode i. As in CuTe, mode 0 of a leaf is the leaf itself.
  IntTuple const& operator[](int i) const {
    if (leaf_) {
      if (i != 0) throw Error("mode " + std::to_string(i) + " of an integer does not exist");
      return *this;
    }
    if (i < 0 || i >= rank()) {
      throw Error("mode " + std::to_string(i) + " out of range for a tuple of rank " +
                  std::to_string(rank()));
    }
    return elems_[static_cast<std::size_t>(i)];
  }

  friend bool operator==(IntTuple const& a, IntTuple const& b) {
    if (a.leaf_ != b.leaf_) return false;
    return a.leaf_ ? a.value_ == b.value_ : a.elems_ == b.elems_;
  }
  friend bool operator!=(IntTuple const& a, IntTuple const& b) { return !(a == b); }

 private:
  std::int64_t value_ = 0;
  bool leaf_ = true;
  std::vector<IntTuple> elems_;
};

// tuple(a, b, ...) builds a tuple from anything convertible to IntTuple:
//   tuple(tuple(2, 2), 8)  is  ((2,2),8)
template <class... Ts>
IntTuple tuple(Ts const&... ts) {
  return IntTuple::tuple(std::vector<IntTuple>{IntTuple(ts)...});
}

inline int rank(IntTuple const& t) { return t.rank(); }

// Nesting depth: 0 for a leaf, 1 + the deepest element for a tuple.
inline int depth(IntTuple const& t) {
  if (t.is_leaf()) return 0;
  int d = 0;
  for (auto const& e : t.elems()) d = std::max(d, depth(e));
  return 1 + d;
}

// Product of all leaves (1 for the empty tuple). Overflow throws.
inline std::int64_t product(IntTuple const& t) {
  if (t.is_leaf()) return t.value();
  std::int64_t p = 1;
  for (auto const& e : t.elems()) p = detail::mul(p, product(e));
  return p;
}

inline std::vector<std::int64_t> leaves(IntTuple const& t);
inline std::string to_string(IntTuple const& t);

// The number of coordinates of shape t. A shape's extents are positive.
// @throws Error for an extent < 1: size((-8,3)) and size((0,3)) are refused, not -24 and 0.
inline std::int64_t size(IntTuple const& t) {
  for (auto v : leaves(t)) {
    if (v < 1) throw Error("size(" + to_string(t) + "): shape " + to_string(t) + " has a non-positive extent " + std::to_string(v));
  }
  return product(t);
}

// A tuple holding one element per mode: product of that mode.
inline IntTuple product_each(IntTuple const& t) {
  std::vector<IntTuple> out;
  for (int i = 0; i < t.rank(); ++i) out.emplace_back(product(t[i]));
  return IntTuple::tuple(std::move(out));
}

// The leaves in order. flatten of a leaf is the leaf; of a tuple, a flat tuple.
inline void append_leaves(IntTuple const& t, std::vector<IntTuple>& out) {
  if (t.is_leaf()) {
    out.push_back(t);
  } else {
    for (auto const& e : t.elems()) append_leaves(e, out);
  }
}

inline std::vector<std::int64_t> leaves(IntTuple const& t) {
  std::vector<IntTuple> v;
  append_leaves(t, v);
  std::vector<std::int64_t> out;
  out.reserve(v.size());
  for (auto const& e : v) out.push_back(e.value());
  return out;
}

inline IntTuple flatten(IntTuple const& t) {
  if (t.is_leaf()) return t;
  std::vector<IntTuple> out;
  append_leaves(t, out);
  return IntTuple::tuple(std::move(out));
}

// Same nesting (profile) in both, leaves anywhere.
inline bool congruent(IntTuple const& a, IntTuple const& b) {
  if (a.is_leaf() || b.is_leaf()) return a.is_leaf() && b.is_leaf();
  if (a.rank() != b.rank()) return false;
  for (int i = 0; i < a.rank(); ++i) {
    if (!congruent(a[i], b[i])) return false;
  }
  return true;
}

// Any coordinate of shape a is a coordinate of shape b: sizes agree at every
// leaf of a.
inline bool compatible(IntTuple const& a, IntTuple const& b) {
  if (a.is_leaf()) return a.value() == product(b);
  if (b.is_leaf() || a.rank() != b.rank()) return false;
  for (int i = 0; i < a.rank(); ++i) {
    if (!compatible(a[i], b[i])) return false;
  }
  return true;
}

// The elements of t as a vector of modes (a leaf is one mode).
inline std::vector<IntTuple> modes(IntTuple const& t) {
  if (t.is_leaf()) return {t};
  return t.elems();
}

// t with x appended as a new last mode; a leaf t first becomes (t).
inline IntTuple append(IntTuple const& t, IntTuple const& x) {
  auto m = modes(t);
  m.push_back(x);
  return IntTuple::tuple(std::move(m));
}

inline IntTuple prepend(IntTuple const& t, IntTuple const& x) {
  auto m = modes(t);
  m.insert(m.begin(), x);
  return IntTuple::tuple(std::move(m));
}

// t padded with copies of x up to rank n; unchanged when rank(t) == n.
inline IntTuple append_to_rank(IntTuple const& t, int n, IntTuple const& x) {
  if (t.rank() > n) {
    throw Error("cannot pad a tuple of rank " + std::to_string(t.rank()) + " to rank " +
                std::to_string(n));
  }
  if (t.rank() == n) return t;
  auto m = modes(t);
  while (static_cast<int>(m.size()) < n) m.push_back(x);
  return IntTuple::tuple(std::move(m));
}

// Modes [b, e) as a tuple.
inline IntTuple take(IntTuple const& t, int b, int e) {
  if (b < 0 || e > t.rank() || b >= e) {
    throw Error("take [" + std::to_string(b) + "," + std::to_string(e) +
                ") is not a non-empty range of a rank-" + std::to_string(t.rank()) + " tuple");
  }
  auto m = modes(t);
  return IntTuple::tuple(std::vector<IntTuple>(m.begin() + b, m.begin() + e));
}

// The listed modes, in the listed order, as a tuple.
inline IntTuple select(IntTuple const& t, std::vector<int> const& idx) {
  std::vector<IntTuple> out;
  for (int i : idx) out.push_back(t[i]);
  return IntTuple::tuple(std::move(out));
}

// Modes [b, e) gathered into one mode: (t0,...,t[b-1],(t[b],...,t[e-1]),t[e],...).
inline IntTuple group(IntTuple const& t, int b, int e) {
  auto m = modes(t);
  if (b < 0 || e > static_cast<int>(m.size()) || b > e) {
    throw Error("group [" + std::to_string(b) + "," + std::to_string(e) +
                ") is not a range of a rank-" + std::to_string(t.rank()) + " tuple");
  }
  std::vector<IntTuple> out(m.begin(), m.begin() + b);
  out.push_back(IntTuple::tuple(std::vector<IntTuple>(m.begin() + b, m.begin() + e)));
  out.insert(out.end(), m.begin() + e, m.end());
  return IntTuple::tuple(std::move(out));
}

// A tuple of rank(t) ones-or-values with t's profile: used for profiles.
inline IntTuple repeat_like(IntTuple const& t, std::int64_t v) {
  if (t.is_leaf()) return v;
  std::vector<IntTuple> out;
  for (auto const& e : t.elems()) out.push_back(repeat_like(e, v));
  return IntTuple::tuple(std::move(out));
}

// CuTe notation: a leaf prints as its value, a tuple as (a,b,...).
inline void write(std::string& out, IntTuple const& t) {
  if (t.is_leaf()) {
    out += std::to_string(t.value());
    return;
  }
  out += '(';
  for (std::size_t i = 0; i < t.elems().size(); ++i) {
    if (i) out += ',';
    write(out, t.elems()[i]);
  }
  out += ')';
}

inline std::string to_string(IntTuple const& t) {
  std::string s;
  write(s, t);
  return s;
}

}  // namespace tessel::rt
