#pragma once
// The rows each mode produces; every output (table, CSV, JSON, plot, emit-best, markdown) is a
// view of them.

#include <optional>
#include <string>

#include "core/analysis.hpp"
#include "core/kernel_description.hpp"
#include "core/problem.hpp"

namespace tessel::prof {

/// Verification outcomes, spelled as in the CSV.
inline constexpr const char* kPassed = "passed";
inline constexpr const char* kFailed = "failed";
inline constexpr const char* kNotVerified = "not_verified";
inline constexpr const char* kNotRun = "not_run";

/// One (provider or kernel, problem) of profile mode.
struct ProfileRow {
  std::string provider;  // "tessel" or "cublas"
  std::string kernel;    // the kernel's name; "cublas" for cuBLAS
  GemmProblem problem;
  OperandSet operands;
  std::string status = "Success";  // the Status (or cuBLAS status) name
  std::string reason;              // why it did not run, or why verification failed
  bool ran = false;
  double runtime_ms = 0, tflops = 0, gbps = 0;
  std::optional<double> cublas_tflops;  // cuBLAS on the same problem, in the same run
  std::optional<double> ratio;          // tflops / cublas_tflops
  std::string verification = kNotVerified;
  std::optional<double> cublas_rel_error;  // ||D - D_cublas||_F / ||D_cublas||_F
  std::optional<double> cublas_tolerance;  // the K-scaled bound it is held to
  std::optional<double> device_failed;     // elements over their budget against the device reference
  std::optional<double> device_worst;      // the worst element's error over its budget
  int iterations = 0;
  int buffer_sets = 0;
};

/// One (kernel or tile, problem) of analyze mode.
struct AnalysisRow {
  std::string label;  // kernel name, or "tile 128x128"
  GemmShape shape;
  OperandSet operands;
  Extent3 tile, cluster{1, 1, 1};
  int stages = 0;      // 0: not a kernel, unknown
  int smem_bytes = 0;  // 0: unknown
  int sm_count = 0, ctas_per_sm = 1;
  Analysis a;
};

}  // namespace tessel::prof
