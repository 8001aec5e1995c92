// The 128-byte swizzle the Hopper kernel writes its TMA-store buffers with (kernel::Sw128, the
// algebra's Swizzle<3,4,3> on byte offsets) against the pattern TMA and wgmma define for
// CU_TENSOR_MAP_SWIZZLE_128B: in each 1024-byte atom of 8 rows x 128 bytes, the 16-byte chunk j
// of row r is stored at chunk j ^ (r % 8), bytes inside a chunk in place.

#include <gtest/gtest.h>

#include <set>

#include "tessel/layout/swizzle.hpp"

namespace {
using Sw128 = tessel::Swizzle<3, 4, 3>;

long long tma_sw128(long long row, long long byte) {
  return (row / 8) * 1024 + (row % 8) * 128 + (((byte / 16) ^ (row % 8)) * 16) + byte % 16;
}
}  // namespace

TEST(Sm90Swizzle, AlgebraMatchesTheTmaPattern) {
  for (long long row = 0; row < 64; ++row)
    for (long long byte = 0; byte < 128; ++byte)
      ASSERT_EQ(Sw128::apply(row * 128 + byte), tma_sw128(row, byte)) << "row " << row << ", byte " << byte;
}

TEST(Sm90Swizzle, PermutesEachAtomAndSpreadsAWarpsRowsOverAllBanks) {
  for (long long atom = 0; atom < 8; ++atom) {
    std::set<long long> seen;
    for (long long x = atom * 1024; x < (atom + 1) * 1024; ++x) {
      long long y = Sw128::apply(x);
      EXPECT_EQ(y / 1024, atom);
      seen.insert(y);
    }
    EXPECT_EQ(seen.size(), 1024u);
  }
  // The epilogue's store pattern: 8 rows (lanes / 4) x 4 threads x 4 bytes at the same column
  // block hit 32 different 4-byte banks.
  for (long long col16 = 0; col16 < 8; ++col16) {
    std::set<long long> banks;
    for (long long lane = 0; lane < 32; ++lane) banks.insert(Sw128::apply((lane / 4) * 128 + col16 * 16 + 4 * (lane % 4)) / 4 % 32);
    EXPECT_EQ(banks.size(), 32u) << "column block " << col16;
  }
}

// The 64- and 32-byte swizzles (arch::SmemSwizzle<64> and <32>, for TMA's SWIZZLE_64B / _32B and
// wgmma's matching descriptors): in rows of 64 bytes, chunk j of row r goes to j ^ ((r / 2) % 4);
// in rows of 32 bytes, to j ^ ((r / 4) % 2); each 8-row atom (512 or 256 bytes) is permuted onto
// itself. tests/gpu/smem_swizzle_test.cu checks the same placement against TMA itself.
TEST(Sm90Swizzle, NarrowSwizzlesMatchTheirRowPatterns) {
  using Sw64 = tessel::Swizzle<2, 4, 3>;
  using Sw32 = tessel::Swizzle<1, 4, 3>;
  for (long long row = 0; row < 64; ++row) {
    for (long long byte = 0; byte < 64; ++byte)
      ASSERT_EQ(Sw64::apply(row * 64 + byte), row * 64 + (((byte / 16) ^ ((row / 2) % 4)) * 16) + byte % 16)
          << "64-byte rows: row " << row << ", byte " << byte;
    for (long long byte = 0; byte < 32; ++byte)
      ASSERT_EQ(Sw32::apply(row * 32 + byte), row * 32 + (((byte / 16) ^ ((row / 4) % 2)) * 16) + byte % 16)
          << "32-byte rows: row " << row << ", byte " << byte;
  }
  for (long long period : {512LL, 256LL}) {
    std::set<long long> seen;
    for (long long x = 0; x < period; ++x) seen.insert(period == 512 ? Sw64::apply(x) : Sw32::apply(x));
    EXPECT_EQ(seen.size(), std::size_t(period));
    EXPECT_EQ(*seen.rbegin(), period - 1);
  }
}
