#pragma once
// Text rendering of a rank-2 layout as a table of indices.
#include <algorithm>
#include <cstdint>
#include <string>

#include "layout.hpp"

namespace tessel::rt {

// print_layout(L): L's string, then an M x N grid whose cell (m,n) holds
// L(m,n), with row and column numbers. A rank-1 layout prints as one column.
// Row m, column n of a mode is the 1-D coordinate of that mode, so nested
// modes are read colexicographically.
// @throws Error when rank(L) > 2 or the table would exceed 2^20 cells.
// Example, (2,3):(3,1):
//   (2,3):(3,1)
//        0   1   2
//      +---+---+---+
//   0  | 0 | 1 | 2 |
//      +---+---+---+
//   1  | 3 | 4 | 5 |
//      +---+---+---+
inline std::string print_layout(Layout const& l) {
  if (rank(l) > 2) throw Error("print_layout(" + to_string(l) + "): needs a layout of rank 1 or 2");
  Layout two = rank(l) == 2 ? l : make_layout(l, Layout(1, 0));
  std::int64_t rows = size(two, 0), cols = size(two, 1);
  if (rows > (1 << 20) / cols) throw Error("print_layout(" + to_string(l) + "): too many cells to print");
  Layout r = layout(two, 0), c = layout(two, 1);
  std::size_t w = 1;
  for (std::int64_t m = 0; m < rows; ++m) {
    for (std::int64_t n = 0; n < cols; ++n) {
      w = std::max(w, std::to_string(detail::add(r(m), c(n))).size());
    }
  }
  w = std::max(w, std::to_string(cols - 1).size());
  std::size_t lw = std::to_string(rows - 1).size();
  auto pad = [](std::string s, std::size_t n) { return std::string(n > s.size() ? n - s.size() : 0, ' ') + s; };

  std::string out = to_string(l) + "\n";
  std::string rule = std::string(lw + 2, ' ');
  for (std::int64_t n = 0; n < cols; ++n) rule += "+" + std::string(w + 2, '-');
  rule += "+\n";
  out += std::string(lw + 2, ' ');
  for (std::int64_t n = 0; n < cols; ++n) out += "  " + pad(std::to_string(n), w) + (n + 1 < cols ? " " : "");
  out += "\n" + rule;
  for (std::int64_t m = 0; m < rows; ++m) {
    out += pad(std::to_string(m), lw) + "  ";
    for (std::int64_t n = 0; n < cols; ++n) out += "| " + pad(std::to_string(r(m) + c(n)), w) + " ";
    out += "|\n" + rule;
  }
  return out;
}

}  // namespace tessel::rt
