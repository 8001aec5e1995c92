#pragma once
// A grouped bar chart as a standalone SVG: one group per problem, one bar per kernel or provider,
// TFLOP/s up the y axis. Written by hand (no plotting library on the device machine or in CI).
//
// A bar whose verification failed is drawn hatched in red, so a fast wrong kernel cannot pass for
// a fast one; a kernel that could not run the problem gets a grey cross on the baseline. Every bar
// carries a <title> tooltip with its exact value.

#include <optional>
#include <string>
#include <vector>

#include "core/rows.hpp"

namespace tessel::prof {

struct PlotSeries {
  std::string name;
  std::vector<std::optional<double>> values;  // one per category; nullopt: did not run
  std::vector<bool> failed;                   // one per category: verification failed
  std::vector<bool> present;                  // one per category: profiled there; empty: everywhere
  bool reference = false;                     // cuBLAS: drawn in a neutral dark colour
};

struct PlotData {
  std::string title;
  std::string y_label = "TFLOP/s";
  std::vector<std::string> categories;  // "4096x4096x4096\nbf16 tn": lines separated by '\n'
  std::vector<PlotSeries> series;
  /// The smallest positive and the largest finite value over all series (0 when none).
  std::pair<double, double> range() const;
  /// Whether series `s` has a place in category `c` (a bf16 kernel has none among f16 problems).
  bool present(std::size_t s, std::size_t c) const {
    const auto& p = series[s].present;
    return p.empty() || (c < p.size() && p[c]);
  }
};

std::string render_bar_chart(const PlotData& data);

/// TFLOP/s of each kernel and provider per (problem, operand types).
PlotData profile_plot(const std::vector<ProfileRow>& rows, const std::string& title);

/// The TFLOP/s the wave-quantized roofline floor allows, per kernel or tile and problem; rows
/// without ceilings are left out.
PlotData analysis_plot(const std::vector<AnalysisRow>& rows, const std::string& title);

/// A 1-2-5 step and a top at least `max_value`, for a linear y axis.
struct AxisTicks {
  double step = 1, top = 1;
};
AxisTicks nice_ticks(double max_value, int max_ticks = 8);

/// The y axis: linear from 0, or logarithmic over whole decades when the values span more than
/// kLogRange (a decode shape at 10 TFLOP/s next to a square one at 700 would be an invisible
/// sliver on a linear axis).
struct YAxis {
  bool log = false;
  double lo = 0, hi = 1;
  std::vector<double> ticks;
  /// 0 at the baseline, 1 at the top.
  double fraction(double v) const;
};
inline constexpr double kLogRange = 20.0;
YAxis y_axis_for(double min_positive, double max_value);

std::string xml_escape(const std::string& s);

}  // namespace tessel::prof
