#pragma once
// RFC 4180 CSV: a field with a comma, a quote or a line break is quoted, quotes doubled. The
// reader accepts what the writer writes (and what spreadsheets export), so report mode can
// re-read profile mode's CSV.

#include <string>
#include <vector>

namespace tessel::prof {

std::string csv_field(const std::string& field);
std::string csv_line(const std::vector<std::string>& fields);  // ends with '\n'

/// All records of `text`; the first is normally the header. Throws usage_error naming `source`
/// for an unterminated quoted field.
std::vector<std::vector<std::string>> parse_csv(const std::string& text, const std::string& source);

}  // namespace tessel::prof
