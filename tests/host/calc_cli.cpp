// The tessel-layout command line through calc::run: exit statuses, one-line
// failures, and the files draw writes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "calc/cli.hpp"

using tessel::calc::run;

namespace {

struct Result {
  int rc;
  std::string out, err;
};

Result cli(std::vector<std::string> const& args) {
  std::ostringstream out, err;
  int rc = run(args, out, err);
  return {rc, out.str(), err.str()};
}

long lines(std::string const& s) { return std::count(s.begin(), s.end(), '\n'); }

}  // namespace

TEST(CalcCli, EvalPrintsCuTeNotation) {
  auto r = cli({"eval", "zipped_divide((256,128):(128,1), (16,16))"});
  EXPECT_EQ(r.rc, 0);
  EXPECT_EQ(r.out, "((16,16),(16,8)):((128,1),(2048,16))\n");
  EXPECT_EQ(r.err, "");
  // An unquoted expression split by the shell is joined back.
  r = cli({"eval", "composition((6,2):(8,2),", "(4,3):(3,1))"});
  EXPECT_EQ(r.out, "((2,2),3):((24,2),8)\n");
}

TEST(CalcCli, EvalJson) {
  auto r = cli({"eval", "--json", "8:2"});
  EXPECT_EQ(r.rc, 0);
  EXPECT_EQ(r.out,
            "{\"layout\":\"8:2\",\"shape\":8,\"stride\":2,\"size\":8,\"cosize\":15,\"indices\":[0,2,4,6,8,10,12,14]}\n");
  r = cli({"eval", "(8192,4096):(1,8192)", "--json"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(lines(r.err), 1);
  EXPECT_NE(r.err.find("limit of 16777216"), std::string::npos) << r.err;
}

TEST(CalcCli, TablePrintsTheGrid) {
  auto r = cli({"table", "(2,3):(3,1)"});
  EXPECT_EQ(r.rc, 0);
  EXPECT_NE(r.out.find("0  | 0 | 1 | 2 |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1  | 3 | 4 | 5 |"), std::string::npos) << r.out;
}

TEST(CalcCli, FailuresAreOneLineWithTheRightStatus) {
  struct Case {
    std::vector<std::string> args;
    int rc;
    std::string says;
  };
  std::vector<Case> cases = {
      {{"eval", "zipped_divide((256,128):(128,1),(16,16]"}, 2, "parse error at column 39: expected ',' or ')'"},
      {{"eval", "composition((6,2):(8,2), 5:3)"}, 1, "shape divisibility fails"},
      {{"eval", "complement((2,2):(1,1))"}, 1, "not injective"},
      {{"eval", "nosuch(8:1)"}, 2, "unknown function 'nosuch'"},
      {{"eval"}, 2, "eval needs an expression"},
      {{}, 2, "no command"},
      {{"frobnicate", "8:1"}, 2, "unknown command 'frobnicate'"},
      {{"eval", "--svg", "8:1"}, 2, "unknown option '--svg'"},
      {{"draw", "8:1", "-o"}, 2, "-o needs a file name"},
      {{"draw", "8:1", "--mark", "3"}, 2, "--mark takes ROW,COL"},
      {{"draw", "8:1", "--mark", "9,0"}, 2, "outside the 8x1 grid"},
      {{"draw", "(2,2,2):(1,2,4)"}, 2, "only rank-1 and rank-2 layouts"},
      {{"table", "(4,4)"}, 2, "table needs a layout, not a shape (4,4)"},
      {{"eval", std::string(5000, '(')}, 2, "nesting deeper than 64"},
      {{"eval", "(4294967296,4294967296):(1,1)", "--json"}, 1, "integer overflow"},
      // Issue 16: products of shapes and strides past 2^63 are refused, never wrapped.
      {{"eval", "size((4294967296,4294967296))"}, 1, "does not fit in 64 bits; use smaller extents or strides"},
      {{"eval", "cosize(2:9223372036854775807)"}, 1, "integer overflow"},
      {{"eval", "blocked_product((4,4):(1,4), (4294967296,4294967296):(1,4294967296))"}, 1, "integer overflow"},
      {{"eval", "size(99999999999999999999)"}, 2, "the integer does not fit in 64 bits"},
      {{"eval", "-\x0b\x1c\x85"}, 2, "unknown option '- "},  // control characters do not break the line
  };
  for (auto const& c : cases) {
    auto r = cli(c.args);
    EXPECT_EQ(r.rc, c.rc) << r.err;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_EQ(r.err.rfind("tessel-layout: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << "'" << c.says << "' missing from: " << r.err;
    EXPECT_EQ(r.out, "");
  }
}

TEST(CalcCli, HelpListsTheFunctions) {
  auto r = cli({"--help"});
  EXPECT_EQ(r.rc, 0);
  for (char const* f : {"composition", "complement", "zipped_divide", "blocked_product", "right_inverse", "tile_to_shape"}) {
    EXPECT_NE(r.out.find(f), std::string::npos) << f;
  }
}

TEST(CalcCli, DrawWritesAnSvgFile) {
  std::string path = ::testing::TempDir() + "calc_cli_draw.svg";
  std::remove(path.c_str());
  auto r = cli({"draw", "zipped_divide((256,128):(128,1), (16,16))", "-o", path, "--mark", "37,44"});
  ASSERT_EQ(r.rc, 0) << r.err;
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string svg = ss.str();
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("layout&lt;0&gt; = (16,16):(128,1)"), std::string::npos);
  EXPECT_NE(svg.find("A(37,44) = 4780"), std::string::npos);
  std::remove(path.c_str());
  // Without -o the picture goes to standard output.
  r = cli({"draw", "(2,3):(3,1)"});
  EXPECT_EQ(r.rc, 0);
  EXPECT_EQ(r.out.rfind("<svg", 0), 0u);
}

// Issue 16: a picture that could not be written must not exit 0.
TEST(CalcCli, DrawRefusesAnUnwritableFile) {
  struct Case {
    std::string path, says;
  };
  std::vector<Case> cases = {
      {"/dev/full", "cannot write '/dev/full': No space left on device; pass -o a writable file"},
      {"/nonexistent-dir/x.svg", "cannot write '/nonexistent-dir/x.svg': No such file or directory"},
      {::testing::TempDir(), "Is a directory"},
  };
  for (auto const& c : cases) {
    auto r = cli({"draw", "(2,3):(3,1)", "-o", c.path});
    EXPECT_EQ(r.rc, 1) << c.path;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
  }
}
