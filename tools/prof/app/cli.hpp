#pragma once
// tessel-prof's command line: parse, dispatch to a mode, turn failures into a sentence and an
// exit status (0 ok, 1 a failure such as a failed verification, 2 a malformed command line or
// input file, 3 a mode that needs a GPU and finds none).

#include <ostream>
#include <string>
#include <vector>

namespace tessel::prof {

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace tessel::prof
