// The SVG plot: well-formed XML, one bar per (problem, kernel) that ran, heights proportional to
// TFLOP/s, failed and missing runs marked. Also the progress line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "core/plot.hpp"
#include "core/progress.hpp"

namespace tessel::prof {
namespace {

// A strict little XML checker: one root, balanced tags, quoted unique attributes, no bare '<' or
// '&' in text or attribute values. Returns "" when well-formed, else what is wrong and where.
std::string xml_problem(const std::string& s) {
  std::vector<std::string> stack;
  int roots = 0;
  std::size_t i = 0;
  auto entity_ok = [&](std::size_t at) {
    static const std::regex entity("^&(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);");
    return std::regex_search(s.begin() + long(at), s.end(), entity);
  };
  auto name_at = [&](std::size_t& p) {
    const std::size_t start = p;
    while (p < s.size() && (std::isalnum(static_cast<unsigned char>(s[p])) || s[p] == '-' || s[p] == ':' || s[p] == '_')) ++p;
    return s.substr(start, p - start);
  };
  while (i < s.size()) {
    if (s[i] != '<') {
      if (s[i] == '&' && !entity_ok(i)) return "bare & at " + std::to_string(i);
      if (stack.empty() && !std::isspace(static_cast<unsigned char>(s[i]))) return "text outside the root at " + std::to_string(i);
      ++i;
      continue;
    }
    if (s.compare(i, 2, "</") == 0) {
      std::size_t p = i + 2;
      const std::string name = name_at(p);
      if (stack.empty() || stack.back() != name) return "unexpected </" + name + "> at " + std::to_string(i);
      stack.pop_back();
      if (p >= s.size() || s[p] != '>') return "malformed end tag at " + std::to_string(i);
      i = p + 1;
      continue;
    }
    std::size_t p = i + 1;
    const std::string name = name_at(p);
    if (name.empty()) return "bad tag name at " + std::to_string(i);
    if (stack.empty() && roots++ > 0) return "a second root element at " + std::to_string(i);
    std::set<std::string> attrs;
    while (true) {
      while (p < s.size() && std::isspace(static_cast<unsigned char>(s[p]))) ++p;
      if (p >= s.size()) return "unterminated tag <" + name;
      if (s[p] == '>' || s.compare(p, 2, "/>") == 0) break;
      const std::string attr = name_at(p);
      if (attr.empty() || p + 1 >= s.size() || s[p] != '=' || s[p + 1] != '"') return "malformed attribute in <" + name;
      if (!attrs.insert(attr).second) return "duplicate attribute " + attr + " in <" + name;
      const std::size_t end = s.find('"', p + 2);
      if (end == std::string::npos) return "unterminated attribute " + attr;
      for (std::size_t q = p + 2; q < end; ++q) {
        if (s[q] == '<') return "'<' in attribute " + attr;
        if (s[q] == '&' && !entity_ok(q)) return "bare & in attribute " + attr;
      }
      p = end + 1;
    }
    if (s[p] == '>') {
      stack.push_back(name);
      i = p + 1;
    } else {
      i = p + 2;
    }
  }
  if (!stack.empty()) return "unclosed <" + stack.back() + ">";
  if (roots != 1) return "no root element";
  return "";
}

TEST(ProfPlot, CheckerRejectsBrokenXml) {
  EXPECT_EQ(xml_problem("<svg><g a=\"1\"/><text>x &amp; y</text></svg>"), "");
  EXPECT_NE(xml_problem("<svg><g></svg>"), "");
  EXPECT_NE(xml_problem("<svg a=\"1\" a=\"2\"/>"), "");
  EXPECT_NE(xml_problem("<svg><text>a & b</text></svg>"), "");
  EXPECT_NE(xml_problem("<svg/><svg/>"), "");
}

const OperandSet kBf16Tn{{Element::kBF16, Layout::kRow}, {Element::kBF16, Layout::kColumn},
                         {Element::kBF16, Layout::kColumn}, {Element::kBF16, Layout::kColumn}};

ProfileRow row(const std::string& kernel, GemmShape shape, double tflops, const char* verification, bool ran = true) {
  ProfileRow r;
  r.provider = kernel == "cublas" ? "cublas" : "tessel";
  r.kernel = kernel;
  r.problem.shape = shape;
  r.operands = kBf16Tn;
  r.ran = ran;
  r.tflops = tflops;
  r.verification = verification;
  return r;
}

// Every bar that ran is a rect with a tooltip. Returns (height, value, failed) per bar.
struct Bar {
  double height, value;
  bool hatched, failed;
};
std::vector<Bar> bars_of(const std::string& svg) {
  const std::regex bar("<rect x=\"[0-9.]+\" y=\"[0-9.]+\" width=\"[0-9.]+\" height=\"([0-9.]+)\" fill=\"([^\"]+)\"[^>]*>"
                       "<title>[^<]*: ([0-9.]+) TFLOP/s( \\(verification failed\\))?</title>");
  std::vector<Bar> out;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), bar); it != std::sregex_iterator(); ++it) {
    out.push_back({std::stod((*it)[1]), std::stod((*it)[3]), (*it)[2] == "url(#failed)", (*it)[4].matched});
  }
  return out;
}

TEST(ProfPlot, ProfileChartIsWellFormedAndToScale) {
  const GemmShape a{4096, 4096, 4096, 1}, b{8192, 8192, 8192, 1};
  const std::vector<ProfileRow> rows = {
      row("cublas", a, 700, kNotVerified), row("k<1>&co", a, 450, kPassed), row("k_2", a, 820, kFailed),
      row("cublas", b, 760, kNotVerified), row("k<1>&co", b, 500, kPassed), row("k_2", b, 0, kNotRun, false)};
  const PlotData data = profile_plot(rows, "TFLOP/s <test>");
  ASSERT_EQ(data.categories.size(), 2u);
  ASSERT_EQ(data.series.size(), 3u);
  EXPECT_EQ(data.series[0].name, "cublas");  // the yardstick first
  EXPECT_TRUE(data.series[0].reference);
  const std::string svg = render_bar_chart(data);
  ASSERT_EQ(xml_problem(svg), "") << svg;
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_NE(svg.find("TFLOP/s &lt;test&gt;"), std::string::npos);
  EXPECT_NE(svg.find("k&lt;1&gt;&amp;co"), std::string::npos);
  EXPECT_EQ(svg.find("log scale"), std::string::npos);

  const auto bars = bars_of(svg);
  ASSERT_EQ(bars.size(), 5u);
  for (const Bar& bar : bars) {
    EXPECT_NEAR(bar.height / bar.value, bars[0].height / bars[0].value, 0.1 / bar.value);  // linear: to scale
    EXPECT_EQ(bar.hatched, bar.failed);
  }
  EXPECT_EQ(std::count_if(bars.begin(), bars.end(), [](const Bar& x) { return x.failed; }), 1);
  EXPECT_NE(svg.find("k_2: did not run"), std::string::npos);
  // The y axis reaches past the tallest bar (820) on a 1-2-5 step.
  EXPECT_NE(svg.find(">1000</text>"), std::string::npos);
}

TEST(ProfPlot, WideRangesGoLogarithmic) {
  const GemmShape a{4096, 4096, 4096, 1}, b{4096, 16, 4096, 1};
  const std::vector<ProfileRow> rows = {row("cublas", a, 700, kNotVerified), row("k", a, 450, kPassed),
                                        row("cublas", b, 17.5, kNotVerified), row("k", b, 9, kPassed)};
  const PlotData data = profile_plot(rows, "t");
  const YAxis axis = y_axis_for(data.range().first, data.range().second);
  ASSERT_TRUE(axis.log);
  EXPECT_DOUBLE_EQ(axis.lo, 1);
  EXPECT_DOUBLE_EQ(axis.hi, 1000);
  const std::string svg = render_bar_chart(data);
  ASSERT_EQ(xml_problem(svg), "");
  EXPECT_NE(svg.find("TFLOP/s (log scale)"), std::string::npos);
  const auto bars = bars_of(svg);
  ASSERT_EQ(bars.size(), 4u);
  for (const Bar& bar : bars) {
    EXPECT_NEAR(bar.height, 340 * std::log10(bar.value) / 3, 0.1) << bar.value;  // 1..1000 over 340 px
  }
  EXPECT_FALSE(y_axis_for(400, 820).log);
}

TEST(ProfPlot, NiceTicks) {
  EXPECT_DOUBLE_EQ(nice_ticks(820).step, 200);
  EXPECT_DOUBLE_EQ(nice_ticks(820).top, 1000);
  EXPECT_DOUBLE_EQ(nice_ticks(17.5).step, 5);
  EXPECT_DOUBLE_EQ(nice_ticks(17.5).top, 20);
  EXPECT_DOUBLE_EQ(nice_ticks(0).top, 1);
}

TEST(ProfPlot, AnalysisChartNeedsCeilings) {
  AnalysisRow r;
  r.label = "tile 128x128";
  r.shape = {4096, 4096, 4096, 1};
  r.operands = kBf16Tn;
  EXPECT_TRUE(analysis_plot({r}, "t").series.empty());
  r.a.flops = 2.0 * 4096 * 4096 * 4096;
  r.a.quantized_floor_us = 200.0;
  const PlotData d = analysis_plot({r}, "t");
  ASSERT_EQ(d.series.size(), 1u);
  EXPECT_NEAR(*d.series[0].values[0], r.a.flops / 200e-6 / 1e12, 1e-9);
  EXPECT_EQ(xml_problem(render_bar_chart(d)), "");
}

TEST(ProfProgress, Line) {
  EXPECT_EQ(progress_line(0, 40, 0.0, "k"), "[........................]  0/40    0%  k");
  EXPECT_EQ(progress_line(12, 40, 30.0, "k 4096x4096x4096"),
            "[#######.................]  12/40   30%  eta 1:10  k 4096x4096x4096");
  EXPECT_EQ(progress_line(40, 40, 99.0, ""), "[########################]  40/40  100%");
  EXPECT_EQ(progress_line(1, 2, 1.0, std::string(200, 'x'), 60).size(), 60u);
}

TEST(ProfProgress, QuietWhenDisabledOrEarly) {
  std::ostringstream out;
  {
    Progress p(10, false, out, 0.0);
    p.step("a");
  }
  EXPECT_EQ(out.str(), "");
  {
    Progress p(10, true, out, 3600.0);  // would start drawing after an hour
    p.step("a");
  }
  EXPECT_EQ(out.str(), "");
  {
    Progress p(10, true, out, 0.0);
    p.step("a");
  }
  EXPECT_NE(out.str().find("0/10"), std::string::npos);
  EXPECT_NE(out.str().find("\r\x1b[K"), std::string::npos);  // erased at the end
}

}  // namespace
}  // namespace tessel::prof
