#pragma once
// Parsing calculator expressions into a syntax tree.
#include <string_view>
#include <tessel/layout/runtime/int_tuple.hpp>

#include "ast.hpp"

namespace tessel::calc {

// Nesting of parentheses, brackets and calls beyond this is refused rather
// than recursed into: the limit every layout reader shares.
inline constexpr int kMaxNesting = rt::kMaxNesting;

// @throws ParseError naming the column and what was expected.
Node parse(std::string_view text);

}  // namespace tessel::calc
