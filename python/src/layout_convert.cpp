#include "layout_convert.hpp"

#include <nanobind/stl/string.h>

#include <string>

namespace tessel::py {

namespace {

std::string type_of(nb::handle h) { return nb::type_name(h.type()).c_str(); }

bool is_int(nb::handle h) { return PyLong_Check(h.ptr()) && !PyBool_Check(h.ptr()); }

bool is_sequence(nb::handle h) { return PyTuple_Check(h.ptr()) || PyList_Check(h.ptr()); }

std::int64_t to_int64(nb::handle h, char const* what) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
  if (overflow != 0) throw nb::value_error((std::string(what) + ": an integer does not fit in 64 bits").c_str());
  if (v == -1 && PyErr_Occurred()) throw nb::python_error();
  return v;
}

[[noreturn]] void wrong_type(char const* what, char const* expected, nb::handle h) {
  throw nb::type_error((std::string(what) + " must be " + expected + ", not " + type_of(h)).c_str());
}

rt::Layout tiler_element(nb::handle h, IntAs as, char const* what) {
  if (nb::isinstance<rt::Layout>(h)) return nb::cast<rt::Layout const&>(h);
  if (is_int(h)) {
    std::int64_t n = to_int64(h, what);
    if (n < 1) throw rt::Error("the tiler extent " + std::to_string(n) + " must be positive");
    return as == IntAs::Compact ? rt::make_layout(n) : rt::Layout(n, 1);
  }
  if (PyUnicode_Check(h.ptr())) return rt::layout_from_string(nb::cast<std::string>(h));
  wrong_type(what, "a Layout or an integer (one per mode of the tiler)", h);
}

}  // namespace

rt::IntTuple to_int_tuple(nb::handle h, char const* what) {
  if (is_int(h)) return to_int64(h, what);
  if (is_sequence(h)) {
    std::vector<rt::IntTuple> elems;
    for (nb::handle e : h) elems.push_back(to_int_tuple(e, what));
    return rt::IntTuple::tuple(std::move(elems));
  }
  wrong_type(what, "an integer or a tuple of integers", h);
}

nb::object from_int_tuple(rt::IntTuple const& t) {
  if (t.is_leaf()) return nb::int_(t.value());
  nb::list out;
  for (auto const& e : t.elems()) out.append(from_int_tuple(e));
  return nb::tuple(out);
}

rt::Coord to_coord(nb::handle h) {
  if (h.is_none() || nb::isinstance<Underscore>(h)) return rt::Coord(rt::_);
  if (is_int(h)) return rt::Coord(to_int64(h, "a coordinate"));
  if (is_sequence(h)) {
    std::vector<rt::Coord> elems;
    for (nb::handle e : h) elems.push_back(to_coord(e));
    return rt::Coord::tuple(std::move(elems));
  }
  wrong_type("a coordinate", "an integer, `_` (or None), or a tuple of them", h);
}

nb::object from_coord(rt::Coord const& c) {
  if (c.is_int()) return nb::int_(c.value());
  if (c.is_underscore()) return nb::cast(Underscore{});
  nb::list out;
  for (auto const& e : c.elems()) out.append(from_coord(e));
  return nb::tuple(out);
}

rt::Layout to_layout(nb::handle h, char const* what) {
  if (nb::isinstance<rt::Layout>(h)) return nb::cast<rt::Layout const&>(h);
  if (is_int(h)) return rt::Layout(to_int64(h, what), 1);
  if (PyUnicode_Check(h.ptr())) return rt::layout_from_string(nb::cast<std::string>(h));
  wrong_type(what, "a Layout, a layout string such as \"(4,8):(1,4)\", or an integer", h);
}

std::variant<rt::Layout, rt::Tiler> to_tiler(nb::handle h, IntAs as, char const* what) {
  if (nb::isinstance<rt::Layout>(h) || is_int(h) || PyUnicode_Check(h.ptr())) return tiler_element(h, as, what);
  if (is_sequence(h)) {
    rt::Tiler t;
    bool const shape = PyTuple_Check(h.ptr());
    for (nb::handle e : h) {
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
