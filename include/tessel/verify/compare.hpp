#pragma once
// Element-by-element comparison of a GEMM result with its reference under the per-element
// budget of tolerance.hpp. Every element is checked; NaN and infinity never pass; an element
// still holding the poison pattern (poison.hpp) is reported as never written.
//
// The report gives the counts, the worst element with its share of the budget ("0.194 of the
// budget"), and the first failures in row-major order, enough to see a pattern (a whole row, a
// tile edge, every eighth column) without a debugger.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "tessel/config.hpp"
#include "tessel/numeric.hpp"
#include "tessel/verify/host_reference.hpp"
#include "tessel/verify/matrix_view.hpp"
#include "tessel/verify/poison.hpp"
#include "tessel/verify/tolerance.hpp"

namespace tessel::verify {

enum class Verdict : unsigned char {
  kPass = 0,
  kOutOfBudget = 1,
  kNonFinite = 2,  // NaN or infinity where the reference is finite
  kUnwritten = 3,  // still the poison pattern
};

struct Judgement {
  Verdict verdict = Verdict::kPass;
  double got = 0;
  double error = 0;  // |got - want|; infinity for the non-finite verdicts
  double ratio = 0;  // error / budget
};

// INFINITY rather than numeric_limits: usable in device code without relaxed constexpr.
inline constexpr double kInfinity = INFINITY;

template <class TD>
TESSEL_HD Judgement judge(const TD& raw, double want, double budget) {
  Judgement j;
  j.got = to_double(raw);
  if (is_poison(raw)) {
    j.verdict = Verdict::kUnwritten;
  } else if (!std::isfinite(j.got) || !std::isfinite(want)) {
    j.verdict = Verdict::kNonFinite;
  }
  if (j.verdict != Verdict::kPass) {
    j.error = j.ratio = kInfinity;
    return j;
  }
  j.error = std::fabs(j.got - want);
  j.ratio = budget > 0 ? j.error / budget : (j.error == 0 ? 0 : kInfinity);
  // Written as "not within" so that a NaN error cannot pass.
  if (!(j.error <= budget)) j.verdict = Verdict::kOutOfBudget;
  return j;
}

struct Mismatch {
  std::int64_t row = 0;
  std::int64_t col = 0;
  Verdict verdict = Verdict::kPass;
  double got = 0;
  double want = 0;
  double error = 0;
  double budget = 0;
  double ratio = 0;
};

struct CompareReport {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t checked = 0;
  std::int64_t failed = 0;     // all verdicts other than kPass
  std::int64_t unwritten = 0;  // of which never written
  std::int64_t nonfinite = 0;  // of which NaN or infinity
  bool has_worst = false;
  Mismatch worst;               // largest error / budget (the first one on ties)
  std::vector<Mismatch> first;  // the first failures in row-major order

  bool passed() const { return checked == rows * cols && failed == 0; }
  std::string summary() const;
  std::string details() const;  // summary, then one line per reported failure
};

namespace detail {
inline std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}
inline std::string describe(const Mismatch& m) {
  std::string s = "(" + std::to_string(m.row) + ", " + std::to_string(m.col) + "): ";
  if (m.verdict == Verdict::kUnwritten) return s + "never written (still the poison pattern)";
  s += "got " + fmt("%.9g", m.got) + ", want " + fmt("%.9g", m.want);
  if (m.verdict == Verdict::kNonFinite) return s + " (not finite)";
  return s + ", |error| " + fmt("%.3g", m.error) + " = " + fmt("%.3g", m.ratio) +
         " of its budget " + fmt("%.3g", m.budget);
}
}  // namespace detail

inline std::string CompareReport::summary() const {
  const std::int64_t total = rows * cols;
  std::string s;
  if (passed()) {
    s = "PASS: all " + std::to_string(total) + " elements within budget";
  } else {
    s = "FAIL: " + std::to_string(failed) + " of " + std::to_string(total) +
        " elements outside budget";
    if (unwritten != 0 || nonfinite != 0) {
      s += " (" + std::to_string(unwritten) + " never written, " + std::to_string(nonfinite) +
           " NaN or infinite)";
    }
    if (checked != total) s += "; only " + std::to_string(checked) + " checked";
  }
  if (has_worst) s += "; worst " + detail::describe(worst);
  return s;
}

inline std::string CompareReport::details() const {
  std::string s = summary();
  if (!first.empty()) {
    s += "\nfirst " + std::to_string(first.size()) + " failures:";
    for (const Mismatch& m : first) s += "\n  " + detail::describe(m);
  }
  return s;
}

// Fold one judged element into a report (shared by the host and device comparisons).
inline void record(CompareReport& report, std::int64_t i, std::int64_t j, const Judgement& jd,
                   double want, double budget, std::size_t max_reported) {
  ++report.checked;
  Mismatch m{i, j, jd.verdict, jd.got, want, jd.error, budget, jd.ratio};
  if (!report.has_worst || jd.ratio > report.worst.ratio) {
    report.worst = m;
    report.has_worst = true;
  }
  if (jd.verdict == Verdict::kPass) return;
  ++report.failed;
  if (jd.verdict == Verdict::kUnwritten) ++report.unwritten;
  if (jd.verdict == Verdict::kNonFinite) ++report.nonfinite;
  if (report.first.size() < max_reported) report.first.push_back(m);
}

// Compare a host-resident result with a reference. Throws std::invalid_argument when the shapes
// differ.
template <class TD>
CompareReport compare(MatrixView<const TD> d, const GemmReference& ref, const Tolerance& tol,
                      std::size_t max_reported = 8) {
  if (d.rows != ref.m || d.cols != ref.n) {
    throw std::invalid_argument("compare: D is " + detail::dims(d.rows, d.cols) +
                                " but the reference is " + detail::dims(ref.m, ref.n));
  }
  CompareReport report;
  report.rows = ref.m;
  report.cols = ref.n;
  for (std::int64_t i = 0; i < ref.m; ++i) {
    for (std::int64_t j = 0; j < ref.n; ++j) {
      const auto e = static_cast<std::size_t>(ref.index(i, j));
      const double want = ref.value[e];
      const double budget = tol.budget(ref.k, ref.ab_magnitude[e], ref.c_magnitude[e], want);
      record(report, i, j, judge(d(i, j), want, budget), want, budget, max_reported);
    }
  }
  return report;
}

}  // namespace tessel::verify
