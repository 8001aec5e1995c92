// SVG pictures: what is drawn, labelled and coloured, and what is refused.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <regex>
#include <set>
#include <string>

#include "calc/expression.hpp"
#include "calc/svg.hpp"

#include <tessel/layout/runtime.hpp>

using tessel::calc::draw_svg;
using tessel::calc::DrawOptions;
using tessel::calc::UsageError;

namespace {

std::size_t count(std::string const& s, std::string const& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

// The labelled cells of a grid: text at (x,y) -> number, for cells drawn as
// <rect .../><text ...>N</text> pairs with a stroke.
std::map<std::pair<std::string, std::string>, std::string> cell_fills(std::string const& svg) {
  std::map<std::pair<std::string, std::string>, std::string> out;
  std::regex cell(R"re(<rect x="([0-9.]+)" y="([0-9.]+)" width="[0-9.]+" height="[0-9.]+" fill="(#[0-9a-f]+)" stroke)re");
  for (std::sregex_iterator it(svg.begin(), svg.end(), cell), end; it != end; ++it) {
    out[{(*it)[1], (*it)[2]}] = (*it)[3];
  }
  return out;
}

}  // namespace

TEST(CalcDraw, GridLabelsEveryCellWithItsIndex) {
  std::string svg = draw_svg("(2,3):(3,1)");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_EQ(cell_fills(svg).size(), 6u);
  // Each index once in its cell; 0..2 also number the columns and 0..1 the rows.
  std::size_t const want[6] = {3, 3, 2, 1, 1, 1};
  for (int v = 0; v < 6; ++v) EXPECT_EQ(count(svg, "\">" + std::to_string(v) + "</text>"), want[v]) << v;
}

TEST(CalcDraw, LabelsOnlyUpToSixtyFourRowsAndColumns) {
  std::string small = draw_svg("(64,64):(1,64)");
  EXPECT_NE(small.find(">4095</text>"), std::string::npos);
  std::string large = draw_svg("(65,64):(1,65)");
  EXPECT_EQ(large.find(">4159</text>"), std::string::npos);
  // Large grids merge equal colours: far fewer rectangles than cells.
  std::string big = draw_svg("zipped_divide((256,128):(128,1), (16,16))");
  EXPECT_LT(count(big, "<rect"), 1000u);
  EXPECT_LT(big.size(), 300000u);
}

TEST(CalcDraw, DivideShowsMatrixTileAndTileGrid) {
  std::string svg = draw_svg("logical_divide((4,4):(4,1), (2,2))");
  EXPECT_NE(svg.find("A = (4,4):(4,1)"), std::string::npos);
  EXPECT_NE(svg.find("logical_divide(A, (2,2))"), std::string::npos);
  EXPECT_NE(svg.find("layout&lt;0&gt; = (2,2):(4,1)"), std::string::npos);
  EXPECT_NE(svg.find("layout&lt;1&gt; = (2,2):(8,2)"), std::string::npos);
  // The matrix's 16 cells (drawn first) take 4 colours, 4 cells each: one per 2x2 tile.
  std::map<std::string, int> per_colour;
  int n = 0;
  std::regex cell(R"re(<rect x="[0-9.]+" y="[0-9.]+" width="[0-9.]+" height="[0-9.]+" fill="(#[0-9a-f]+)" stroke)re");
  for (std::sregex_iterator it(svg.begin(), svg.end(), cell), end; it != end && n < 16; ++it, ++n) {
    per_colour[(*it)[1]]++;
  }
  ASSERT_EQ(per_colour.size(), 4u);
  for (auto const& [c, k] : per_colour) EXPECT_EQ(k, 4) << c;
}

TEST(CalcDraw, MarkFollowsTheElementIntoItsTile) {
  DrawOptions opt;
  opt.mark = {{37, 44}};
  std::string svg = draw_svg("zipped_divide((256,128):(128,1), (16,16))", opt);
  // 37 = 2*16 + 5, 44 = 2*16 + 12: tile (2,2) starts at 2*2048 + 2*16 = 4128,
  // element (5,12) of the tile is 5*128 + 12 = 652 from it, 4780 in all.
  EXPECT_NE(svg.find("the marked one at (5,12)"), std::string::npos);
  EXPECT_NE(svg.find("tile (2,2) starts at 4128; + 652 inside the tile = 4780"), std::string::npos);
  EXPECT_EQ(count(svg, "stroke=\"#d62728\""), 3u);  // one outline per panel
}

TEST(CalcDraw, Refusals) {
  auto says = [](std::string const& expr, std::string const& part) {
    try {
      draw_svg(expr);
    } catch (std::exception const& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
      return;
    }
    ADD_FAILURE() << "no error for " << expr;
  };
  says("(2,2,2):(1,2,4)", "rank 3");
  says("(4,4)", "draw needs a layout, not a shape (4,4)");
  says("(2048,1024):(1,2048)", "more than the 1048576 cells");
  says("composition((6,2):(8,2), 5:3)", "shape divisibility");
}

// Issue 16: a tiler far larger than the matrix was walked for minutes before
// the size check; every panel's size is now checked before any cell is.
TEST(CalcDraw, OversizedTilerIsRefusedAtOnce) {
  auto const start = std::chrono::steady_clock::now();
  try {
    draw_svg("zipped_divide((4,4):(1,4), (1099511627776,4))");
    ADD_FAILURE() << "no error";
  } catch (tessel::rt::Error const& e) {
    EXPECT_NE(std::string(e.what()).find("1099511627776x4 cells is more than the 1048576 cells drawn at most; draw a smaller layout"),
              std::string::npos)
        << e.what();
  }
  // A tiler mode larger than its matrix mode, even with a small tile grid.
  EXPECT_THROW(draw_svg("logical_divide((4,4):(1,4), [(2,524288):(1,0), 2])"), tessel::rt::Error);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2.0);
}

// Issue 16: pictures of 60-130 MB were written; past kMaxSvgBytes the picture
// is refused with a sentence saying how to draw less.
TEST(CalcDraw, PicturesAreBoundedInBytes) {
  // Neighbouring cells all differ in colour: one rectangle per cell.
  try {
    draw_svg("(1024,1024):(1023,1)");
    ADD_FAILURE() << "no error";
  } catch (tessel::rt::Error const& e) {
    EXPECT_NE(std::string(e.what()).find("the picture would be larger than 16 MiB"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("draw a smaller layout"), std::string::npos) << e.what();
  }
  // A grid as large, but of long runs of one colour, stays small and is drawn.
  EXPECT_LT(draw_svg("(1024,1024):(1024,1)").size(), tessel::calc::kMaxSvgBytes);
}
