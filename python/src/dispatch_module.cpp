// tessel._core's view of the dispatcher's heuristic (include/tessel/gemm/dispatch/heuristic.hpp),
// which python/tessel/jit/registry.py asks: candidates go in as (BM, BN, BK, schedule, stream_k)
// tuples, answers come back as indices into them.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <tuple>

#include "bindings.hpp"
#include "tessel/gemm/dispatch/grouped_tile.hpp"
#include "tessel/gemm/dispatch/heuristic.hpp"
#include "tessel/gemm/dispatch/small_n_ring.hpp"

namespace tessel::py {

namespace {

namespace dispatch = gemm::dispatch;
using CandidateTuple = std::tuple<int, int, int, std::string, bool>;

std::vector<dispatch::Candidate> candidates_of(std::vector<CandidateTuple> const& in) {
  std::vector<dispatch::Candidate> out;
  for (auto const& [bm, bn, bk, schedule, stream_k] : in) {
    if (bm < 1 || bn < 1 || bk < 1) throw nb::value_error("dispatch: a candidate's tile extents must be at least 1");
    out.push_back({bm, bn, bk, schedule, stream_k});
  }
  return out;
}

nb::tuple as_tuple(dispatch::Estimate const& e) {
  return nb::make_tuple(e.index, e.seconds, e.tiles, e.waves, e.compute, e.memory);
}

// std::invalid_argument (a bad problem) becomes ValueError.
template <class F>
auto value_errors(F&& f) {
  try {
    return f();
  } catch (std::invalid_argument const& e) {
    throw nb::value_error(e.what());
  }
}

}  // namespace

void bind_dispatch(nb::module_& m) {
  m.def(
      "dispatch_estimate",
      [](CandidateTuple const& c, std::int64_t m_, std::int64_t n, std::int64_t k, int sms, int element_bytes) {
        return value_errors([&] { return as_tuple(dispatch::estimate(candidates_of({c})[0], m_, n, k, sms, element_bytes)); });
      },
      nb::arg("candidate"), nb::arg("m"), nb::arg("n"), nb::arg("k"), nb::arg("sm_count"), nb::arg("element_bytes") = 2,
      "(index 0, seconds, tiles, waves, compute, memory): the heuristic's model of one candidate.");
  m.def(
      "dispatch_ranked",
      [](std::vector<CandidateTuple> const& cs, std::int64_t m_, std::int64_t n, std::int64_t k, int sms, int element_bytes) {
        return value_errors([&] {
          nb::list out;
          for (auto const& e : dispatch::ranked(candidates_of(cs), m_, n, k, sms, element_bytes)) out.append(as_tuple(e));
          return out;
        });
      },
      nb::arg("candidates"), nb::arg("m"), nb::arg("n"), nb::arg("k"), nb::arg("sm_count"), nb::arg("element_bytes") = 2,
      "The candidates' estimates as (index, seconds, tiles, waves, compute, memory), fastest first.");
  m.def(
      "dispatch_choose_oriented",
      [](std::vector<CandidateTuple> const& cs, std::vector<CandidateTuple> const& transposed, std::int64_t m_, std::int64_t n,
         std::int64_t k, int sms, int element_bytes, bool straddle) {
        return value_errors([&] {
          dispatch::Choice c =
              dispatch::choose_oriented(candidates_of(cs), candidates_of(transposed), m_, n, k, sms, element_bytes, straddle);
          return std::make_tuple(c.index, c.transpose_d, c.reason);
        });
      },
      nb::arg("candidates"), nb::arg("transposed"), nb::arg("m"), nb::arg("n"), nb::arg("k"), nb::arg("sm_count"),
      nb::arg("element_bytes") = 2, nb::arg("straddle") = false,
      "(index, transpose_d, reason): the heuristic's choice, on D^T's problem (index into `transposed`) where it says so; "
      "`straddle`: A's or B's rows start off 32-byte sectors (dispatch::ranked).");
  m.def(
      "dispatch_transposes",
      [](std::int64_t m_, std::int64_t n, std::vector<CandidateTuple> const& cs) { return dispatch::transposes(m_, n, candidates_of(cs)); },
      nb::arg("m"), nb::arg("n"), nb::arg("candidates"), "Whether the heuristic runs an M x N problem on D^T's among these.");
  m.def(
      "dispatch_narrowest_n", [](std::vector<CandidateTuple> const& cs) { return dispatch::narrowest_n(candidates_of(cs)); },
      nb::arg("candidates"), "Indices of the candidates of the narrowest BN: the ones D^T's problem runs on.");
  m.def(
      "dispatch_rows_straddle_sectors", &dispatch::rows_straddle_sectors, nb::arg("base"), nb::arg("pitch_bytes"),
      nb::arg("batch_bytes") = 0,
      "Whether an operand's rows start off 32-byte sectors, where the dispatcher runs a tile's cluster twin (heuristic.hpp).");
  m.def("dispatch_straddling_rows_reason", &dispatch::straddling_rows_reason,
        "What the dispatcher's reason says where A's or B's rows start off 32-byte sectors.");
  m.def("dispatch_cluster_twin_reason", &dispatch::cluster_twin_reason, nb::arg("cluster_m"), nb::arg("cluster_n"),
        "What the dispatcher's reason adds when it then runs the chosen tile's twin on a cluster_m x cluster_n cluster.");
  m.def(
      "dispatch_twin_fits",
      [](int bm, int bn, int cluster_m, int cluster_n, std::int64_t m, std::int64_t n, int sms) {
        return dispatch::twin_fits({bm, bn, 0, {}, cluster_m, cluster_n}, m, n, sms);
      },
      nb::arg("bm"), nb::arg("bn"), nb::arg("cluster_m"), nb::arg("cluster_n"), nb::arg("m"), nb::arg("n"), nb::arg("sms"),
      "Whether a tile's cluster twin pays on an M x N problem (as the kernel runs it) on `sms` SMs (heuristic.hpp's twin_fits).");
  m.def("small_n_ring_name", &dispatch::small_n_ring_name, nb::arg("tokens"), nb::arg("weights"), nb::arg("k"), nb::arg("sm_count"),
        nb::arg("element") = "bf16",
        "The small-N TMA ring a decode call of `tokens` against `weights` rows and K runs on, by its cubin's name "
        "(dispatch/small_n_ring.hpp).");
  m.def("small_n_ring_reason", &dispatch::small_n_ring_reason, nb::arg("tokens"), nb::arg("weights"), nb::arg("k"), nb::arg("sm_count"),
        nb::arg("element") = "bf16",
        "Why a decode call runs on the small-N TMA ring, in a sentence (dispatch/small_n_ring.hpp).");
  m.def("grouped_tile_n", &dispatch::grouped_tile_n, nb::arg("rows"), nb::arg("n"), nb::arg("groups"), nb::arg("masked"),
        nb::arg("sm_count"), "The N of the Hopper grouped kernel's tile for a grouped problem: 256 or 128 (dispatch/grouped_tile.hpp).");
}

}  // namespace tessel::py
