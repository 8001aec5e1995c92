#pragma once
// Which (tile, k-range) pieces of a tiled GEMM each persistent CTA computes.
//
// Notation. T output tiles (tiles_m * tiles_n * batches), each the sum of K k-tile iterations
// ("MAC iterations"), P persistent CTAs. A work unit is {tile, [k_begin, k_end)}; the units of a
// tile partition [0, K), and each unit knows its position `order` among them (ascending k_begin)
// and their number `units`. A unit with units == 1 owns its tile outright; the others meet in the
// fixup (stream_k_fixup.hpp), which never makes one CTA wait for another.
//
//   DataParallel  one unit per tile, tile t on CTA t mod P.          busiest CTA: ceil(T/P) * K
//   SplitK(s)     s units per tile, K cut into s slices that differ by at most one k-tile;
//                 unit u = t*s + j on CTA u mod P.                   busiest CTA: ceil(sT/P) * ceil(K/s)
//   StreamK       the I = T_sk * K iterations of the stream-K tiles laid end to end, CTA c taking
//                 [b(c), b(c+1)) with b(c) = c*q + min(c, r), q = floor(I/P'), r = I mod P':
//                 every share is q or q+1, and a share crosses tile boundaries freely.
//                 Hybrid (the default): the floor(T/P) whole waves stay data-parallel and only the
//                 last partial wave's T mod P tiles are spread, so stream-K only fixes the tail.
//                 P' = min(P, floor(I / min_unit_k_tiles)) keeps every share at least
//                 min_unit_k_tiles deep: fewer CTAs take part rather than each taking a sliver.
//
// Everything here is plain integer arithmetic on a plain struct, usable on the host (the tests,
// the handle's choice) and in a kernel (each CTA asks for its own units).

#include <cstdint>
#if !defined(__CUDACC_RTC__)
#include <string>
#endif

#include "tessel/layout/config.hpp"

namespace tessel::gemm::kernel {

enum class DecompositionMode {
  Heuristic,     // chosen from the shape and the CTA count (choose_decomposition)
  DataParallel,  // one CTA per output tile
  SplitK,        // a fixed number of K slices per tile
  StreamK,       // equal shares of all MAC iterations (with the data-parallel hybrid by default)
};

/// How the units of a split tile combine their partial sums (the split-K / stream-K fixup).
enum class ReductionMode {
  kDeterministic,     // in k order, whoever arrives last: the same bits on every run (default)
  kNondeterministic,  // float atomics into one sum: less traffic, run-to-run differences in the low bits
};

TESSEL_HD constexpr const char* to_string(DecompositionMode mode) {
  switch (mode) {
    case DecompositionMode::Heuristic: return "heuristic";
    case DecompositionMode::DataParallel: return "data-parallel";
    case DecompositionMode::SplitK: return "split-K";
    case DecompositionMode::StreamK: return "stream-K";
  }
  return "unknown";
}

/// The tile grid of one problem: output tiles and the k-tile depth of each.
struct TileGrid {
  int tiles_m = 1, tiles_n = 1, batches = 1;
  int k_tiles = 1;
  TESSEL_HD constexpr int tile_count() const { return tiles_m * tiles_n * batches; }
};

struct TileIndex3 {
  int m = 0, n = 0, batch = 0;
};

struct WorkUnit {
  int tile = 0;     // linear tile index, m fastest, then n, then batch
  int k_begin = 0;  // first k-tile of the unit
  int k_end = 0;    // one past its last
  int order = 0;    // position among the tile's units, by ascending k_begin
  int units = 1;    // how many units cover the tile
  TESSEL_HD constexpr bool whole_tile() const { return units == 1; }
  TESSEL_HD constexpr int k_tiles() const { return k_end - k_begin; }
};

struct DecompositionOptions {
  DecompositionMode mode = DecompositionMode::Heuristic;  // anything but Heuristic is obeyed
  int splits = 0;              // SplitK: slices per tile; 0 = the heuristic's count
  bool hybrid = true;          // StreamK: whole waves stay data-parallel
  int min_unit_k_tiles = 4;    // StreamK: the smallest share a CTA is given
  int fixup_cost_k_tiles = 2;  // heuristic: writing or reading one partial tile, in k-tile steps
  int max_splits = 16;         // heuristic: the deepest split-K it considers
  // false: the units of a tile add their partials into one shared sum with float atomics, and
  // the last to arrive reads that sum alone: less fixup traffic, but the order of the additions
  // (and so the low bits of D) changes from run to run. Only the Hopper kernel offers it.
  bool deterministic = true;
};

/// The decomposition itself: O(1) queries per CTA and unit, no tables.
struct Decomposition {
  DecompositionMode mode = DecompositionMode::DataParallel;  // resolved: never Heuristic
  int tiles_m = 1, tiles_n = 1;
  int tiles = 0;    // T
  int k_tiles = 1;  // K
  int grid = 1;     // CTAs to launch (<= the CTA count asked for)
  int splits = 1;   // SplitK: s
  // StreamK: tiles [0, sk_tiles) are spread over CTAs [0, sk_ctas); tiles [sk_tiles, T) are
  // data-parallel over all `grid` CTAs, after each CTA's stream-K share.
  int sk_tiles = 0;
  int sk_ctas = 0;
  std::int64_t sk_share = 0;  // q
  int sk_extra = 0;           // r: CTAs [0, r) take q+1 iterations
  int slots_per_tile = 1;     // upper bound on units per tile: workspace slots per fixup tile
  bool deterministic = true;  // false: one shared sum per tile, added to with atomics (slots_per_tile 1)

  // ---- Per CTA ------------------------------------------------------------------------------
  TESSEL_HD constexpr int unit_count(int cta) const {
    if (cta < 0 || cta >= grid) return 0;
    if (mode == DecompositionMode::SplitK) return strided_count(tiles * splits, cta);
    return sk_unit_count(cta) + strided_count(tiles - sk_tiles, cta);
  }

  /// Unit i (0 <= i < unit_count(cta)) of CTA `cta`, in the order the CTA computes them.
  TESSEL_HD constexpr WorkUnit unit(int cta, int i) const {
    if (mode == DecompositionMode::SplitK) return split_k_unit(cta, i);
    int sk = sk_unit_count(cta);
    if (i < sk) return sk_unit(cta, i);
    return {sk_tiles + cta + (i - sk) * grid, 0, k_tiles, 0, 1};
  }

  /// unit(cta, i) of a SplitK decomposition, for a kernel that only ever runs split-K (no
  /// stream-K arithmetic compiled in).
  TESSEL_HD constexpr WorkUnit split_k_unit(int cta, int i) const {
    int u = cta + i * grid;
    int tile = u / splits, j = u % splits;
    int base = k_tiles / splits, rem = k_tiles % splits;
    int kb = j * base + (j < rem ? j : rem);
    return {tile, kb, kb + base + (j < rem ? 1 : 0), j, splits};
  }

  // ---- Fixup bookkeeping ------------------------------------------------------------------------
  /// Tiles that may have more than one unit, each with a counter and `slots_per_tile` slots.
  TESSEL_HD constexpr int fixup_tiles() const {
    if (mode == DecompositionMode::SplitK) return splits > 1 ? tiles : 0;
    return mode == DecompositionMode::StreamK ? sk_tiles : 0;
  }
  /// Index of a partial unit's tile among the fixup tiles: its counter. Stream-K tiles come
  /// first in the tile order and split-K splits every tile, so both are the tile itself.
  TESSEL_HD constexpr int fixup_index(int tile) const { return tile; }
  /// The workspace slot of unit (tile, order): one per (tile, order), never shared; with the
  /// atomic reduction, the tile's one shared sum.
  TESSEL_HD constexpr int slot(int tile, int order) const {
    return fixup_index(tile) * slots_per_tile + (deterministic ? order : 0);
  }

  TESSEL_HD constexpr TileIndex3 coord(int tile) const {
    int per_batch = tiles_m * tiles_n;
    int within = tile % per_batch;
    return {within % tiles_m, within / tiles_m, tile / per_batch};
  }

  // ---- Stream-K arithmetic ------------------------------------------------------------------
  /// b(c): first iteration of CTA c's share (c in [0, sk_ctas]).
  TESSEL_HD constexpr std::int64_t sk_begin(int c) const { return c * sk_share + (c < sk_extra ? c : sk_extra); }
  /// The CTA whose share holds iteration g: the inverse of b.
  TESSEL_HD constexpr int sk_owner(std::int64_t g) const {
    std::int64_t big = std::int64_t(sk_extra) * (sk_share + 1);  // iterations in the q+1 shares
    if (g < big) return int(g / (sk_share + 1));
    return int(sk_extra + (g - big) / sk_share);
  }
  TESSEL_HD constexpr int sk_unit_count(int cta) const {
    if (cta >= sk_ctas) return 0;
    std::int64_t b = sk_begin(cta), e = sk_begin(cta + 1);
    return int((e - 1) / k_tiles - b / k_tiles + 1);
  }
  TESSEL_HD constexpr WorkUnit sk_unit(int cta, int i) const {
    std::int64_t b = sk_begin(cta), e = sk_begin(cta + 1);
    int tile = int(b / k_tiles) + i;
    std::int64_t t0 = std::int64_t(tile) * k_tiles;  // the tile's first iteration
    int kb = b > t0 ? int(b - t0) : 0;
    int ke = e < t0 + k_tiles ? int(e - t0) : k_tiles;
    int first = sk_owner(t0), last = sk_owner(t0 + k_tiles - 1);
    return {tile, kb, ke, cta - first, last - first + 1};
  }

 private:
  // Items [0, count) dealt round-robin over `grid` CTAs: how many CTA `cta` gets.
  TESSEL_HD constexpr int strided_count(int count, int cta) const { return cta < count ? (count - 1 - cta) / grid + 1 : 0; }
};

namespace detail {
TESSEL_HD constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
TESSEL_HD constexpr int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

// Stream-K over tiles [0, sk_tiles) with up to `ctas` CTAs; dp_tiles data-parallel tiles follow.
TESSEL_HD constexpr Decomposition make_stream_k(Decomposition d, int sk_tiles, int ctas, int min_unit) {
  d.mode = DecompositionMode::StreamK;
  d.sk_tiles = sk_tiles;
  int dp_tiles = d.tiles - sk_tiles;
  if (sk_tiles == 0) {
    d.grid = clamp(dp_tiles, 1, ctas);
    return d;
  }
  std::int64_t iters = std::int64_t(sk_tiles) * d.k_tiles;
  std::int64_t by_min = iters / (min_unit < 1 ? 1 : min_unit);
  d.sk_ctas = int(by_min < 1 ? 1 : by_min < ctas ? by_min : ctas);
  d.sk_share = iters / d.sk_ctas;
  d.sk_extra = int(iters % d.sk_ctas);
  // A tile's K iterations [a, a+K) meet one share per share start in (a, a+K), plus one; starts
  // are at least q apart, so at most ceil((K-1)/q) + 1 units per tile.
  std::int64_t most = ceil_div(d.k_tiles - 1, d.sk_share) + 1;
  d.slots_per_tile = int(most < d.sk_ctas ? most : d.sk_ctas);
  d.grid = dp_tiles > 0 ? ctas : d.sk_ctas;
  return d;
}
}  // namespace detail

/// The decomposition for an explicit mode. `mode == Heuristic` resolves through
/// estimate_costs() as choose_decomposition() does, without the reason.
TESSEL_HD constexpr Decomposition make_decomposition(TileGrid g, int ctas, DecompositionOptions o);

/// Estimated k-tile steps of the busiest CTA in each mode (the heuristic's cost model):
///   DataParallel  ceil(T/P) K
///   SplitK(s)     ceil(sT/P) (ceil(K/s) + c s)        each unit may write 1 and read s-1 partials
///   StreamK       ceil(T_dp/P) K + ceil(I/P') + c (2 + S - 1)
///                 a share writes at most two partial units; a last arriver reads up to S-1 more
/// with c = fixup_cost_k_tiles and S = slots_per_tile. split-K takes the best s in [2, max_splits].
struct DecompositionCosts {
  std::int64_t data_parallel = 0, split_k = 0, stream_k = 0;
  int best_splits = 1;
};

namespace detail {
TESSEL_HD constexpr Decomposition make_explicit(TileGrid g, int ctas, DecompositionMode mode, int splits,
                                                const DecompositionOptions& o) {
  Decomposition d;
  d.tiles_m = g.tiles_m < 1 ? 1 : g.tiles_m;
  d.tiles_n = g.tiles_n < 1 ? 1 : g.tiles_n;
  d.tiles = d.tiles_m * d.tiles_n * (g.batches < 1 ? 1 : g.batches);
  d.k_tiles = g.k_tiles < 1 ? 1 : g.k_tiles;
  ctas = ctas < 1 ? 1 : ctas;
  if (mode == DecompositionMode::SplitK) {
    d.mode = DecompositionMode::SplitK;
    d.splits = clamp(splits, 1, d.k_tiles);
    d.slots_per_tile = d.splits;
    d.grid = clamp(d.tiles * d.splits, 1, ctas);
    return d;
  }
  if (mode == DecompositionMode::StreamK) {
    int sk_tiles = d.tiles;                            // pure: everything
    if (o.hybrid && d.tiles >= ctas) sk_tiles = d.tiles % ctas;  // hybrid: the last partial wave
    return make_stream_k(d, sk_tiles, ctas, o.min_unit_k_tiles);
  }
  d.mode = DecompositionMode::DataParallel;
  d.grid = clamp(d.tiles, 1, ctas);
  return d;
}
}  // namespace detail

TESSEL_HD constexpr DecompositionCosts estimate_costs(TileGrid g, int ctas, DecompositionOptions o) {
  DecompositionCosts c;
  ctas = ctas < 1 ? 1 : ctas;
  const std::int64_t T = g.tile_count() < 1 ? 1 : g.tile_count(), K = g.k_tiles < 1 ? 1 : g.k_tiles;
  const std::int64_t fix = o.fixup_cost_k_tiles;
  c.data_parallel = detail::ceil_div(T, ctas) * K;
  c.split_k = c.data_parallel;
  int max_s = o.max_splits < K ? o.max_splits : int(K);
  for (int s = 2; s <= max_s; ++s) {
    std::int64_t cost = detail::ceil_div(s * T, ctas) * (detail::ceil_div(K, s) + fix * s);
    if (cost < c.split_k || c.best_splits == 1) c.split_k = cost, c.best_splits = s;
  }
  Decomposition sk = detail::make_explicit(g, ctas, DecompositionMode::StreamK, 0, o);
  c.stream_k = detail::ceil_div(sk.tiles - sk.sk_tiles, sk.grid) * K;
  if (sk.sk_tiles > 0) c.stream_k += sk.sk_share + (sk.sk_extra ? 1 : 0) + fix * (1 + sk.slots_per_tile);
  return c;
}

namespace detail {
// Another mode must beat data-parallel by 10% of the estimate: the model ignores the epilogue,
// L2 effects and the workspace traffic, so a near-tie goes to the simplest schedule.
TESSEL_HD constexpr bool clearly_better(std::int64_t cost, std::int64_t dp) { return 10 * cost <= 9 * dp; }

// Between split-K and stream-K, stream-K must also be clearly better than split-K: its units
// cross tile boundaries, so a tile meets more partial units and its last arriver reads more of
// them. Measured on the H200 at 1024x1024x32768 (64 tiles of 512 k-tiles, 132 SMs), where the
// model scores them 259 and 260: split-K x2 ran at 634 TFLOP/s, stream-K at 347 (bench/NOTES.md).
TESSEL_HD constexpr DecompositionMode pick(const DecompositionCosts& c) {
  bool sk = clearly_better(c.stream_k, c.data_parallel);
  bool split = c.best_splits > 1 && clearly_better(c.split_k, c.data_parallel);
  if (split && (!sk || !clearly_better(c.stream_k, c.split_k))) return DecompositionMode::SplitK;
  if (sk) return DecompositionMode::StreamK;
  return DecompositionMode::DataParallel;
}
}  // namespace detail

TESSEL_HD constexpr Decomposition make_decomposition(TileGrid g, int ctas, DecompositionOptions o) {
  DecompositionMode mode = o.mode;
  int splits = o.splits;
  if (mode == DecompositionMode::Heuristic || (mode == DecompositionMode::SplitK && splits <= 0)) {
    DecompositionCosts c = estimate_costs(g, ctas, o);
    if (mode == DecompositionMode::Heuristic) mode = detail::pick(c);
    if (splits <= 0) splits = c.best_splits;
  }
  Decomposition d = detail::make_explicit(g, ctas, mode, splits, o);
  if (!o.deterministic) {
    d.deterministic = false;
    d.slots_per_tile = 1;  // the shared sum
  }
  return d;
}

#if !defined(__CUDACC_RTC__)
/// The heuristic's choice and one line saying why, for a kernel's report.
struct DecompositionChoice {
  DecompositionMode mode = DecompositionMode::DataParallel;
  int splits = 1;
  std::string reason;
};

/// Picks the mode from the shape and the CTA count; an explicit `o.mode` wins (and the reason
/// says it was requested). make_decomposition(g, ctas, o) builds the same decomposition.
inline DecompositionChoice choose_decomposition(TileGrid g, int ctas, DecompositionOptions o = {}) {
  const DecompositionCosts c = estimate_costs(g, ctas, o);
  const Decomposition d = make_decomposition(g, ctas, o);
  DecompositionChoice out{d.mode, d.splits, {}};
  auto num = [](std::int64_t v) { return std::to_string(v); };
  const int T = g.tile_count();
  const int P = ctas < 1 ? 1 : ctas;
  // Waves and the fill of the last one, in percent.
  const std::int64_t waves = detail::ceil_div(T, P);
  const std::int64_t fill = (std::int64_t(T) * 100) / (waves * P);
  std::string mode = to_string(d.mode);
  if (d.mode == DecompositionMode::SplitK) mode += " x" + num(d.splits);
  if (d.mode == DecompositionMode::StreamK)
    mode += d.sk_tiles < d.tiles ? " (hybrid: " + num(d.sk_tiles) + " tail tiles over " + num(d.sk_ctas) + " CTAs)"
                                 : " (" + num(d.sk_tiles) + " tiles over " + num(d.sk_ctas) + " CTAs)";
  if (!d.deterministic && d.fixup_tiles() > 0) mode += ", non-deterministic (atomic) reduction";
  std::string why = num(T) + " tiles of " + num(g.k_tiles) + " k-tiles on " + num(P) + " CTAs: " + num(waves) +
                    (waves == 1 ? " wave, " : " waves, ") + num(fill) + "% full; busiest CTA ~" + num(c.data_parallel) +
                    " k-tile steps data-parallel, " + num(c.split_k) + " split-K x" + num(c.best_splits) + ", " +
                    num(c.stream_k) + " stream-K";
  if (o.mode != DecompositionMode::Heuristic) {
    out.reason = mode + " (requested); " + why;
  } else {
    out.reason = mode + ": " + why + (d.mode == DecompositionMode::DataParallel ? " (others not 10% better)" : "");
  }
  return out;
}
#endif

}  // namespace tessel::gemm::kernel
