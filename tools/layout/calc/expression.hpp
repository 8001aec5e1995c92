#pragma once
// The calculator's language is the library's run-time algebra's (tessel/layout/runtime/expression):
// one parser and one evaluator, which tessel-layout and tessel.layout.evaluate both front. This
// tool adds the command line and the pictures, and names the language's parts calc::....
#include "tessel/layout/runtime/expression/ast.hpp"
#include "tessel/layout/runtime/expression/errors.hpp"
#include "tessel/layout/runtime/expression/evaluator.hpp"
#include "tessel/layout/runtime/expression/json.hpp"
#include "tessel/layout/runtime/expression/parser.hpp"
#include "tessel/layout/runtime/expression/value.hpp"

namespace tessel::calc {
using namespace ::tessel::rt::expr;
}  // namespace tessel::calc
