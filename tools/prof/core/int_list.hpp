#pragma once
// The value / list / range syntax of the problem-size flags, as the CUTLASS profiler has it:
//   --m=4096              one value
//   --m=1024,4096         a list
//   --m=1024:8192:1024    a range, start:end:step with the end included (step 1 when left out)
// and any mix of them, "256,1024:4096:1024". Malformed input throws usage_error with a sentence.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessel::prof {

/// A range may expand to at most this many values: a sweep of more is almost certainly a typo
/// (1:8192 instead of 1024:8192:1024), and would run for hours.
inline constexpr std::int64_t kMaxListValues = 4096;

/// `flag` is the option's name for messages ("--m"); every value must be >= `min_value`.
std::vector<std::int64_t> parse_int_list(std::string_view flag, std::string_view text,
                                         std::int64_t min_value = 1);

/// One integer, the whole text; nullopt-free: throws usage_error naming `flag`.
std::int64_t parse_int(std::string_view flag, std::string_view text, std::int64_t min_value);

/// One finite number, the whole text.
double parse_double(std::string_view flag, std::string_view text);

/// Split at `sep`, trimming spaces; "a, b" -> {"a","b"}. An empty text gives no items.
std::vector<std::string> split_list(std::string_view text, char sep = ',');

}  // namespace tessel::prof
