#include "layout_convert.hpp"

#include <nanobind/stl/string.h>

#include <string>
#include <vector>

namespace tessel::py {

namespace {

std::string type_of(nb::handle h) { return nb::type_name(h.type()).c_str(); }

// numpy.bool_ has __index__ in some numpy versions; it is a truth value all the same.
bool is_numpy_bool(nb::handle h) {
  std::string const t = type_of(h);
  return t == "numpy.bool" || t == "numpy.bool_";
}

bool is_sequence(nb::handle h) { return PyTuple_Check(h.ptr()) || PyList_Check(h.ptr()); }

// The elements of a tuple or list, read from its own storage: a subclass's __iter__ is not
// called, so it can neither run forever nor change what is read.
std::vector<nb::object> elements_of(nb::handle h) {
  bool const tuple = PyTuple_Check(h.ptr());
  Py_ssize_t const n = tuple ? PyTuple_GET_SIZE(h.ptr()) : PyList_GET_SIZE(h.ptr());
  std::vector<nb::object> out;
  out.reserve(static_cast<std::size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) out.push_back(nb::borrow(tuple ? PyTuple_GET_ITEM(h.ptr(), i) : PyList_GET_ITEM(h.ptr(), i)));
  return out;
}

// A self-containing list, or a tuple nested deeper than the text parser accepts, would be
// recursed into until the stack overflows; refuse it at the parser's limit instead.
void check_nesting(int depth, char const* what) {
  if (depth > rt::kMaxNesting) {
    throw rt::Error(std::string(what) + " is nested deeper than " + std::to_string(rt::kMaxNesting) +
                    " levels, or contains itself: give integers in tuples nested at most that deep");
  }
}

[[noreturn]] void wrong_type(char const* what, char const* expected, nb::handle h) {
  throw nb::type_error((std::string(what) + " must be " + expected + ", not " + type_of(h)).c_str());
}

rt::IntTuple int_tuple_at(nb::handle h, char const* what, int depth) {
  check_nesting(depth, what);
  if (is_integer(h)) return to_int64(h, what);
  if (is_sequence(h)) {
    std::vector<rt::IntTuple> elems;
    for (nb::handle e : elements_of(h)) elems.push_back(int_tuple_at(e, what, depth + 1));
    return rt::IntTuple::tuple(std::move(elems));
  }
  wrong_type(what, "an integer or a tuple of integers", h);
}

rt::Coord coord_at(nb::handle h, int depth) {
  check_nesting(depth, "a coordinate");
  if (h.is_none() || nb::isinstance<Underscore>(h)) return rt::Coord(rt::_);
  if (is_integer(h)) return rt::Coord(to_int64(h, "a coordinate"));
  if (is_sequence(h)) {
    std::vector<rt::Coord> elems;
    for (nb::handle e : elements_of(h)) elems.push_back(coord_at(e, depth + 1));
    return rt::Coord::tuple(std::move(elems));
  }
  wrong_type("a coordinate", "an integer, `_` (or None), or a tuple of them", h);
}

rt::Layout tiler_element(nb::handle h, IntAs as, char const* what) {
  if (nb::isinstance<rt::Layout>(h)) return layout_ref(h);
  if (is_integer(h)) {
    std::int64_t n = to_int64(h, what);
    if (n < 1) throw rt::Error("the tiler extent " + std::to_string(n) + " must be positive");
    return as == IntAs::Compact ? rt::make_layout(n) : rt::Layout(n, 1);
  }
  if (PyUnicode_Check(h.ptr())) return rt::layout_from_string(text_of(h, what));
  wrong_type(what, "a Layout or an integer (one per mode of the tiler)", h);
}

}  // namespace

bool is_integer(nb::handle h) {
  if (PyBool_Check(h.ptr())) return false;
  if (PyLong_Check(h.ptr())) return true;
  return PyIndex_Check(h.ptr()) && !is_numpy_bool(h);
}

std::int64_t to_int64(nb::handle h, char const* what) {
  if (!is_integer(h)) wrong_type(what, "an integer", h);
  nb::object index = nb::steal(PyNumber_Index(h.ptr()));
  if (!index.is_valid()) throw nb::python_error();
  int overflow = 0;
  long long const v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (overflow != 0) {
    // Not the value itself: str() of a huge int is slow, and refused past 4300 digits.
    throw nb::value_error(
        (std::string(what) + ": an integer does not fit in 64 bits; layouts hold integers from -2^63 to 2^63-1").c_str());
  }
  if (v == -1 && PyErr_Occurred()) throw nb::python_error();
  return v;
}

rt::IntTuple to_int_tuple(nb::handle h, char const* what) { return int_tuple_at(h, what, 0); }

nb::object from_int_tuple(rt::IntTuple const& t) {
  if (t.is_leaf()) return nb::int_(t.value());
  nb::list out;
  for (auto const& e : t.elems()) out.append(from_int_tuple(e));
  return nb::tuple(out);
}

rt::Coord to_coord(nb::handle h) { return coord_at(h, 0); }

nb::object from_coord(rt::Coord const& c) {
  if (c.is_int()) return nb::int_(c.value());
  if (c.is_underscore()) return nb::cast(Underscore{});
  nb::list out;
  for (auto const& e : c.elems()) out.append(from_coord(e));
  return nb::tuple(out);
}

std::string text_of(nb::handle h, char const* what) {
  Py_ssize_t n = 0;
  char const* s = PyUnicode_AsUTF8AndSize(h.ptr(), &n);
  if (s == nullptr) {
    PyErr_Clear();
    throw nb::value_error((std::string(what) + " is a str with no UTF-8 form (it holds a lone surrogate such as '\\ud800'); "
                           "give plain text such as \"(4,8):(1,4)\"").c_str());
  }
  return std::string(s, static_cast<std::size_t>(n));
}

rt::Layout const& layout_ref(nb::handle h) {
  if (!nb::inst_ready(h)) {
    throw nb::type_error("the Layout was made by Layout.__new__ and never initialized; make one with Layout(shape, stride)");
  }
  return nb::cast<rt::Layout const&>(h);
}

rt::Layout to_layout(nb::handle h, char const* what) {
  if (nb::isinstance<rt::Layout>(h)) return layout_ref(h);
  if (is_integer(h)) return rt::Layout(to_int64(h, what), 1);
  if (PyUnicode_Check(h.ptr())) return rt::layout_from_string(text_of(h, what));
  wrong_type(what, "a Layout, a layout string such as \"(4,8):(1,4)\", or an integer", h);
}

std::variant<rt::Layout, rt::Tiler> to_tiler(nb::handle h, IntAs as, char const* what) {
  if (nb::isinstance<rt::Layout>(h) || is_integer(h) || PyUnicode_Check(h.ptr())) return tiler_element(h, as, what);
  if (is_sequence(h)) {
    rt::Tiler t;
    bool const shape = PyTuple_Check(h.ptr());
    for (nb::handle e : elements_of(h)) {
      if (shape && is_sequence(e)) {
        throw rt::Error("the shape tiler " + rt::to_string(to_int_tuple(h, what)) +
                        " is nested; write its modes as layouts in a list [...]");
      }
      t.push_back(tiler_element(e, as, what));
    }
    return t;
  }
  wrong_type(what, "a Layout, an integer, a shape tuple or a list of layouts", h);
}

}  // namespace tessel::py
