#pragma once
// The calculator's own refusals. Algebra refusals are tessel::rt::Error;
// these are about the expression itself (exit status 2).
#include <stdexcept>
#include <string>

namespace tessel::rt::expr {

// A malformed expression: `column` is 1-based into the expression text.
class ParseError : public std::runtime_error {
 public:
  ParseError(int column, std::string const& what)
      : std::runtime_error("column " + std::to_string(column) + ": " + what), column_(column) {}
  int column() const { return column_; }

 private:
  int column_;
};

// A well-formed expression that asks for something the calculator does not
// offer: an unknown function, a wrong number or kind of arguments.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace tessel::rt::expr
