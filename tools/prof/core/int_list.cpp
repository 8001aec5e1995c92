#include "core/int_list.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "core/error.hpp"

namespace tessel::prof {

namespace {

std::string expected_forms(std::string_view flag) {
  std::string f(flag);
  return "expected a value (" + f + "=4096), a comma-separated list (" + f +
         "=1024,4096) or a range start:end:step (" + f + "=1024:8192:1024)";
}

bool to_int(std::string_view s, std::int64_t& out) {
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
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

std::int64_t parse_int(std::string_view flag, std::string_view text, std::int64_t min_value) {
  std::int64_t v = 0;
  if (!to_int(trim(text), v)) {
    throw usage_error(std::string(flag) + "=" + std::string(text) + ": '" + std::string(text) +
                      "' is not an integer");
  }
  if (v < min_value) {
    throw usage_error(std::string(flag) + "=" + std::string(text) + ": the value must be at least " +
                      std::to_string(min_value));
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

std::vector<std::int64_t> parse_int_list(std::string_view flag, std::string_view text,
                                         std::int64_t min_value) {
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
      if (!to_int(parts[i], v[i])) {
        throw usage_error(whole + ": '" + parts[i] + "' is not an integer; " + expected_forms(flag));
      }
    }
    if (parts.size() == 1) v[1] = v[0];
    if (v[0] < min_value || v[1] < min_value) {
      throw usage_error(whole + ": every value must be at least " + std::to_string(min_value) + ", but '" +
                        item + "' is not");
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
    for (std::int64_t x = v[0]; x <= v[1]; x += v[2]) out.push_back(x);
  }
  return out;
}

}  // namespace tessel::prof
