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
  bool reference = false;                     // cuBLAS: drawn in a neutral dark colour
};

struct PlotData {
  std::string title;
  std::string y_label = "TFLOP/s";
  std::vector<std::string> categories;  // "4096x4096x4096\nbf16 tn": lines separated by '\n'
  std::vector<PlotSeries> series;
};

std::string render_bar_chart(const PlotData& data);

/// TFLOP/s of each kernel and provider per (problem, operand types).
PlotData profile_plot(const std::vector<ProfileRow>& rows, const std::string& title);

/// The TFLOP/s the wave-quantized roofline floor allows, per kernel or tile and problem; rows
/// without ceilings are left out.
PlotData analysis_plot(const std::vector<AnalysisRow>& rows, const std::string& title);

/// A 1-2-5 step and a top at least `max_value`, for the y axis.
struct AxisTicks {
  double step = 1, top = 1;
};
AxisTicks nice_ticks(double max_value, int max_ticks = 8);

std::string xml_escape(const std::string& s);

}  // namespace tessel::prof
