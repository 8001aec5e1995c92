#pragma once
// The fastest kernel per problem, and the two things made of it: the CMake list that rebuilds a
// profiler (or an application) with only the winners, and the markdown results table.
//
// Only rows that ran and passed verification can win: a fast wrong kernel must not be
// instantiated. Rows are grouped by problem size and operand types (a raster or swizzle sweep
// adds rows to the same group, and the best of them counts).

#include <optional>
#include <string>
#include <vector>

#include "core/report.hpp"
#include "core/rows.hpp"

namespace tessel::prof {

struct BestEntry {
  GemmShape shape;
  OperandSet operands;
  std::optional<ProfileRow> best;      // the fastest verified tessel row
  std::optional<ProfileRow> fastest;   // the fastest tessel row that ran, verified or not
  std::optional<double> cublas_tflops;
  std::string why_none;                // when no tessel row passed: the first reason found
};

/// One entry per (shape, operands), in the order the problems first appear.
std::vector<BestEntry> best_per_problem(const std::vector<ProfileRow>& rows);

/// The variable the emitted file sets; tools/prof/kernels/catalogue.cmake reads it.
inline constexpr const char* kBestListVariable = "TESSEL_PROF_BEST_KERNELS";

/// A CMake file setting TESSEL_PROF_BEST_KERNELS to the sorted, unique winners, with a comment
/// line per problem. Throws ProfError when no problem has a verified winner.
std::string emit_best_cmake(const std::vector<BestEntry>& entries);

/// The kernel names of such a file (what CMake's include() would set). Throws usage_error naming
/// `source` when the set(...) is missing or unterminated.
std::vector<std::string> read_kernel_list(const std::string& text, const std::string& source);

/// A results table: per problem, the best tessel kernel, its TFLOP/s, cuBLAS's, the ratio and
/// the verification; the run's metadata above it.
std::string results_markdown(const std::vector<BestEntry>& entries, const RunInfo& info);

}  // namespace tessel::prof
