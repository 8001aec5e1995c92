// Tensor views, tiling and partitioning, and swizzled layouts, on host memory.

#include <gtest/gtest.h>

#include <numeric>
#include <set>
#include <vector>

#include "tessel/layout.hpp"

using namespace tessel;

TEST(Tensor, LocalTileMatchesHandIndexing) {
  std::vector<int> a(256 * 128);
  std::iota(a.begin(), a.end(), 0);
  auto gA = make_tensor(make_gmem_ptr(a.data()), make_layout(make_shape(256, 128), LayoutRight{}));  // (M,K)
  for (int tm = 0; tm < 16; tm += 5)
    for (int tk = 0; tk < 8; tk += 3) {
      auto tile = local_tile(gA, make_shape(_16{}, _16{}), make_coord(tm, tk));  // (16,16)
      for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 16; ++c) ASSERT_EQ(tile(r, c), (tm * 16 + r) * 128 + tk * 16 + c);
    }
  auto row = local_tile(gA, make_shape(_16{}, _16{}), make_coord(3, _));  // (16,16,k)
  EXPECT_EQ(int(size<2>(row.layout())), 8);
  EXPECT_EQ(row(5, 12, 2), (3 * 16 + 5) * 128 + 2 * 16 + 12);
}

TEST(Tensor, LocalPartitionGivesEachElementToExactlyOneThread) {
  std::vector<int> a(64 * 32);
  std::iota(a.begin(), a.end(), 0);
  auto tile = make_tensor(a.data(), make_layout(make_shape(_64{}, _32{}), LayoutRight{}));  // (64,32)
  auto threads = make_layout(make_shape(_16{}, _8{}), LayoutRight{});                       // 128 threads
  std::vector<int> owner(a.size(), -1);
  for (int t = 0; t < 128; ++t) {
    auto mine = local_partition(tile, threads, t);  // (4,4)
    static_assert(decltype(size(mine))::value == 16);
    for (int i = 0; i < 16; ++i) {
      int v = mine[i];
      ASSERT_EQ(owner[v], -1) << "element " << v << " given twice";
      owner[v] = t;
    }
  }
  for (std::size_t v = 0; v < owner.size(); ++v) ASSERT_NE(owner[v], -1) << "element " << v << " given to nobody";
  // Thread 9 of a row-major 16x8 grid sits at (1,1): it owns rows 1,17,33,49 and columns 1,9,17,25.
  auto t9 = local_partition(tile, threads, 9);
  EXPECT_EQ(t9(0, 0), 1 * 32 + 1);
  EXPECT_EQ(t9(1, 2), 17 * 32 + 17);
}

TEST(Tensor, RegisterTensorOwnsStorageAndStaticLayoutCostsNothing) {
  auto frag = make_tensor<float>(make_layout(make_shape(_4{}, _2{})));
  static_assert(sizeof(frag) == 8 * sizeof(float));
  for (int i = 0; i < 8; ++i) frag[i] = float(i);
  EXPECT_EQ(frag(1, 1), 5.f);
  auto col = frag(_, 1);  // a view into the same registers
  col(2) = 42.f;
  EXPECT_EQ(frag[6], 42.f);
}

TEST(Swizzle, IsABijectionOnEachBlock) {
  using Sw = Swizzle<3, 3, 3>;
  std::set<long long> seen;
  for (long long x = 0; x < 512; ++x) seen.insert(Sw::apply(x));
  EXPECT_EQ(seen.size(), 512u);
  EXPECT_EQ(*seen.rbegin(), 511);
  static_assert(decltype(Sw{}(_64{}))::value == 72);  // static offsets stay static
}

// A warp reading an 8x64 bf16 tile with ldmatrix loads one 16-byte chunk from each of 8 rows
// per phase; with the 128-byte swizzle those 8 chunks must sit in 8 different bank groups.
TEST(Swizzle, Sw333MakesColumnOfChunksConflictFree) {
  auto smem = composition(Swizzle<3, 3, 3>{}, make_layout(make_shape(_8{}, _64{}), LayoutRight{}));  // (8,64) bf16
  for (int chunk = 0; chunk < 8; ++chunk) {
    std::set<long long> groups;
    for (int r = 0; r < 8; ++r) {
      long long byte = 2 * (long long)smem(r, chunk * 8);
      groups.insert((byte / 16) % 8);  // which 16-byte slot of the 128-byte bank window
    }
    EXPECT_EQ(groups.size(), 8u) << "chunk column " << chunk;
  }
  // Without the swizzle every row's chunk lands in the same slot: the conflict the swizzle removes.
  auto plain = make_layout(make_shape(_8{}, _64{}), LayoutRight{});
  std::set<long long> plain_groups;
  for (int r = 0; r < 8; ++r) plain_groups.insert((2 * (long long)plain(r, 0) / 16) % 8);
  EXPECT_EQ(plain_groups.size(), 1u);
}

TEST(Swizzle, ComposedLayoutSlicesLikeTheFunction) {
  auto smem = composition(Swizzle<2, 3, 3>{}, make_layout(make_shape(_16{}, _32{}), LayoutRight{}));
  EXPECT_EQ(to_string(smem), "Sw<2,3,3> o _0 o (_16,_32):(_32,_1)");
  for (int r = 0; r < 16; ++r) {
    auto row = smem(r, _);
    for (int c = 0; c < 32; ++c) ASSERT_EQ((long long)row(c), (long long)smem(r, c));
  }
  auto tiled = tile_to_shape(smem, make_shape(_64{}, _32{}));
  for (int r = 0; r < 64; ++r) ASSERT_EQ((long long)tiled(r, 3), 512 * (r / 16) + (long long)smem(r % 16, 3));
}
