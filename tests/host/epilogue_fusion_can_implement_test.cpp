// can_implement of the fusions: each refusal has its status and a sentence naming the operand and
// what to do; valid arguments pass.

#include <string>

#include "epilogue_fusion_model.hpp"

namespace {

using namespace tessel;
using namespace tessel::epilogue::fusion;
// gtest's own matchers live in gmock, which CI does not install.
::testing::AssertionResult contains(std::string const& text, std::string const& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << text << "\" does not contain \"" << part << "\"";
}

const half_t kHalf[1] = {};
const float kFloat[1] = {};
float g_amax = 0.f;

TEST(FusionCanImplement, ValidArgumentsPass) {
  EXPECT_TRUE((epilogue::LinearCombination<half_t>::can_implement({}, 128, 64, 1).ok()));
  EXPECT_TRUE((epilogue::LinearCombination<half_t>::can_implement({.beta = 1.f, .ptr_C = kHalf, .ldc = 64, .batch_stride_C = 0}, 128, 64, 4).ok()));
  EXPECT_TRUE((LinCombBiasGeluAmaxFp8<half_t, float>::can_implement({.ptr_bias = kFloat, .ptr_amax = &g_amax}, 128, 64, 1).ok()));
}

TEST(FusionCanImplement, NonzeroBetaNeedsC) {
  const auto s = epilogue::LinearCombination<half_t>::can_implement({.beta = 0.5f}, 128, 64, 1);
  EXPECT_EQ(s.status, Status::kErrorInvalidProblem);
  EXPECT_EQ(s.message, "beta is nonzero but C is null: pass C, or set beta to 0");
}

TEST(FusionCanImplement, BetaFromDeviceMemoryNeedsC) {
  const float beta = 0.f;
  const auto s = LinCombBias<half_t>::can_implement({.ptr_beta = &beta, .ptr_bias = kHalf}, 128, 64, 1);
  EXPECT_EQ(s.status, Status::kErrorInvalidProblem);
  EXPECT_TRUE(contains(s.message, "beta is read from device memory"));
}

TEST(FusionCanImplement, LeadingDimensionOfC) {
  const auto s = LinCombBias<half_t>::can_implement({.beta = 1.f, .ptr_C = kHalf, .ldc = 60, .ptr_bias = kHalf}, 128, 64, 1);
  EXPECT_EQ(s.status, Status::kErrorInvalidLayout);
  EXPECT_EQ(s.message, "leading dimension of source C is 60, less than N = 64: rows would overlap; pass the row pitch in elements (at least N)");
}

TEST(FusionCanImplement, NullBiasIsNamedAsTheBias) {
  const auto s = LinCombBiasActivation<ReLU, half_t>::can_implement({}, 128, 64, 1);
  EXPECT_EQ(s.status, Status::kErrorInvalidProblem);
  EXPECT_TRUE(contains(s.message, "bias pointer is null: lincomb_bias_relu adds a bias of N elements"));
  const auto f8 = LinCombBiasGeluAmaxFp8<>::can_implement({.ptr_amax = &g_amax}, 128, 64, 1);
  EXPECT_TRUE(contains(f8.message, "bias pointer is null: lincomb_bias_gelu_amax_e4m3"));
}

TEST(FusionCanImplement, NullAmax) {
  const auto s = LinCombBiasGeluAmaxFp8<half_t, float>::can_implement({.ptr_bias = kFloat}, 128, 64, 1);
  EXPECT_EQ(s.status, Status::kErrorInvalidProblem);
  EXPECT_TRUE(contains(s.message, "amax pointer is null"));
  EXPECT_TRUE(contains(s.message, "set to 0 before the launch"));
}

TEST(FusionCanImplement, NegativeBiasBatchStride) {
  const auto s = LinCombBias<half_t>::can_implement({.ptr_bias = kHalf, .batch_stride_bias = -1}, 128, 64, 2);
  EXPECT_EQ(s.status, Status::kErrorInvalidLayout);
  EXPECT_EQ(s.message, "batch stride of bias is -1, negative");
}

TEST(FusionCanImplement, NodesOfATree) {
  using Tree = AuxStore<half_t, Add<RowBroadcast<float>, ColumnBroadcast<float>>>;
  half_t out[1];
  Tree::Arguments args{.child = {.first = {.ptr = kFloat}, .second = {}, .fn = {}}, .ptr = out, .ld = 64, .batch_stride = 128 * 64};
  const auto null_column = Tree::can_implement(args, 128, 64, 2);
  EXPECT_EQ(null_column.status, Status::kErrorInvalidProblem);
  EXPECT_EQ(null_column.message, "column broadcast vector pointer is null: pass a vector of M elements");

  args.child.second.ptr = kFloat;
  EXPECT_TRUE(Tree::can_implement(args, 128, 64, 2).ok());

  args.batch_stride = 64;  // the second batch would write over the first
  const auto overlap = Tree::can_implement(args, 128, 64, 2);
  EXPECT_EQ(overlap.status, Status::kErrorInvalidLayout);
  EXPECT_EQ(overlap.message,
            "batch stride of aux store is 64 with L = 2 batches, less than the 8192 elements one batch writes: the batches would "
            "write over each other");
  EXPECT_TRUE(Tree::can_implement(args, 128, 64, 1).ok());  // one batch: no overlap
}

TEST(FusionCanImplement, Reductions) {
  using Rows = RowReduction<ReduceSum, Accumulator>;
  const auto null_out = Rows::can_implement({}, 128, 64, 1);
  EXPECT_EQ(null_out.message, "row sum output pointer is null: pass M floats per batch");
  float out[1];
  const auto partial = Rows::can_implement({.child = {}, .ptr = out, .batch_stride = 100}, 128, 64, 2);
  EXPECT_EQ(partial.status, Status::kErrorInvalidLayout);
  EXPECT_TRUE(contains(partial.message, "batch stride of row sum output is 100, between 0 and M = 128"));
  EXPECT_TRUE(Rows::can_implement({.child = {}, .ptr = out, .batch_stride = 0}, 128, 64, 2).ok());
  EXPECT_EQ((Amax<Accumulator>::can_implement({}, 1, 1, 1).message),
            "amax output pointer is null: pass one float, set to the identity before the launch");
}

}  // namespace
