#pragma once
// Evaluating a calculator expression with the run-time layout algebra.
#include <string>
#include <string_view>
#include <vector>

#include "ast.hpp"
#include "value.hpp"

namespace tessel::calc {

// @throws UsageError for unknown functions or wrong arguments,
//         rt::Error when the algebra refuses an operation.
Value evaluate(Node const& n);

// parse + evaluate.
Value evaluate(std::string_view text);

// The names evaluate() understands, for help text.
std::vector<std::string> function_names();

}  // namespace tessel::calc
