// The small-N kernel's register packing (kernel/sm80_gemm_small_n.hpp), checked against the PTX
// fragment model (verify/mma_fragments.hpp): a lane loads 8 consecutive k of rows g and g+8 (x
// and y, 4 words each) and of B's column g; mma 0 takes words {x0, y0, x1, y1} and {b0, b1},
// mma 1 takes {x2, y2, x3, y3} and {b2, b3}. For the two mma to compute the 32-deep dot product,
// every logical (row, k) of A must hold physical (row, pi(k)) and every logical (k, n) of B
// physical (pi(k), n) with the same pi, and pi must cover the block's 32 k exactly once.

#include <gtest/gtest.h>

#include <array>
#include <map>
#include <set>

#include "tessel/verify/mma_fragments.hpp"

using tessel::verify::mma_m16n8k16_a;
using tessel::verify::mma_m16n8k16_b;
using tessel::verify::mma_m16n8k16_c;

namespace {

// Element e (0..1) of word w (0..3) of a lane's 16-byte load at k offset 8t: physical k 8t + 2w + e.
constexpr int loaded_k(int lane, int word, int e) { return 8 * (lane % 4) + 2 * word + e; }

struct Physical {
  int row, k;
};

// What the kernel puts in A register r of mma h: words of x (row g) or y (row g + 8).
Physical a_source(int lane, int h, int reg, int e) {
  const int g = lane / 4;
  const bool upper = reg == 1 || reg == 3;        // {x, y, x, y}
  const int word = 2 * h + (reg >= 2 ? 1 : 0);  // {w, w, w+1, w+1} with w = 2h
  return {g + (upper ? 8 : 0), loaded_k(lane, word, e)};
}

// B register r of mma h: word 2h + r of the lane's 16 bytes of column g.
Physical b_source(int lane, int h, int reg, int e) { return {lane / 4 /* column */, loaded_k(lane, 2 * h + reg, e)}; }

}  // namespace

TEST(SmallNFragments, BothMmaComputeTheFullDotProduct) {
  std::set<int> covered;  // (mma h, physical k)
  for (int h = 0; h < 2; ++h) {
    std::map<int, int> pi_a, pi_b;  // logical k -> physical k, from A and from B
    for (int lane = 0; lane < 32; ++lane) {
      for (int i = 0; i < 8; ++i) {  // A: 8 elements, element i in register i / 2
        const auto logical = mma_m16n8k16_a(lane, i);
        const Physical src = a_source(lane, h, i / 2, i % 2);
        ASSERT_EQ(src.row, logical.row) << "lane " << lane << " A element " << i << ": rows are not permuted";
        auto [it, fresh] = pi_a.emplace(logical.col, src.k);
        ASSERT_EQ(it->second, src.k) << "mma " << h << ": logical k " << logical.col << " is physical k " << it->second
                                     << " in one row and " << src.k << " in another";
        (void)fresh;
      }
      for (int i = 0; i < 4; ++i) {  // B: 4 elements
        const auto logical = mma_m16n8k16_b(lane, i);
        const Physical src = b_source(lane, h, i / 2, i % 2);
        ASSERT_EQ(src.row, logical.col) << "lane " << lane << " B element " << i << ": column";
        auto [it, fresh] = pi_b.emplace(logical.row, src.k);
        ASSERT_EQ(it->second, src.k) << "mma " << h << ": B's logical k " << logical.row << " is two physical k";
        (void)fresh;
      }
    }
    ASSERT_EQ(pi_a.size(), 16u);
    ASSERT_EQ(pi_a, pi_b) << "mma " << h << ": A and B permute k differently";
    for (auto [logical, physical] : pi_a) {
      EXPECT_TRUE(covered.insert(physical).second) << "physical k " << physical << " summed twice";
      (void)logical;
    }
  }
  EXPECT_EQ(covered.size(), 32u);  // the block's 32 k, each once
  EXPECT_EQ(*covered.begin(), 0);
  EXPECT_EQ(*covered.rbegin(), 31);
}

TEST(SmallNFragments, AccumulatorToOutput) {
  // The epilogue writes acc[4q + 2h + i] of lane (g, t) to D(row0 + 8h, 8q + 2t + i), row0 the
  // warp's first row + g: the m16n8 C fragment of n8 block q.
  for (int lane = 0; lane < 32; ++lane)
    for (int h = 0; h < 2; ++h)
      for (int i = 0; i < 2; ++i) {
        const auto c = mma_m16n8k16_c(lane, 2 * h + i);
        EXPECT_EQ(c.row, lane / 4 + 8 * h);
        EXPECT_EQ(c.col, 2 * (lane % 4) + i);
      }
}

TEST(SmallNFragments, StagedBVectorIsWhatTheLaneReads) {
  // stage_b_chunk writes vector v = (j * N8 + q) * 32 + l with B(8q + l/4, 32j + 8(l%4) ..+8);
  // lane l of the mma for block j, n8 block q reads vector (j * N8 + q) * 32 + l.
  for (int n8 : {1, 2, 4, 8})
    for (int j = 0; j < 8; ++j)
      for (int q = 0; q < n8; ++q)
        for (int lane = 0; lane < 32; ++lane) {
          const int v = (j * n8 + q) * 32 + lane;
          const int l = v % 32, qq = (v / 32) % n8, jj = v / (32 * n8);
          EXPECT_EQ(l, lane);
          EXPECT_EQ(qq, q);
          EXPECT_EQ(jj, j);
          // Column 8q + g, k 32j + 8t: the same 8 k the lane loaded of its A rows.
          EXPECT_EQ(8 * qq + l / 4, 8 * q + lane / 4);
          EXPECT_EQ(32 * jj + 8 * (l % 4), 32 * j + loaded_k(lane, 0, 0));
        }
}
