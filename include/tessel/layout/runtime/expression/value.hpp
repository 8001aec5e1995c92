#pragma once
// The values a calculator expression evaluates to.
#include <cstdint>
#include <string>
#include <vector>

#include "tessel/layout/runtime.hpp"


namespace tessel::rt::expr {

struct Value {
  enum class Kind { Int, Shape, Coord, Layout, Tiler, Word };
  Kind kind = Kind::Int;
  std::int64_t i = 0;         // Int
  rt::IntTuple tuple;         // Shape (a tuple without strides)
  rt::Coord coord;            // Coord (a tuple holding `_`)
  rt::Layout layout;          // Layout
  std::vector<Value> elems;   // Tiler: each an Int or a Layout
  std::string word;           // Word: LayoutLeft, LayoutRight

  static Value of_int(std::int64_t v) {
    Value x;
    x.i = v;
    return x;
  }
  static Value of_layout(rt::Layout l) {
    Value x;
    x.kind = Kind::Layout;
    x.layout = std::move(l);
    return x;
  }
  static Value of_shape(rt::IntTuple t) {
    if (t.is_leaf()) return of_int(t.value());
    Value x;
    x.kind = Kind::Shape;
    x.tuple = std::move(t);
    return x;
  }
};

// "a layout", "an integer", ...: for messages about argument kinds.
std::string kind_name(Value::Kind k);

// CuTe notation: 8:1, (2,3):(1,2), 12, (16,16), [16:1,4], (_,3).
std::string to_text(Value const& v);


// ---- Definitions ----------------------------------------------------------------------
inline std::string kind_name(Value::Kind k) {
  switch (k) {
    case Value::Kind::Int: return "an integer";
    case Value::Kind::Shape: return "a shape";
    case Value::Kind::Coord: return "a coordinate";
    case Value::Kind::Layout: return "a layout";
    case Value::Kind::Tiler: return "a tiler";
    case Value::Kind::Word: return "a name";
  }
  return "a value";
}

inline std::string to_text(Value const& v) {
  switch (v.kind) {
    case Value::Kind::Int: return std::to_string(v.i);
    case Value::Kind::Shape: return rt::to_string(v.tuple);
    case Value::Kind::Coord: return rt::to_string(v.coord);
    case Value::Kind::Layout: return rt::to_string(v.layout);
    case Value::Kind::Word: return v.word;
    case Value::Kind::Tiler: {
      std::string s = "[";
      for (std::size_t k = 0; k < v.elems.size(); ++k) {
        if (k) s += ',';
        s += to_text(v.elems[k]);
      }
      return s + "]";
    }
  }
  return {};
}

}  // namespace tessel::rt::expr
