#include "core/shapes.hpp"

#include <sstream>

#include "core/error.hpp"
#include "core/int_list.hpp"
#include "core/limits.hpp"

namespace tessel::prof {

GemmShape parse_shape(std::string_view where, std::string_view text) {
  auto parts = split_list(text, 'x');
  if (parts.size() == 1) {
    // "M N K [L]": whitespace-separated, as a shapes file may write it.
    std::istringstream in{std::string(text)};
    parts.clear();
    for (std::string w; in >> w;) parts.push_back(w);
  }
  if (parts.size() != 3 && parts.size() != 4) {
    throw usage_error(std::string(where) + ": '" + std::string(text) +
                      "' is not a problem size; expected MxNxK or MxNxKxBATCH, such as 4096x16x4096");
  }
  const std::string w(where);
  GemmShape s;
  s.m = parse_int(w + ": M", parts[0], 1, kMaxExtent);
  s.n = parse_int(w + ": N", parts[1], 1, kMaxExtent);
  s.k = parse_int(w + ": K", parts[2], 1, kMaxExtent);
  s.batch = parts.size() == 4 ? parse_int(w + ": batch", parts[3], 1, kMaxExtent) : 1;
  return s;
}

std::vector<GemmShape> parse_shape_list(std::string_view flag, std::string_view text) {
  std::vector<GemmShape> out;
  for (const std::string& item : split_list(text)) out.push_back(parse_shape(std::string(flag) + "=" + std::string(text), item));
  if (out.empty()) throw usage_error(std::string(flag) + " is empty; expected shapes such as 4096x4096x4096,4096x16x4096");
  return out;
}

std::vector<GemmShape> parse_shapes_file(const std::string& text, const std::string& source) {
  std::vector<GemmShape> out;
  std::istringstream in(text);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    line = line.substr(0, line.find('#'));
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
    line.erase(0, line.find_first_not_of(" \t"));
    if (std::int64_t(out.size()) == kMaxProblems) {
      throw usage_error(source + ": lists more than " + std::to_string(kMaxProblems) +
                        " shapes, the limit of one run; split the file");
    }
    out.push_back(parse_shape(source + ":" + std::to_string(number), line));
  }
  if (out.empty()) throw usage_error(source + ": no shapes; expected one MxNxK per line");
  return out;
}

}  // namespace tessel::prof
