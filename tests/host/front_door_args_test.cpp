// tessel::gemm::gemm's refusals (include/tessel/gemm/front_door.hpp), each a Status and a sentence
// that names the rule and the fix. The argument checks come before any device is asked, so no
// GPU is needed: the pointers are never read.
#include <gtest/gtest.h>

#include <cstdint>

#include "tessel/gemm/front_door.hpp"

namespace {

using namespace tessel;
using gemm::DataType;
using gemm::GemmArguments;
using gemm::GemmChoice;
using gemm::MatrixLayout;

// Addresses that are never dereferenced: the checks refuse before a kernel could read them.
void const* fake(std::uintptr_t offset) { return reinterpret_cast<void const*>(std::uintptr_t(1) << 20 | offset); }

GemmArguments valid() {
  GemmArguments a;
  a.m = 256, a.n = 512, a.k = 128;
  a.A = {fake(0), DataType::kBF16, MatrixLayout::kRowMajor, 128};
  a.B = {fake(0x100000), DataType::kBF16, MatrixLayout::kColumnMajor, 128};
  a.D = {fake(0x200000), DataType::kBF16, MatrixLayout::kRowMajor, 512};
  return a;
}

/// The call, its choice and its can_implement all refuse `a` with `status`, the call's sentence
/// holding `phrase`.
template <class Args, class Run, class Choice, class CanImplement>
void expect_refused_by_all(Args const& a, Status status, char const* phrase, Run run, Choice choice, CanImplement can_implement) {
  StatusInfo const s = run(a);
  EXPECT_EQ(s.status, status) << s.what();
  EXPECT_NE(s.message.find(phrase), std::string::npos) << s.message;
  GemmChoice c;
  EXPECT_EQ(choice(a, c).status, status);
  EXPECT_EQ(can_implement(a).status, status);
}

void expect_refusal(GemmArguments const& a, Status status, char const* phrase) {
  expect_refused_by_all(
      a, status, phrase, [](GemmArguments const& x) { return gemm::gemm(x); },
      [](GemmArguments const& x, GemmChoice& c) { return gemm::gemm_choice(x, c); }, gemm::gemm_can_implement);
}

TEST(FrontDoorArguments, EachRuleRefusedWithItsSentence) {
  GemmArguments a = valid();
  a.k = 0;
  expect_refusal(a, Status::kErrorInvalidProblem, "M, N and K must all be positive");
  a = valid();
  a.B.type = DataType::kF16;
  expect_refusal(a, Status::kErrorInvalidDataType, "B is f16 but A is bf16");
  a = valid();
  a.A.type = static_cast<DataType>(7);
  expect_refusal(a, Status::kErrorInvalidDataType, "not a DataType value");
  a = valid();
  a.D.ptr = nullptr;
  expect_refusal(a, Status::kErrorInvalidProblem, "D is a null pointer");
  a = valid();
  a.A.ld = 100;
  expect_refusal(a, Status::kErrorInvalidProblem, "leading dimension of A (100) is smaller than its column count (128)");
  a = valid();
  a.D.layout = MatrixLayout::kColumnMajor;  // column-major D: ld covers its M rows
  a.D.ld = 200;
  expect_refusal(a, Status::kErrorInvalidProblem, "smaller than its row count (256)");
  a = valid();
  a.B.ld = 132;  // 264 bytes: not a multiple of 16
  expect_refusal(a, Status::kErrorMisalignedOperand, "B's address and leading dimension must be multiples of 16 bytes");
  a = valid();
  a.B.ld = std::int64_t(1) << 62;  // would overflow a byte count
  expect_refusal(a, Status::kErrorInvalidProblem, "past what TMA addresses");
  a = valid();
  a.A.ptr = fake(2);
  expect_refusal(a, Status::kErrorMisalignedOperand, "A's address");
  a = valid();
  a.beta = 1.f;
  expect_refusal(a, Status::kErrorInvalidProblem, "beta is nonzero but C is null");
  a.C = {fake(0x300000), DataType::kBF16, MatrixLayout::kColumnMajor, 512};
  expect_refusal(a, Status::kErrorInvalidLayout, "give C in D's layout");
  a = valid();
  a.beta = 1.f;
  a.D.layout = MatrixLayout::kColumnMajor;
  a.D.ld = 256;
  a.C = {fake(0x300000), DataType::kBF16, MatrixLayout::kRowMajor, 0};  // a bias row
  expect_refusal(a, Status::kErrorInvalidLayout, "a bias row repeated over M");
  a = valid();
  a.activation = static_cast<gemm::Activation>(9);
  expect_refusal(a, Status::kErrorNotSupported, "not an Activation value");
  a = valid();
  a.A.layout = MatrixLayout::kColumnMajor;
  a.A.ld = 256;
  expect_refusal(a, Status::kErrorInvalidLayout, "reads A row-major and B column-major");
}

gemm::GroupedGemmArguments valid_grouped() {
  gemm::GroupedGemmArguments g;
  g.groups = 4, g.rows = 300, g.n = 256, g.k = 128;
  g.group_m = static_cast<int const*>(fake(0x400000));
  g.A = {fake(0), DataType::kBF16, MatrixLayout::kRowMajor, 128};
  g.B = {fake(0x100000), DataType::kBF16, MatrixLayout::kColumnMajor, 128};
  g.batch_b = 256 * 128;
  g.D = {fake(0x200000), DataType::kBF16, MatrixLayout::kRowMajor, 256};
  return g;
}

void expect_grouped_refusal(gemm::GroupedGemmArguments const& g, Status status, char const* phrase) {
  expect_refused_by_all(
      g, status, phrase, [](gemm::GroupedGemmArguments const& x) { return gemm::grouped_gemm(x); }, gemm::grouped_gemm_choice,
      gemm::grouped_gemm_can_implement);
}

TEST(FrontDoorArguments, GroupedRulesRefusedWithTheirSentences) {
  auto g = valid_grouped();
  g.groups = 0;
  expect_grouped_refusal(g, Status::kErrorInvalidProblem, "0 groups: give 1 to 65535");
  g = valid_grouped();
  g.group_m = nullptr;
  expect_grouped_refusal(g, Status::kErrorInvalidProblem, "the groups' end rows");
  g.layout = gemm::GroupLayout::kMasked;
  expect_grouped_refusal(g, Status::kErrorInvalidProblem, "each block's row count");
  g = valid_grouped();
  g.layout = static_cast<gemm::GroupLayout>(5);
  expect_grouped_refusal(g, Status::kErrorInvalidProblem, "not a GroupLayout value");
  g = valid_grouped();
  g.k = 0;
  expect_grouped_refusal(g, Status::kErrorInvalidProblem, "N and K positive");
  g = valid_grouped();
  g.D.type = DataType::kF16;
  expect_grouped_refusal(g, Status::kErrorInvalidDataType, "D is f16 but A is bf16");
  g = valid_grouped();
  g.A.layout = MatrixLayout::kColumnMajor;
  g.A.ld = 304;
  expect_grouped_refusal(g, Status::kErrorInvalidLayout, "takes A and D row-major");
  g = valid_grouped();
  g.batch_b = 100;
  expect_grouped_refusal(g, Status::kErrorMisalignedOperand, "batch_b (100 elements) must be a multiple of 16 bytes");
  g = valid_grouped();
  g.batch_a = -8;
  expect_grouped_refusal(g, Status::kErrorInvalidProblem, "batch_a is -8");
  g = valid_grouped();
  g.layout = gemm::GroupLayout::kMasked;
  g.batch_d = 256 * 100;  // 100 rows: less than the block of 300
  expect_grouped_refusal(g, Status::kErrorInvalidProblem, "the groups' blocks would overlap");
  g = valid_grouped();
  g.bias = g.D.ptr;
  g.bias_stride = -256;
  expect_grouped_refusal(g, Status::kErrorInvalidProblem, "bias_stride is -256");
  g.bias_stride = 256;
  g.bias = static_cast<char const*>(g.D.ptr) + 1;
  expect_grouped_refusal(g, Status::kErrorMisalignedOperand, "the bias is not 2-byte aligned");
}

TEST(FrontDoorArguments, AValidCallWithoutAHopperGpuSaysWhatItNeeds) {
  int count = 0;
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) {
    (void)cudaGetLastError();
    GTEST_SKIP() << "a GPU is visible: the GPU test (front_door) covers valid calls";
  }
  (void)cudaGetLastError();
  StatusInfo const s = gemm::gemm(valid());
  EXPECT_EQ(s.status, Status::kErrorNotSupported) << s.what();
  EXPECT_NE(s.message.find("Hopper GPU"), std::string::npos) << s.message;
  StatusInfo const g = gemm::grouped_gemm(valid_grouped());
  EXPECT_EQ(g.status, Status::kErrorNotSupported) << g.what();
  EXPECT_NE(g.message.find("Hopper GPU"), std::string::npos) << g.message;
}

}  // namespace
