#pragma once
// Evaluating a calculator expression with the run-time layout algebra.
#include <string>
#include <string_view>
#include <vector>

#include "tessel/layout/runtime/expression/ast.hpp"
#include "tessel/layout/runtime/expression/value.hpp"
#include <functional>
#include <map>
#include <variant>
#include "tessel/layout/runtime/expression/errors.hpp"
#include "tessel/layout/runtime/expression/parser.hpp"

namespace tessel::rt::expr {

// @throws UsageError for unknown functions or wrong arguments,
//         rt::Error when the algebra refuses an operation.
Value evaluate(Node const& n);

// parse + evaluate.
Value evaluate(std::string_view text);

// The names evaluate() understands, for help text.
std::vector<std::string> function_names();


// ---- Definitions ----------------------------------------------------------------------
namespace detail {

using Args = std::vector<Value>;

// How a bare integer n in a tiler reads. CuTe's composition takes it as
// n:1; its divides and products as make_layout(n), which is n:1 except that
// 1 becomes 1:0. They differ only for n == 1.
enum class IntAs { Stride1, Compact };

struct Call {
  Node const& node;
  Args const& args;

  [[noreturn]] void fail(std::string const& what) const {
    throw UsageError("column " + std::to_string(node.column()) + ": " + node.name + ": " + what);
  }
  [[noreturn]] void wrong(std::size_t k, std::string const& expected) const {
    fail("argument " + std::to_string(k + 1) + " must be " + expected + ", not " + kind_name(args[k].kind) + " " +
         to_text(args[k]));
  }
  void arity(std::size_t lo, std::size_t hi) const {
    if (args.size() < lo || args.size() > hi) {
      std::string n = lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
      fail("takes " + n + " argument" + (hi == 1 ? "" : "s") + ", got " + std::to_string(args.size()));
    }
  }

  // A layout operand; a bare integer n is n:1.
  rt::Layout layout(std::size_t k) const {
    Value const& v = args[k];
    if (v.kind == Value::Kind::Layout) return v.layout;
    if (v.kind == Value::Kind::Int) return rt::Layout(v.i, 1);
    wrong(k, "a layout");
  }
  std::int64_t integer(std::size_t k) const {
    if (args[k].kind != Value::Kind::Int) wrong(k, "an integer");
    return args[k].i;
  }
  rt::IntTuple int_tuple(std::size_t k) const {
    Value const& v = args[k];
    if (v.kind == Value::Kind::Int) return v.i;
    if (v.kind == Value::Kind::Shape) return v.tuple;
    wrong(k, "an integer or a shape");
  }
  rt::Coord coord(std::size_t k) const {
    Value const& v = args[k];
    if (v.kind == Value::Kind::Coord) return v.coord;
    return int_tuple(k);
  }
  int index(std::size_t k) const {
    std::int64_t v = integer(k);
    if (v < 0 || v > 1'000'000) fail("argument " + std::to_string(k + 1) + " is not a mode index");
    return static_cast<int>(v);
  }
  bool row_major(std::size_t k) const {
    if (k >= args.size()) return false;
    Value const& v = args[k];
    if (v.kind == Value::Kind::Word && (v.word == "LayoutLeft" || v.word == "LayoutRight")) return v.word == "LayoutRight";
    wrong(k, "LayoutLeft or LayoutRight");
  }

  rt::Layout tiler_element(Value const& v, IntAs as) const {
    if (v.kind == Value::Kind::Layout) return v.layout;
    if (v.kind == Value::Kind::Int) {
      if (v.i < 1) fail("the tiler extent " + std::to_string(v.i) + " must be positive");
      return as == IntAs::Compact ? rt::make_layout(v.i) : rt::Layout(v.i, 1);
    }
    fail("a tiler element must be a layout or an integer, not " + kind_name(v.kind) + " " + to_text(v));
  }

  // The second operand of composition, the divides and the products.
  std::variant<rt::Layout, rt::Tiler> tiler(std::size_t k, IntAs as) const {
    Value const& v = args[k];
    if (v.kind == Value::Kind::Layout || v.kind == Value::Kind::Int) return tiler_element(v, as);
    rt::Tiler t;
    if (v.kind == Value::Kind::Shape) {
      for (auto const& e : v.tuple.elems()) {
        if (!e.is_leaf()) fail("the shape tiler " + to_text(v) + " is nested; write its modes as layouts in [...]");
        t.push_back(tiler_element(Value::of_int(e.value()), as));
      }
      return t;
    }
    if (v.kind == Value::Kind::Tiler) {
      for (auto const& e : v.elems) t.push_back(tiler_element(e, as));
      return t;
    }
    wrong(k, "a layout, an integer, a shape or a tiler");
  }
};

using Fn = std::function<Value(Call const&)>;

template <class F>
inline Fn by_tiler(F f, IntAs as) {
  return [f, as](Call const& c) {
    c.arity(2, 2);
    rt::Layout a = c.layout(0);
    return Value::of_layout(std::visit([&](auto const& t) { return f(a, t); }, c.tiler(1, as)));
  };
}

#define TESSEL_CALC_BY_TILER(name, as) \
  {#name, by_tiler([](rt::Layout const& a, auto const& t) { return rt::name(a, t); }, as)}

inline Fn unary(rt::Layout (*f)(rt::Layout const&)) {
  return [f](Call const& c) {
    c.arity(1, 1);
    return Value::of_layout(f(c.layout(0)));
  };
}

inline Value make_layout_fn(Call const& c) {
  auto const& a = c.args;
  if (a.empty()) c.fail("takes at least 1 argument");
  bool first_shape = a[0].kind == Value::Kind::Int || a[0].kind == Value::Kind::Shape;
  if (first_shape && a.size() == 1) return Value::of_layout(rt::make_layout(c.int_tuple(0)));
  if (first_shape && a.size() == 2 && a[1].kind == Value::Kind::Word) {
    return Value::of_layout(c.row_major(1) ? rt::make_layout(c.int_tuple(0), rt::LayoutRight{})
                                           : rt::make_layout(c.int_tuple(0)));
  }
  if (first_shape && a.size() == 2) return Value::of_layout(rt::make_layout(c.int_tuple(0), c.int_tuple(1)));
  std::vector<rt::Layout> ls;
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (a[k].kind != Value::Kind::Layout) c.wrong(k, "a layout (make_layout(L0, L1, ...) concatenates layouts)");
    ls.push_back(a[k].layout);
  }
  return Value::of_layout(rt::make_layout(ls));
}

inline Value layout_of(Call const& c) {
  if (c.args.size() < 2) c.fail("takes a layout and at least one mode index");
  rt::Layout l = c.layout(0);
  std::vector<int> path;
  for (std::size_t k = 1; k < c.args.size(); ++k) path.push_back(c.index(k));
  return Value::of_layout(rt::layout(l, path));
}

inline std::map<std::string, Fn> const& table() {
  static std::map<std::string, Fn> const t = {
      TESSEL_CALC_BY_TILER(composition, IntAs::Stride1),
      TESSEL_CALC_BY_TILER(logical_divide, IntAs::Compact),
      TESSEL_CALC_BY_TILER(zipped_divide, IntAs::Compact),
      TESSEL_CALC_BY_TILER(tiled_divide, IntAs::Compact),
      TESSEL_CALC_BY_TILER(flat_divide, IntAs::Compact),
      TESSEL_CALC_BY_TILER(logical_product, IntAs::Compact),
      TESSEL_CALC_BY_TILER(zipped_product, IntAs::Compact),
      TESSEL_CALC_BY_TILER(tiled_product, IntAs::Compact),
      TESSEL_CALC_BY_TILER(flat_product, IntAs::Compact),
      {"blocked_product",
       [](Call const& c) {
         c.arity(2, 2);
         return Value::of_layout(rt::blocked_product(c.layout(0), c.layout(1)));
       }},
      {"raked_product",
       [](Call const& c) {
         c.arity(2, 2);
         return Value::of_layout(rt::raked_product(c.layout(0), c.layout(1)));
       }},
      {"complement",
       [](Call const& c) {
         c.arity(1, 2);
         if (c.args.size() == 1) return Value::of_layout(rt::complement(c.layout(0)));
         return Value::of_layout(rt::complement(c.layout(0), c.int_tuple(1)));
       }},
      {"coalesce",
       [](Call const& c) {
         c.arity(1, 2);
         if (c.args.size() == 1) return Value::of_layout(rt::coalesce(c.layout(0)));
         return Value::of_layout(rt::coalesce(c.layout(0), c.int_tuple(1)));
       }},
      {"filter",
       [](Call const& c) {
         c.arity(1, 2);
         if (c.args.size() == 1) return Value::of_layout(rt::filter(c.layout(0)));
         return Value::of_layout(rt::filter(c.layout(0), c.int_tuple(1)));
       }},
      {"right_inverse", unary(rt::right_inverse)},
      {"left_inverse", unary(rt::left_inverse)},
      {"flatten", unary(rt::flatten)},
      {"make_layout", make_layout_fn},
      {"tile_to_shape",
       [](Call const& c) {
         c.arity(2, 3);
         rt::Layout b = c.layout(0);
         rt::IntTuple s = c.int_tuple(1);
         return Value::of_layout(c.row_major(2) ? rt::tile_to_shape(b, s, rt::LayoutRight{}) : rt::tile_to_shape(b, s));
       }},
      {"upcast",
       [](Call const& c) {
         c.arity(2, 2);
         return Value::of_layout(rt::upcast(c.layout(0), c.integer(1)));
       }},
      {"downcast",
       [](Call const& c) {
         c.arity(2, 2);
         return Value::of_layout(rt::downcast(c.layout(0), c.integer(1)));
       }},
      {"max_common_vector",
       [](Call const& c) {
         c.arity(2, 2);
         return Value::of_int(rt::max_common_vector(c.layout(0), c.layout(1)));
       }},
      {"max_common_layout",
       [](Call const& c) {
         c.arity(2, 2);
         return Value::of_layout(rt::max_common_layout(c.layout(0), c.layout(1)));
       }},
      {"size",
       [](Call const& c) {
         c.arity(1, 1);
         if (c.args[0].kind == Value::Kind::Shape) return Value::of_int(rt::size(c.args[0].tuple));
         return Value::of_int(rt::size(c.layout(0)));
       }},
      {"cosize",
       [](Call const& c) {
         c.arity(1, 1);
         return Value::of_int(rt::cosize(c.layout(0)));
       }},
      {"rank",
       [](Call const& c) {
         c.arity(1, 1);
         if (c.args[0].kind == Value::Kind::Shape) return Value::of_int(rt::rank(c.args[0].tuple));
         return Value::of_int(rt::rank(c.layout(0)));
       }},
      {"depth",
       [](Call const& c) {
         c.arity(1, 1);
         if (c.args[0].kind == Value::Kind::Shape) return Value::of_int(rt::depth(c.args[0].tuple));
         return Value::of_int(rt::depth(c.layout(0)));
       }},
      {"layout", layout_of},
      {"get", layout_of},
      {"select",
       [](Call const& c) {
         if (c.args.size() < 2) c.fail("takes a layout and at least one mode index");
         std::vector<int> idx;
         for (std::size_t k = 1; k < c.args.size(); ++k) idx.push_back(c.index(k));
         return Value::of_layout(rt::select(c.layout(0), idx));
       }},
      {"group",
       [](Call const& c) {
         c.arity(3, 3);
         return Value::of_layout(rt::group(c.layout(0), c.index(1), c.index(2)));
       }},
      {"take",
       [](Call const& c) {
         c.arity(3, 3);
         return Value::of_layout(rt::take(c.layout(0), c.index(1), c.index(2)));
       }},
      {"append",
       [](Call const& c) {
         c.arity(1, 2);
         return Value::of_layout(c.args.size() == 1 ? rt::append(c.layout(0)) : rt::append(c.layout(0), c.layout(1)));
       }},
      {"prepend",
       [](Call const& c) {
         c.arity(1, 2);
         return Value::of_layout(c.args.size() == 1 ? rt::prepend(c.layout(0)) : rt::prepend(c.layout(0), c.layout(1)));
       }},
      {"slice",
       [](Call const& c) {
         c.arity(2, 2);
         return Value::of_layout(rt::slice(c.coord(1), c.layout(0)));
       }},
      {"crd2idx",
       [](Call const& c) {
         c.arity(2, 2);
         rt::Layout l = c.layout(1);
         return Value::of_int(l(c.coord(0)));
       }},
      {"idx2crd",
       [](Call const& c) {
         c.arity(2, 2);
         return Value::of_shape(rt::idx2crd(c.integer(0), c.layout(1).shape));
       }},
  };
  return t;
}

}  // namespace detail

inline Value evaluate(Node const& n) {
  switch (n.kind) {
    case Node::Kind::Int: return Value::of_int(n.value);
    case Node::Kind::Shape: {
      Value v;
      v.kind = Value::Kind::Shape;
      v.tuple = n.tuple;
      return v;
    }
    case Node::Kind::Coord: {
      Value v;
      v.kind = Value::Kind::Coord;
      v.coord = n.coord;
      return v;
    }
    case Node::Kind::Layout: return Value::of_layout(n.layout);
    case Node::Kind::Word: {
      if (n.name != "LayoutLeft" && n.name != "LayoutRight") {
        throw UsageError("column " + std::to_string(n.column()) + ": unknown name '" + n.name +
                         "' (a function needs its arguments in parentheses)");
      }
      Value v;
      v.kind = Value::Kind::Word;
      v.word = n.name;
      return v;
    }
    case Node::Kind::Tiler: {
      Value v;
      v.kind = Value::Kind::Tiler;
      for (auto const& e : n.args) {
        Value x = evaluate(e);
        if (x.kind != Value::Kind::Layout && x.kind != Value::Kind::Int) {
          throw UsageError("column " + std::to_string(e.column()) + ": a tiler element must be a layout or an integer, not " +
                           kind_name(x.kind) + " " + to_text(x));
        }
        v.elems.push_back(std::move(x));
      }
      return v;
    }
    case Node::Kind::Call: {
      auto const& t = detail::table();
      auto it = t.find(n.name);
      if (it == t.end()) throw UsageError("column " + std::to_string(n.column()) + ": unknown function '" + n.name + "'");
      detail::Args args;
      for (auto const& a : n.args) args.push_back(evaluate(a));
      return it->second(detail::Call{n, args});
    }
  }
  throw UsageError("unsupported expression");
}

inline Value evaluate(std::string_view text) { return evaluate(parse(text)); }

inline std::vector<std::string> function_names() {
  std::vector<std::string> out;
  for (auto const& [name, fn] : detail::table()) out.push_back(name);
  return out;
}

}  // namespace tessel::rt::expr
