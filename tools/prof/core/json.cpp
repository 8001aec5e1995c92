#include "core/json.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace tessel::prof {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += char(c);
        }
    }
  }
  return out + "\"";
}

std::string json_number(double x) {
  if (!std::isfinite(x)) return "null";
  char buf[32];
  // The shortest of %.15g and %.17g that reads back as the same double.
  std::snprintf(buf, sizeof buf, "%.15g", x);
  if (std::strtod(buf, nullptr) != x) std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

std::string json_number(std::optional<double> x) { return x ? json_number(*x) : "null"; }

JsonObject& JsonObject::raw(const std::string& key, const std::string& encoded) {
  if (!body_.empty()) body_ += ", ";
  body_ += json_string(key) + ": " + encoded;
  return *this;
}

}  // namespace tessel::prof
