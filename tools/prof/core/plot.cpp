#include "core/plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "core/int_list.hpp"

namespace tessel::prof {

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

AxisTicks nice_ticks(double max_value, int max_ticks) {
  if (!(max_value > 0)) return {1, 1};
  const double raw = max_value / std::max(1, max_ticks - 1);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double f : {1.0, 2.0, 5.0, 10.0}) {
    step = f * mag;
    if (step >= raw) break;
  }
  return {step, std::ceil(max_value / step) * step};
}

namespace {

std::string f1(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", x);
  return b;
}

// Distinguishable on white and for the common colour-vision deficiencies (Okabe-Ito first).
const char* const kPalette[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00",
                                "#F0E442", "#7F3C8D", "#11A579", "#3969AC", "#F2B701", "#E73F74"};
constexpr const char* kReferenceColour = "#3a3a3a";

}  // namespace

std::string render_bar_chart(const PlotData& d) {
  const int n_cat = std::max<int>(1, int(d.categories.size()));
  const int n_ser = std::max<int>(1, int(d.series.size()));
  const double bar_w = std::clamp(240.0 / n_ser, 6.0, 22.0);
  const double group_w = n_ser * bar_w + 24;
  const double left = 78, top = 56, plot_h = 340, label_h = 130;
  std::size_t longest = 8;
  for (const auto& s : d.series) longest = std::max(longest, s.name.size());
  const double legend_w = 40 + 6.7 * double(longest);
  const double plot_w = n_cat * group_w;
  const double legend_h = 24.0 * n_ser + 30;
  const double width = left + plot_w + 30 + legend_w;
  const double height = std::max(top + plot_h + label_h, top + legend_h + 20);

  double max_v = 0;
  for (const auto& s : d.series)
    for (const auto& v : s.values)
      if (v && std::isfinite(*v)) max_v = std::max(max_v, *v);
  const AxisTicks ticks = nice_ticks(max_v);
  auto y_of = [&](double v) { return top + plot_h - plot_h * v / ticks.top; };

  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << f1(width) << "\" height=\"" << f1(height)
    << "\" viewBox=\"0 0 " << f1(width) << " " << f1(height) << "\" font-family=\"DejaVu Sans, Arial, sans-serif\">\n";
  o << "<defs><pattern id=\"failed\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
       "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#fbe3e3\"/>"
       "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#c62828\" stroke-width=\"3\"/></pattern></defs>\n";
  o << "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  o << "<text x=\"" << f1(left) << "\" y=\"30\" font-size=\"17\" font-weight=\"bold\">" << xml_escape(d.title)
    << "</text>\n";

  // Grid and y axis.
  for (double v = 0; v <= ticks.top + ticks.step / 2; v += ticks.step) {
    const double y = y_of(v);
    o << "<line x1=\"" << f1(left) << "\" y1=\"" << f1(y) << "\" x2=\"" << f1(left + plot_w) << "\" y2=\"" << f1(y)
      << "\" stroke=\"" << (v == 0 ? "#444444" : "#e2e2e2") << "\" stroke-width=\"1\"/>\n";
    char label[32];
    std::snprintf(label, sizeof label, ticks.step < 1 ? "%.2g" : "%.0f", v);
    o << "<text x=\"" << f1(left - 8) << "\" y=\"" << f1(y + 4) << "\" font-size=\"12\" text-anchor=\"end\">" << label
      << "</text>\n";
  }
  o << "<text transform=\"translate(20," << f1(top + plot_h / 2) << ") rotate(-90)\" font-size=\"13\" "
       "text-anchor=\"middle\">"
    << xml_escape(d.y_label) << "</text>\n";

  // Bars.
  for (int c = 0; c < int(d.categories.size()); ++c) {
    const double x0 = left + c * group_w + 12;
    for (int s = 0; s < int(d.series.size()); ++s) {
      const PlotSeries& ser = d.series[s];
      const char* colour = ser.reference ? kReferenceColour : kPalette[s % (sizeof kPalette / sizeof *kPalette)];
      const double x = x0 + s * bar_w;
      const auto v = c < int(ser.values.size()) ? ser.values[c] : std::nullopt;
      const bool failed = c < int(ser.failed.size()) && ser.failed[c];
      if (!v || !std::isfinite(*v)) {
        const double cx = x + bar_w / 2, cy = top + plot_h - 6, r = std::min(3.5, bar_w / 2 - 1);
        o << "<path d=\"M" << f1(cx - r) << " " << f1(cy - r) << " L" << f1(cx + r) << " " << f1(cy + r) << " M"
          << f1(cx - r) << " " << f1(cy + r) << " L" << f1(cx + r) << " " << f1(cy - r)
          << "\" stroke=\"#9e9e9e\" stroke-width=\"1.5\"><title>" << xml_escape(ser.name)
          << ": did not run</title></path>\n";
        continue;
      }
      const double y = y_of(*v);
      o << "<rect x=\"" << f1(x + 0.5) << "\" y=\"" << f1(y) << "\" width=\"" << f1(bar_w - 1) << "\" height=\""
        << f1(top + plot_h - y) << "\" fill=\"" << (failed ? "url(#failed)" : colour) << "\""
        << (failed ? " stroke=\"#c62828\" stroke-width=\"1\"" : "") << "><title>" << xml_escape(ser.name) << ": "
        << f1(*v) << " " << xml_escape(d.y_label) << (failed ? " (verification failed)" : "") << "</title></rect>\n";
    }
    // Category label, rotated so long shapes fit under narrow groups.
    const double lx = left + c * group_w + group_w / 2, ly = top + plot_h + 16;
    o << "<text transform=\"translate(" << f1(lx) << "," << f1(ly) << ") rotate(-35)\" font-size=\"12\" "
         "text-anchor=\"end\">";
    const auto lines = split_list(d.categories[c], '\n');
    for (std::size_t i = 0; i < lines.size(); ++i) {
      o << "<tspan x=\"0\" dy=\"" << (i ? "14" : "0") << "\">" << xml_escape(lines[i]) << "</tspan>";
    }
    o << "</text>\n";
  }

  // Legend.
  const double lx = left + plot_w + 30;
  o << "<text x=\"" << f1(lx) << "\" y=\"" << f1(top + 4) << "\" font-size=\"13\" font-weight=\"bold\">kernel / provider</text>\n";
  for (int s = 0; s < int(d.series.size()); ++s) {
    const double y = top + 20 + 24.0 * s;
    const char* colour = d.series[s].reference ? kReferenceColour : kPalette[s % (sizeof kPalette / sizeof *kPalette)];
    o << "<rect x=\"" << f1(lx) << "\" y=\"" << f1(y) << "\" width=\"14\" height=\"14\" fill=\"" << colour << "\"/>\n";
    o << "<text x=\"" << f1(lx + 22) << "\" y=\"" << f1(y + 11.5) << "\" font-size=\"11\" "
         "font-family=\"DejaVu Sans Mono, monospace\">"
      << xml_escape(d.series[s].name) << "</text>\n";
  }
  o << "</svg>\n";
  return o.str();
}

namespace {
std::string category_label(const GemmShape& s, const OperandSet& o) {
  return to_string(s) + "\n" + std::string(to_string(o.a.element)) + " " + blas_layout_suffix(o);
}
}  // namespace

PlotData profile_plot(const std::vector<ProfileRow>& rows, const std::string& title) {
  PlotData d;
  d.title = title;
  std::map<std::string, int> cat_index, ser_index;
  for (const ProfileRow& r : rows) {
    const std::string cat = category_label(r.problem.shape, r.operands);
    if (!cat_index.count(cat)) cat_index[cat] = int(d.categories.size()), d.categories.push_back(cat);
  }
  // cuBLAS first: it is the yardstick every group is read against.
  for (bool reference : {true, false}) {
    for (const ProfileRow& r : rows) {
      if ((r.provider == "cublas") != reference || ser_index.count(r.kernel)) continue;
      ser_index[r.kernel] = int(d.series.size());
      PlotSeries s;
      s.name = r.kernel;
      s.reference = reference;
      s.values.assign(d.categories.size(), std::nullopt);
      s.failed.assign(d.categories.size(), false);
      d.series.push_back(s);
    }
  }
  for (const ProfileRow& r : rows) {
    PlotSeries& s = d.series[ser_index.at(r.kernel)];
    const int c = cat_index.at(category_label(r.problem.shape, r.operands));
    // With raster or swizzle sweeps a kernel has several rows per shape: plot its best.
    if (r.ran && (!s.values[c] || r.tflops > *s.values[c])) {
      s.values[c] = r.tflops;
      s.failed[c] = r.verification == kFailed;
    }
  }
  return d;
}

PlotData analysis_plot(const std::vector<AnalysisRow>& rows, const std::string& title) {
  PlotData d;
  d.title = title;
  d.y_label = "attainable TFLOP/s";
  std::map<std::string, int> cat_index, ser_index;
  for (const AnalysisRow& r : rows) {
    if (!r.a.quantized_floor_us) continue;
    const std::string cat = category_label(r.shape, r.operands);
    if (!cat_index.count(cat)) cat_index[cat] = int(d.categories.size()), d.categories.push_back(cat);
    if (!ser_index.count(r.label)) ser_index[r.label] = int(d.series.size()), d.series.push_back({r.label, {}, {}, false});
  }
  for (auto& s : d.series) s.values.assign(d.categories.size(), std::nullopt), s.failed.assign(d.categories.size(), false);
  for (const AnalysisRow& r : rows) {
    if (!r.a.quantized_floor_us) continue;
    d.series[ser_index.at(r.label)].values[cat_index.at(category_label(r.shape, r.operands))] =
        r.a.flops / (*r.a.quantized_floor_us * 1e-6) / 1e12;
  }
  return d;
}

}  // namespace tessel::prof
