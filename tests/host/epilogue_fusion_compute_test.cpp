// Compute nodes: add, multiply, multiply-add and Elementwise with a functor of one's own, against
// a double-precision model over random fragments; and the Hopper linear combination's device scales.

#include <string>

#include "epilogue_fusion_model.hpp"
#include "tessel/epilogue/linear_combination.hpp"

namespace {

using namespace tessel;
using namespace tessel::epilogue::fusion;
using namespace fusion_test;

constexpr int kM = 12, kN = 10, kL = 3;
constexpr std::int64_t kLd = 11, kBatch = kM * kLd;

TEST(FusionCompute, AddOfScaledAccumulatorAndRowBroadcast) {
  using Tree = Add<Multiply<Scalar, Accumulator>, RowBroadcast<float>>;
  for (unsigned seed : kSeeds) {
    std::mt19937 rng(seed);
    const auto bias = random_tensor<float>(rng, kN);
    const auto frag = random_fragment(rng, kM, kN, kL, 300);
    const float alpha = std::uniform_real_distribution<float>(-3.f, 3.f)(rng);
    const Tree::Arguments args{.first = {.first = {.value = alpha}, .second = {}, .fn = {}}, .second = {.ptr = bias.data()}, .fn = {}};
    const auto got = run<Tree>(args, frag);
    for (std::size_t i = 0; i < frag.size(); ++i) {
      const double prod = double(alpha) * frag[i].acc, b = bias[static_cast<std::size_t>(frag[i].col)];
      EXPECT_TRUE(near(got[i], prod + b, std::fabs(prod) + std::fabs(b), 2)) << "seed " << seed << " element " << i;
    }
  }
}

TEST(FusionCompute, MultiplyAddOfThreeChildren) {
  using Tree = MultiplyAdd<ColumnBroadcast<half_t>, Accumulator, AuxLoad<bfloat16_t>>;
  for (unsigned seed : kSeeds) {
    std::mt19937 rng(seed);
    const auto scale = random_tensor<half_t>(rng, kM);
    const auto aux = random_tensor<bfloat16_t>(rng, static_cast<std::size_t>(kBatch * kL));
    const auto frag = random_fragment(rng, kM, kN, kL, 300);
    const Tree::Arguments args{.first = {.ptr = scale.data()}, .second = {}, .third = {.ptr = aux.data(), .ld = kLd, .batch_stride = kBatch}, .fn = {}};
    const auto got = run<Tree>(args, frag);
    for (std::size_t i = 0; i < frag.size(); ++i) {
      const auto& e = frag[i];
      const double s = as_double(scale[static_cast<std::size_t>(e.row)]);
      const double a = as_double(aux[static_cast<std::size_t>(e.batch * kBatch + e.row * kLd + e.col)]);
      EXPECT_TRUE(near(got[i], s * e.acc + a, std::fabs(s * e.acc) + std::fabs(a), 1)) << "seed " << seed << " element " << i;
    }
  }
}

TEST(FusionCompute, MultiplyAddRoundsOnce) {
  // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: a separate multiply rounds the 2^-24 away and the sum
  // below is 0; a fused multiply-add keeps it.
  const float a = 1.f + std::ldexp(1.f, -12), c = -(1.f + std::ldexp(1.f, -11));
  using Tree = MultiplyAdd<Scalar, Accumulator, Scalar>;
  const auto got = run<Tree>({.first = {.value = a}, .second = {}, .third = {.value = c}, .fn = {}}, {{0, 0, 0, a}});
  EXPECT_EQ(got[0], std::ldexp(1.f, -24));
}

// Not commutative in any pair, so children visited or passed out of order give other numbers.
struct Lopsided {
  TESSEL_HD float operator()(float a, float b, float c) const { return a - 2.f * b + 4.f * c; }
};

TEST(FusionCompute, ElementwiseWithOwnFunctorKeepsChildOrder) {
  using Tree = Elementwise<Lopsided, Accumulator, RowBroadcast<float>, ColumnBroadcast<float>>;
  for (unsigned seed : kSeeds) {
    std::mt19937 rng(seed);
    const auto row = random_tensor<float>(rng, kN), col = random_tensor<float>(rng, kM);
    const auto frag = random_fragment(rng, kM, kN, 1, 200);
    const auto got = run<Tree>({.first = {}, .second = {.ptr = row.data()}, .third = {.ptr = col.data()}, .fn = {}}, frag);
    for (std::size_t i = 0; i < frag.size(); ++i) {
      const auto& e = frag[i];
      const double b = row[static_cast<std::size_t>(e.col)], c = col[static_cast<std::size_t>(e.row)];
      const double want = e.acc - 2.0 * b + 4.0 * c;
      EXPECT_TRUE(near(got[i], want, 2 * (std::fabs(e.acc) + 2 * std::fabs(b) + 4 * std::fabs(c)), 1));
    }
  }
}

struct Offset {
  float by = 0.f;  // run-time state travels in Arguments and Params
  static constexpr const char* name() { return "offset"; }
  TESSEL_HD float operator()(float x) const { return x + by; }
};

TEST(FusionCompute, FunctorStateTravelsThroughParams) {
  using Tree = Elementwise<Offset, Accumulator>;
  const auto got = run<Tree>({.first = {}, .fn = {.by = 0.25f}}, {{0, 0, 0, 1.f}, {1, 1, 0, -1.f}});
  EXPECT_EQ(got[0], 1.25f);
  EXPECT_EQ(got[1], -0.75f);
}

TEST(FusionCompute, ChildOfNarrowTypeIsRoundedBeforeTheParentSeesIt) {
  // Convert<half_t> inside a tree: the parent adds the rounded value. 1 + 2^-12 rounds to 1 in
  // half precision (11 significant bits), so the sum is exactly 1 + 1.
  using Tree = Add<Convert<half_t, Accumulator>, Scalar>;
  const auto got = run<Tree>({.first = {}, .second = {.value = 1.f}, .fn = {}}, {{0, 0, 0, 1.f + std::ldexp(1.f, -12)}});
  EXPECT_EQ(got[0], 2.f);
}

TEST(FusionCompute, NamesFollowTheTree) {
  EXPECT_EQ((Add<Multiply<Scalar, Accumulator>, RowBroadcast<half_t>>::name()), "add_mul_scalar_acc_rowbcast_f16");
  EXPECT_EQ((MultiplyAdd<Scalar, Accumulator, SourceC<bfloat16_t>>::name()), "fma_scalar_acc_beta_c_bf16");
  EXPECT_EQ((Elementwise<Offset, Accumulator>::name()), "offset_acc");
  EXPECT_EQ((Elementwise<Lopsided, Accumulator, Accumulator, Accumulator>::name()), "fn_acc_acc_acc");
}

}  // namespace

namespace {

// The linear combination's device scalars: *ptr_scale_a and *ptr_scale_b (torch._scaled_mm's
// per-tensor scales) multiply alpha, once, when the callbacks are made; null pointers leave it.
TEST(LinearCombination, FoldsDeviceScalesIntoAlpha) {
  using Lc = tessel::epilogue::LinearCombination<float, float>;
  const float scale_a = 0.75f, scale_b = -4.f;
  const float bias[3] = {1.f, 2.f, 3.f};
  Lc::Arguments args{.alpha = 2.f, .beta = 1.f, .ptr_C = bias, .ldc = 0, .batch_stride_C = 0, .ptr_scale_a = &scale_a,
                     .ptr_scale_b = &scale_b};
  const Lc::Callbacks both(Lc::to_params(args));
  EXPECT_EQ(both.visit(5, 2, 0, 1.5f), 2.f * 0.75f * -4.f * 1.5f + 3.f);  // every row reads the bias (ldc 0)
  args.ptr_scale_b = nullptr;
  EXPECT_EQ(Lc::Callbacks(Lc::to_params(args)).visit(0, 0, 0, 1.5f), 2.f * 0.75f * 1.5f + 1.f);
  args.ptr_scale_a = nullptr;
  EXPECT_EQ(Lc::Callbacks(Lc::to_params(args)).visit(0, 1, 0, 1.5f), 2.f * 1.5f + 2.f);
  args.beta = 0.f;  // C is then not read, and may be null
  args.ptr_C = nullptr;
  const Lc::Callbacks no_c(Lc::to_params(args));
  EXPECT_FALSE(no_c.reads_source());
  EXPECT_EQ(no_c.visit(0, 1, 0, 1.5f), 2.f * 1.5f);
}

// One formula, two views: the Sm80 kernels' OutputOp (C handed over) and the Hopper kernel's
// Callbacks (C read through ptr_C) give the same bits for every activation, with and without C.
template <class Act>
void expect_views_agree() {
  using Lc = tessel::epilogue::LinearCombination<tessel::bfloat16_t, tessel::bfloat16_t, Act>;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-4.f, 4.f);
  for (int i = 0; i < 2000; ++i) {
    const float alpha = u(rng), beta = i % 3 == 0 ? 0.f : u(rng), acc = u(rng) * 8.f;
    const tessel::bfloat16_t c[1] = {tessel::bfloat16_t(u(rng))};
    const typename Lc::OutputOp op{{alpha, beta}};
    const typename Lc::Callbacks cb(Lc::to_params({.alpha = alpha, .beta = beta, .ptr_C = c, .ldc = 1}));
    ASSERT_EQ(op.reads_source(), cb.reads_source());
    const auto want = cb.visit(0, 0, 0, acc);
    const auto got = op.reads_source() ? op(acc, c[0]) : op(acc);
    ASSERT_EQ(float(got), float(want)) << Lc::name() << " alpha " << alpha << " beta " << beta << " acc " << acc;
  }
}

TEST(LinearCombination, OutputOpAndCallbacksAgree) {
  expect_views_agree<tessel::epilogue::fusion::Identity>();
  expect_views_agree<tessel::epilogue::fusion::ReLU>();
  expect_views_agree<tessel::epilogue::fusion::GeluErf>();
  expect_views_agree<tessel::epilogue::fusion::SiLU>();
}

TEST(LinearCombination, NamesItsActivation) {
  EXPECT_EQ((tessel::epilogue::LinearCombination<tessel::half_t>::name()), "lincomb");
  EXPECT_EQ((tessel::epilogue::LinearCombination<tessel::half_t, tessel::half_t, tessel::epilogue::fusion::SiLU>::name()),
            "lincomb_silu");
}

}  // namespace
