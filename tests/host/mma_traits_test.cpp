// The MMA atoms' thread-value layouts against the PTX ISA's fragment formulas (restated
// independently in verify/mma_fragments.hpp), element by element, and the ldmatrix copies'
// row-address layouts against the fragments they must fill.

#include <gtest/gtest.h>

#include <set>

#include "tessel/atom/copy_ldmatrix.hpp"
#include "tessel/verify/mma_fragments.hpp"

using namespace tessel;
using namespace tessel::atom;

namespace {
// Layout index -> (row, col) of a column-major (rows x cols) tile.
struct RC { int row, col; };
RC split(int index, int rows) { return {index % rows, index / rows}; }

template <class Op, class Model>
void expect_layout_matches(Model model, int which /*0 A, 1 B, 2 C*/) {
  using T = MmaTraits<Op>;
  constexpr int M = tuple_element_t<0, typename T::Shape_MNK>::value;
  constexpr int N = tuple_element_t<1, typename T::Shape_MNK>::value;
  auto check = [&](auto layout, int rows, bool swap_rc) {
    int values = int(size(layout)) / 32;
    std::set<int> covered;
    for (int lane = 0; lane < 32; ++lane)
      for (int v = 0; v < values; ++v) {
        int idx = int(layout(lane, v));
        covered.insert(idx);
        RC rc = split(idx, rows);
        auto want = model(lane, v);
        // B's layout is (n,k) -> n + N*k; the PTX model gives B as (k, n).
        int row = swap_rc ? rc.col : rc.row, col = swap_rc ? rc.row : rc.col;
        ASSERT_EQ(row, want.row) << "lane " << lane << " value " << v;
        ASSERT_EQ(col, want.col) << "lane " << lane << " value " << v;
      }
    EXPECT_EQ(int(covered.size()), int(size(layout))) << "every element of the tile held exactly once";
  };
  if (which == 0) check(typename T::ALayout{}, M, false);
  if (which == 1) check(typename T::BLayout{}, N, true);
  if (which == 2) check(typename T::CLayout{}, M, false);
}
}  // namespace

TEST(MmaTraits, M16N8K8MatchesThePtxFragments) {
  using Op = arch::Mma16x8x8F32F16F16F32;
  expect_layout_matches<Op>(verify::mma_m16n8k8_a, 0);
  expect_layout_matches<Op>(verify::mma_m16n8k8_b, 1);
  expect_layout_matches<Op>(verify::mma_m16n8k8_c, 2);
}

TEST(MmaTraits, M16N8K16MatchesThePtxFragments) {
  for (int bf16 = 0; bf16 < 2; ++bf16) {
    auto run = [&](auto op) {
      using Op = decltype(op);
      expect_layout_matches<Op>(verify::mma_m16n8k16_a, 0);
      expect_layout_matches<Op>(verify::mma_m16n8k16_b, 1);
      expect_layout_matches<Op>(verify::mma_m16n8k16_c, 2);
    };
    if (bf16) run(arch::Mma16x8x16F32BF16BF16F32{});
    else run(arch::Mma16x8x16F32F16F16F32{});
  }
}

// ldmatrix.x4: lane l addresses row l % 8 of matrix l / 8; register j of every lane comes from
// matrix j. For the copy to be right, the element that register j delivers to a lane must be the
// element the mma fragment expects in that register's two values.
template <class TM, Operand Which, bool KMajor>
void expect_ldmatrix_feeds_fragment() {
  using Copy = LdmatrixCopy<TM, Which, KMajor>;
  using T = typename TM::Traits;
  constexpr bool is_a = Which == Operand::A;
  constexpr int AtomMN = is_a ? TM::kAtomM : TM::kAtomN, AtomK = TM::kAtomK;
  auto src = typename Copy::SrcLayout{};  // lane -> (mn + 16 k) of its row's first element
  auto tv = [&] { if constexpr (is_a) return typename T::ALayout{}; else return typename T::BLayout{}; }();
  constexpr int V = decltype(size(tv))::value / 32;
  // Register j of the block: which (instruction along MN, along K) and which value pair in it,
  // in the fragment-block order (values, then MN instructions, then K instructions).
  constexpr int blk_mn = is_a ? 1 : 16 / AtomMN, blk_k = 16 / AtomK;
  for (int lane = 0; lane < 32; ++lane)
    for (int j = 0; j < 4; ++j)
      for (int e = 0; e < 2; ++e) {
        int flat = 2 * j + e;  // index in the block's values
        int v = flat % V, i_mn = (flat / V) % blk_mn, i_k = flat / (V * blk_mn);
        ASSERT_LT(i_k, blk_k);
        int want = int(tv(lane, v));
        int want_mn = want % AtomMN + i_mn * AtomMN, want_k = want / AtomMN + i_k * AtomK;
        // What ldmatrix delivers: matrix j, whose row r (r = lane / 4 plain, 2*(lane%4)+e for
        // .trans) was addressed by lane 8j + r; element within the row as the fragment model says.
        auto fc = verify::ldmatrix_m8n8(lane, e, !KMajor);
        int row_lane = 8 * j + fc.row, elem = fc.col;
        int start = int(src(row_lane));
        int mn = start % 16, k = start / 16;
        if (KMajor) k += elem;  // a row runs along K
        else mn += elem;        // a row runs along MN
        ASSERT_EQ(mn, want_mn) << "lane " << lane << " register " << j << " half " << e;
        ASSERT_EQ(k, want_k) << "lane " << lane << " register " << j << " half " << e;
      }
}

TEST(LdmatrixCopy, RowAddressesFeedTheFragments) {
  using TM16 = TiledMma<arch::Mma16x8x16F32F16F16F32, Shape<_64, _64, _32>, Shape<_2, _2>>;
  using TM8 = TiledMma<arch::Mma16x8x8F32F16F16F32, Shape<_64, _64, _32>, Shape<_2, _2>>;
  expect_ldmatrix_feeds_fragment<TM16, Operand::A, true>();
  expect_ldmatrix_feeds_fragment<TM16, Operand::A, false>();
  expect_ldmatrix_feeds_fragment<TM16, Operand::B, true>();
  expect_ldmatrix_feeds_fragment<TM16, Operand::B, false>();
  expect_ldmatrix_feeds_fragment<TM8, Operand::A, true>();
  expect_ldmatrix_feeds_fragment<TM8, Operand::A, false>();
  expect_ldmatrix_feeds_fragment<TM8, Operand::B, true>();
  expect_ldmatrix_feeds_fragment<TM8, Operand::B, false>();
}
