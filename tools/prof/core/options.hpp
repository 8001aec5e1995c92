#pragma once
// The command line, parsed into one Options value. Flag names are the CUTLASS profiler's where it
// has the concept (--operation, --kernels, --m, --A, --warmup-iterations, --providers, ...), so a
// CUTLASS user's command line carries over.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace tessel::prof {

enum class Mode { kProfile, kEnumerate, kAnalyze, kReport, kDispatch };
enum class Raster { kHeuristic, kAlongM, kAlongN };
enum class Provider { kTessel, kCublas };
enum class Verifier { kCublas, kDevice };
enum class ProgressMode { kAuto, kAlways, kNever };

std::string_view to_string(Mode m);
std::string_view to_string(Raster r);    // "heuristic", "along_m", "along_n"
std::string_view to_string(Provider p);  // "tessel", "cublas"
std::string_view to_string(Verifier v);  // "cublas", "device"

struct Options {
  Mode mode = Mode::kProfile;
  std::string operation = "gemm";
  std::vector<std::string> kernels;         // patterns; empty: every compiled kernel
  std::vector<std::string> ignore_kernels;  // patterns
  std::vector<std::int64_t> m{1024}, n{1024}, k{1024}, batch{1};
  struct Shape {
    std::int64_t m = 0, n = 0, k = 0, batch = 1;
  };
  std::vector<Shape> shapes;  // --shapes / --shapes-file: a list instead of the m x n x k product
  OperandFilter a, b, c, d;
  double alpha = 1.0, beta = 0.0;
  std::vector<Raster> raster{Raster::kHeuristic};
  std::vector<std::int64_t> swizzle{8};     // row tiles per raster group; 0: plain raster
  int warmup_iterations = 10;
  int profiling_iterations = 100;
  std::vector<Provider> providers{Provider::kTessel, Provider::kCublas};
  std::vector<Verifier> verification_providers{Verifier::kCublas};
  bool verification_enabled = true;
  int device = 0;
  std::uint64_t seed = 2025;

  // Outputs.
  std::string output;       // CSV
  std::string json;
  std::string plot;         // SVG
  std::string emit_best;    // CMake list of the winners
  std::string markdown;     // results table
  std::string device_profile;  // profile mode writes it, analyze mode reads it
  std::string input;        // report mode: a CSV written by profile mode
  ProgressMode progress = ProgressMode::kAuto;
  bool device_info = false;
  bool help = false;

  // Analyze mode.
  std::optional<int> sm_count;
  int ctas_per_sm = 1;
  std::vector<Extent3> tiles;  // --tile=128x128,128x256x64 (K 0 when not given)
  std::optional<double> matrix_tflops;
  std::optional<double> bandwidth_gbps;

  bool kernels_given = false;  // --kernels appeared on the command line
};

/// Parses argv[1..]. Throws usage_error (exit status 2) with a sentence for an unknown flag, a
/// missing or malformed value, or a flag that does not apply to the chosen mode.
Options parse_options(const std::vector<std::string>& args);

/// The --help text.
std::string usage_text();

}  // namespace tessel::prof
