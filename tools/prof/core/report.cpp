#include "core/report.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "core/csv.hpp"
#include "core/error.hpp"
#include "core/int_list.hpp"
#include "core/json.hpp"
#include "core/limits.hpp"
#include "core/table.hpp"

namespace tessel::prof {

std::string RunInfo::get(const std::string& key) const {
  for (const auto& [k, v] : fields)
    if (k == key) return v;
  return "";
}

std::string number(double x) {
  if (!std::isfinite(x)) return "";
  char buf[32];
  // Counts (failed elements, FLOPs) stay exact; measurements keep six significant digits.
  if (x == std::floor(x) && std::fabs(x) < 1e15) std::snprintf(buf, sizeof buf, "%.0f", x);
  else std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

namespace {

std::string opt_number(std::optional<double> x) { return x ? number(*x) : ""; }
std::string fmt(double x, const char* f) {
  char buf[48];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}
std::string opt_fmt(std::optional<double> x, const char* f) { return x ? fmt(*x, f) : "-"; }

// "bf16/bf16->bf16 tn": the types and the BLAS layout letters; the output layout is named only
// when it is not the column-major that BLAS (and every cataloged kernel) writes.
std::string short_types(const OperandSet& o) {
  std::string s = std::string(to_string(o.a.element)) + "/" + std::string(to_string(o.b.element)) + "->" +
                  std::string(to_string(o.d.element)) + " " + blas_layout_suffix(o);
  if (o.d.layout == Layout::kRow) s += " (D row)";
  return s;
}

const std::vector<std::string> kProfileColumns = {
    "provider", "kernel",     "m",        "n",          "k",         "batch",          "A",
    "B",        "C",          "D",        "alpha",      "beta",      "raster",         "swizzle",
    "status",   "runtime_ms", "tflops",   "gbps",       "cublas_tflops", "ratio_to_cublas", "verification",
    "cublas_rel_error", "cublas_tolerance", "device_failed", "device_worst_ratio", "iterations", "buffer_sets",
    "reason"};

}  // namespace

// ---- profile -----------------------------------------------------------------------------------

std::string profile_table(const std::vector<ProfileRow>& rows) {
  TextTable t({"kernel", "problem", "types", "runtime_ms", "TFLOP/s", "GB/s", "cuBLAS_TFLOP/s", "ratio",
               "verification", "note"});
  for (const ProfileRow& r : rows) {
    std::string note = r.status != "Success" ? r.status + ": " + r.reason : r.reason;
    if (r.ran) {
      t.add({r.kernel, to_string(r.problem.shape), short_types(r.operands), fmt(r.runtime_ms, "%.4f"),
             fmt(r.tflops, "%.1f"), fmt(r.gbps, "%.0f"), opt_fmt(r.cublas_tflops, "%.1f"),
             r.ratio ? fmt(*r.ratio, "%.2fx") : "-", r.verification, note});
    } else {
      t.add({r.kernel, to_string(r.problem.shape), short_types(r.operands), "-", "-", "-",
             opt_fmt(r.cublas_tflops, "%.1f"), "-", r.verification, note});
    }
  }
  return t.render();
}

std::string profile_csv(const std::vector<ProfileRow>& rows) {
  std::string out = csv_line(kProfileColumns);
  for (const ProfileRow& r : rows) {
    const GemmProblem& p = r.problem;
    out += csv_line({r.provider, r.kernel, std::to_string(p.shape.m), std::to_string(p.shape.n),
                     std::to_string(p.shape.k), std::to_string(p.shape.batch), to_string(r.operands.a),
                     to_string(r.operands.b), to_string(r.operands.c), to_string(r.operands.d), number(p.alpha),
                     number(p.beta), std::string(to_string(p.raster)), std::to_string(p.swizzle), r.status,
                     r.ran ? number(r.runtime_ms) : "", r.ran ? number(r.tflops) : "", r.ran ? number(r.gbps) : "",
                     opt_number(r.cublas_tflops), opt_number(r.ratio), r.verification, opt_number(r.cublas_rel_error),
                     opt_number(r.cublas_tolerance), opt_number(r.device_failed), opt_number(r.device_worst),
                     std::to_string(r.iterations), std::to_string(r.buffer_sets), r.reason});
  }
  return out;
}

std::string profile_json(const std::vector<ProfileRow>& rows, const RunInfo& info) {
  JsonObject meta;
  for (const auto& [k, v] : info.fields) meta.str(k, v);
  std::string out = "{\n  \"tool\": \"tessel-prof\",\n  \"mode\": \"profile\",\n  \"run\": " + meta.done() +
                    ",\n  \"rows\": [";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ProfileRow& r = rows[i];
    JsonObject o;
    o.str("provider", r.provider).str("kernel", r.kernel);
    o.integer("m", r.problem.shape.m).integer("n", r.problem.shape.n).integer("k", r.problem.shape.k);
    o.integer("batch", r.problem.shape.batch);
    o.str("A", to_string(r.operands.a)).str("B", to_string(r.operands.b));
    o.str("C", to_string(r.operands.c)).str("D", to_string(r.operands.d));
    o.num("alpha", r.problem.alpha).num("beta", r.problem.beta);
    o.str("raster", std::string(to_string(r.problem.raster))).integer("swizzle", r.problem.swizzle);
    o.str("status", r.status).boolean("ran", r.ran);
    o.num("runtime_ms", r.ran ? std::optional<double>(r.runtime_ms) : std::nullopt);
    o.num("tflops", r.ran ? std::optional<double>(r.tflops) : std::nullopt);
    o.num("gbps", r.ran ? std::optional<double>(r.gbps) : std::nullopt);
    o.num("cublas_tflops", r.cublas_tflops).num("ratio_to_cublas", r.ratio);
    o.str("verification", r.verification);
    o.num("cublas_rel_error", r.cublas_rel_error).num("cublas_tolerance", r.cublas_tolerance);
    o.num("device_failed", r.device_failed).num("device_worst_ratio", r.device_worst);
    o.integer("iterations", r.iterations).integer("buffer_sets", r.buffer_sets);
    o.str("reason", r.reason);
    out += std::string(i ? "," : "") + "\n    " + o.done();
  }
  return out + "\n  ]\n}\n";
}

std::vector<ProfileRow> parse_profile_csv(const std::string& text, const std::string& source) {
  const auto records = parse_csv(text, source);
  if (records.empty()) throw usage_error(source + ": the file is empty; expected a CSV written by --mode=profile --output");
  std::map<std::string, std::size_t> col;
  for (std::size_t i = 0; i < records[0].size(); ++i) col[records[0][i]] = i;
  for (const std::string& c : kProfileColumns) {
    if (!col.count(c)) {
      throw usage_error(source + ": no column '" + c + "'; expected a CSV written by tessel-prof --mode=profile --output");
    }
  }
  std::vector<ProfileRow> rows;
  for (std::size_t line = 1; line < records.size(); ++line) {
    const auto& rec = records[line];
    const std::string where = source + ":" + std::to_string(line + 1);
    auto get = [&](const std::string& c) -> std::string {
      const std::size_t i = col.at(c);
      if (i >= rec.size()) throw usage_error(where + ": the row has " + std::to_string(rec.size()) + " fields, fewer than the header");
      return rec[i];
    };
    auto opt = [&](const std::string& c) -> std::optional<double> {
      const std::string v = get(c);
      if (v.empty()) return std::nullopt;
      return parse_double(where + ": " + c, v);
    };
    // Measurements are positive and error measures nonnegative; anything else was not written by
    // profile mode and would rank kernels by a wrong number.
    auto measured = [&](const std::string& c, bool zero_allowed) -> std::optional<double> {
      const auto x = opt(c);
      if (x && (*x < 0 || (*x == 0 && !zero_allowed))) {
        throw usage_error(where + ": " + c + " is '" + get(c) + "'; expected a " +
                          (zero_allowed ? "nonnegative" : "positive") + " number, as --mode=profile --output writes");
      }
      return x;
    };
    auto count = [&](const std::string& c, std::int64_t max_value) { return parse_int(where + ": " + c, get(c), 0, max_value); };
    auto operand = [&](const std::string& c) {
      const std::string v = get(c);
      const auto colon = v.find(':');
      auto e = parse_element(v.substr(0, colon));
      auto l = colon == std::string::npos ? std::nullopt : parse_layout(v.substr(colon + 1));
      if (!e || !l) throw usage_error(where + ": " + c + " is '" + v + "'; expected a type and layout such as bf16:row");
      return Operand{*e, *l};
    };
    ProfileRow r;
    r.provider = get("provider");
    r.kernel = get("kernel");
    auto extent = [&](const std::string& c) { return parse_int(where + ": " + c, get(c), 1, kMaxExtent); };
    r.problem.shape = {extent("m"), extent("n"), extent("k"), extent("batch")};
    r.operands = {operand("A"), operand("B"), operand("C"), operand("D")};
    r.problem.alpha = parse_double(where + ": alpha", get("alpha"));
    r.problem.beta = parse_double(where + ": beta", get("beta"));
    const std::string raster = get("raster");
    r.problem.raster = raster == "along_m" ? Raster::kAlongM : raster == "along_n" ? Raster::kAlongN : Raster::kHeuristic;
    r.problem.swizzle = count("swizzle", kMaxExtent);
    r.status = get("status");
    const auto runtime = measured("runtime_ms", false);
    const auto tflops = measured("tflops", false);
    const auto gbps = measured("gbps", false);
    r.ran = runtime.has_value();
    if (r.ran && (!tflops || !gbps)) {
      throw usage_error(where + ": the row has a runtime_ms but no tflops or gbps; expected a CSV written by "
                        "--mode=profile --output");
    }
    r.runtime_ms = runtime.value_or(0);
    r.tflops = tflops.value_or(0);
    r.gbps = gbps.value_or(0);
    r.cublas_tflops = measured("cublas_tflops", false);
    r.ratio = measured("ratio_to_cublas", false);
    r.verification = get("verification");
    r.cublas_rel_error = measured("cublas_rel_error", true);
    r.cublas_tolerance = measured("cublas_tolerance", true);
    r.device_failed = measured("device_failed", true);
    r.device_worst = measured("device_worst_ratio", true);
    r.iterations = int(count("iterations", kMaxIterations));
    r.buffer_sets = int(count("buffer_sets", kMaxIterations));
    r.reason = get("reason");
    rows.push_back(r);
  }
  return rows;
}

// ---- analyze -----------------------------------------------------------------------------------

std::string analysis_table(const std::vector<AnalysisRow>& rows) {
  TextTable t({"kernel/tile", "problem", "tiles", "waves", "last_wave_SMs", "tile_eff", "stages", "smem_KiB",
               "FLOP/B", "compute_us", "memory_us", "floor_us", "bound", "quantized_us"});
  for (const AnalysisRow& r : rows) {
    const Analysis& a = r.a;
    t.add({r.label, to_string(r.shape), std::to_string(a.tiles), fixed2(a.waves),
           std::to_string(a.last_wave_sms) + "/" + std::to_string(r.sm_count),
           fmt(100.0 * a.tile_efficiency, "%.1f%%"), r.stages ? std::to_string(r.stages) : "-",
           r.smem_bytes ? fmt(r.smem_bytes / 1024.0, "%.1f") : "-", fmt(a.intensity, "%.1f"),
           opt_fmt(a.compute_floor_us, "%.2f"), opt_fmt(a.memory_floor_us, "%.2f"), opt_fmt(a.floor_us, "%.2f"),
           a.bound.empty() ? "-" : a.bound, opt_fmt(a.quantized_floor_us, "%.2f")});
  }
  return t.render();
}

std::string analysis_csv(const std::vector<AnalysisRow>& rows) {
  std::string out = csv_line({"kernel", "m", "n", "k", "batch", "A", "B", "C", "D", "tile_m", "tile_n", "tile_k",
                              "cluster", "stages", "smem_bytes", "sm_count", "ctas_per_sm", "tiles", "waves",
                              "last_wave_sms", "last_wave_ctas", "tile_efficiency", "wave_efficiency", "flops",
                              "bytes", "flops_per_byte", "compute_floor_us", "memory_floor_us", "roofline_floor_us",
                              "bound", "quantized_floor_us"});
  for (const AnalysisRow& r : rows) {
    const Analysis& a = r.a;
    out += csv_line({r.label, std::to_string(r.shape.m), std::to_string(r.shape.n), std::to_string(r.shape.k),
                     std::to_string(r.shape.batch), to_string(r.operands.a), to_string(r.operands.b),
                     to_string(r.operands.c), to_string(r.operands.d), std::to_string(r.tile.m),
                     std::to_string(r.tile.n), std::to_string(r.tile.k),
                     std::to_string(r.cluster.m) + "x" + std::to_string(r.cluster.n) + "x" + std::to_string(r.cluster.k),
                     std::to_string(r.stages), std::to_string(r.smem_bytes), std::to_string(r.sm_count),
                     std::to_string(r.ctas_per_sm), std::to_string(a.tiles), fixed2(a.waves),
                     std::to_string(a.last_wave_sms), std::to_string(a.last_wave_ctas), number(a.tile_efficiency),
                     number(a.wave_efficiency), number(a.flops), number(a.bytes), number(a.intensity),
                     opt_number(a.compute_floor_us), opt_number(a.memory_floor_us), opt_number(a.floor_us), a.bound,
                     opt_number(a.quantized_floor_us)});
  }
  return out;
}

std::string analysis_json(const std::vector<AnalysisRow>& rows, const RunInfo& info) {
  JsonObject meta;
  for (const auto& [k, v] : info.fields) meta.str(k, v);
  std::string out = "{\n  \"tool\": \"tessel-prof\",\n  \"mode\": \"analyze\",\n  \"run\": " + meta.done() +
                    ",\n  \"rows\": [";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const AnalysisRow& r = rows[i];
    const Analysis& a = r.a;
    JsonObject o;
    o.str("kernel", r.label).integer("m", r.shape.m).integer("n", r.shape.n).integer("k", r.shape.k);
    o.integer("batch", r.shape.batch).str("tile", to_string(r.tile)).str("cluster", to_string(r.cluster));
    o.integer("stages", r.stages).integer("smem_bytes", r.smem_bytes);
    o.integer("sm_count", r.sm_count).integer("ctas_per_sm", r.ctas_per_sm);
    o.integer("tiles", a.tiles).raw("waves", fixed2(a.waves)).integer("last_wave_sms", a.last_wave_sms);
    o.integer("last_wave_ctas", a.last_wave_ctas).num("tile_efficiency", a.tile_efficiency);
    o.num("wave_efficiency", a.wave_efficiency).num("flops", a.flops).num("bytes", a.bytes);
    o.num("flops_per_byte", a.intensity).num("compute_floor_us", a.compute_floor_us);
    o.num("memory_floor_us", a.memory_floor_us).num("roofline_floor_us", a.floor_us);
    o.str("bound", a.bound).num("quantized_floor_us", a.quantized_floor_us);
    out += std::string(i ? "," : "") + "\n    " + o.done();
  }
  return out + "\n  ]\n}\n";
}

// ---- enumerate ---------------------------------------------------------------------------------

std::string kernel_table(const std::vector<KernelDescription>& kernels) {
  TextTable t({"kernel", "arch", "A", "B", "C", "D", "tile", "warp", "cluster", "stages", "schedule", "epilogue",
               "threads", "smem_bytes"});
  for (const KernelDescription& k : kernels) {
    t.add({k.name, k.arch, to_string(k.a), to_string(k.b), to_string(k.c), to_string(k.d), to_string(k.tile),
           k.warp.m ? to_string(k.warp) : "-", to_string(k.cluster), std::to_string(k.stages), k.schedule,
           std::string(to_string(k.epilogue)), std::to_string(k.threads), std::to_string(k.smem_bytes)});
  }
  return t.render();
}

std::string kernel_csv(const std::vector<KernelDescription>& kernels) {
  std::string out = csv_line({"kernel", "arch", "min_compute_capability", "A", "B", "C", "D", "accumulator", "tile",
                              "warp", "instruction", "cluster", "stages", "schedule", "threads", "smem_bytes",
                              "alignment", "persistent", "batch", "raster_along_n", "epilogue"});
  for (const KernelDescription& k : kernels) {
    out += csv_line({k.name, k.arch, std::to_string(k.min_compute_capability), to_string(k.a), to_string(k.b),
                     to_string(k.c), to_string(k.d), std::string(to_string(k.accumulator)), to_string(k.tile),
                     to_string(k.warp), to_string(k.instruction), to_string(k.cluster), std::to_string(k.stages),
                     k.schedule, std::to_string(k.threads), std::to_string(k.smem_bytes), std::to_string(k.alignment),
                     k.persistent ? "1" : "0", k.supports_batch ? "1" : "0", k.supports_raster_along_n ? "1" : "0",
                     std::string(to_string(k.epilogue))});
  }
  return out;
}

std::string kernel_json(const std::vector<KernelDescription>& kernels, const RunInfo& info) {
  JsonObject meta;
  for (const auto& [k, v] : info.fields) meta.str(k, v);
  std::string out = "{\n  \"tool\": \"tessel-prof\",\n  \"mode\": \"enumerate\",\n  \"run\": " + meta.done() +
                    ",\n  \"kernels\": [";
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const KernelDescription& k = kernels[i];
    JsonObject o;
    o.str("name", k.name).str("arch", k.arch).integer("min_compute_capability", k.min_compute_capability);
    o.str("A", to_string(k.a)).str("B", to_string(k.b)).str("C", to_string(k.c)).str("D", to_string(k.d));
    o.str("accumulator", std::string(to_string(k.accumulator))).str("tile", to_string(k.tile));
    o.str("warp", to_string(k.warp)).str("instruction", to_string(k.instruction)).str("cluster", to_string(k.cluster));
    o.integer("stages", k.stages).str("schedule", k.schedule).integer("threads", k.threads);
    o.integer("smem_bytes", k.smem_bytes).integer("alignment", k.alignment).boolean("persistent", k.persistent);
    o.boolean("batch", k.supports_batch).boolean("raster_along_n", k.supports_raster_along_n);
    o.str("epilogue", std::string(to_string(k.epilogue)));
    out += std::string(i ? "," : "") + "\n    " + o.done();
  }
  return out + "\n  ]\n}\n";
}

}  // namespace tessel::prof
