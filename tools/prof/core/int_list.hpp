#pragma once
// The value / list / range syntax of the problem-size flags, as the CUTLASS profiler has it:
//   --m=4096              one value
//   --m=1024,4096         a list
//   --m=1024:8192:1024    a range, start:end:step with the end included (step 1 when left out)
// and any mix of them, "256,1024:4096:1024". Malformed input, or a value outside its bounds
// (core/limits.hpp), throws usage_error with a sentence.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/limits.hpp"

namespace tessel::prof {

/// `flag` is the option's name for messages ("--m"); every value must lie in
/// [`min_value`, `max_value`], and the list may hold at most kMaxListValues values.
std::vector<std::int64_t> parse_int_list(std::string_view flag, std::string_view text,
                                         std::int64_t min_value = 1, std::int64_t max_value = kMaxExtent);

/// One integer in [`min_value`, `max_value`], the whole text; throws usage_error naming `flag`.
std::int64_t parse_int(std::string_view flag, std::string_view text, std::int64_t min_value,
                       std::int64_t max_value);

/// One finite number, the whole text.
double parse_double(std::string_view flag, std::string_view text);

/// A matrix rate (TFLOP/s) or a bandwidth (GB/s): a number in [kMinRate, kMaxRate].
double parse_rate(std::string_view flag, std::string_view text);

/// Split at `sep`, trimming spaces; "a, b" -> {"a","b"}. An empty text gives no items.
std::vector<std::string> split_list(std::string_view text, char sep = ',');

}  // namespace tessel::prof
