// Leaves of the epilogue fusion tree: each reads what it should, where it should, against a
// double-precision model over random fragments; beta == 0 never touches C.

#include <limits>

#include "epilogue_fusion_model.hpp"

namespace {

using namespace tessel;
using namespace tessel::epilogue::fusion;
using namespace fusion_test;

TEST(FusionLeaves, AccumulatorIsTheAccumulator) {
  for (unsigned seed : kSeeds) {
    std::mt19937 rng(seed);
    const auto frag = random_fragment(rng, 17, 9, 3, 200);
    const auto got = run<Accumulator>({}, frag);
    for (std::size_t i = 0; i < frag.size(); ++i) EXPECT_EQ(got[i], frag[i].acc);
  }
}

TEST(FusionLeaves, ScalarFromValueAndFromPointer) {
  std::mt19937 rng(3);
  const auto frag = random_fragment(rng, 5, 5, 2, 50);
  for (float v : run<Scalar>({.value = 2.5f}, frag)) EXPECT_EQ(v, 2.5f);
  float on_device = -0.125f;  // the pointer wins over the value
  for (float v : run<Scalar>({.value = 2.5f, .ptr = &on_device}, frag)) EXPECT_EQ(v, -0.125f);
}

TEST(FusionLeaves, ScalarPointerIsReadOnceWhenCallbacksAreBuilt) {
  float s = 1.f;
  Scalar::Callbacks cb(Scalar::to_params({.ptr = &s}));
  s = 2.f;
  EXPECT_EQ(cb.visit(0, 0, 0, 0.f), 1.f);
}

TEST(FusionLeaves, SourceCIsBetaTimesCWithStridesAndBatches) {
  const int m = 13, n = 7, l = 3;
  const std::int64_t ldc = 9, bs = m * ldc + 5;  // padded rows, padded batches
  for (unsigned seed : kSeeds) {
    std::mt19937 rng(seed);
    const auto c = random_tensor<bfloat16_t>(rng, static_cast<std::size_t>(bs * l));
    const auto frag = random_fragment(rng, m, n, l, 300);
    const auto got = run<SourceC<bfloat16_t>>({.beta = -0.75f, .ptr_C = c.data(), .ldc = ldc, .batch_stride_C = bs}, frag);
    for (std::size_t i = 0; i < frag.size(); ++i) {
      const auto& e = frag[i];
      const double want = -0.75 * as_double(c[static_cast<std::size_t>(e.batch * bs + e.row * ldc + e.col)]);
      EXPECT_TRUE(near(got[i], want, std::fabs(want), 1)) << e.row << "," << e.col << "," << e.batch;
    }
  }
}

TEST(FusionLeaves, SourceCSharedAmongBatchesWithBatchStrideZero) {
  const std::vector<float> c = {1, 2, 3, 4, 5, 6};  // 2 x 3
  SourceC<float>::Callbacks cb(SourceC<float>::to_params({.beta = 1.f, .ptr_C = c.data(), .ldc = 3}));
  EXPECT_EQ(cb.visit(1, 2, 0, 0.f), 6.f);
  EXPECT_EQ(cb.visit(1, 2, 5, 0.f), 6.f);
}

TEST(FusionLeaves, SourceCWithLdZeroRepeatsOneRow) {
  const std::vector<float> bias = {1, 2, 3};  // C (4,3):(0,1): every row is the bias
  SourceC<float>::Callbacks cb(SourceC<float>::to_params({.beta = 2.f, .ptr_C = bias.data(), .ldc = 0}));
  for (int row = 0; row < 4; ++row) EXPECT_EQ(cb.visit(row, 1, 0, 0.f), 4.f) << row;
  EXPECT_TRUE(SourceC<float>::can_implement({.beta = 1.f, .ptr_C = bias.data(), .ldc = 0}, 4, 3, 1).ok());
  EXPECT_FALSE(SourceC<float>::can_implement({.beta = 1.f, .ptr_C = bias.data(), .ldc = 2}, 4, 3, 1).ok());
}

TEST(FusionLeaves, BetaZeroNeverReadsC) {
  std::mt19937 rng(11);
  const auto frag = random_fragment(rng, 64, 64, 4, 500);
  // A null C: reading it would crash the test.
  for (float v : run<SourceC<half_t>>({.beta = 0.f, .ptr_C = nullptr, .ldc = 64}, frag)) EXPECT_EQ(v, 0.f);
  // beta == 0 read from memory: still no read.
  const float zero = 0.f;
  for (float v : run<SourceC<half_t>>({.ptr_beta = &zero, .ptr_C = nullptr}, frag)) EXPECT_EQ(v, 0.f);
  // A NaN in C does not leak through 0 * NaN.
  const std::vector<float> nan_c(64 * 64 * 4, std::numeric_limits<float>::quiet_NaN());
  for (float v : run<SourceC<float>>({.beta = 0.f, .ptr_C = nan_c.data(), .ldc = 64, .batch_stride_C = 64 * 64}, frag)) {
    EXPECT_EQ(v, 0.f);
  }
}

TEST(FusionLeaves, RowBroadcastIsIndexedByColumnColumnBroadcastByRow) {
  const int m = 11, n = 6, l = 4;  // M != N, so swapping the index reads the wrong element
  const std::int64_t bs = 13;      // larger than both lengths
  for (unsigned seed : kSeeds) {
    std::mt19937 rng(seed);
    const auto v = random_tensor<half_t>(rng, static_cast<std::size_t>(bs * l));
    const auto frag = random_fragment(rng, m, n, l, 300);
    const auto rows = run<RowBroadcast<half_t>>({.ptr = v.data(), .batch_stride = bs}, frag);
    const auto cols = run<ColumnBroadcast<half_t>>({.ptr = v.data(), .batch_stride = bs}, frag);
    for (std::size_t i = 0; i < frag.size(); ++i) {
      const auto& e = frag[i];
      EXPECT_EQ(rows[i], as_double(v[static_cast<std::size_t>(e.batch * bs + e.col)]));
      EXPECT_EQ(cols[i], as_double(v[static_cast<std::size_t>(e.batch * bs + e.row)]));
    }
  }
}

TEST(FusionLeaves, BroadcastWorkedExample) {
  const std::vector<float> v = {10, 20, 30};
  RowBroadcast<float>::Callbacks row(RowBroadcast<float>::to_params({.ptr = v.data()}));
  ColumnBroadcast<float>::Callbacks col(ColumnBroadcast<float>::to_params({.ptr = v.data()}));
  EXPECT_EQ(row.visit(1, 2, 0, 0.f), 30.f);
  EXPECT_EQ(col.visit(1, 2, 0, 0.f), 20.f);
}

TEST(FusionLeaves, AuxLoadReadsTheTensorWithItsStrides) {
  const int m = 9, n = 14, l = 2;
  const std::int64_t ld = 17, bs = m * ld;
  for (unsigned seed : kSeeds) {
    std::mt19937 rng(seed);
    const auto t = random_tensor<float>(rng, static_cast<std::size_t>(bs * l));
    const auto frag = random_fragment(rng, m, n, l, 300);
    const auto got = run<AuxLoad<float>>({.ptr = t.data(), .ld = ld, .batch_stride = bs}, frag);
    for (std::size_t i = 0; i < frag.size(); ++i) {
      const auto& e = frag[i];
      EXPECT_EQ(got[i], t[static_cast<std::size_t>(e.batch * bs + e.row * ld + e.col)]);
    }
  }
}

}  // namespace
