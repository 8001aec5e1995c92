#pragma once
// The run-time layout algebra: CuTe's layouts and operations for layouts
// whose nesting is only known at run time (tools, bindings). Host only.
//
// Results match CuTe's for the same values (with every integer known, as
// CuTe computes them when they are static): same shapes, same strides, same
// nesting. Inadmissible operations throw tessel::rt::Error.
#include "runtime/cast.hpp"
#include "runtime/coalesce.hpp"
#include "runtime/complement.hpp"
#include "runtime/composition.hpp"
#include "runtime/coord.hpp"
#include "runtime/divide.hpp"
#include "runtime/error.hpp"
#include "runtime/int_tuple.hpp"
#include "runtime/inverse.hpp"
#include "runtime/layout.hpp"
#include "runtime/literal.hpp"
#include "runtime/print.hpp"
#include "runtime/product.hpp"
#include "runtime/tiler.hpp"
