#pragma once
// The tessel-layout command line, as a function so tests can drive it.
#include <iosfwd>
#include <string>
#include <vector>

namespace tessel::calc {

// Exit statuses.
inline constexpr int kExitOk = 0;
inline constexpr int kExitAlgebra = 1;  // the algebra refused, or output could not be produced
inline constexpr int kExitUsage = 2;    // bad command line or malformed expression

// Runs `tessel-layout args...` (args excludes the program name). Results go
// to out; any failure is one line on err.
int run(std::vector<std::string> const& args, std::ostream& out, std::ostream& err);

}  // namespace tessel::calc
