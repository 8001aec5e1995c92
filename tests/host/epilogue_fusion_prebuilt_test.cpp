// The prebuilt fusions against a double-precision model of their formulas, over random fragments
// with padded C, batched C and bias, scalars from values and from pointers; and their names.

#include <algorithm>

#include "epilogue_fusion_model.hpp"

namespace {

using namespace tessel;
using namespace tessel::epilogue::fusion;
using namespace fusion_test;

constexpr int kM = 13, kN = 9, kL = 2;
constexpr std::int64_t kLdc = 11, kBatchC = kM * kLdc + 3, kBatchBias = kN + 1;

double gelu_ref(double x) { return x * 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// Operands shared by every case of one seed.
struct Operands {
  std::vector<half_t> c;
  std::vector<float> bias;
  std::vector<Coord> frag;
  float alpha, beta;
  explicit Operands(unsigned seed) {
    std::mt19937 rng(seed);
    c = random_tensor<half_t>(rng, static_cast<std::size_t>(kBatchC * kL));
    bias = random_tensor<float>(rng, static_cast<std::size_t>(kBatchBias * kL));
    frag = random_fragment(rng, kM, kN, kL, 400);
    alpha = std::uniform_real_distribution<float>(-2.f, 2.f)(rng);
    beta = std::uniform_real_distribution<float>(-2.f, 2.f)(rng);
  }
  double c_at(Coord const& e) const { return as_double(c[static_cast<std::size_t>(e.batch * kBatchC + e.row * kLdc + e.col)]); }
  double bias_at(Coord const& e) const { return bias[static_cast<std::size_t>(e.batch * kBatchBias + e.col)]; }
  // alpha * acc + beta * C (+ bias), and the sum of the terms' magnitudes.
  double z(Coord const& e, bool with_bias, double* magnitude) const {
    const double t0 = double(alpha) * e.acc, t1 = double(beta) * c_at(e), t2 = with_bias ? bias_at(e) : 0.0;
    *magnitude = std::fabs(t0) + std::fabs(t1) + std::fabs(t2);
    return t0 + t1 + t2;
  }
};

// Rounded to an output with `p` significant bits: half of its spacing, plus a few f32 roundings
// of the terms on the way.
::testing::AssertionResult near_output(double got, double want, double magnitude, int p) {
  const double bound = std::ldexp(std::fabs(want), -p) + 8 * std::ldexp(magnitude, -24);
  if (std::fabs(got - want) <= bound) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << got << ", want " << want << " (bound " << bound << ")";
}

TEST(FusionPrebuilt, LinearCombination) {
  using F = epilogue::LinearCombination<bfloat16_t, half_t>;
  for (unsigned seed : kSeeds) {
    const Operands op(seed);
    const auto got = run<F>({.alpha = op.alpha, .beta = op.beta, .ptr_C = op.c.data(), .ldc = kLdc, .batch_stride_C = kBatchC}, op.frag);
    for (std::size_t i = 0; i < got.size(); ++i) {
      double mag;
      const double want = op.z(op.frag[i], false, &mag);
      EXPECT_TRUE(near_output(as_double(got[i]), want, mag, 8)) << "seed " << seed << " element " << i;
    }
  }
}

// alpha from device memory: the linear combination multiplies it in (ptr_scale_a); beta is a value.
TEST(FusionPrebuilt, LinearCombinationAlphaFromAPointer) {
  using F = epilogue::LinearCombination<float, half_t>;
  const Operands op(5);
  const float alpha = 0.25f, beta = -1.5f;
  const auto got = run<F>({.alpha = 2.f, .beta = beta, .ptr_C = op.c.data(), .ldc = kLdc, .batch_stride_C = kBatchC, .ptr_scale_a = &alpha},
                          op.frag);
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double want = 0.5 * op.frag[i].acc - 1.5 * op.c_at(op.frag[i]);
    EXPECT_TRUE(near_output(got[i], want, std::fabs(0.5 * op.frag[i].acc) + std::fabs(1.5 * op.c_at(op.frag[i])), 24));
  }
}

TEST(FusionPrebuilt, LinearCombinationWithoutC) {
  using F = epilogue::LinearCombination<float>;
  const auto got = run<F>({.alpha = 3.f}, {{1, 2, 0, 2.f}, {0, 0, 1, -1.f}});  // beta 0, C null
  EXPECT_EQ(got[0], 6.f);
  EXPECT_EQ(got[1], -3.f);
}

TEST(FusionPrebuilt, LinCombBias) {
  using F = LinCombBias<half_t, half_t, float>;
  for (unsigned seed : kSeeds) {
    const Operands op(seed);
    const auto got = run<F>({.alpha = op.alpha, .beta = op.beta, .ptr_C = op.c.data(), .ldc = kLdc, .batch_stride_C = kBatchC,
                             .ptr_bias = op.bias.data(), .batch_stride_bias = kBatchBias},
                            op.frag);
    for (std::size_t i = 0; i < got.size(); ++i) {
      double mag;
      const double want = op.z(op.frag[i], true, &mag);
      EXPECT_TRUE(near_output(as_double(got[i]), want, mag, 11)) << "seed " << seed << " element " << i;
    }
  }
}

TEST(FusionPrebuilt, LinCombActivationWithClampBounds) {
  using F = LinCombActivation<Clamp, float, half_t>;
  for (unsigned seed : kSeeds) {
    const Operands op(seed);
    const auto got = run<F>({.alpha = op.alpha, .beta = op.beta, .ptr_C = op.c.data(), .ldc = kLdc, .batch_stride_C = kBatchC,
                             .act = {.lo = -1.f, .hi = 0.5f}},
                            op.frag);
    for (std::size_t i = 0; i < got.size(); ++i) {
      double mag;
      const double want = std::clamp(op.z(op.frag[i], false, &mag), -1.0, 0.5);
      EXPECT_TRUE(near_output(got[i], want, mag, 24)) << "seed " << seed << " element " << i;
    }
  }
}

TEST(FusionPrebuilt, LinCombBiasActivation) {
  using F = LinCombBiasActivation<GeluErf, bfloat16_t, half_t, float>;
  for (unsigned seed : kSeeds) {
    const Operands op(seed);
    const auto got = run<F>({.alpha = op.alpha, .beta = op.beta, .ptr_C = op.c.data(), .ldc = kLdc, .batch_stride_C = kBatchC,
                             .ptr_bias = op.bias.data(), .batch_stride_bias = kBatchBias},
                            op.frag);
    for (std::size_t i = 0; i < got.size(); ++i) {
      double mag;
      const double z = op.z(op.frag[i], true, &mag);
      // gelu'(z) <= 1.13, and the f32 erf adds an absolute error times |z|.
      EXPECT_TRUE(near_output(as_double(got[i]), gelu_ref(z), 1.13 * mag + std::fabs(z) * (1 + std::fabs(z)), 8))
          << "seed " << seed << " element " << i;
    }
  }
}

TEST(FusionPrebuilt, LinCombBiasActivationWorkedExample) {
  using F = LinCombBiasActivation<ReLU, half_t>;
  const half_t bias[2] = {half_t(1.f), half_t(-9.f)};
  const auto got = run<F>({.alpha = 2.f, .ptr_bias = bias}, {{0, 0, 0, 3.f}, {0, 1, 0, 4.f}});
  EXPECT_EQ(float(got[0]), 7.f);
  EXPECT_EQ(float(got[1]), 0.f);
}

TEST(FusionPrebuilt, BiasGeluAmaxFp8) {
  using F = LinCombBiasGeluAmaxFp8<half_t, float>;  // e4m3 out
  for (unsigned seed : kSeeds) {
    const Operands op(seed);
    // The model first: Y = gelu(Z) and its amax, in double.
    std::vector<double> y(op.frag.size()), y_mag(op.frag.size());
    double want_amax = 0, amax_mag = 0;
    for (std::size_t i = 0; i < op.frag.size(); ++i) {
      double mag;
      const double z = op.z(op.frag[i], true, &mag);
      y[i] = gelu_ref(z);
      y_mag[i] = 1.13 * mag + std::fabs(z) * (1 + std::fabs(z));  // gelu' <= 1.13; f32 erf's error times |z|
      if (std::fabs(y[i]) > want_amax) want_amax = std::fabs(y[i]), amax_mag = y_mag[i];
    }
    // A scale that puts the largest |Y| at twice e4m3's range: the upper half saturates.
    const float scale = static_cast<float>(2 * 448 / want_amax);
    float amax = 0.f;
    const auto got = run<F>({.alpha = op.alpha, .beta = op.beta, .ptr_C = op.c.data(), .ldc = kLdc, .batch_stride_C = kBatchC,
                             .ptr_bias = op.bias.data(), .batch_stride_bias = kBatchBias, .ptr_scale_d = &scale, .ptr_amax = &amax},
                            op.frag);
    int saturated = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      const double d = std::clamp(scale * y[i], -448.0, 448.0);
      saturated += std::fabs(scale * y[i]) > 448.0;
      // e4m3: 4 significant bits; below 2^-6 the spacing is fixed at 2^-9.
      EXPECT_TRUE(near_output(as_double(got[i]), d, scale * y_mag[i], 4) || std::fabs(as_double(got[i]) - d) <= std::ldexp(1.0, -10))
          << "seed " << seed << " element " << i;
    }
    EXPECT_GT(saturated, 0) << "the case should exercise saturation";
    // The amax is of gelu(Z) before scale_d, which is far from 1 here.
    EXPECT_TRUE(near(amax, want_amax, amax_mag, 8)) << "seed " << seed;
  }
}

TEST(FusionPrebuilt, BiasGeluAmaxFp8WorkedExample) {
  using F = LinCombBiasGeluAmaxFp8<float, float>;
  const float bias[1] = {0.5f};
  float amax = 0.f;
  const auto got = run<F>({.ptr_bias = bias, .scale_d = 100.f, .ptr_amax = &amax}, {{0, 0, 0, 1.5f}});
  EXPECT_EQ(float(got[0]), 192.f);
  EXPECT_NEAR(amax, 1.95450f, 1e-5f);
}

TEST(FusionPrebuilt, Names) {
  EXPECT_EQ((epilogue::LinearCombination<half_t>::name()), "lincomb");
  EXPECT_EQ((LinCombBias<half_t>::name()), "lincomb_bias");
  EXPECT_EQ((LinCombActivation<ReLU, half_t>::name()), "lincomb_relu");
  EXPECT_EQ((LinCombBiasActivation<GeluTanh, bfloat16_t>::name()), "lincomb_bias_gelu_tanh");
  EXPECT_EQ((LinCombBiasGeluAmaxFp8<>::name()), "lincomb_bias_gelu_amax_e4m3");
  EXPECT_EQ((LinCombBiasGeluAmaxFp8<bfloat16_t, bfloat16_t, float_e5m2_t>::name()), "lincomb_bias_gelu_amax_e5m2");
}

// reads_source() answers for the whole tree: true exactly when a SourceC leaf somewhere has a
// nonzero beta (from a value or from device memory), through every kind of inner node.
TEST(FusionPrebuilt, ReadsSourceFollowsBetaThroughTheTree) {
  using F = LinCombBiasGeluAmaxFp8<float, float>;
  const float bias[1] = {0.5f}, c[1] = {1.f}, beta_on_device = 2.f;
  float amax = 0.f;
  auto reads = [](F::Arguments const& a) { return epilogue::fusion::detail::reads_source(F::Callbacks(F::to_params(a))); };
  EXPECT_FALSE(reads({.ptr_bias = bias, .ptr_amax = &amax}));
  EXPECT_TRUE(reads({.beta = 0.5f, .ptr_C = c, .ldc = 1, .ptr_bias = bias, .ptr_amax = &amax}));
  EXPECT_TRUE(reads({.ptr_beta = &beta_on_device, .ptr_C = c, .ldc = 1, .ptr_bias = bias, .ptr_amax = &amax}));
  using L = LinCombBias<float, float, float>;
  EXPECT_FALSE(epilogue::fusion::detail::reads_source(L::Callbacks(L::to_params({.alpha = 2.f, .ptr_bias = bias}))));
  EXPECT_TRUE(epilogue::fusion::detail::reads_source(L::Callbacks(L::to_params({.beta = -1.f, .ptr_C = c, .ldc = 1, .ptr_bias = bias}))));
  // A tree without a source leaf never reads C.
  using A = Multiply<Scalar, Accumulator>;
  EXPECT_FALSE(epilogue::fusion::detail::reads_source(A::Callbacks(A::to_params({.first = {.value = 2.f}, .second = {}, .fn = {}}))));
}

TEST(FusionPrebuilt, ParamsAreTriviallyCopyable) {
  EXPECT_TRUE(std::is_trivially_copyable_v<LinCombBiasGeluAmaxFp8<>::Params>);
  EXPECT_TRUE((std::is_trivially_copyable_v<LinCombBiasActivation<Clamp, half_t>::Params>));
}

}  // namespace
