#include "core/csv.hpp"

#include "core/error.hpp"

namespace tessel::prof {

std::string csv_field(const std::string& f) {
  if (f.find_first_of(",\"\r\n") == std::string::npos) return f;
  std::string out = "\"";
  for (char c : f) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string csv_line(const std::vector<std::string>& fields) {
  std::string out;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ',';
    out += csv_field(fields[i]);
  }
  out += '\n';
  return out;
}

std::vector<std::vector<std::string>> parse_csv(const std::string& text, const std::string& source) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false, field_started = false;
  int line = 1;
  auto end_field = [&] {
    record.push_back(field);
    field.clear();
    field_started = false;
  };
  auto end_record = [&] {
    end_field();
    // A blank line is no record.
    if (!(record.size() == 1 && record[0].empty())) records.push_back(record);
    record.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') field += '"', ++i;
      else if (c == '"') quoted = false;
      else field += c, line += (c == '\n');
    } else if (c == '"' && !field_started) {
      quoted = field_started = true;
    } else if (c == ',') {
      end_field();
    } else if (c == '\n') {
      end_record();
      ++line;
    } else if (c != '\r') {
      field += c;
      field_started = true;
    }
  }
  if (quoted) throw usage_error(source + ":" + std::to_string(line) + ": a quoted field is not closed");
  if (field_started || !record.empty()) end_record();
  return records;
}

}  // namespace tessel::prof
