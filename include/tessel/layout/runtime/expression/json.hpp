#pragma once
// JSON rendering of calculator results.
#include <cstdint>
#include <string>

#include "tessel/layout/runtime/expression/value.hpp"


namespace tessel::rt::expr {

// --json lists every index; beyond this many elements it refuses instead.
inline constexpr std::int64_t kMaxJsonIndices = std::int64_t{1} << 24;

// One JSON object. For a layout:
//   {"layout":"(2,3):(1,2)","shape":[2,3],"stride":[1,2],"size":6,"cosize":6,
//    "indices":[0,1,2,3,4,5]}
// shape and stride are nested arrays (a leaf is a bare integer); indices[i]
// is the layout at 1-D coordinate i. Other values give {"value": ...}.
// @throws rt::Error when a layout has more than kMaxJsonIndices elements.
std::string to_json(Value const& v);

// A nested IntTuple as JSON: 8 -> 8, ((2,2),8) -> [[2,2],8].
std::string to_json(rt::IntTuple const& t);


// ---- Definitions ----------------------------------------------------------------------
inline std::string to_json(rt::IntTuple const& t) {
  if (t.is_leaf()) return std::to_string(t.value());
  std::string s = "[";
  for (std::size_t k = 0; k < t.elems().size(); ++k) {
    if (k) s += ',';
    s += to_json(t.elems()[k]);
  }
  return s + "]";
}

namespace detail {

// Every string written comes from CuTe notation, digits and punctuation, but
// quote defensively anyway.
inline std::string quoted(std::string const& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

inline std::string layout_json(rt::Layout const& l) {
  std::int64_t n = rt::size(l);
  if (n > kMaxJsonIndices) {
    throw rt::Error("--json lists every index, and " + rt::to_string(l) + " has " + std::to_string(n) +
                    " elements, more than the limit of " + std::to_string(kMaxJsonIndices));
  }
  std::string s = "{\"layout\":" + quoted(rt::to_string(l)) + ",\"shape\":" + to_json(l.shape) +
                  ",\"stride\":" + to_json(l.stride) + ",\"size\":" + std::to_string(n) +
                  ",\"cosize\":" + std::to_string(rt::cosize(l)) + ",\"indices\":[";
  // Walk the 1-D coordinates with a flat odometer: same order as l(i), without
  // re-splitting i for every element.
  auto shp = rt::leaves(l.shape);
  auto str = rt::leaves(l.stride);
  std::vector<std::int64_t> c(shp.size(), 0);
  __int128 idx = 0;  // one step past the last element can leave int64
  for (std::int64_t i = 0; i < n; ++i) {
    if (i) s += ',';
    s += std::to_string(static_cast<std::int64_t>(idx));
    for (std::size_t k = 0; k < c.size(); ++k) {
      idx += str[k];
      if (++c[k] < shp[k]) break;
      idx -= static_cast<__int128>(str[k]) * shp[k];
      c[k] = 0;
    }
  }
  return s + "]}";
}

}  // namespace detail

inline std::string to_json(Value const& v) {
  switch (v.kind) {
    case Value::Kind::Layout: return detail::layout_json(v.layout);
    case Value::Kind::Int: return "{\"value\":" + std::to_string(v.i) + "}";
    case Value::Kind::Shape: return "{\"value\":" + to_json(v.tuple) + "}";
    default: return "{\"value\":" + detail::quoted(to_text(v)) + "}";
  }
}

}  // namespace tessel::rt::expr
