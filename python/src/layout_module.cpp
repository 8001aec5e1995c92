// tessel._core: the run-time layout algebra (tessel::rt) as Python functions and a Layout class.
// Python's tessel.layout re-exports these; it adds no algebra of its own.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <functional>
#include <limits>
#include <string>
#include <tessel/layout/runtime.hpp>

#include "bindings.hpp"
#include "layout_convert.hpp"

namespace tessel::py {

namespace {

// Operations whose second operand is a layout or a by-mode tiler.
template <class F>
auto by_tiler(F f, IntAs as) {
  return [f, as](nb::handle a, nb::handle b) {
    rt::Layout la = to_layout(a, "the first operand");
    return std::visit([&](auto const& t) { return f(la, t); }, to_tiler(b, as, "the second operand"));
  };
}

#define TESSEL_PY_BY_TILER(name, as, doc)                                                                     \
  m.def(#name, by_tiler([](rt::Layout const& a, auto const& t) { return rt::name(a, t); }, IntAs::as), \
        nb::arg("a").none(), nb::arg("b").none(), doc)

rt::Layout construct(nb::handle shape, nb::handle stride) {
  if (PyUnicode_Check(shape.ptr())) {
    if (!stride.is_none()) throw nb::type_error("Layout(text) takes no stride: the text holds it, as \"(4,8):(1,4)\"");
    return rt::layout_from_string(text_of(shape, "the layout text"));
  }
  if (nb::isinstance<rt::Layout>(shape) && stride.is_none()) return layout_ref(shape);
  rt::IntTuple s = to_int_tuple(shape, "the shape");
  if (stride.is_none()) return rt::make_layout(s);
  return rt::Layout(s, to_int_tuple(stride, "the stride"));
}

// L(c) with `_` in c is the slice, as in CuTe; without, the index.
nb::object call(rt::Layout const& l, nb::args args) {
  if (args.size() == 0) throw nb::type_error("a layout is called with a coordinate: L(i), L(i, j) or L((i, j))");
  rt::Coord c = args.size() == 1 ? to_coord(args[0]) : to_coord(nb::tuple(args));
  if (c.has_underscore()) return nb::cast(rt::slice(c, l));
  return nb::int_(l(c));
}

// A mode index given to layout(), select(), group() and take(): an integer, 0 or more (CuTe's
// functions take no negative indices); the algebra says whether the mode exists.
int mode_index(nb::handle h, char const* what) {
  std::int64_t const v = to_int64(h, what);
  if (v < 0 || v > std::numeric_limits<int>::max())
    throw rt::Error(std::string(what) + ": " + std::to_string(v) + " is not a mode index; modes count from 0");
  return static_cast<int>(v);
}

std::vector<int> mode_path(nb::args args, char const* what) {
  std::vector<int> out;
  for (nb::handle h : args) out.push_back(mode_index(h, what));
  return out;
}

// L[i] as a tuple indexes: -rank(L) <= i < rank(L), IndexError outside, so that a for loop
// over a layout stops after its last mode.
rt::Layout mode_item(rt::Layout const& l, nb::handle key) {
  if (PySlice_Check(key.ptr())) throw nb::type_error("a Layout is indexed by one mode index; for a range of modes use take(L, begin, end)");
  std::int64_t const i = to_int64(key, "a Layout's mode index");
  int const rank = rt::rank(l);
  if (i < -rank || i >= rank) {
    throw nb::index_error(("mode " + std::to_string(i) + " of a layout of rank " + std::to_string(rank) + ": give an index from " +
                           std::to_string(-rank) + " to " + std::to_string(rank - 1))
                              .c_str());
  }
  return rt::layout(l, static_cast<int>(i < 0 ? i + rank : i));
}

// iter(L): its modes, as iter(L.shape) gives the shape's (a rank-1 layout is its own one mode).
nb::object modes(rt::Layout const& l) {
  nb::list out;
  for (int i = 0; i < rt::rank(l); ++i) out.append(nb::cast(rt::layout(l, i)));
  return nb::iter(out);
}

bool same_layout(rt::Layout const& a, nb::handle b) { return a == layout_ref(b); }

// size/rank/depth of a layout, or of a shape given as an int or a tuple.
template <class OfLayout, class OfTuple>
auto layout_or_shape(OfLayout of_layout, OfTuple of_tuple) {
  return [of_layout, of_tuple](nb::handle x) -> std::int64_t {
    if (nb::isinstance<rt::Layout>(x) || PyUnicode_Check(x.ptr())) return of_layout(to_layout(x, "the argument"));
    return of_tuple(to_int_tuple(x, "the argument"));
  };
}

}  // namespace

void bind_layout(nb::module_& m) {
  // Every argument may be None (nb::arg(...).none()): nanobind would refuse it with its signature
  // listing, where the converters say what the argument should be.
  nb::exception<rt::Error>(m, "LayoutError", PyExc_ValueError);

  nb::class_<Underscore>(m, "Underscore", "The slice marker `_`: keep this mode of a coordinate.")
      .def(nb::init<>())
      .def("__repr__", [](Underscore const&) { return "_"; })
      .def("__eq__", [](Underscore const&, nb::handle o) { return nb::isinstance<Underscore>(o); })
      .def("__hash__", [](Underscore const&) { return 0x5f; });
  m.attr("_") = Underscore{};

  nb::class_<rt::LayoutLeft>(m, "LayoutLeftType").def("__repr__", [](rt::LayoutLeft const&) { return "LayoutLeft"; });
  nb::class_<rt::LayoutRight>(m, "LayoutRightType").def("__repr__", [](rt::LayoutRight const&) { return "LayoutRight"; });
  m.attr("LayoutLeft") = rt::LayoutLeft{};
  m.attr("LayoutRight") = rt::LayoutRight{};

  nb::class_<rt::Layout>(m, "Layout",
                         "Shape:Stride, a function from coordinates to indices.\n\n"
                         "Layout((4, 8), (1, 4)), Layout((4, 8)) (compact column-major) or Layout(\"(4,8):(1,4)\").")
      .def("__init__", [](rt::Layout* self, nb::handle shape, nb::handle stride) { new (self) rt::Layout(construct(shape, stride)); },
           nb::arg("shape").none(), nb::arg("stride").none() = nb::none())
      .def_prop_ro("shape", [](rt::Layout const& l) { return from_int_tuple(l.shape); })
      .def_prop_ro("stride", [](rt::Layout const& l) { return from_int_tuple(l.stride); })
      .def("__call__", &call, "L(i), L(i, j), L((i, (j, k))): the index of a coordinate; with `_` in it, the slice.")
      .def("__getitem__", &mode_item, nb::arg("i").none(), "Mode i as a layout (-rank <= i < rank, as a tuple indexes).")
      .def("__len__", [](rt::Layout const& l) { return rt::rank(l); }, "The rank: how many modes iter(L) yields.")
      .def("__iter__", &modes, "The modes, as layouts (a rank-1 layout yields itself).")
      .def("__str__", [](rt::Layout const& l) { return rt::to_string(l); })
      .def("__repr__", [](rt::Layout const& l) { return "Layout(\"" + rt::to_string(l) + "\")"; })
      // NotImplemented for other types lets Python answer == with False and != with True.
      .def("__eq__", [](rt::Layout const& a, nb::handle b) -> nb::object {
        return nb::isinstance<rt::Layout>(b) ? nb::bool_(same_layout(a, b)) : nb::borrow(Py_NotImplemented);
      }, nb::arg("other").none())
      .def("__ne__", [](rt::Layout const& a, nb::handle b) -> nb::object {
        return nb::isinstance<rt::Layout>(b) ? nb::bool_(!same_layout(a, b)) : nb::borrow(Py_NotImplemented);
      }, nb::arg("other").none())
      .def("__hash__", [](rt::Layout const& l) { return std::hash<std::string>{}(rt::to_string(l)); })
      .def("__getstate__", [](rt::Layout const& l) { return rt::to_string(l); })
      .def("__setstate__", [](rt::Layout& l, std::string const& s) { new (&l) rt::Layout(rt::layout_from_string(s)); });

  // ---- operations --------------------------------------------------------------------------------
  TESSEL_PY_BY_TILER(composition, Stride1, "composition(A, B): A o B; B a layout or a by-mode tiler.");
  TESSEL_PY_BY_TILER(logical_divide, Compact, "logical_divide(A, B): A split into tiles of B and the rest.");
  TESSEL_PY_BY_TILER(zipped_divide, Compact, "zipped_divide(A, B): ((tile), (rest)).");
  TESSEL_PY_BY_TILER(tiled_divide, Compact, "tiled_divide(A, B): ((tile), rest0, rest1, ...).");
  TESSEL_PY_BY_TILER(flat_divide, Compact, "flat_divide(A, B): (tile0, tile1, ..., rest0, rest1, ...).");
  TESSEL_PY_BY_TILER(logical_product, Compact, "logical_product(A, B): A repeated over the layout B.");
  TESSEL_PY_BY_TILER(zipped_product, Compact, "zipped_product(A, B): ((A), (repeats)).");
  TESSEL_PY_BY_TILER(tiled_product, Compact, "tiled_product(A, B): ((A), repeat0, repeat1, ...).");
  TESSEL_PY_BY_TILER(flat_product, Compact, "flat_product(A, B): (A0, A1, ..., repeat0, repeat1, ...).");
  m.def("blocked_product", [](nb::handle a, nb::handle b) { return rt::blocked_product(to_layout(a, "the block"), to_layout(b, "the tiler")); },
        nb::arg("block").none(), nb::arg("tiler").none(), "blocked_product(block, tiler): mode by mode, block first.");
  m.def("raked_product", [](nb::handle a, nb::handle b) { return rt::raked_product(to_layout(a, "the block"), to_layout(b, "the tiler")); },
        nb::arg("block").none(), nb::arg("tiler").none(), "raked_product(block, tiler): mode by mode, tiler first (interleaved).");
  m.def(
      "complement",
      [](nb::handle a, nb::handle cotarget) {
        rt::Layout l = to_layout(a, "the layout");
        return cotarget.is_none() ? rt::complement(l) : rt::complement(l, to_int_tuple(cotarget, "the cotarget"));
      },
      nb::arg("layout").none(), nb::arg("cotarget").none() = nb::none(), "complement(L, cotarget=cosize(L)).");
  m.def(
      "coalesce",
      [](nb::handle a, nb::handle profile) {
        rt::Layout l = to_layout(a, "the layout");
        return profile.is_none() ? rt::coalesce(l) : rt::coalesce(l, to_int_tuple(profile, "the profile"));
      },
      nb::arg("layout").none(), nb::arg("profile").none() = nb::none(), "coalesce(L, profile=None): fewest modes, same function.");
  m.def(
      "filter",
      [](nb::handle a, nb::handle profile) {
        rt::Layout l = to_layout(a, "the layout");
        return profile.is_none() ? rt::filter(l) : rt::filter(l, to_int_tuple(profile, "the profile"));
      },
      nb::arg("layout").none(), nb::arg("profile").none() = nb::none(), "filter(L): coalesce without the stride-0 modes.");
  m.def("right_inverse", [](nb::handle a) { return rt::right_inverse(to_layout(a, "the layout")); }, nb::arg("layout").none());
  m.def("left_inverse", [](nb::handle a) { return rt::left_inverse(to_layout(a, "the layout")); }, nb::arg("layout").none());
  m.def("max_common_vector", [](nb::handle a, nb::handle b) { return rt::max_common_vector(to_layout(a, "a"), to_layout(b, "b")); },
        nb::arg("a").none(), nb::arg("b").none());
  m.def("max_common_layout", [](nb::handle a, nb::handle b) { return rt::max_common_layout(to_layout(a, "a"), to_layout(b, "b")); },
        nb::arg("a").none(), nb::arg("b").none());
  m.def(
      "tile_to_shape",
      [](nb::handle block, nb::handle shape, nb::handle order) {
        rt::Layout b = to_layout(block, "the block");
        rt::IntTuple s = to_int_tuple(shape, "the target shape");
        if (nb::isinstance<rt::LayoutRight>(order)) return rt::tile_to_shape(b, s, rt::LayoutRight{});
        if (!order.is_none() && !nb::isinstance<rt::LayoutLeft>(order)) throw nb::type_error("order must be LayoutLeft or LayoutRight");
        return rt::tile_to_shape(b, s);
      },
      nb::arg("block").none(), nb::arg("shape").none(), nb::arg("order").none() = nb::none(), "tile_to_shape(block, shape, order=LayoutLeft).");
  m.def("upcast", [](nb::handle a, nb::handle n) { return rt::upcast(to_layout(a, "the layout"), to_int64(n, "upcast's n")); },
        nb::arg("layout").none(), nb::arg("n").none());
  m.def("downcast", [](nb::handle a, nb::handle n) { return rt::downcast(to_layout(a, "the layout"), to_int64(n, "downcast's n")); },
        nb::arg("layout").none(), nb::arg("n").none());

  m.def(
      "make_layout",
      [](nb::args args) -> rt::Layout {
        if (args.size() == 0) throw nb::type_error("make_layout takes a shape (and a stride or an order), or layouts");
        nb::handle a0 = args[0];
        bool const first_shape = !nb::isinstance<rt::Layout>(a0) && !PyUnicode_Check(a0.ptr());
        if (first_shape && args.size() == 1) return rt::make_layout(to_int_tuple(a0, "the shape"));
        if (first_shape && args.size() == 2) {
          if (nb::isinstance<rt::LayoutRight>(args[1])) return rt::make_layout(to_int_tuple(a0, "the shape"), rt::LayoutRight{});
          if (nb::isinstance<rt::LayoutLeft>(args[1])) return rt::make_layout(to_int_tuple(a0, "the shape"));
          return rt::make_layout(to_int_tuple(a0, "the shape"), to_int_tuple(args[1], "the stride"));
        }
        std::vector<rt::Layout> ls;
        for (nb::handle h : args) {
          if (!nb::isinstance<rt::Layout>(h) && !PyUnicode_Check(h.ptr()))
            throw nb::type_error("make_layout(L0, L1, ...) concatenates layouts: every argument must be a Layout");
          ls.push_back(to_layout(h, "each layout"));
        }
        return rt::make_layout(ls);
      },
      "make_layout(shape), make_layout(shape, LayoutRight), make_layout(shape, stride) or make_layout(L0, L1, ...).");

  // ---- queries and rearrangements ------------------------------------------------------------
  m.def("size", layout_or_shape([](rt::Layout const& l) { return rt::size(l); }, [](rt::IntTuple const& t) { return rt::size(t); }),
        nb::arg("x").none(), "Number of coordinates of a layout or a shape.");
  m.def("rank", layout_or_shape([](rt::Layout const& l) { return std::int64_t(rt::rank(l)); }, [](rt::IntTuple const& t) { return std::int64_t(rt::rank(t)); }),
        nb::arg("x").none());
  m.def("depth", layout_or_shape([](rt::Layout const& l) { return std::int64_t(rt::depth(l)); }, [](rt::IntTuple const& t) { return std::int64_t(rt::depth(t)); }),
        nb::arg("x").none());
  m.def("cosize", [](nb::handle a) { return rt::cosize(to_layout(a, "the layout")); }, nb::arg("layout").none(),
        "1 + the largest index the layout reaches.");
  m.def("shape", [](nb::handle a) { return from_int_tuple(to_layout(a, "the layout").shape); }, nb::arg("layout").none());
  m.def("stride", [](nb::handle a) { return from_int_tuple(to_layout(a, "the layout").stride); }, nb::arg("layout").none());
  auto mode_of = [](nb::handle a, nb::args path) {
    if (path.size() == 0) throw nb::type_error("layout(L, i, ...) takes at least one mode index");
    return rt::layout(to_layout(a, "the layout"), mode_path(path, "layout(L, i, ...)"));
  };
  m.def("layout", mode_of, nb::arg("layout").none(), nb::arg("path").none(), "layout(L, i, j): mode j of mode i.");
  m.def("get", mode_of, nb::arg("layout").none(), nb::arg("path").none());
  m.def(
      "select",
      [](nb::handle a, nb::args idx) {
        if (idx.size() == 0) throw nb::type_error("select(L, i, ...) takes at least one mode index");
        return rt::select(to_layout(a, "the layout"), mode_path(idx, "select(L, i, ...)"));
      },
      nb::arg("layout").none(), nb::arg("modes").none());
  m.def("group", [](nb::handle a, nb::handle b, nb::handle e) {
          return rt::group(to_layout(a, "the layout"), mode_index(b, "group's begin"), mode_index(e, "group's end"));
        },
        nb::arg("layout").none(), nb::arg("begin").none(), nb::arg("end").none(), "Modes [begin, end) gathered into one mode.");
  m.def("take", [](nb::handle a, nb::handle b, nb::handle e) {
          return rt::take(to_layout(a, "the layout"), mode_index(b, "take's begin"), mode_index(e, "take's end"));
        },
        nb::arg("layout").none(), nb::arg("begin").none(), nb::arg("end").none(), "Modes [begin, end).");
  m.def("flatten", [](nb::handle a) { return rt::flatten(to_layout(a, "the layout")); }, nb::arg("layout").none());
  m.def(
      "append",
      [](nb::handle a, nb::handle x) {
        rt::Layout l = to_layout(a, "the layout");
        return x.is_none() ? rt::append(l) : rt::append(l, to_layout(x, "the new mode"));
      },
      nb::arg("layout").none(), nb::arg("mode").none() = nb::none());
  m.def(
      "prepend",
      [](nb::handle a, nb::handle x) {
        rt::Layout l = to_layout(a, "the layout");
        return x.is_none() ? rt::prepend(l) : rt::prepend(l, to_layout(x, "the new mode"));
      },
      nb::arg("layout").none(), nb::arg("mode").none() = nb::none());
  m.def("slice", [](nb::handle c, nb::handle a) { return rt::slice(to_coord(c), to_layout(a, "the layout")); }, nb::arg("coord").none(),
        nb::arg("layout").none(), "slice(coord, L): the modes of L at the `_` positions of coord.");
  m.def("crd2idx", [](nb::handle c, nb::handle a) { return to_layout(a, "the layout")(to_coord(c)); }, nb::arg("coord").none(),
        nb::arg("layout").none(), "crd2idx(coord, L) = L(coord).");
  m.def(
      "idx2crd",
      [](nb::handle index, nb::handle a) {
        std::int64_t const i = to_int64(index, "the index");
        rt::IntTuple shape = nb::isinstance<rt::Layout>(a) || PyUnicode_Check(a.ptr()) ? to_layout(a, "the layout").shape
                                                                                       : to_int_tuple(a, "the shape");
        return from_int_tuple(rt::idx2crd(i, shape));
      },
      nb::arg("index").none(), nb::arg("layout").none(), "idx2crd(i, L or shape): the natural coordinate of the 1-D coordinate i.");
  m.def("layout_table", [](nb::handle a) { return rt::print_layout(to_layout(a, "the layout")); }, nb::arg("layout").none(),
        "The layout's string and its grid of indices (rank 1 or 2), as text.");
}

}  // namespace tessel::py
