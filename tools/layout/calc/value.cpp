#include "value.hpp"

namespace tessel::calc {

std::string kind_name(Value::Kind k) {
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

std::string to_text(Value const& v) {
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

}  // namespace tessel::calc
