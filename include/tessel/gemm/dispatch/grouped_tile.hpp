#pragma once
// Which tile a grouped GEMM runs on Hopper, in one place for tessel::gemm::grouped_gemm and
// tessel.grouped_gemm (python/tessel/grouped.py asks through tessel._core): 128 x 256 where its
// tiles fill the GPU at least twice over (the widest tile reads A least often), else 128 x 128
// (twice the tiles, so that small token counts still spread over the SMs). Host code.

#include <cstdint>

namespace tessel::gemm::dispatch {

/// The upper bound on 128 x 256 tiles of a grouped problem: `rows` of A (contiguous: all groups';
/// masked: one block's), N columns, G groups. Contiguous: each of the G - 1 boundaries between
/// groups splits at most one row tile in two; masked: every block is full at most.
inline std::int64_t grouped_wide_tiles(std::int64_t rows, std::int64_t n, std::int64_t groups, bool masked) {
  std::int64_t const tiles_m = (rows + 127) / 128;
  return (masked ? tiles_m * groups : tiles_m + groups - 1) * ((n + 255) / 256);
}

/// The tile's N: 256 or 128 (see the file comment).
inline int grouped_tile_n(std::int64_t rows, std::int64_t n, std::int64_t groups, bool masked, int sm_count) {
  return grouped_wide_tiles(rows, n, groups, masked) >= 2 * std::int64_t(sm_count) ? 256 : 128;
}

}  // namespace tessel::gemm::dispatch
