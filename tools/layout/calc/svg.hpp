#pragma once
// SVG pictures of layouts.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace tessel::calc {

struct DrawOptions {
  // A cell (row, column) of the drawn matrix to highlight, in every panel.
  std::optional<std::pair<std::int64_t, std::int64_t>> mark;
};

// Grids label each cell with its index only up to this many rows and
// columns; larger grids are drawn in colour alone to keep the file small.
inline constexpr std::int64_t kMaxLabelled = 64;
// Grids beyond this many cells are refused, and so is a divide whose tiler
// would have this many positions walked to colour the tiles: both are
// checked before any cell is visited, so a refusal is immediate.
inline constexpr std::int64_t kMaxCells = std::int64_t{1} << 20;
// The largest picture written. Unlabelled cells of one colour merge into one
// rectangle, but a grid whose every cell differs from its neighbour needs a
// rectangle per cell (about 70 bytes each); beyond this the picture is refused.
inline constexpr std::size_t kMaxSvgBytes = std::size_t{16} << 20;

// Draws the value of `expr`:
//  - a divide (logical_, zipped_, tiled_ or flat_divide) of a rank-2 layout
//    by a two-mode tiler: the matrix with cells coloured by tile, an arrow
//    labelled with the call, and beside it one tile (mode 0 of the zipped
//    divide) and the tile grid (mode 1), each captioned with its layout;
//  - otherwise a rank-1 or rank-2 layout as a grid of cells labelled with
//    their indices.
// @throws ParseError / UsageError for a malformed expression or a value that
//         cannot be drawn, rt::Error when the algebra refuses it or the
//         picture would exceed kMaxCells or kMaxSvgBytes.
std::string draw_svg(std::string_view expr, DrawOptions const& opt = {});

}  // namespace tessel::calc
