#pragma once
// Parsing calculator expressions into a syntax tree.
#include <string_view>

#include "ast.hpp"

namespace tessel::calc {

// Nesting of parentheses, brackets and calls beyond this is refused rather
// than recursed into.
inline constexpr int kMaxNesting = 64;

// @throws ParseError naming the column and what was expected.
Node parse(std::string_view text);

}  // namespace tessel::calc
