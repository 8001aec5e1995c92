#include "core/table.hpp"

#include <algorithm>
#include <cctype>

namespace tessel::prof {

namespace {
bool numeric(const std::string& s) {
  const std::size_t first = (!s.empty() && s[0] == '-') ? 1 : 0;
  if (s.size() <= first || !std::isdigit(static_cast<unsigned char>(s[first]))) return false;
  return s.find_first_not_of("0123456789.-+e%/x") == std::string::npos;
}
}  // namespace

std::string TextTable::render() const {
  std::vector<std::size_t> width(headers_.size());
  for (std::size_t c = 0; c < headers_.size(); ++c) width[c] = headers_[c].size();
  for (const auto& r : rows_)
    for (std::size_t c = 0; c < r.size() && c < width.size(); ++c) width[c] = std::max(width[c], r[c].size());
  auto line = [&](const std::vector<std::string>& r, bool header) {
    std::string out;
    for (std::size_t c = 0; c < width.size(); ++c) {
      const std::string cell = c < r.size() ? r[c] : "";
      const bool last = c + 1 == width.size();
      const std::string pad(width[c] - std::min(width[c], cell.size()), ' ');
      const bool right = !header && numeric(cell);
      out += right ? pad + cell : (last ? cell : cell + pad);
      if (!last) out += "  ";
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(headers_, true);
  for (const auto& r : rows_) out += line(r, false);
  return out;
}

}  // namespace tessel::prof
