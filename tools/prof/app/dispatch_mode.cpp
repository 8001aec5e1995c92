// --mode=dispatch: the kernel tessel's front door (tessel.gemm, tessel::gemm) picks for each
// problem, and why, with no GPU needed. The problem is the PyTorch convention D = x @ W.t() (A
// row-major M x K, B column-major, D row-major M x N) in the 16-bit type of --A (bf16 unless
// f16 is asked for); --beta other than 0 means a C is read, which keeps the problem as given.
// The answer is the dispatcher's own (tessel/gemm/dispatch/heuristic.hpp over the shipped
// Hopper tiles, and the small-N TMA ring's choice, dispatch/small_n_ring.hpp): no second copy of
// the rule lives here.
#include <set>
#include <sstream>

#include "app/modes.hpp"
#include "core/error.hpp"
#include "core/problem.hpp"
#include "device/device_info.hpp"
#include "tessel/gemm/dispatch/heuristic.hpp"
#include "tessel/gemm/dispatch/small_n_ring.hpp"

namespace tessel::prof {

namespace {

int dispatch_sm_count(const Options& opt) {
  if (opt.sm_count) return *opt.sm_count;
  std::string why;
  if (visible_device_count(why) > opt.device) return query_device(opt.device).sm_count;
  throw usage_error("dispatch mode needs the SM count and no GPU is visible: pass --sm-count=N (132 on an H100 SXM or "
                    "H200)");
}

Element dispatch_element(const Options& opt) {
  const Element e = opt.a.element.value_or(Element::kBF16);
  if (e != Element::kBF16 && e != Element::kF16) {
    throw usage_error("--A=" + std::string(to_string(e)) + ": dispatch mode answers for the 16-bit kinds the front door "
                      "ships Hopper tiles for; pass --A=bf16 or --A=f16");
  }
  return e;
}

}  // namespace

int run_dispatch(const Options& opt, std::ostream& out) {
  namespace dispatch = gemm::dispatch;
  const int sms = dispatch_sm_count(opt);
  const Element element = dispatch_element(opt);
  const bool reads_c = opt.beta != 0;
  const std::vector<dispatch::Candidate> tiles = dispatch::shipped_tiles();

  std::vector<GemmShape> shapes;
  std::set<GemmShape> seen;
  for (const GemmProblem& p : expand_problems(opt))
    if (seen.insert(p.shape).second) shapes.push_back(p.shape);

  out << "dispatch: " << to_string(element) << ", D = x @ W.t() (A row-major, B column-major, D row-major)"
      << (reads_c ? ", C read (beta != 0)" : "") << ", " << sms << " SMs\n";
  out << "| M | N | K | kernel | problem | modelled us | reason |\n|---|---|---|---|---|---|---|\n";
  for (const GemmShape& s : shapes) {
    // The small-N TMA ring takes bf16 and f16 decode calls on D^T's problem (tokens as its N).
    const bool ring = !reads_c && s.batch == 1 && dispatch::small_n_ring_takes(s.m, s.n, sms);
    std::ostringstream row;
    row << "| " << s.m << " | " << s.n << " | " << s.k << " | ";
    if (ring) {
      row << dispatch::small_n_ring_name(s.m, s.n, s.k, sms, std::string(to_string(element))) << " | D^T | - | "
          << dispatch::small_n_ring_reason(s.m, s.n, s.k, sms, std::string(to_string(element))) << " |";
    } else {
      // Dense operands (A and B K-major, rows K elements of 2 bytes apart): rows off 32-byte
      // sectors model the tiles without a twin slower, and run the chosen tile's cluster twin
      // where it fits, as tessel::gemm does.
      const bool straddle = dispatch::rows_straddle_sectors(0, std::int64_t(s.k) * 2);
      const dispatch::Choice c = dispatch::choose_oriented(tiles, reads_c ? std::vector<dispatch::Candidate>{} : tiles, s.m,
                                                           s.n, s.k, sms, 2, straddle);
      const dispatch::Estimate e = c.transpose_d ? dispatch::estimate(tiles[c.index], s.n, s.m, s.k, sms)
                                                 : dispatch::estimate(tiles[c.index], s.m, s.n, s.k, sms);
      char us[32];
      std::snprintf(us, sizeof us, "%.1f", e.seconds * 1e6);
      const dispatch::TwinTile* t = straddle ? dispatch::cluster_twin_of(tiles[c.index]) : nullptr;
      if (t && !dispatch::twin_fits(*t, c.transpose_d ? s.n : s.m, c.transpose_d ? s.m : s.n, sms)) t = nullptr;
      const std::string cluster = t ? ", " + std::to_string(t->cluster_m) + "x" + std::to_string(t->cluster_n) + " cluster" : "";
      row << dispatch::label(tiles[c.index]) << cluster << " | " << (c.transpose_d ? "D^T" : "D") << " | " << us << " | " << c.reason
          << (straddle ? dispatch::straddling_rows_reason() : "") << (t ? dispatch::cluster_twin_reason(t->cluster_m, t->cluster_n) : "")
          << " |";
    }
    out << row.str() << "\n";
  }
  return kExitOk;
}

}  // namespace tessel::prof
