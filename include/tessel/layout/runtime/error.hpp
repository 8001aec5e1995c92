#pragma once
// The one exception type of the run-time layout algebra.
//
// Every refusal (an inadmissible composition, the complement of a layout that
// is not injective, a coordinate outside its shape, an integer that would not
// fit in 64 bits) throws tessel::rt::Error. Public operations prefix the
// message with their own name and operands, so a failure deep inside a divide
// reads as a chain from the outermost call down to the failed condition:
//
//   logical_divide(8:3, 3:2): composition(8:3, (3,2):(2,1)): ...
#include <stdexcept>
#include <string>
#include <utility>

namespace tessel::rt {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {

// Runs f(); if it throws Error, rethrows with "op(operands): " in front.
// describe() is only called on failure, so the happy path formats nothing.
template <class Describe, class F>
auto with_context(char const* op, Describe&& describe, F&& f) -> decltype(f()) {
  try {
    return std::forward<F>(f)();
  } catch (Error const& e) {
    throw Error(std::string(op) + "(" + describe() + "): " + e.what());
  }
}

}  // namespace detail
}  // namespace tessel::rt
