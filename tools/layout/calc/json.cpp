#include "json.hpp"

namespace tessel::calc {

std::string to_json(rt::IntTuple const& t) {
  if (t.is_leaf()) return std::to_string(t.value());
  std::string s = "[";
  for (std::size_t k = 0; k < t.elems().size(); ++k) {
    if (k) s += ',';
    s += to_json(t.elems()[k]);
  }
  return s + "]";
}

namespace {

// Every string written comes from CuTe notation, digits and punctuation, but
// quote defensively anyway.
std::string quoted(std::string const& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string layout_json(rt::Layout const& l) {
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

}  // namespace

std::string to_json(Value const& v) {
  switch (v.kind) {
    case Value::Kind::Layout: return layout_json(v.layout);
    case Value::Kind::Int: return "{\"value\":" + std::to_string(v.i) + "}";
    case Value::Kind::Shape: return "{\"value\":" + to_json(v.tuple) + "}";
    default: return "{\"value\":" + quoted(to_text(v)) + "}";
  }
}

}  // namespace tessel::calc
