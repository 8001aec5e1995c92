#include "core/best.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>

#include "core/error.hpp"

namespace tessel::prof {

namespace {
std::string f(double x, const char* fmt) {
  char b[48];
  std::snprintf(b, sizeof b, fmt, x);
  return b;
}
std::string types(const OperandSet& o) {
  return std::string(to_string(o.a.element)) + "/" + std::string(to_string(o.b.element)) + "->" +
         std::string(to_string(o.d.element)) + " " + blas_layout_suffix(o);
}
}  // namespace

std::vector<BestEntry> best_per_problem(const std::vector<ProfileRow>& rows) {
  std::vector<BestEntry> out;
  for (const ProfileRow& r : rows) {
    auto it = std::find_if(out.begin(), out.end(), [&](const BestEntry& e) {
      return e.shape == r.problem.shape && e.operands == r.operands;
    });
    if (it == out.end()) it = out.insert(out.end(), BestEntry{r.problem.shape, r.operands, {}, {}, {}, {}});
    BestEntry& e = *it;
    if (r.provider == "cublas") {
      if (r.ran && (!e.cublas_tflops || r.tflops > *e.cublas_tflops)) e.cublas_tflops = r.tflops;
      continue;
    }
    if (r.cublas_tflops && !e.cublas_tflops) e.cublas_tflops = r.cublas_tflops;
    if (r.ran && (!e.fastest || r.tflops > e.fastest->tflops)) e.fastest = r;
    if (r.ran && r.verification == kPassed && (!e.best || r.tflops > e.best->tflops)) e.best = r;
    if (e.why_none.empty() && !(r.ran && r.verification == kPassed)) {
      e.why_none = r.kernel + ": " + (r.ran ? "verification " + r.verification : r.status + ": " + r.reason);
    }
  }
  return out;
}

std::string emit_best_cmake(const std::vector<BestEntry>& entries) {
  std::set<std::string> winners;
  std::ostringstream o;
  o << "# Written by tessel-prof --emit-best: the fastest verified tessel kernel for each profiled\n"
    << "# problem. Build only these into tessel-prof:\n"
    << "#   cmake -DTESSEL_PROF_KERNEL_LIST=<this file> <build directory>\n#\n";
  for (const BestEntry& e : entries) {
    o << "# " << to_string(e.shape) << " " << types(e.operands) << ": ";
    if (e.best) {
      winners.insert(e.best->kernel);
      o << e.best->kernel << " " << f(e.best->tflops, "%.1f") << " TFLOP/s";
      if (e.best->ratio) o << ", " << f(*e.best->ratio, "%.2f") << "x cuBLAS";
    } else {
      o << "no verified kernel (" << (e.why_none.empty() ? "no tessel row" : e.why_none) << ")";
    }
    o << "\n";
  }
  if (winners.empty()) {
    throw ProfError(kExitFailed,
                    "--emit-best: no problem has a tessel kernel that ran and passed verification, so there is no "
                    "winner to write; profile with --providers=tessel and verification enabled");
  }
  o << "set(" << kBestListVariable << "\n";
  for (const std::string& w : winners) o << "  " << w << "\n";
  o << ")\n";
  return o.str();
}

std::vector<std::string> read_kernel_list(const std::string& text, const std::string& source) {
  // Drop comments, then find set(TESSEL_PROF_BEST_KERNELS ...).
  std::string code;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) code += line.substr(0, line.find('#')) + "\n";
  const std::string head = std::string("set(") + kBestListVariable;
  const auto start = code.find(head);
  if (start == std::string::npos) {
    throw usage_error(source + ": no set(" + std::string(kBestListVariable) + " ...); expected a file written by --emit-best");
  }
  const auto end = code.find(')', start);
  if (end == std::string::npos) throw usage_error(source + ": the set(" + std::string(kBestListVariable) + " is not closed");
  std::istringstream names(code.substr(start + head.size(), end - start - head.size()));
  std::vector<std::string> out;
  for (std::string n; names >> n;) out.push_back(n);
  return out;
}

std::string results_markdown(const std::vector<BestEntry>& entries, const RunInfo& info) {
  std::ostringstream o;
  o << "## tessel-prof results\n\n";
  for (const auto& [k, v] : info.fields) o << "- " << k << ": " << v << "\n";
  o << "\n| problem (MxNxK) | types | best tessel kernel | tessel TFLOP/s | cuBLAS TFLOP/s | ratio | verification |\n"
    << "|---|---|---|---:|---:|---:|---|\n";
  for (const BestEntry& e : entries) {
    o << "| " << to_string(e.shape) << " | " << types(e.operands) << " | ";
    const std::string cublas = e.cublas_tflops ? f(*e.cublas_tflops, "%.1f") : "-";
    if (e.best) {
      o << "`" << e.best->kernel << "` | " << f(e.best->tflops, "%.1f") << " | " << cublas << " | "
        << (e.cublas_tflops ? f(e.best->tflops / *e.cublas_tflops, "%.2fx") : "-") << " | passed";
      if (e.fastest && e.fastest->kernel != e.best->kernel) {
        o << " (faster " << e.fastest->kernel << " " << e.fastest->verification << ")";
      }
      o << " |\n";
    } else if (e.fastest) {
      o << "`" << e.fastest->kernel << "` | " << f(e.fastest->tflops, "%.1f") << " | " << cublas << " | "
        << (e.cublas_tflops ? f(e.fastest->tflops / *e.cublas_tflops, "%.2fx") : "-") << " | "
        << e.fastest->verification << " |\n";
    } else {
      o << "none ran (" << e.why_none << ") | - | " << cublas << " | - | - |\n";
    }
  }
  return o.str();
}

}  // namespace tessel::prof
