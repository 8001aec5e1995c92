#pragma once
// Tilers: the second operand of by-mode composition, divides and products.
//
// A by-mode tiler <B0, B1, ...> applies B0 to mode 0 of a layout, B1 to mode
// 1, and so on; modes past the tiler's rank are left alone (or, for
// composition, dropped). A shape such as (16,16) is the tiler <16:1, 16:1>.
#include <string>
#include <vector>

#include "layout.hpp"

namespace tessel::rt {

using Tiler = std::vector<Layout>;

template <class... Ls>
Tiler make_tile(Ls const&... ls) {
  return Tiler{Layout(ls)...};
}

// The tiler of a flat shape: one compact layout per mode, (16,16) -> <16:1,16:1>.
// A mode of extent 1 becomes 1:0 (make_layout's compact stride for it).
// @throws Error for a nested shape: a nested by-mode tiler has no run-time type here.
inline Tiler tiler_from_shape(IntTuple const& shape) {
  Tiler t;
  for (int i = 0; i < shape.rank(); ++i) {
    if (!shape[i].is_leaf()) {
      throw Error("shape tiler " + to_string(shape) + " is nested; write its modes as layouts");
    }
    t.push_back(make_layout(shape[i]));
  }
  return t;
}

inline std::string to_string(Tiler const& t) {
  std::string s = "[";
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (i) s += ',';
    s += to_string(t[i]);
  }
  return s + "]";
}

namespace detail {

inline void check_tiler_rank(Layout const& l, Tiler const& t) {
  if (t.empty()) throw Error("the tiler is empty");
  if (static_cast<int>(t.size()) > rank(l)) {
    throw Error("the tiler has " + std::to_string(t.size()) + " modes but the layout has rank " +
                std::to_string(rank(l)));
  }
}

// Applies f mode by mode: (f(L0,T0), ..., f(Lk,Tk), L(k+1), ...), keeping the
// modes the tiler does not reach.
template <class F>
Layout transform_by_mode(Layout const& l, Tiler const& t, F&& f, bool keep_rest) {
  check_tiler_rank(l, t);
  std::vector<Layout> out;
  for (int i = 0; i < static_cast<int>(t.size()); ++i) out.push_back(f(layout(l, i), t[static_cast<std::size_t>(i)]));
  if (keep_rest) {
    for (int i = static_cast<int>(t.size()); i < rank(l); ++i) out.push_back(layout(l, i));
  }
  return make_layout(out);
}

}  // namespace detail
}  // namespace tessel::rt
