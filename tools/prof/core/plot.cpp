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
                                "#F0E442", "#7F3C8D", "#8C564B", "#17BECF", "#BCBD22", "#1F3A93"};
constexpr const char* kReferenceColour = "#3a3a3a";

}  // namespace

double YAxis::fraction(double v) const {
  if (log) return v <= lo ? 0.0 : (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
  return v / hi;
}

YAxis y_axis_for(double min_positive, double max_value) {
  YAxis y;
  if (min_positive > 0 && max_value / min_positive > kLogRange) {
    y.log = true;
    // Whole decades below, so the shortest bar stays visible; a 1-2-5 step above.
    y.lo = std::pow(10.0, std::floor(std::log10(min_positive)));
    if (min_positive < 2 * y.lo) y.lo /= 10;
    const double decade = std::pow(10.0, std::floor(std::log10(max_value)));
    y.hi = decade;
    for (double f : {1.0, 2.0, 5.0, 10.0}) {
      y.hi = f * decade;
      if (y.hi >= max_value) break;
    }
    for (double decade = y.lo; decade < y.hi * 1.001; decade *= 10)
      for (double f : {1.0, 2.0, 5.0})
        if (decade * f <= y.hi * 1.001) y.ticks.push_back(decade * f);
    return y;
  }
  const AxisTicks t = nice_ticks(max_value);
  y.hi = t.top;
  for (double v = 0; v <= t.top + t.step / 2; v += t.step) y.ticks.push_back(v);
  return y;
}

std::pair<double, double> PlotData::range() const {
  double lo = 0, hi = 0;
  for (const auto& s : series)
    for (const auto& v : s.values)
      if (v && std::isfinite(*v) && *v > 0) {
        lo = lo == 0 ? *v : std::min(lo, *v);
        hi = std::max(hi, *v);
      }
  return {lo, hi};
}

std::string render_bar_chart(const PlotData& d) {
  const int n_ser = std::max<int>(1, int(d.series.size()));
  // Each group holds only the series profiled on it, so groups differ in width.
  std::vector<int> members(d.categories.size(), 0);
  int widest = 1;
  for (std::size_t c = 0; c < d.categories.size(); ++c) {
    for (std::size_t s = 0; s < d.series.size(); ++s) members[c] += d.present(s, c) ? 1 : 0;
    widest = std::max(widest, members[c]);
  }
  const double bar_w = std::clamp(160.0 / widest, 6.0, 16.0);
  const double gap = 28;
  std::vector<double> group_x(d.categories.size() + 1, 0.0);
  for (std::size_t c = 0; c < d.categories.size(); ++c) group_x[c + 1] = group_x[c] + std::max(members[c], 1) * bar_w + gap;
  const double left = 78, top = 56, plot_h = 340, label_h = 130;
  std::size_t longest = 24;
  for (const auto& s : d.series) longest = std::max(longest, s.name.size());
  const double legend_w = 40 + 6.7 * double(longest);
  const double plot_w = std::max(group_x.back(), 120.0);
  const double legend_h = 24.0 * (n_ser + 2) + 30;
  const double width = left + plot_w + 30 + legend_w;
  const double height = std::max(top + plot_h + label_h, top + legend_h + 20);

  const auto [min_v, max_v] = d.range();
  const YAxis axis = y_axis_for(min_v, max_v);
  const double base = top + plot_h;
  auto y_of = [&](double v) { return base - plot_h * axis.fraction(v); };
  auto colour_of = [&](int s) {
    return d.series[s].reference ? kReferenceColour : kPalette[s % (sizeof kPalette / sizeof *kPalette)];
  };

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
  for (double v : axis.ticks) {
    const double y = y_of(v);
    const bool baseline = axis.log ? v == axis.lo : v == 0;
    o << "<line x1=\"" << f1(left) << "\" y1=\"" << f1(y) << "\" x2=\"" << f1(left + plot_w) << "\" y2=\"" << f1(y)
      << "\" stroke=\"" << (baseline ? "#444444" : "#e2e2e2") << "\" stroke-width=\"1\"/>\n";
    char label[32];
    std::snprintf(label, sizeof label, "%g", v);
    o << "<text x=\"" << f1(left - 8) << "\" y=\"" << f1(y + 4) << "\" font-size=\"12\" text-anchor=\"end\">" << label
      << "</text>\n";
  }
  o << "<text transform=\"translate(20," << f1(top + plot_h / 2) << ") rotate(-90)\" font-size=\"13\" "
       "text-anchor=\"middle\">"
    << xml_escape(d.y_label) << (axis.log ? " (log scale)" : "") << "</text>\n";

  // Bars, each with its value above it.
  bool any_failed = false, any_missing = false;
  for (int c = 0; c < int(d.categories.size()); ++c) {
    double x = left + group_x[c] + gap / 2 - bar_w;
    for (int s = 0; s < int(d.series.size()); ++s) {
      if (!d.present(std::size_t(s), std::size_t(c))) continue;
      const PlotSeries& ser = d.series[s];
      x += bar_w;
      const bool ran = c < int(ser.values.size()) && ser.values[c].has_value() && std::isfinite(*ser.values[c]);
      const double value = ran ? *ser.values[c] : 0.0;
      const bool failed = c < int(ser.failed.size()) && ser.failed[c];
      any_failed = any_failed || failed;
      if (!ran) {
        any_missing = true;
        const double cx = x + bar_w / 2, cy = base - 6, r = std::min(3.5, bar_w / 2 - 1);
        o << "<path d=\"M" << f1(cx - r) << " " << f1(cy - r) << " L" << f1(cx + r) << " " << f1(cy + r) << " M"
          << f1(cx - r) << " " << f1(cy + r) << " L" << f1(cx + r) << " " << f1(cy - r)
          << "\" stroke=\"#9e9e9e\" stroke-width=\"1.5\"><title>" << xml_escape(ser.name)
          << ": did not run</title></path>\n";
        continue;
      }
      const double y = y_of(value);
      o << "<rect x=\"" << f1(x + 0.5) << "\" y=\"" << f1(y) << "\" width=\"" << f1(bar_w - 1) << "\" height=\""
        << f1(base - y) << "\" fill=\"" << (failed ? "url(#failed)" : colour_of(s)) << "\""
        << (failed ? " stroke=\"#c62828\" stroke-width=\"1\"" : "") << "><title>" << xml_escape(ser.name) << ": "
        << f1(value) << " " << xml_escape(d.y_label) << (failed ? " (verification failed)" : "") << "</title></rect>\n";
      if (bar_w >= 9) {
        char label[32];
        std::snprintf(label, sizeof label, value >= 100 ? "%.0f" : "%.1f", value);
        o << "<text transform=\"translate(" << f1(x + bar_w / 2 + 3) << "," << f1(y - 3)
          << ") rotate(-90)\" font-size=\"9\" fill=\"#333333\">" << label << "</text>\n";
      }
    }
    // Category label, rotated so long shapes fit under narrow groups.
    const double lx = left + (group_x[c] + group_x[c + 1]) / 2, ly = base + 16;
    o << "<text transform=\"translate(" << f1(lx) << "," << f1(ly) << ") rotate(-35)\" font-size=\"12\" "
         "text-anchor=\"end\">";
    const auto lines = split_list(d.categories[c], '\n');
    for (std::size_t i = 0; i < lines.size(); ++i) {
      o << "<tspan x=\"0\" dy=\"" << (i ? "14" : "0") << "\">" << xml_escape(lines[i]) << "</tspan>";
    }
    o << "</text>\n";
  }

  // Legend: the series, then what the two markers mean.
  const double lx = left + plot_w + 30;
  o << "<text x=\"" << f1(lx) << "\" y=\"" << f1(top + 4) << "\" font-size=\"13\" font-weight=\"bold\">kernel / provider</text>\n";
  auto legend_row = [&](int i, const std::string& swatch, const std::string& text, bool mono) {
    const double y = top + 20 + 24.0 * i;
    o << "<g transform=\"translate(" << f1(lx) << "," << f1(y) << ")\">" << swatch << "<text x=\"22\" y=\"11.5\" "
      << "font-size=\"11\"" << (mono ? " font-family=\"DejaVu Sans Mono, monospace\"" : "") << ">" << xml_escape(text)
      << "</text></g>\n";
  };
  for (int s = 0; s < int(d.series.size()); ++s) {
    legend_row(s, std::string("<rect width=\"14\" height=\"14\" fill=\"") + colour_of(s) + "\"/>", d.series[s].name, true);
  }
  int row = int(d.series.size());
  if (any_failed) {
    legend_row(row++, "<rect width=\"14\" height=\"14\" fill=\"url(#failed)\" stroke=\"#c62828\"/>",
               "verification failed", false);
  }
  if (any_missing)
    legend_row(row,
             "<path d=\"M3.5 3.5 L10.5 10.5 M3.5 10.5 L10.5 3.5\" stroke=\"#9e9e9e\" stroke-width=\"1.5\"/>",
             "did not run (see the CSV for the reason)", false);
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
      s.present.assign(d.categories.size(), false);
      d.series.push_back(s);
    }
  }
  for (const ProfileRow& r : rows) {
    PlotSeries& s = d.series[ser_index.at(r.kernel)];
    const int c = cat_index.at(category_label(r.problem.shape, r.operands));
    s.present[c] = true;
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
    if (!ser_index.count(r.label)) ser_index[r.label] = int(d.series.size()), d.series.push_back({r.label, {}, {}, {}, false});
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
