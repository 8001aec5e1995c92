#include "app/outputs.hpp"

#include "core/best.hpp"
#include "core/error.hpp"
#include "core/plot.hpp"
#include "core/text_file.hpp"

namespace tessel::prof {

namespace {
std::string plot_title(const RunInfo& info, const std::string& what) {
  const std::string device = info.get("device");
  return "tessel-prof: " + what + (device.empty() ? "" : " on " + device);
}
}  // namespace

void write_profile_outputs(const Options& opt, const std::vector<ProfileRow>& rows, const RunInfo& info,
                           std::ostream& out) {
  if (!opt.output.empty()) {
    write_text_file(opt.output, profile_csv(rows), "--output");
    out << "wrote " << opt.output << "\n";
  }
  if (!opt.json.empty()) {
    write_text_file(opt.json, profile_json(rows, info), "--json");
    out << "wrote " << opt.json << "\n";
  }
  if (!opt.plot.empty()) {
    write_text_file(opt.plot, render_bar_chart(profile_plot(rows, plot_title(info, "TFLOP/s per problem"))), "--plot");
    out << "wrote " << opt.plot << "\n";
  }
  const auto best = best_per_problem(rows);
  if (!opt.markdown.empty()) {
    write_text_file(opt.markdown, results_markdown(best, info), "--markdown");
    out << "wrote " << opt.markdown << "\n";
  }
  if (!opt.emit_best.empty()) {
    write_text_file(opt.emit_best, emit_best_cmake(best), "--emit-best");
    out << "wrote " << opt.emit_best << "\n";
  }
}

void write_analysis_outputs(const Options& opt, const std::vector<AnalysisRow>& rows, const RunInfo& info,
                            std::ostream& out) {
  if (!opt.output.empty()) {
    write_text_file(opt.output, analysis_csv(rows), "--output");
    out << "wrote " << opt.output << "\n";
  }
  if (!opt.json.empty()) {
    write_text_file(opt.json, analysis_json(rows, info), "--json");
    out << "wrote " << opt.json << "\n";
  }
  if (!opt.plot.empty()) {
    const PlotData d = analysis_plot(rows, "tessel-prof: attainable TFLOP/s (wave-quantized roofline)");
    if (d.series.empty()) {
      throw usage_error("--plot in analyze mode draws the roofline floors, which need --matrix-tflops and "
                        "--bandwidth-gbps (or --device-profile=FILE)");
    }
    write_text_file(opt.plot, render_bar_chart(d), "--plot");
    out << "wrote " << opt.plot << "\n";
  }
}

}  // namespace tessel::prof
