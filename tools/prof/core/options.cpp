#include "core/options.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <set>

#include "core/error.hpp"
#include "core/int_list.hpp"
#include "core/limits.hpp"
#include "core/problem.hpp"
#include "core/shapes.hpp"
#include "core/text_file.hpp"

namespace tessel::prof {

std::string_view to_string(Mode m) {
  switch (m) {
    case Mode::kProfile: return "profile";
    case Mode::kEnumerate: return "enumerate";
    case Mode::kAnalyze: return "analyze";
    case Mode::kReport: return "report";
    case Mode::kDispatch: return "dispatch";
  }
  return "?";
}
std::string_view to_string(Raster r) {
  return r == Raster::kHeuristic ? "heuristic" : r == Raster::kAlongM ? "along_m" : "along_n";
}
std::string_view to_string(Provider p) { return p == Provider::kTessel ? "tessel" : "cublas"; }
std::string_view to_string(Verifier v) { return v == Verifier::kCublas ? "cublas" : "device"; }

namespace {

struct Flag {
  std::vector<std::string> names;  // first is the documented spelling, the rest aliases
  bool boolean;                    // may be given without a value
  std::function<void(Options&, const std::string& flag, const std::string& value)> apply;
};

[[noreturn]] void bad_value(const std::string& flag, const std::string& value, const std::string& expected) {
  throw usage_error(flag + "=" + value + ": expected " + expected);
}

bool parse_bool(const std::string& flag, const std::string& v) {
  if (v.empty() || v == "true" || v == "1" || v == "on") return true;
  if (v == "false" || v == "0" || v == "off") return false;
  bad_value(flag, v, "true or false");
}

OperandFilter parse_operand(const std::string& flag, const std::string& v) {
  // "bf16:row", "bf16", "*:column", "*"
  const auto colon = v.find(':');
  const std::string elem = v.substr(0, colon);
  const std::string lay = colon == std::string::npos ? "*" : v.substr(colon + 1);
  OperandFilter f;
  if (elem != "*" && !elem.empty()) {
    f.element = parse_element(elem);
    if (!f.element) bad_value(flag, v, "an element type and layout such as bf16:row (types f16, bf16, f32, e4m3, e5m2; layouts row, column)");
  }
  if (lay != "*") {
    f.layout = parse_layout(lay);
    if (!f.layout) bad_value(flag, v, "an element type and layout such as bf16:row (types f16, bf16, f32, e4m3, e5m2; layouts row, column)");
  }
  return f;
}

template <class T>
std::vector<T> parse_enum_list(const std::string& flag, const std::string& v,
                               const std::vector<std::pair<std::string, T>>& table) {
  std::vector<T> out;
  std::string names;
  for (const auto& [name, _] : table) names += (names.empty() ? "" : ", ") + name;
  const auto items = split_list(v);
  if (items.empty()) bad_value(flag, v, "a comma-separated list of " + names);
  for (const std::string& item : items) {
    auto it = std::find_if(table.begin(), table.end(), [&](const auto& e) { return e.first == item; });
    if (it == table.end()) bad_value(flag, v, "a comma-separated list of " + names + "; '" + item + "' is not one");
    if (std::find(out.begin(), out.end(), it->second) == out.end()) out.push_back(it->second);
  }
  return out;
}

std::vector<Extent3> parse_tiles(const std::string& flag, const std::string& v) {
  std::vector<Extent3> out;
  const auto items = split_list(v);
  if (items.empty()) bad_value(flag, v, "tile shapes MxN or MxNxK, such as 128x128,128x256x64");
  for (const std::string& item : items) {
    const auto parts = split_list(item, 'x');
    if (parts.size() != 2 && parts.size() != 3) bad_value(flag, v, "tile shapes MxN or MxNxK, such as 128x128,128x256x64");
    const std::string where = flag + "=" + v + ": ";
    Extent3 e;
    e.m = int(parse_int(where + "M", parts[0], 1, kMaxTileExtent));
    e.n = int(parse_int(where + "N", parts[1], 1, kMaxTileExtent));
    e.k = parts.size() == 3 ? int(parse_int(where + "K", parts[2], 1, kMaxTileExtent)) : 0;
    out.push_back(e);
  }
  return out;
}

int parse_int_in(const std::string& flag, const std::string& v, std::int64_t min_value, std::int64_t max_value) {
  return int(parse_int(flag, v, min_value, max_value));
}

// Kernel patterns: an empty one (--kernels=, or a,,b) would match every name as a substring.
std::vector<std::string> parse_patterns(const std::string& flag, const std::string& v) {
  std::vector<std::string> out = split_list(v);
  const bool has_empty = std::any_of(out.begin(), out.end(), [](const std::string& p) { return p.empty(); });
  if (out.empty() || has_empty) {
    throw usage_error(flag + "=" + v + ": an empty pattern would match every kernel; pass comma-separated kernel "
                      "names or globs without empty entries, such as 'tessel_sm80_gemm_bf16_*_tn'");
  }
  return out;
}

const char* const kShapesFileExpected = "a text file with one MxNxK per line, such as bench/shapes.txt";

const std::vector<Flag>& flags() {
  static const std::vector<Flag> table = {
      {{"--operation"}, false,
       [](Options& o, auto& f, auto& v) {
         if (v != "gemm") bad_value(f, v, "gemm, the one operation tessel-prof profiles");
         o.operation = v;
       }},
      {{"--mode"}, false,
       [](Options& o, auto& f, auto& v) {
         o.mode = parse_enum_list<Mode>(f, v, {{"profile", Mode::kProfile}, {"enumerate", Mode::kEnumerate},
                                               {"analyze", Mode::kAnalyze}, {"report", Mode::kReport},
                                               {"dispatch", Mode::kDispatch}})
                      .at(0);
         if (v.find(',') != std::string::npos) bad_value(f, v, "one mode: profile, enumerate, analyze, report or dispatch");
       }},
      {{"--kernels", "--kernel"}, false,
       [](Options& o, auto& f, auto& v) {
         o.kernels = parse_patterns(f, v);
         o.kernels_given = true;
       }},
      {{"--ignore-kernels"}, false, [](Options& o, auto& f, auto& v) { o.ignore_kernels = parse_patterns(f, v); }},
      {{"--m"}, false, [](Options& o, auto& f, auto& v) { o.m = parse_int_list(f, v); }},
      {{"--n"}, false, [](Options& o, auto& f, auto& v) { o.n = parse_int_list(f, v); }},
      {{"--k"}, false, [](Options& o, auto& f, auto& v) { o.k = parse_int_list(f, v); }},
      {{"--batch", "--batch_count", "--l"}, false, [](Options& o, auto& f, auto& v) { o.batch = parse_int_list(f, v); }},
      {{"--shapes"}, false,
       [](Options& o, auto& f, auto& v) {
         o.shapes.clear();
         for (const GemmShape& s : parse_shape_list(f, v)) o.shapes.push_back({s.m, s.n, s.k, s.batch});
       }},
      {{"--shapes-file"}, false,
       [](Options& o, auto& f, auto& v) {
         o.shapes.clear();
         for (const GemmShape& s : parse_shapes_file(read_text_file(v, f, kShapesFileExpected), v)) o.shapes.push_back({s.m, s.n, s.k, s.batch});
       }},
      {{"--A"}, false, [](Options& o, auto& f, auto& v) { o.a = parse_operand(f, v); }},
      {{"--B"}, false, [](Options& o, auto& f, auto& v) { o.b = parse_operand(f, v); }},
      {{"--C"}, false, [](Options& o, auto& f, auto& v) { o.c = parse_operand(f, v); }},
      {{"--D"}, false, [](Options& o, auto& f, auto& v) { o.d = parse_operand(f, v); }},
      {{"--alpha"}, false, [](Options& o, auto& f, auto& v) { o.alpha = parse_double(f, v); }},
      {{"--beta"}, false, [](Options& o, auto& f, auto& v) { o.beta = parse_double(f, v); }},
      {{"--raster", "--raster_order"}, false,
       [](Options& o, auto& f, auto& v) {
         o.raster = parse_enum_list<Raster>(f, v, {{"heuristic", Raster::kHeuristic}, {"along_m", Raster::kAlongM},
                                                   {"along_n", Raster::kAlongN}});
       }},
      {{"--swizzle", "--swizzle_size"}, false, [](Options& o, auto& f, auto& v) { o.swizzle = parse_int_list(f, v, 0, kMaxExtent); }},
      {{"--warmup-iterations", "--warmup_iterations"}, false,
       [](Options& o, auto& f, auto& v) { o.warmup_iterations = parse_int_in(f, v, 0, kMaxIterations); }},
      {{"--profiling-iterations", "--profiling_iterations"}, false,
       [](Options& o, auto& f, auto& v) { o.profiling_iterations = parse_int_in(f, v, 1, kMaxIterations); }},
      {{"--providers"}, false,
       [](Options& o, auto& f, auto& v) {
         o.providers = parse_enum_list<Provider>(f, v, {{"tessel", Provider::kTessel}, {"cublas", Provider::kCublas}});
       }},
      {{"--verification-providers", "--verification_providers"}, false,
       [](Options& o, auto& f, auto& v) {
         o.verification_providers = parse_enum_list<Verifier>(f, v, {{"cublas", Verifier::kCublas}, {"device", Verifier::kDevice}});
       }},
      {{"--verification-enabled", "--verification_enabled"}, true,
       [](Options& o, auto& f, auto& v) { o.verification_enabled = parse_bool(f, v); }},
      {{"--device"}, false, [](Options& o, auto& f, auto& v) { o.device = parse_int_in(f, v, 0, kMaxIterations); }},
      {{"--seed"}, false, [](Options& o, auto& f, auto& v) { o.seed = std::uint64_t(parse_int(f, v, 0, INT64_MAX)); }},
      {{"--output"}, false, [](Options& o, auto&, auto& v) { o.output = v; }},
      {{"--json"}, false, [](Options& o, auto&, auto& v) { o.json = v; }},
      {{"--plot"}, false, [](Options& o, auto&, auto& v) { o.plot = v; }},
      {{"--emit-best"}, false, [](Options& o, auto&, auto& v) { o.emit_best = v; }},
      {{"--markdown"}, false, [](Options& o, auto&, auto& v) { o.markdown = v; }},
      {{"--device-profile"}, false, [](Options& o, auto&, auto& v) { o.device_profile = v; }},
      {{"--input"}, false, [](Options& o, auto&, auto& v) { o.input = v; }},
      {{"--progress"}, false,
       [](Options& o, auto& f, auto& v) {
         o.progress = parse_enum_list<ProgressMode>(f, v, {{"auto", ProgressMode::kAuto}, {"always", ProgressMode::kAlways},
                                                           {"never", ProgressMode::kNever}})
                          .at(0);
       }},
      {{"--device-info"}, true, [](Options& o, auto& f, auto& v) { o.device_info = parse_bool(f, v); }},
      {{"--help", "-h"}, true, [](Options& o, auto& f, auto& v) { o.help = parse_bool(f, v); }},
      {{"--sm-count"}, false, [](Options& o, auto& f, auto& v) { o.sm_count = parse_int_in(f, v, 1, kMaxSmCount); }},
      {{"--ctas-per-sm"}, false, [](Options& o, auto& f, auto& v) { o.ctas_per_sm = parse_int_in(f, v, 1, kMaxCtasPerSm); }},
      {{"--tile"}, false, [](Options& o, auto& f, auto& v) { o.tiles = parse_tiles(f, v); }},
      {{"--matrix-tflops"}, false, [](Options& o, auto& f, auto& v) { o.matrix_tflops = parse_rate(f, v); }},
      {{"--bandwidth-gbps"}, false, [](Options& o, auto& f, auto& v) { o.bandwidth_gbps = parse_rate(f, v); }},
  };
  return table;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string suggestion(const std::string& name) {
  std::string best;
  std::size_t best_d = 4;  // suggest only close spellings
  for (const Flag& f : flags()) {
    for (const std::string& n : f.names) {
      std::size_t d = edit_distance(name, n);
      if (d < best_d) best_d = d, best = f.names.front();
    }
  }
  return best.empty() ? "" : " (did you mean " + best + "?)";
}

// Flags that mean something in one mode only: given in another, they are a mistake worth naming.
void check_mode_flags(const Options& o, const std::set<std::string>& given) {
  static const std::vector<std::pair<std::string, Mode>> only = {
      {"--sm-count", Mode::kAnalyze}, {"--ctas-per-sm", Mode::kAnalyze}, {"--tile", Mode::kAnalyze},
      {"--matrix-tflops", Mode::kAnalyze}, {"--bandwidth-gbps", Mode::kAnalyze}, {"--input", Mode::kReport}};
  for (const auto& [flag, mode] : only) {
    const bool dispatch_sms = flag == "--sm-count" && o.mode == Mode::kDispatch;  // the heuristic's SMs too
    if (given.count(flag) && o.mode != mode && !dispatch_sms) {
      throw usage_error(flag + " applies to --mode=" + std::string(to_string(mode)) + ", not --mode=" +
                        std::string(to_string(o.mode)));
    }
  }
  const bool sweep = given.count("--m") || given.count("--n") || given.count("--k") || given.count("--batch");
  if (sweep && (given.count("--shapes") || given.count("--shapes-file"))) {
    throw usage_error("--shapes and --shapes-file list whole problems and replace --m, --n, --k and --batch; give "
                      "one or the other");
  }
  if (given.count("--shapes") && given.count("--shapes-file")) {
    throw usage_error("give --shapes or --shapes-file, not both");
  }
  for (const char* flag : {"--emit-best", "--markdown"}) {
    if (given.count(flag) && o.mode != Mode::kProfile && o.mode != Mode::kReport) {
      throw usage_error(std::string(flag) + " needs measured rows: use it with --mode=profile or --mode=report, not --mode=" +
                        std::string(to_string(o.mode)));
    }
  }
  if (o.mode == Mode::kReport && o.input.empty()) {
    throw usage_error("--mode=report needs --input=FILE.csv, a CSV that --mode=profile wrote with --output");
  }
}

}  // namespace

Options parse_options(const std::vector<std::string>& args) {
  Options o;
  std::set<std::string> given;
  for (const std::string& arg : args) {
    if (arg.rfind("-", 0) != 0) {
      throw usage_error("unexpected argument '" + arg + "': options are written --name=value (run tessel-prof --help)");
    }
    const auto eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    const bool has_value = eq != std::string::npos;
    const std::string value = has_value ? arg.substr(eq + 1) : "";
    auto it = std::find_if(flags().begin(), flags().end(), [&](const Flag& f) {
      return std::find(f.names.begin(), f.names.end(), name) != f.names.end();
    });
    if (it == flags().end()) {
      throw usage_error("unknown option " + name + suggestion(name) + "; run tessel-prof --help for the options");
    }
    if (!has_value && !it->boolean) {
      throw usage_error(name + " needs a value, written " + name + "=VALUE");
    }
    if (has_value && value.empty() && !it->boolean) {
      throw usage_error(name + "= has an empty value; write " + name + "=VALUE");
    }
    it->apply(o, name, value);
    given.insert(it->names.front());
  }
  check_mode_flags(o, given);
  require_sweep_within_limit(o);  // in every mode, before a GPU is looked for
  return o;
}

std::string usage_text() {
  return R"(tessel-prof: profile tessel's GEMM kernels against cuBLAS, analyze waves and rooflines.

Usage: tessel-prof [--mode=profile|enumerate|analyze|report|dispatch] [options]

Selection
  --operation=gemm                 the operation (gemm only)
  --kernels=GLOBS                  names or globs, comma-separated; a pattern without * or ?
                                   matches any name containing it
  --ignore-kernels=GLOBS           drop these
  --A=TYPE:LAYOUT, --B, --C, --D   operand type and layout: f16, bf16, f32, e4m3, e5m2; row, column
                                   (either part may be *, or left out: --A=bf16)

Problem (each a value 4096, a list 1024,4096 or a range 1024:8192:1024)
  --m, --n, --k, --batch           problem size (default 1024x1024x1024, batch 1); lists sweep
                                   their cross product
  --shapes=MxNxK[xL],...           a list of whole problems instead, or
  --shapes-file=FILE               one MxNxK (or "M N K") per line, # comments
  --alpha=1 --beta=0               epilogue scalars
  --raster=heuristic|along_m|along_n   tile order (a list sweeps)
  --swizzle=8                      row tiles per raster group, 0 for a plain raster (a list sweeps)

Profile mode (needs a GPU)
  --warmup-iterations=10 --profiling-iterations=100   timed runs; the median is reported
  --providers=tessel,cublas        what to time
  --verification-providers=cublas  check against cuBLAS and/or the device reference (device)
  --verification-enabled=true
  --device=0 --seed=2025
  --device-profile=FILE            also measure copy bandwidth and matrix rate into FILE

Analyze mode (no GPU needed)
  --sm-count=N                     SMs (default: the GPU's, or --device-profile's)
  --ctas-per-sm=1                  CTAs resident per SM
  --tile=MxN[xK],...               analyze these tiles instead of the compiled kernels
  --matrix-tflops=X --bandwidth-gbps=Y   ceilings for the roofline floor
  --device-profile=FILE            read SM count and ceilings measured by profile mode

Dispatch mode (no GPU needed): the kernel tessel.gemm / tessel::gemm picks per problem, and why
  --sm-count=N                     SMs (default: the GPU's)
  --A=bf16|f16                     the 16-bit type of D = x @ W.t() (default bf16)
  --beta=B                         nonzero: a C is read, which keeps the problem as given

Report mode
  --input=FILE.csv                 re-read a CSV written by profile mode

Outputs (any mode that has rows)
  --output=FILE.csv --json=FILE --plot=FILE.svg --markdown=FILE.md
  --emit-best=FILE.cmake           the fastest verified kernel per shape, as a CMake list;
                                   rebuild with -DTESSEL_PROF_KERNEL_LIST=FILE.cmake
  --progress=auto|always|never     progress bar on stderr (auto: when it is a terminal)
  --device-info                    print the GPU's properties and exit
  --help
)";
}

}  // namespace tessel::prof
