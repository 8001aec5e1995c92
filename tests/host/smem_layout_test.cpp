// The swizzled shared-memory tiles: each ldmatrix phase (8 lanes, one 16-byte row each) must
// touch 8 different 16-byte bank slots, and each tile must be a bijection onto its storage.

#include <gtest/gtest.h>

#include <set>

#include "tessel/gemm/collective/smem_layouts.hpp"

using namespace tessel;

namespace {
template <int BMN, int BK, bool KMajor>
void expect_conflict_free() {
  auto l = gemm::collective::smem_layout<BMN, BK, KMajor, 1>();
  std::set<long long> image;
  for (int mn = 0; mn < BMN; ++mn)
    for (int k = 0; k < BK; ++k) image.insert((long long)l(mn, k, 0));
  ASSERT_EQ(image.size(), std::size_t(BMN) * BK) << "two elements share a shared-memory slot";
  // A phase reads 8 rows of 8 contiguous 16-bit elements: along K for a K-major tile (rows are
  // MN), along MN for an MN-major one (rows are K).
  int const rows = KMajor ? BMN : BK, chunks = (KMajor ? BK : BMN) / 8;
  for (int r0 = 0; r0 < rows; r0 += 8)
    for (int c = 0; c < chunks; ++c) {
      std::set<long long> slots;
      for (int r = r0; r < r0 + 8; ++r) {
        long long off = KMajor ? (long long)l(r, 8 * c, 0) : (long long)l(8 * c, r, 0);
        ASSERT_EQ(off % 8, 0) << "a row of 8 elements must start on a 16-byte boundary";
        slots.insert((off * 2 / 16) % 8);
      }
      ASSERT_EQ(slots.size(), 8u) << "rows " << r0 << "..+8, chunk " << c << ": bank conflict";
    }
}
}  // namespace

TEST(SmemLayouts, KMajorTilesAreConflictFreeForLdmatrix) {
  expect_conflict_free<128, 32, true>();
  expect_conflict_free<128, 64, true>();
  expect_conflict_free<256, 32, true>();
}

TEST(SmemLayouts, MNMajorTilesAreConflictFreeForLdmatrixTrans) {
  expect_conflict_free<128, 32, false>();
  expect_conflict_free<64, 64, false>();
}
