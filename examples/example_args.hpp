#pragma once
// The command line the examples share: --m, --n and --k as positive integers.

#include <cstdio>
#include <cstdlib>

namespace tessel::examples {

/// `value` as a positive integer up to 65536 into `out`; otherwise a sentence on stderr naming
/// `flag` and what it takes, and false (the caller exits nonzero).
inline bool parse_extent(char const* flag, char const* value, int& out) {
  char* end = nullptr;
  long v = value ? std::strtol(value, &end, 10) : 0;
  if (!value || *end != '\0' || v <= 0 || v > (1 << 16)) {
    std::fprintf(stderr, "error: %s takes a positive integer up to 65536, got '%s'\n", flag, value ? value : "");
    return false;
  }
  out = int(v);
  return true;
}

}  // namespace tessel::examples
