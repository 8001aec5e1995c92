#pragma once
// A small JSON writer: enough for tessel-prof's reports (objects, arrays, strings, numbers,
// booleans, null), with strings escaped per RFC 8259 and non-finite numbers written as null.

#include <optional>
#include <string>

namespace tessel::prof {

std::string json_string(const std::string& s);   // quoted and escaped
std::string json_number(double x);               // shortest round-trip form; null if not finite
std::string json_number(std::optional<double> x);

/// Builds one object: {"key": value, ...} with values already encoded.
class JsonObject {
 public:
  JsonObject& raw(const std::string& key, const std::string& encoded);
  JsonObject& str(const std::string& key, const std::string& value) { return raw(key, json_string(value)); }
  JsonObject& num(const std::string& key, double value) { return raw(key, json_number(value)); }
  JsonObject& num(const std::string& key, std::optional<double> value) { return raw(key, json_number(value)); }
  JsonObject& integer(const std::string& key, long long value) { return raw(key, std::to_string(value)); }
  JsonObject& boolean(const std::string& key, bool value) { return raw(key, value ? "true" : "false"); }
  std::string done() const { return "{" + body_ + "}"; }

 private:
  std::string body_;
};

}  // namespace tessel::prof
