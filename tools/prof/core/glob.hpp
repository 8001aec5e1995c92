#pragma once
// Kernel selection by name patterns, the way --kernels and --ignore-kernels read them.
//
// A pattern with '*' (any run of characters) or '?' (one character) must match the whole name.
// A pattern without either matches any name that contains it, so `--kernels=bf16` works as it
// does in the CUTLASS profiler. The build's selection (kernels/catalogue.cmake) uses whole-name
// globs only; an exact kernel name means the same thing in both places.

#include <string>
#include <string_view>
#include <vector>

namespace tessel::prof {

/// Whole-string glob match with '*' and '?'.
bool glob_match(std::string_view pattern, std::string_view name);

/// The command line's rule: glob when the pattern has a wildcard, else substring.
bool pattern_matches(std::string_view pattern, std::string_view name);

/// The names selected by `include` (all when empty) minus those matched by `exclude`, in the
/// order of `names`. A pattern of either list that matches no name throws usage_error naming the
/// flag and the pattern; `catalogue` (names the build could compile) sharpens that sentence when
/// the pattern names a kernel that exists but was not built into this binary.
std::vector<std::string> select_names(const std::vector<std::string>& names,
                                      const std::vector<std::string>& include,
                                      const std::vector<std::string>& exclude,
                                      const std::vector<std::string>& catalogue = {});

}  // namespace tessel::prof
