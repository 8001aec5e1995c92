#pragma once
// Grouped GEMM's tile walk, shared by the Hopper kernel (GroupedScheduler) and the Sm80 grouped
// kernel (sm80_gemm_grouped.hpp): G problems D_g = A_g B_g^T that share N and K and differ in M, the
// rows of each group read on the device (the host never sees them, so a call can be captured in
// a CUDA graph while the router writes the counts).
//
// Two layouts of the rows (the two that mixture-of-experts layers use):
//   contiguous: A (rows, K) and D (rows, N) hold the groups one after another; group g is rows
//               [ends[g-1], ends[g]) (ends[-1] = 0): torch._grouped_mm's `offs`;
//   masked:     A (rows, K, G) and D (rows, N, G) give each group a block of `rows` rows, of which
//               the first counts[g] are its problem (decode: one padded block per expert).
// B is (N, K, G) in both: group g's weights.
//
// The tiles of all groups form one sequence: group 0's tiles_m(0) x tiles_n tiles, then group
// 1's, ...; inside a group the grouped raster of tile_scheduler.hpp, bands of kBand row tiles
// with N inside a band, so the CTAs resident at one time share one band of the group's A and a
// few of B's column panels in L2 (a group of 17k tokens has 142 MB of A at K = 4096: walking all
// of its M first read it from HBM once per column panel). A persistent CTA visits ids in
// increasing order, so a cursor that only moves forward finds each tile's group with one read
// of `group_m` per group passed.
//
// Rows read past a group's end (a tile that straddles two groups, in the contiguous layout) are
// computed and not stored: each tile carries the end of its group's rows, and the epilogue clips
// there. Ends are clamped to [0, rows] and to the previous end, so offsets that run backwards or
// past A give empty groups, never a store outside D.

#include "tessel/gemm/kernel/tile_scheduler.hpp"
#include "tessel/layout/config.hpp"

namespace tessel::gemm::kernel {

enum class GroupedLayout : int { kContiguous = 0, kMasked = 1 };

inline char const* to_string(GroupedLayout l) { return l == GroupedLayout::kMasked ? "masked" : "contiguous"; }

/// The groups of one grouped launch, as the kernel's parameter block carries them.
struct Groups {
  int const* group_m = nullptr;  // device: ends (contiguous) or counts (masked), one int per group
  int count = 0;                 // G; 0: not a grouped launch
  int layout = 0;                // GroupedLayout
  int rows = 0;                  // contiguous: rows of A and D; masked: rows of one group's block
  int tiles_n = 0;               // column tiles of every group

  /// Tiles of all groups can never exceed this (the host sizes the persistent grid with it):
  /// contiguous, each of the G - 1 boundaries splits at most one row tile in two.
  TESSEL_HD constexpr int tile_bound(int bm) const {
    int const tiles_m = (rows + bm - 1) / bm;
    return (layout == int(GroupedLayout::kMasked) ? count * tiles_m : tiles_m + count - 1) * tiles_n;
  }
};

/// Where one tile of a grouped launch lies.
struct GroupedTile {
  int m0 = 0;     // first row of the tile in A and D
  int m_end = 0;  // rows at or past this belong to another group (or to no one): not stored
  int n0 = 0;     // first column
  int l = 0;      // batch coordinate of A and D (masked: the group; contiguous: 0)
  int group = 0;  // batch coordinate of B
};

/// The forward-only walk over the tiles of all groups (see the file comment).
/// @pre ids passed to seek() do not decrease
template <int BM, int BN>
struct GroupCursor {
  static constexpr int kBand = 8;  // row tiles per band of the raster inside a group
  Groups const* groups;
  int g = -1;        // the current group
  int first = 0;     // id of its first tile
  int tiles = 0;     // its tile count
  int tiles_m = 1;   // its row tiles
  int begin = 0, end = 0;

  TESSEL_HD explicit GroupCursor(Groups const& gs) : groups(&gs) {}

  /// The tile with this id; false once the id is past the last group's tiles.
  TESSEL_HD bool seek(int id, GroupedTile& t) {
    while (id >= first + tiles) {
      first += tiles;
      if (++g >= groups->count) return false;
      load(g);
    }
    TileCoord const c = GroupedRaster{tiles_m, groups->tiles_n, tiles_m < kBand ? tiles_m : kBand}.tile(id - first);
    bool const masked = groups->layout == int(GroupedLayout::kMasked);
    t = {begin + c.m * BM, end, c.n * BN, masked ? g : 0, g};
    return true;
  }

 private:
  TESSEL_HD static int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
  TESSEL_HD void load(int group) {
    int const rows = groups->rows;
    if (groups->layout == int(GroupedLayout::kMasked)) {
      begin = 0;
      end = clamp(groups->group_m[group], 0, rows);
    } else {
      begin = group == 0 ? 0 : end;  // the previous group's clamped end
      end = clamp(groups->group_m[group], begin, rows);
    }
    tiles_m = (end - begin + BM - 1) / BM;
    tiles = tiles_m * groups->tiles_n;
  }
};

}  // namespace tessel::gemm::kernel
