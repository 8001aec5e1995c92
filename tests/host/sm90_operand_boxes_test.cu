// The Hopper mainloop's operand geometry (kernel/sm90_config.hpp's OperandBoxes): the wgmma
// descriptors of a K tile are one base plus constants, so mma_step must be the difference of
// mma_offset for every first row a consumer can have (a multiple of 64), both majors, every tile
// height the kernels take; and the descriptor's 14-bit start-address field (16-byte units) must
// cover the shared memory, or advancing it would carry into the next field.

#include <gtest/gtest.h>

#include "tessel/gemm/kernel/sm90_config.hpp"

namespace {
using tessel::arch::Major;
using namespace tessel::gemm::kernel;

template <Major M, int Rows, int BK>
void expect_steps() {
  using Boxes = OperandBoxes<M, Rows, BK, 1>;
  for (int row0 = 0; row0 < Rows; row0 += 64)
    for (int i = 0; row0 + 64 * i < Rows; ++i)
      for (int k = 0; k < BK / 16; ++k)
        ASSERT_EQ(Boxes::mma_offset(row0 + 64 * i, k) - Boxes::mma_offset(row0, 0), Boxes::mma_step(i, k))
            << (M == Major::K ? "K" : "MN") << "-major, " << Rows << " rows, row0 " << row0 << ", i " << i << ", k " << k;
}
}  // namespace

TEST(Sm90OperandBoxes, StepsAreTheOffsetsDifferences) {
  expect_steps<Major::K, 128, 64>();
  expect_steps<Major::K, 256, 64>();
  expect_steps<Major::K, 192, 64>();
  expect_steps<Major::K, 128, 128>();  // 8-bit types: 128 of K per stage, k steps of 32
  expect_steps<Major::MN, 128, 64>();
  expect_steps<Major::MN, 256, 64>();
  expect_steps<Major::MN, 192, 64>();
}

TEST(Sm90OperandBoxes, TheDescriptorsAddressFieldCoversSharedMemory) {
  // 14 bits of 16-byte units: 256 KB; the CTA's window plus the 1024-byte alignment slack.
  EXPECT_LT(kSm90SmemBytes + 1024, 1 << 18);
}
