// A tree written by a user, as the documentation of tessel/epilogue/fusion.hpp shows it:
// D = half(clamp(alpha * acc + R, -1, 1)) with the per-row sums of the value before the clamp.
// Nothing here is prebuilt; the test checks the worked example and a random model.

#include <algorithm>

#include "epilogue_fusion_model.hpp"

namespace {

using namespace tessel;
using namespace tessel::epilogue::fusion;
using namespace fusion_test;

using MyFusion =
    Convert<half_t, Activation<Clamp, RowReduction<ReduceSum, MultiplyAdd<Scalar, Accumulator, AuxLoad<half_t>>>>>;

MyFusion::Arguments arguments(float alpha, half_t const* r, float* row_sums, int m, int n) {
  return {.first = {.child = {.first = {.value = alpha}, .second = {}, .third = {.ptr = r, .ld = n, .batch_stride = m * n}, .fn = {}},
                    .ptr = row_sums},
          .fn = {.lo = -1.f, .hi = 1.f}};
}

TEST(FusionCustomTree, WorkedExampleOfTheDocumentation) {
  const half_t r[1] = {half_t(1.f)};
  float row_sums[1] = {0.f};
  const auto got = run<MyFusion>(arguments(0.5f, r, row_sums, 1, 1), {{0, 0, 0, 4.f}});
  EXPECT_EQ(float(got[0]), 1.f);
  EXPECT_EQ(row_sums[0], 3.f);
}

TEST(FusionCustomTree, AgainstTheModel) {
  const int m = 6, n = 5, l = 2;
  for (unsigned seed : kSeeds) {
    std::mt19937 rng(seed);
    const auto r = random_tensor<half_t>(rng, static_cast<std::size_t>(m * n * l), 1.f);
    std::vector<Coord> frag;  // every element once, row by row, as a thread owning whole rows would
    for (int b = 0; b < l; ++b)
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) frag.push_back({i, j, b, std::uniform_real_distribution<float>(-3, 3)(rng)});
    std::vector<float> row_sums(static_cast<std::size_t>(m), 0.f);  // batch stride 0: one sum per row over both batches
    const auto got = run<MyFusion>(arguments(0.5f, r.data(), row_sums.data(), m, n), frag);
    std::vector<double> want_sums(static_cast<std::size_t>(m), 0.0), mag(static_cast<std::size_t>(m), 0.0);
    for (std::size_t k = 0; k < frag.size(); ++k) {
      const auto& e = frag[k];
      const double z = 0.5 * e.acc + as_double(r[static_cast<std::size_t>(e.batch * m * n + e.row * n + e.col)]);
      want_sums[static_cast<std::size_t>(e.row)] += z;
      mag[static_cast<std::size_t>(e.row)] += std::fabs(z);
      const double d = std::clamp(z, -1.0, 1.0);
      EXPECT_LE(std::fabs(as_double(got[k]) - d), std::ldexp(std::fabs(d), -11) + 1e-6) << "seed " << seed;
    }
    for (int i = 0; i < m; ++i) {
      EXPECT_TRUE(near(row_sums[static_cast<std::size_t>(i)], want_sums[static_cast<std::size_t>(i)], mag[static_cast<std::size_t>(i)],
                       4.0 * 2 * n * l));
    }
  }
}

TEST(FusionCustomTree, ANameOfItsOwnByDerivation) {
  struct Mine : MyFusion {
    static std::string name() { return "clamp_residual_rowsum"; }
  };
  EXPECT_EQ(Mine::name(), "clamp_residual_rowsum");
  EXPECT_EQ(MyFusion::name(), "f16_clamp_rowsum_fma_scalar_acc_aux_f16");
  // The derived type is still a fusion: same Params and Callbacks.
  const half_t r[1] = {half_t(0.f)};
  float sum = 0.f;
  Mine::Callbacks cb(Mine::to_params(arguments(1.f, r, &sum, 1, 1)));
  EXPECT_EQ(float(cb.visit(0, 0, 0, 0.25f)), 0.25f);
}

}  // namespace
