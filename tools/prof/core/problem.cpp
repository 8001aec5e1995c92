#include "core/problem.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/limits.hpp"

namespace tessel::prof {

std::string to_string(const GemmShape& s) {
  std::string out = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
  if (s.batch != 1) {
    out += 'x';
    out += std::to_string(s.batch);
  }
  return out;
}

std::string to_string(const OperandSet& o) {
  return to_string(o.a) + " " + to_string(o.b) + " " + to_string(o.c) + " " + to_string(o.d);
}

std::string blas_layout_suffix(const OperandSet& o) {
  return std::string(o.a.layout == Layout::kRow ? "t" : "n") + (o.b.layout == Layout::kColumn ? "n" : "t");
}

double gemm_flops(const GemmShape& s) { return 2.0 * double(s.m) * double(s.n) * double(s.k) * double(s.batch); }

double gemm_bytes(const GemmShape& s, const OperandSet& o, bool reads_c) {
  const double m = double(s.m), n = double(s.n), k = double(s.k);
  double bytes = m * k * size_bytes(o.a.element) + k * n * size_bytes(o.b.element) + m * n * size_bytes(o.d.element);
  if (reads_c) bytes += m * n * size_bytes(o.c.element);
  return bytes * double(s.batch);
}

void require_sweep_within_limit(const Options& opt) {
  // Each factor is at most kMaxListValues (or kMaxProblems shapes), but six of them can pass
  // 2^63: the product saturates just above the limit instead.
  std::vector<std::pair<const char*, std::size_t>> factors;
  if (opt.shapes.empty()) {
    factors = {{"--m", opt.m.size()}, {"--n", opt.n.size()}, {"--k", opt.k.size()}, {"--batch", opt.batch.size()}};
  } else {
    factors = {{"--shapes", opt.shapes.size()}};
  }
  factors.insert(factors.end(), {{"--raster", opt.raster.size()}, {"--swizzle", opt.swizzle.size()}});
  std::int64_t count = 1;
  std::string terms;
  for (const auto& [flag, size] : factors) {
    count = std::min<std::int64_t>(count * std::int64_t(size), kMaxProblems + 1);
    terms += std::string(terms.empty() ? "" : " x ") + std::to_string(size) + " " + flag;
  }
  if (count > kMaxProblems) {
    throw usage_error("the sweep has more than " + std::to_string(kMaxProblems) + " problems (" + terms +
                      "), the limit of one run; sweep fewer sizes (a range with a larger step, such as "
                      "--m=1024:8192:1024) or list the problems you serve with --shapes");
  }
}

std::vector<GemmProblem> expand_problems(const Options& opt) {
  require_sweep_within_limit(opt);
  std::vector<GemmProblem> out;
  if (!opt.shapes.empty()) {
    for (const auto& s : opt.shapes)
      for (auto r : opt.raster)
        for (auto z : opt.swizzle) out.push_back({{s.m, s.n, s.k, s.batch}, opt.alpha, opt.beta, r, z});
    return out;
  }
  for (auto m : opt.m)
    for (auto n : opt.n)
      for (auto k : opt.k)
        for (auto l : opt.batch)
          for (auto r : opt.raster)
            for (auto s : opt.swizzle) out.push_back({{m, n, k, l}, opt.alpha, opt.beta, r, s});
  return out;
}

}  // namespace tessel::prof
