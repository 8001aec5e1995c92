#include "core/int_list.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/error.hpp"

namespace tessel::prof {

namespace {

std::string expected_forms(std::string_view flag) {
  std::string f(flag);
  return "expected a value (" + f + "=4096), a comma-separated list (" + f +
         "=1024,4096) or a range start:end:step (" + f + "=1024:8192:1024)";
}

// std::errc() for a whole-text integer, result_out_of_range for one past 64 bits, invalid_argument
// for anything else.
std::errc to_int(std::string_view s, std::int64_t& out) {
  if (s.empty()) return std::errc::invalid_argument;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec == std::errc() && ptr != s.data() + s.size()) return std::errc::invalid_argument;
  return ec;
}

std::string range_text(std::int64_t min_value, std::int64_t max_value) {
  return "from " + std::to_string(min_value) + " to " + std::to_string(max_value);
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

}  // namespace

std::vector<std::string> split_list(std::string_view text, char sep) {
  std::vector<std::string> out;
  if (trim(text).empty()) return out;
  std::size_t start = 0;
  while (true) {
    std::size_t end = text.find(sep, start);
    out.emplace_back(trim(text.substr(start, end == std::string_view::npos ? end : end - start)));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return out;
}

std::int64_t parse_int(std::string_view flag, std::string_view text, std::int64_t min_value,
                       std::int64_t max_value) {
  const std::string whole = std::string(flag) + "=" + std::string(text);
  std::int64_t v = 0;
  const std::string_view digits = trim(text);
  const std::errc ec = to_int(digits, v);
  if (ec == std::errc::invalid_argument) {
    throw usage_error(whole + ": '" + std::string(text) + "' is not an integer; pass an integer " +
                      range_text(min_value, max_value));
  }
  const std::string fix = "; pass an integer " + range_text(min_value, max_value);
  const bool below_int64 = ec != std::errc() && digits.front() == '-';
  if (below_int64 || (ec == std::errc() && v < min_value)) {
    throw usage_error(whole + ": the value must be at least " + std::to_string(min_value) + fix);
  }
  if (ec != std::errc() || v > max_value) {
    throw usage_error(whole + ": the value must be at most " + std::to_string(max_value) + fix);
  }
  return v;
}

double parse_double(std::string_view flag, std::string_view text) {
  std::string s(trim(text));
  char* end = nullptr;
  double v = s.empty() ? 0 : std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v)) {
    throw usage_error(std::string(flag) + "=" + std::string(text) + ": expected a finite number, such as " +
                      std::string(flag) + "=1.5");
  }
  return v;
}

double parse_rate(std::string_view flag, std::string_view text) {
  const double v = parse_double(flag, text);
  if (v < kMinRate || v > kMaxRate) {
    char bounds[96];
    std::snprintf(bounds, sizeof bounds, "the value must be from %g to %g; pass a number in that range", kMinRate,
                  kMaxRate);
    throw usage_error(std::string(flag) + "=" + std::string(text) + ": " + bounds);
  }
  return v;
}

std::vector<std::int64_t> parse_int_list(std::string_view flag, std::string_view text,
                                         std::int64_t min_value, std::int64_t max_value) {
  const std::string whole = std::string(flag) + "=" + std::string(text);
  std::vector<std::int64_t> out;
  const auto items = split_list(text);
  if (items.empty()) throw usage_error(whole + ": the value is empty; " + expected_forms(flag));
  for (const std::string& item : items) {
    const auto parts = split_list(item, ':');
    std::int64_t v[3] = {0, 0, 1};
    if (item.empty() || parts.size() > 3) {
      throw usage_error(whole + ": '" + item + "' is malformed; " + expected_forms(flag));
    }
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const std::errc ec = to_int(parts[i], v[i]);
      if (ec == std::errc::invalid_argument) {
        throw usage_error(whole + ": '" + parts[i] + "' is not an integer; " + expected_forms(flag));
      }
      if (ec != std::errc()) {
        throw usage_error(whole + ": '" + parts[i] + "' is out of range; expected values " +
                          range_text(min_value, max_value));
      }
    }
    if (parts.size() == 1) v[1] = v[0];
    if (v[0] < min_value || v[1] < min_value) {
      throw usage_error(whole + ": every value must be at least " + std::to_string(min_value) + ", but '" +
                        item + "' is not");
    }
    if (v[0] > max_value || v[1] > max_value) {
      throw usage_error(whole + ": '" + item + "' is out of range; expected values " + range_text(min_value, max_value));
    }
    if (v[2] <= 0) throw usage_error(whole + ": the step of '" + item + "' must be positive");
    if (v[1] < v[0]) {
      throw usage_error(whole + ": the range '" + item + "' ends before it starts; write start:end:step with start <= end");
    }
    const std::int64_t count = (v[1] - v[0]) / v[2] + 1;
    if (count + std::int64_t(out.size()) > kMaxListValues) {
      throw usage_error(whole + ": expands to more than " + std::to_string(kMaxListValues) +
                        " values; give a range a larger step (1024:8192:1024)");
    }
    // Counted, not stepped to the end: start + i step never passes the end, so it cannot overflow.
    for (std::int64_t i = 0; i < count; ++i) out.push_back(v[0] + i * v[2]);
  }
  return out;
}

}  // namespace tessel::prof
