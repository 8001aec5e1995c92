#pragma once
// Explicit problem lists: --shapes=4096x4096x4096,4096x16x4096 and --shapes-file=FILE. A sweep of
// --m, --n and --k is a cross product; the shapes a model serves are a list, and profiling their
// cross product would time problems nobody runs.

#include <string>
#include <string_view>
#include <vector>

#include "core/problem.hpp"

namespace tessel::prof {

/// "MxNxK" or "MxNxKxL" (L the batch). Throws usage_error naming `where`.
GemmShape parse_shape(std::string_view where, std::string_view text);

/// A comma-separated list of shapes.
std::vector<GemmShape> parse_shape_list(std::string_view flag, std::string_view text);

/// One shape per line, as "MxNxK[xL]" or "M N K [L]"; '#' starts a comment; blank lines are
/// skipped. Throws usage_error naming `source` and the line.
std::vector<GemmShape> parse_shapes_file(const std::string& text, const std::string& source);

}  // namespace tessel::prof
