#pragma once
// One GEMM problem of a sweep, D(M,N) = alpha * A(M,K) B(K,N) + beta * C(M,N) over `batch`
// matrices, and the counts every report divides by.

#include <cstdint>
#include <string>
#include <vector>

#include "core/options.hpp"
#include "core/types.hpp"

namespace tessel::prof {

struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  friend bool operator==(const GemmShape&, const GemmShape&) = default;
  friend auto operator<=>(const GemmShape&, const GemmShape&) = default;
};
std::string to_string(const GemmShape& s);  // "4096x4096x4096", "4096x16x4096x8" with a batch

/// The operand types and layouts of a problem; one kernel serves exactly one.
struct OperandSet {
  Operand a, b, c, d;
  friend bool operator==(const OperandSet&, const OperandSet&) = default;
};
std::string to_string(const OperandSet& o);  // "bf16:row bf16:column bf16:column bf16:column"

/// The BLAS spelling of the A and B layouts, as kernel names end: "tn" is A row-major (read
/// transposed by a column-major BLAS) and B column-major.
std::string blas_layout_suffix(const OperandSet& o);

struct GemmProblem {
  GemmShape shape;
  double alpha = 1.0, beta = 0.0;
  Raster raster = Raster::kHeuristic;
  std::int64_t swizzle = 8;
};

/// 2 M N K per matrix.
double gemm_flops(const GemmShape& s);
/// The smallest traffic a GEMM can have: A, B and D once each, and C when beta reads it.
double gemm_bytes(const GemmShape& s, const OperandSet& o, bool reads_c);

/// Throws usage_error, naming each flag's count, when the options expand to more than
/// kMaxProblems problems (core/limits.hpp); cheap, it expands nothing.
void require_sweep_within_limit(const Options& opt);

/// Every (m, n, k, batch, raster, swizzle) of the options, in that nesting order (m outermost), or
/// every --shapes entry crossed with raster and swizzle. Checks require_sweep_within_limit first.
std::vector<GemmProblem> expand_problems(const Options& opt);

}  // namespace tessel::prof
