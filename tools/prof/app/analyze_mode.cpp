// --mode=analyze: waves, last-wave occupancy, shared memory and roofline floors for the selected
// kernels (or --tile shapes) on each problem, with no GPU needed.
#include <cstdio>
#include <set>

#include "app/modes.hpp"
#include "app/outputs.hpp"
#include "core/analysis.hpp"
#include "core/device_profile.hpp"
#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/selection.hpp"
#include "device/device_info.hpp"
#include "kernels/registry.hpp"

namespace tessel::prof {

namespace {

struct Ceilings {
  int sm_count = 0;
  std::string sm_source;
  std::optional<double> bandwidth;
  std::string bandwidth_source;
  std::optional<DeviceProfile> profile;
  std::optional<double> matrix_flag;
};

Ceilings find_ceilings(const Options& opt) {
  Ceilings c;
  if (!opt.device_profile.empty()) c.profile = read_device_profile(opt.device_profile);
  if (opt.sm_count) {
    c.sm_count = *opt.sm_count;
    c.sm_source = "--sm-count";
  } else if (c.profile && c.profile->sm_count > 0) {
    c.sm_count = c.profile->sm_count;
    c.sm_source = opt.device_profile;
  } else {
    std::string why;
    if (visible_device_count(why) > opt.device) {
      const DeviceInfo d = query_device(opt.device);
      c.sm_count = d.sm_count;
      c.sm_source = d.name;
    } else {
      throw usage_error("analyze mode needs the SM count and no GPU is visible: pass --sm-count=N (132 on an "
                        "H100 SXM or H200), or --device-profile=FILE written by --mode=profile on the GPU");
    }
  }
  if (opt.bandwidth_gbps) {
    c.bandwidth = opt.bandwidth_gbps;
    c.bandwidth_source = "--bandwidth-gbps";
  } else if (c.profile && c.profile->copy_bandwidth_gbps > 0) {
    c.bandwidth = c.profile->copy_bandwidth_gbps;
    c.bandwidth_source = opt.device_profile;
  }
  c.matrix_flag = opt.matrix_tflops;
  return c;
}

std::optional<double> matrix_rate(const Ceilings& c, Element a) {
  if (c.matrix_flag) return c.matrix_flag;
  if (c.profile) return c.profile->matrix_rate(a);
  return std::nullopt;
}

// Each row is held and printed: a sweep within its own limit can still ask for millions of rows
// when many kernels or tiles analyze every problem.
void require_rows_within_limit(std::size_t problems, std::size_t per_problem) {
  const std::int64_t rows = std::int64_t(problems) * std::int64_t(per_problem);
  if (rows > kMaxAnalysisRows) {
    throw usage_error("the analysis has " + std::to_string(rows) + " rows (" + std::to_string(problems) +
                      " problems x " + std::to_string(per_problem) + " kernels and tiles), more than the limit of " +
                      std::to_string(kMaxAnalysisRows) + "; analyze fewer problems, or fewer kernels with --kernels");
  }
}

std::string f1(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", x);
  return b;
}

}  // namespace

int run_analyze(const Options& opt, std::ostream& out) {
  const Ceilings ceil = find_ceilings(opt);
  std::vector<KernelDescription> kernels;
  if (opt.tiles.empty() || opt.kernels_given) {
    Options names_only;  // the same name patterns without the operand filters, for the message
    names_only.kernels = opt.kernels;
    names_only.ignore_kernels = opt.ignore_kernels;
    const auto by_name = select_kernels(compiled_kernels(), names_only, catalogue_names());
    kernels = select_kernels(compiled_kernels(), opt, catalogue_names());
    if (kernels.empty() && opt.tiles.empty()) {
      throw usage_error(no_operand_match_sentence(by_name, opt) + "; or pass --tile=128x128 to analyze a tile shape");
    }
  }

  // Raster and swizzle do not change the arithmetic: one row per distinct problem size.
  std::vector<GemmShape> shapes;
  std::set<GemmShape> seen;
  for (const GemmProblem& p : expand_problems(opt))
    if (seen.insert(p.shape).second) shapes.push_back(p.shape);

  require_rows_within_limit(shapes.size(), opt.tiles.size() + kernels.size());
  std::vector<AnalysisRow> rows;
  auto add = [&](const std::string& label, const GemmShape& s, const OperandSet& ops, Extent3 tile, Extent3 cluster,
                 int stages, int smem) {
    AnalysisInput in;
    in.shape = s;
    in.operands = ops;
    in.reads_c = opt.beta != 0;
    in.tile = tile;
    in.cluster = cluster;
    in.sm_count = ceil.sm_count;
    in.ctas_per_sm = opt.ctas_per_sm;
    in.matrix_tflops = matrix_rate(ceil, ops.a.element);
    in.bandwidth_gbps = ceil.bandwidth;
    rows.push_back({label, s, ops, tile, cluster, stages, smem, ceil.sm_count, opt.ctas_per_sm, analyze(in)});
  };
  for (const GemmShape& s : shapes) {
    for (const Extent3& t : opt.tiles) {
      const std::string label = "tile " + std::to_string(t.m) + "x" + std::to_string(t.n) +
                                (t.k ? "x" + std::to_string(t.k) : "");
      add(label, s, operands_from_filters(opt), t, {1, 1, 1}, 0, 0);
    }
    for (const KernelDescription& k : kernels) add(k.name, s, operands_of(k), k.tile, k.cluster, k.stages, k.smem_bytes);
  }

  out << "analysis: " << ceil.sm_count << " SMs (" << ceil.sm_source << "), " << opt.ctas_per_sm << " CTA"
      << (opt.ctas_per_sm == 1 ? "" : "s") << " per SM";
  if (opt.matrix_tflops) out << "; matrix rate " << f1(*opt.matrix_tflops) << " TFLOP/s (--matrix-tflops)";
  else if (ceil.profile && !ceil.profile->matrix_tflops.empty()) out << "; matrix rate per input type from " << opt.device_profile;
  if (ceil.bandwidth) out << "; bandwidth " << f1(*ceil.bandwidth) << " GB/s (" << ceil.bandwidth_source << ")";
  out << "\n";
  out << analysis_table(rows);
  bool missing = false;
  for (const auto& r : rows) missing = missing || !r.a.floor_us;
  if (missing) {
    out << "note: a roofline floor needs both ceilings: --matrix-tflops and --bandwidth-gbps, or "
           "--device-profile=FILE measured by --mode=profile on the GPU\n";
  }
  RunInfo info;
  info.fields = {{"sm_count", std::to_string(ceil.sm_count)}, {"sm_count_source", ceil.sm_source},
                 {"ctas_per_sm", std::to_string(opt.ctas_per_sm)}};
  write_analysis_outputs(opt, rows, info, out);
  return 0;
}

}  // namespace tessel::prof
