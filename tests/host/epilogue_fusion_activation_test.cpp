// Activation functors against double-precision formulas written differently from the f32 ones
// (erfc for GELU, the logistic form of tanh, exp(x) / (1 + exp(x)) for negative sigmoid inputs),
// over random inputs from several seeds, plus limits, NaN and the worked values of the header.

#include <limits>

#include "epilogue_fusion_model.hpp"

namespace {

using namespace tessel::epilogue::fusion;
using namespace fusion_test;

double sigmoid_ref(double x) { return x >= 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x)); }
double gelu_erf_ref(double x) { return x * 0.5 * std::erfc(-x / std::sqrt(2.0)); }  // x * Phi(x)
double gelu_tanh_ref(double x) {
  const double u = std::sqrt(2.0 / 3.14159265358979323846) * (x + 0.044715 * x * x * x);
  return x * sigmoid_ref(2.0 * u);  // (1 + tanh(u)) / 2 = sigmoid(2u)
}

// Runs `Act` through the tree (Activation<Act, Accumulator>) and checks it against `ref`, the
// bound scaled by `magnitude(x)`.
template <class Act, class Ref, class Mag>
void check(Ref ref, Mag magnitude, double ulps, float range) {
  for (unsigned seed : kSeeds) {
    std::mt19937 rng(seed);
    const auto frag = random_fragment(rng, 4, 4, 1, 2000, range);
    const auto got = run<Activation<Act, Accumulator>>({}, frag);
    for (std::size_t i = 0; i < frag.size(); ++i) {
      const double x = frag[i].acc;
      ASSERT_TRUE(near(got[i], ref(x), magnitude(x), ulps)) << Act::name() << "(" << x << "), seed " << seed;
    }
  }
}

TEST(FusionActivation, ReLUAndIdentityAreExact) {
  check<ReLU>([](double x) { return x > 0 ? x : 0.0; }, [](double) { return 0.0; }, 0, 50.f);
  check<Identity>([](double x) { return x; }, [](double) { return 0.0; }, 0, 50.f);
}

TEST(FusionActivation, GeluErf) {
  // An f32 erf is accurate to a few units of 1, not of 1 + erf: the error is absolute, times |x|;
  // the rounding of x / sqrt 2 adds |x| more through erf' <= 1.13.
  check<GeluErf>(gelu_erf_ref, [](double x) { return std::fabs(x) * (1 + std::fabs(x)); }, 8, 10.f);
}

TEST(FusionActivation, GeluTanh) {
  check<GeluTanh>(gelu_tanh_ref, [](double x) { return std::fabs(x) * (1 + std::fabs(x)); }, 8, 10.f);
}

TEST(FusionActivation, GeluFormsDiffer) {
  // The two forms are different functions; a test that accepted either would not catch a swap.
  EXPECT_GT(std::fabs(GeluErf{}(1.f) - GeluTanh{}(1.f)), 1e-4f);
}

TEST(FusionActivation, SigmoidAndSiLU) {
  check<Sigmoid>(sigmoid_ref, [](double x) { return sigmoid_ref(x); }, 8, 20.f);
  check<SiLU>([](double x) { return x * sigmoid_ref(x); }, [](double x) { return std::fabs(x * sigmoid_ref(x)); }, 8, 20.f);
}

TEST(FusionActivation, Limits) {
  EXPECT_EQ(Sigmoid{}(-200.f), 0.f);
  EXPECT_EQ(Sigmoid{}(200.f), 1.f);
  EXPECT_EQ(SiLU{}(-200.f), 0.f);
  EXPECT_EQ(SiLU{}(200.f), 200.f);
  EXPECT_EQ(GeluErf{}(-20.f), 0.f);
  EXPECT_EQ(GeluErf{}(20.f), 20.f);
  EXPECT_EQ(GeluTanh{}(20.f), 20.f);
}

TEST(FusionActivation, ClampToRunTimeBounds) {
  using Tree = Activation<Clamp, Accumulator>;
  const auto got = run<Tree>({.first = {}, .fn = {.lo = -1.f, .hi = 2.f}}, {{0, 0, 0, -3.f}, {0, 0, 0, 0.5f}, {0, 0, 0, 7.f}});
  EXPECT_EQ(got[0], -1.f);
  EXPECT_EQ(got[1], 0.5f);
  EXPECT_EQ(got[2], 2.f);
  EXPECT_EQ(Clamp{}(1e30f), 1e30f);  // default bounds: no clamping
}

TEST(FusionActivation, NaNPropagates) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(ReLU{}(nan)));
  EXPECT_TRUE(std::isnan(GeluErf{}(nan)));
  EXPECT_TRUE(std::isnan(GeluTanh{}(nan)));
  EXPECT_TRUE(std::isnan(Sigmoid{}(nan)));
  EXPECT_TRUE(std::isnan(SiLU{}(nan)));
  EXPECT_TRUE(std::isnan((Clamp{-1.f, 1.f}(nan))));
}

TEST(FusionActivation, WorkedValuesOfTheHeader) {
  EXPECT_EQ(ReLU{}(-2.f), 0.f);
  EXPECT_NEAR(GeluErf{}(1.f), 0.841345f, 1e-6f);
  EXPECT_NEAR(GeluTanh{}(1.f), 0.841192f, 1e-6f);
  EXPECT_EQ(Sigmoid{}(0.f), 0.5f);
  EXPECT_NEAR(SiLU{}(1.f), 0.731059f, 1e-6f);
  EXPECT_EQ((Clamp{-1.f, 1.f}(3.f)), 1.f);
}

}  // namespace
