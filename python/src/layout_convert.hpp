#pragma once
// Python values <-> the run-time layout algebra's values.
//
//   8, (4,(2,3))         <-> rt::IntTuple   (an int is a leaf, a tuple or list a tuple)
//   5, (1,_), (None,2)   <-> rt::Coord      (`_` or None keeps a mode)
//   Layout, "(4,8):(1,4)", 8 -> rt::Layout  (a bare integer n is the layout n:1)
//   (16,16), [L0, 4]      -> rt::Tiler      (one layout per mode)
//
// An integer is an int or anything with __index__ (numpy's integers), never a bool or a float.
//
// The rules for operands are the layout calculator's (tessel/layout/runtime/expression/evaluator.hpp), so that
// a Python call and the same expression given to tessel-layout mean the same thing.
#include <nanobind/nanobind.h>

#include <tessel/layout/runtime.hpp>
#include <string>
#include <variant>

namespace tessel::py {

namespace nb = nanobind;

// How a bare integer n in a tiler reads: CuTe's composition takes it as n:1, its divides and
// products as make_layout(n) (1:0 for n == 1).
enum class IntAs { Stride1, Compact };

// An int or an object with __index__ (numpy's integers), not a bool.
bool is_integer(nb::handle h);
// @throws TypeError for a non-integer, ValueError for one outside int64.
std::int64_t to_int64(nb::handle h, char const* what);
// Nested deeper than rt::kMaxNesting (a list that contains itself, say) is refused.
rt::IntTuple to_int_tuple(nb::handle h, char const* what);
nb::object from_int_tuple(rt::IntTuple const& t);
rt::Coord to_coord(nb::handle h);
nb::object from_coord(rt::Coord const& c);
rt::Layout to_layout(nb::handle h, char const* what);
// The UTF-8 text of a str; a str with no UTF-8 form (a lone surrogate such as "\ud800") is a
// ValueError naming `what`, not nanobind's std::bad_cast.
std::string text_of(nb::handle h, char const* what);
// The Layout an instance holds; one made by Layout.__new__ and never initialized is a TypeError.
rt::Layout const& layout_ref(nb::handle h);
std::variant<rt::Layout, rt::Tiler> to_tiler(nb::handle h, IntAs as, char const* what);

// The type the `_` marker is an instance of.
struct Underscore {};

}  // namespace tessel::py
