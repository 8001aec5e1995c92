// tessel._core: the run-time algebra's expression evaluator (tessel/layout/runtime/expression), the
// one tessel-layout fronts too: tessel.layout.evaluate("zipped_divide((8,8):(8,1), (4,2))").
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "tessel/layout/runtime/expression/errors.hpp"
#include "tessel/layout/runtime/expression/evaluator.hpp"
#include "tessel/layout/runtime/expression/json.hpp"
#include "tessel/layout/runtime/expression/value.hpp"

#include "bindings.hpp"
#include "layout_convert.hpp"

namespace tessel::py {

namespace {

namespace calc = ::tessel::rt::expr;

nb::object to_python(calc::Value const& v) {
  switch (v.kind) {
    case calc::Value::Kind::Int: return nb::int_(v.i);
    case calc::Value::Kind::Shape: return from_int_tuple(v.tuple);
    case calc::Value::Kind::Coord: return from_coord(v.coord);
    case calc::Value::Kind::Layout: return nb::cast(v.layout);
    case calc::Value::Kind::Word: return nb::str(v.word.c_str());
    case calc::Value::Kind::Tiler: {
      nb::list out;
      for (auto const& e : v.elems) out.append(to_python(e));
      return out;
    }
  }
  throw nb::value_error("unsupported calculator value");
}

std::string expression_text(nb::handle h) {
  if (!PyUnicode_Check(h.ptr())) {
    throw nb::type_error((std::string("the expression must be a str such as \"size((4,8))\", not ") + nb::type_name(h.type()).c_str()).c_str());
  }
  return text_of(h, "the expression");
}

}  // namespace

void bind_calc(nb::module_& m) {
  // A malformed expression or a call the calculator does not offer; the algebra's own refusals
  // stay LayoutError. (The module holds the exception type; the translators borrow it.)
  nb::exception<calc::ParseError> parse_error(m, "ExpressionError", PyExc_ValueError);
  nb::register_exception_translator(
      [](std::exception_ptr const& p, void* payload) {
        try {
          std::rethrow_exception(p);
        } catch (calc::UsageError const& e) {
          PyErr_SetString(static_cast<PyObject*>(payload), e.what());
        }
      },
      parse_error.ptr());

  m.def("evaluate", [](nb::handle text) { return to_python(calc::evaluate(expression_text(text))); }, nb::arg("expression").none(),
        "Evaluate a tessel-layout expression: a Layout, an int, a tuple (shape or coordinate) or a list (tiler).");
  m.def("evaluate_json", [](nb::handle text) { return calc::to_json(calc::evaluate(expression_text(text))); }, nb::arg("expression").none(),
        "tessel-layout eval --json: one JSON object (for a layout: shape, stride, size, cosize and every index).");
  m.def("calculator_functions", &calc::function_names, "The function names the calculator understands.");
}

}  // namespace tessel::py
