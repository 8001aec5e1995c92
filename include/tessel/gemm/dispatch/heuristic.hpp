#pragma once
// The dispatcher's heuristic: which of a kind's Hopper kernels a problem gets, and why, in a
// sentence. One model, read by the C++ front door (tessel::gemm), the Python registry
// (tessel/jit/registry.py, through tessel._core) and tessel-prof's dispatch mode. Host code only.
//
// The model (estimate) is a persistent data-parallel launch: the tiles run in waves of one per
// SM, a partial wave costs a whole one, and each tile costs its k-steps (the whole tile's MMA
// work, padding rows included, at that tile's measured rate, never less than the shortest
// k-step measured) plus the part of its epilogue the schedule cannot hide; the whole launch costs
// at least the time to stream the operands' bytes from DRAM. The figures are hopper_tiles.def's.
//
//   std::vector<dispatch::Candidate> tiles = dispatch::shipped_tiles();
//   dispatch::Choice c = dispatch::choose_oriented(tiles, tiles, 16, 4096, 4096, 132);
//   // c.index = 3 (128x64 cooperative), c.transpose_d = true: D^T = B^T A^T, whose 4096 rows
//   // fill the tiles where 16 tokens would fill 16 of 128; c.reason says so.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tessel::gemm::dispatch {

/// A tile the estimate models: hopper_tiles.def's rows.
struct TileModel {
  int bm, bn, bk;
  std::string_view schedule;   // "cooperative" or "pingpong"
  std::string_view scheduler;  // "persistent" or "stream_k"
  double efficiency;           // mainloop rate per SM, share of the dense peak
  double epilogue_exposed;     // share of the epilogue that shows
};

#define TESSEL_TILE_MODEL(bm, bn, bk, schedule, scheduler, efficiency, exposed) \
  {bm, bn, bk, #schedule, #scheduler, efficiency, exposed},
inline constexpr TileModel kHopperTiles[] = {
#define TESSEL_HOPPER_TILE TESSEL_TILE_MODEL
#include "tessel/gemm/dispatch/hopper_tiles.def"
};

/// Tiles modelled but not shipped for the 16-bit kinds (hopper_tiles.def's TESSEL_MODELLED_TILE).
inline constexpr TileModel kModelledTiles[] = {
#define TESSEL_MODELLED_TILE TESSEL_TILE_MODEL
#include "tessel/gemm/dispatch/hopper_tiles.def"
};
#undef TESSEL_TILE_MODEL

/// A tile also shipped on clusters of cluster_m x cluster_n CTAs (hopper_tiles.def's
/// TESSEL_CLUSTER_TWIN).
struct TwinTile {
  int bm, bn, bk;
  std::string_view schedule;
  int cluster_m, cluster_n;
};
inline constexpr TwinTile kClusterTwins[] = {
#define TESSEL_CLUSTER_TWIN(bm, bn, bk, schedule, cluster_m, cluster_n) {bm, bn, bk, #schedule, cluster_m, cluster_n},
#include "tessel/gemm/dispatch/hopper_tiles.def"
};

/// The estimate's constants (hopper_tiles.def says what each is).
struct Constants {
#define TESSEL_DISPATCH_CONSTANT(name, value) static constexpr double name = value;
#include "tessel/gemm/dispatch/hopper_tiles.def"
};

/// A kernel among which the heuristic chooses: its tile, schedule and scheduler. A candidate
/// whose (tile, schedule, scheduler) is not one of kHopperTiles or kModelledTiles is modelled
/// with the first row's figures at its own tile (model_of).
struct Candidate {
  int bm = 128, bn = 256, bk = 64;
  std::string schedule = "cooperative";
  bool stream_k = false;
};

/// One candidate's modelled launch: seconds in all; its tiles and waves; the waves' mainloops and
/// epilogues (compute) and the operands' bytes at DRAM speed (memory), in seconds.
struct Estimate {
  std::size_t index = 0;  // into the candidates
  double seconds = 0;
  std::int64_t tiles = 0, waves = 0;
  double compute = 0, memory = 0;
};

/// A choice: the candidate, whether it runs on D^T = B^T A^T (D^T stored column-major), and why.
struct Choice {
  std::size_t index = 0;
  bool transpose_d = false;
  std::string reason;
};

/// Every tile of kHopperTiles as a candidate, in the table's order.
inline std::vector<Candidate> shipped_tiles() {
  std::vector<Candidate> out;
  for (TileModel const& t : kHopperTiles) out.push_back({t.bm, t.bn, t.bk, std::string(t.schedule), t.scheduler == "stream_k"});
  return out;
}

/// The model of a candidate: the row of kModelledTiles of its tile (K depth included), schedule
/// and scheduler; else the row of kHopperTiles, else of kModelledTiles, of its tile's rows and
/// columns, schedule and scheduler; else the first row. NOTES: a modelled row was measured on its
/// own kind (FP8's BK = 128), so an exact match wins. Otherwise K's depth is not matched: the
/// 16-bit rows were measured on tiles of BK = 64, and a kind of other width (FP8's BK = 128,
/// TF32's 32) moves the same 128 bytes of K per row and stage, so the tile's shape is what its
/// figures describe.
inline TileModel const& model_of(Candidate const& c) {
  auto same = [&](TileModel const& t) {
    return t.bm == c.bm && t.bn == c.bn && t.schedule == c.schedule && (t.scheduler == "stream_k") == c.stream_k;
  };
  for (TileModel const& t : kModelledTiles)
    if (same(t) && t.bk == c.bk) return t;
  for (TileModel const& t : kHopperTiles)
    if (same(t)) return t;
  for (TileModel const& t : kModelledTiles)
    if (same(t)) return t;
  return kHopperTiles[0];
}

/// "128x64 cooperative" (and " stream-K").
inline std::string label(Candidate const& c) {
  return std::to_string(c.bm) + "x" + std::to_string(c.bn) + " " + c.schedule + (c.stream_k ? " stream-K" : "");
}

/// The L2 sector: TMA reads global memory in 32-byte sectors.
inline constexpr std::int64_t kSectorBytes = 32;

/// Whether the rows of an operand TMA reads (first row at byte address `base`, the next ones
/// `pitch_bytes` apart, and `batch_bytes` between matrices of a batch; 0 where there is none)
/// start anywhere but on a 32-byte sector boundary: each 128-byte box row then covers five
/// sectors, and the mainloop runs at 0.55-0.7 of its speed (hopper_tiles.def, TESSEL_CLUSTER_TWIN).
/// @pre TMA can read the rows: base, pitch and batch stride are multiples of 16 bytes.
///   rows_straddle_sectors(0x1000, 2000)  // true: bf16 rows of K = 1000 start 16 bytes off
///   rows_straddle_sectors(0x1000, 2016)  // false: K = 1008
inline bool rows_straddle_sectors(std::uint64_t base, std::int64_t pitch_bytes, std::int64_t batch_bytes = 0) {
  return base % kSectorBytes != 0 || pitch_bytes % kSectorBytes != 0 || batch_bytes % kSectorBytes != 0;
}

/// Candidate `c`'s cluster twin (kClusterTwins), which the dispatcher runs in its place where A's or
/// B's rows straddle sectors and the twin fits the problem (twin_fits); null where it has none (the
/// stream-K kernels have none).
inline TwinTile const* cluster_twin_of(Candidate const& c) {
  if (c.stream_k) return nullptr;
  for (TwinTile const& t : kClusterTwins)
    if (t.bm == c.bm && t.bn == c.bn && t.bk == c.bk && t.schedule == c.schedule) return &t;
  return nullptr;
}
inline bool has_cluster_twin(Candidate const& c) { return cluster_twin_of(c) != nullptr; }

/// What the dispatcher appends to its reason where A's or B's rows straddle sectors: the cost,
/// and how the caller avoids it.
inline std::string const& straddling_rows_reason() {
  static std::string const reason =
      "; A's or B's rows start off 32-byte sectors, where TMA needs twice the L2 requests (rows a multiple of 32 bytes "
      "apart, e.g. K padded to a multiple of 16 for 16-bit types, run at the tile's full speed)";
  return reason;
}

/// What the dispatcher appends to that when it runs the choice's twin on a cluster_m x cluster_n
/// cluster, e.g. "; so on its 1x2-cluster twin (A's loads shared by the CTAs along N)".
inline std::string cluster_twin_reason(int cluster_m, int cluster_n) {
  std::string const shared = cluster_m > 1 && cluster_n > 1 ? "A's loads shared by the CTAs along N, B's by those along M"
                             : cluster_n > 1                  ? "A's loads shared by the CTAs along N"
                                                              : "B's loads shared by the CTAs along M";
  return "; so on its " + std::to_string(cluster_m) + "x" + std::to_string(cluster_n) + "-cluster twin (" + shared + ")";
}

namespace detail {
inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// The data-parallel tile of `bm` rows with the most tiles per problem: where even it leaves SMs
/// idle, stream-K (whose tiles have 128 rows).
inline TileModel const& narrowest_persistent(int bm) {
  TileModel const* best = nullptr;
  for (TileModel const& t : kHopperTiles)
    if (t.scheduler == "persistent" && t.bm == bm && (!best || t.bn < best->bn)) best = &t;
  return best ? *best : kHopperTiles[0];
}

/// Whether `m` tokens fill tiles of `rows` rows (or columns) well enough to run on them: a whole
/// number of tiles, or a last one at least three quarters full.
/// NOTES: the 64x64 ping-pong tile whose last token tile was a quarter or half full ran 0.63-0.83x
/// torch at 80 and 96 tokens on either problem, where D^T's 128x64 ran 0.88-0.96; at 48 and 112
/// tokens 0.95-0.98 (bench/runs/2026-12-06c_h100, runs 4 and 9). The estimate's floors do not see
/// it, so choose_oriented keeps such token counts off the 64-row tiles: on D^T's problem, on the
/// 128x64 tiles, as the dispatcher ran them before the 64-row tile.
inline constexpr int kTokenRows = 64;
inline bool fills(std::int64_t m, int rows) { return m % rows == 0 || 4 * (m % rows) >= 3 * rows; }

/// The floors' tile: the k-step floors were measured on 128x64, whose stage is (128 + 64) rows of
/// 128 bytes.
inline constexpr int kFloorTileRows = 128 + 64;

inline void require_problem(std::int64_t m, std::int64_t n, std::int64_t k, int sm_count) {
  if (m < 1 || n < 1 || k < 1 || sm_count < 1)
    throw std::invalid_argument("dispatch: M, N, K and the SM count must be at least 1 (got " + std::to_string(m) + ", " +
                                std::to_string(n) + ", " + std::to_string(k) + ", " + std::to_string(sm_count) + ")");
}

inline std::string microseconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", seconds * 1e6);
  return text;
}
}  // namespace detail

/// Whether twin `t` pays on a problem of M x N (as the kernel runs it, D^T's where it runs that) on
/// `sms` SMs: only where the problem has at least two tiles along each extent the cluster spans
/// (else a CTA of every cluster finds no tile: a decode problem's one column tile on a 1x2 cluster,
/// never measured to pay), and its clusters take no more waves than the tile's CTAs do.
///   twin_fits({128, 64, 64, "cooperative", 1, 2}, 1000, 1000, 132)   // true: 8 x 8 clusters, 1 wave
///   twin_fits({128, 64, 64, "cooperative", 1, 2}, 14336, 32, 132)    // false: one column tile
inline bool twin_fits(TwinTile const& t, std::int64_t m, std::int64_t n, int sms) {
  std::int64_t const tiles_m = detail::ceil_div(m, t.bm), tiles_n = detail::ceil_div(n, t.bn);
  if (tiles_m < t.cluster_m || tiles_n < t.cluster_n) return false;
  std::int64_t const clusters = detail::ceil_div(tiles_m, t.cluster_m) * detail::ceil_div(tiles_n, t.cluster_n);
  int const size = t.cluster_m * t.cluster_n, resident = sms / size > 0 ? sms / size : 1;
  return detail::ceil_div(clusters, resident) <= detail::ceil_div(tiles_m * tiles_n, sms > 0 ? sms : 1);
}

/// The modelled time of candidate `c` on an M x N x K problem over `sm_count` SMs, with operands
/// of `element_bytes` bytes: 2 for f16 / bf16; 1 for FP8, whose tensor cores run twice the 16-bit
/// rate and whose operands stream half the bytes; 4 for TF32, half the rate.
/// @pre m, n, k, sm_count >= 1 (else std::invalid_argument)
inline Estimate estimate(Candidate const& c, std::int64_t m, std::int64_t n, std::int64_t k, int sm_count, int element_bytes = 2) {
  detail::require_problem(m, n, k, sm_count);
  using K = Constants;
  TileModel const& t = model_of(c);
  Estimate e;
  e.tiles = detail::ceil_div(m, c.bm) * detail::ceil_div(n, c.bn);
  e.waves = detail::ceil_div(e.tiles, sm_count);
  std::int64_t const k_steps = detail::ceil_div(k, c.bk);
  double const peak_per_sm = K::peak_flops / K::peak_sms * 2.0 / element_bytes;
  // NOTES: the floor is higher where the tile's rows run past M (decode): TMA fills the missing
  // rows with zeros. The same fill runs past N in D^T's problem, whose N is the tokens. A tile of
  // a smaller stage than 128x64's streams it sooner: its floors scale down with the stage's rows
  // (64x64 ping-pong measured 0.21 us a k-step against 128x64's 0.28; hopper_tiles.def).
  double const stage_share = std::min(1.0, double(c.bm + c.bn) / detail::kFloorTileRows);
  // NOTES: a tile three quarters full runs at the full floor: 64x64 on D^T's problem took 0.2 us
  // a k-step at 48 tokens as at 64 (bench/runs/2026-12-06c_h100, run 4).
  bool const partial = (m < c.bm && !detail::fills(m, c.bm)) || (n < c.bn && !detail::fills(n, c.bn));
  double const floor = (partial ? K::step_floor_partial_us : K::step_floor_us) * 1e-6 * stage_share;
  double const step = std::max(2.0 * c.bm * c.bn * c.bk / (peak_per_sm * t.efficiency), floor);
  double const epilogue = c.bm * c.bn * (K::epilogue_us * 1e-6 / (128 * 256)) * t.epilogue_exposed;
  e.compute = double(e.waves) * (double(k_steps) * step + epilogue);
  if (c.stream_k) {
    // Where even the narrowest data-parallel tile leaves SMs idle, the tiles' k-steps spread over
    // every SM, each split tile's partials added once. Elsewhere the data-parallel kernels were as
    // fast or faster, so stream-K is modelled slower there.
    TileModel const& narrow = detail::narrowest_persistent(c.bm);
    double const most_tiles = double(detail::ceil_div(m, narrow.bm) * detail::ceil_div(n, narrow.bn));
    double const below = m < c.bm ? K::stream_k_below_partial : K::stream_k_below;
    if (most_tiles < below * sm_count)
      e.compute = (double(detail::ceil_div(e.tiles * k_steps, sm_count)) + K::fixup_steps) * step + epilogue;
    else
      e.compute *= K::stream_k_elsewhere;
  }
  e.memory = double(element_bytes) * (double(m) * double(k) + double(k) * double(n) + double(m) * double(n)) / K::dram_bytes_per_s *
             (c.stream_k ? K::stream_k_memory : 1.0);
  e.seconds = K::launch_us * 1e-6 + std::max(e.compute, e.memory);
  return e;
}

/// Every candidate's estimate, fastest first; among equals (all bound by the same bytes) the one
/// with the least compute, which has the most slack; among those, the candidates' order.
/// `straddle`: A's or B's rows start off 32-byte sectors (rows_straddle_sectors), where the
/// mainloops of a tile without a cluster twin that fits the problem (twin_fits) are modelled
/// Constants::straddle_cost times slower: the twins, which the dispatcher runs instead, win back
/// most of the extra L2 requests; a tile whose twin does not fit pays them in full.
inline std::vector<Estimate> ranked(std::vector<Candidate> const& candidates, std::int64_t m, std::int64_t n, std::int64_t k,
                                    int sm_count, int element_bytes = 2, bool straddle = false) {
  std::vector<Estimate> out;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    out.push_back(estimate(candidates[i], m, n, k, sm_count, element_bytes));
    out.back().index = i;
    // The straddle costs L2 requests, so it slows the tiles' k-steps, not the DRAM stream.
    TwinTile const* twin = straddle ? cluster_twin_of(candidates[i]) : nullptr;
    if (Estimate& e = out.back(); straddle && !(twin && twin_fits(*twin, m, n, sm_count))) {
      e.compute *= Constants::straddle_cost;
      e.seconds = Constants::launch_us * 1e-6 + std::max(e.compute, e.memory);
    }
  }
  auto key = [](Estimate const& e) { return std::nearbyint(e.seconds * 1e9); };  // nanoseconds decide
  std::stable_sort(out.begin(), out.end(), [&](Estimate const& a, Estimate const& b) {
    return key(a) != key(b) ? key(a) < key(b) : a.compute < b.compute;
  });
  return out;
}

/// The candidate with the least estimated time, and why.
/// @pre candidates is not empty (else std::invalid_argument)
inline Choice choose(std::vector<Candidate> const& candidates, std::int64_t m, std::int64_t n, std::int64_t k, int sm_count,
                     int element_bytes = 2, bool straddle = false) {
  if (candidates.empty()) throw std::invalid_argument("dispatch: no candidate kernel to choose among");
  detail::require_problem(m, n, k, sm_count);
  if (candidates.size() == 1) return {0, false, "the only kernel shipped for this kind of problem"};
  std::vector<Estimate> const r = ranked(candidates, m, n, k, sm_count, element_bytes, straddle);
  Estimate const &best = r[0], &runner = r[1];
  std::string const bound = best.memory > best.compute ? "streaming the operands" : "its waves of tiles";
  return {best.index, false,
          label(candidates[best.index]) + ": " + std::to_string(best.tiles) + " tiles in " + std::to_string(best.waves) +
              " wave(s) on " + std::to_string(sm_count) + " SMs, modelled " + detail::microseconds(best.seconds) +
              " us, bound by " + bound + "; next " + label(candidates[runner.index]) + " at " +
              detail::microseconds(runner.seconds) + " us"};
}

/// Whether D = A @ B (D row-major, M x N) may run as D^T = B^T A^T with D^T stored column-major,
/// among D^T's `candidates`: where M is short of the widest tiles' rows and N is not short of
/// the narrowest's (decode: a few tokens against many weight rows), so that the tiles' rows hold
/// weights instead of padding, and a tile 64 wide at most takes the tokens as its N.
/// choose_oriented then takes whichever problem the estimate says is faster.
/// NOTES: wider tiles ran D^T's problem slower than the problem as given (at 28672x16x8192 a
/// k-step took 0.54 us on 128x64 tiles, 0.83 on 128x128 and 2.7 on 128x256; bench/runs/
/// 2026-12-04b_h200, run 3); the narrowest tiles, 128x64 and 64x64, take D^T's problem.
inline bool transposes(std::int64_t m, std::int64_t n, std::vector<Candidate> const& candidates) {
  if (candidates.empty()) return false;
  int widest_rows = candidates[0].bm, rows = candidates[0].bm, cols = candidates[0].bn;
  for (Candidate const& c : candidates)
    widest_rows = std::max(widest_rows, c.bm), rows = std::min(rows, c.bm), cols = std::min(cols, c.bn);
  return m < widest_rows && rows <= n && cols <= 64;
}

/// The indices of the candidates of the narrowest BN: the ones D^T's problem runs on.
inline std::vector<std::size_t> narrowest_n(std::vector<Candidate> const& candidates) {
  std::vector<std::size_t> out;
  if (candidates.empty()) return out;
  int narrowest = candidates[0].bn;
  for (Candidate const& c : candidates) narrowest = std::min(narrowest, c.bn);
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (candidates[i].bn == narrowest) out.push_back(i);
  return out;
}

/// `choose` over D^T's problem (N x M x K, among the narrowest of `transposed`: D^T's kind's
/// kernels; empty where D cannot be transposed) where `transposes` says it may run and M is short
/// of every tile's rows; where M fills the narrowest tile's rows but not the widest's
/// (detail::fills: its last row of them at least three quarters full), over both problems, the
/// faster by the estimate (ties to the one with less compute, then to the problem as given);
/// elsewhere over the problem as given. The index is into `transposed` when transpose_d, else
/// into `candidates`.
/// NOTES: measured at 32-128 tokens (bench/runs/2026-12-06c_h100, run 4, H200): D^T's 128x64
/// tiles fill the SMs where the weights have many rows (64x14336x4096: 1.02x torch against 0.96
/// for 64x64 tiles as given), the 64-row tiles as given where they have few (64x4096x4096: 0.96
/// against 0.79). Below 64 tokens the tiles as given run mostly padding (32x14336x4096: 128x128
/// as given 0.63, 128x64 on D^T 0.95), which the estimate's floors undercount.
inline Choice choose_oriented(std::vector<Candidate> const& candidates, std::vector<Candidate> const& transposed, std::int64_t m,
                              std::int64_t n, std::int64_t k, int sm_count, int element_bytes = 2, bool straddle = false) {
  if (transposed.empty() || !transposes(m, n, transposed)) return choose(candidates, m, n, k, sm_count, element_bytes, straddle);
  std::vector<std::size_t> idx = narrowest_n(transposed);
  std::erase_if(idx, [&](std::size_t i) { return transposed[i].bm == detail::kTokenRows && !detail::fills(m, detail::kTokenRows); });
  if (idx.empty()) idx = narrowest_n(transposed);
  std::vector<Candidate> narrow;
  for (std::size_t i : idx) narrow.push_back(transposed[i]);
  Estimate const flipped = ranked(narrow, n, m, k, sm_count, element_bytes, straddle)[0];
  std::string const dt_shape = std::to_string(n) + "x" + std::to_string(m) + "x" + std::to_string(k);
  int rows = transposed[0].bm;
  for (Candidate const& c : transposed) rows = std::min(rows, c.bm);
  if (!candidates.empty() && m >= rows && detail::fills(m, rows)) {
    Estimate const given = ranked(candidates, m, n, k, sm_count, element_bytes, straddle)[0];
    auto const key = [](Estimate const& e) { return std::nearbyint(e.seconds * 1e9); };
    if (key(given) < key(flipped) || (key(given) == key(flipped) && given.compute <= flipped.compute)) {
      Choice c = choose(candidates, m, n, k, sm_count, element_bytes, straddle);
      c.reason += "; D^T's problem (" + dt_shape + ") would take " + detail::microseconds(flipped.seconds) + " us on " +
                  label(narrow[flipped.index]);
      return c;
    }
  }
  Choice c = choose(narrow, n, m, k, sm_count, element_bytes, straddle);
  Candidate const& picked = narrow[c.index];
  return {idx[c.index], true,
          "D^T = B^T A^T (" + dt_shape + ", D^T column-major: M = " + std::to_string(m) + " would fill " + std::to_string(m) +
              " of a tile's " + std::to_string(picked.bm) + " rows): " + c.reason};
}

}  // namespace tessel::gemm::dispatch
