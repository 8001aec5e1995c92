// --emit-best: only verified winners, one per problem, in a CMake file the build reads back.
#include <gtest/gtest.h>

#include "core/best.hpp"
#include "core/error.hpp"

namespace tessel::prof {
namespace {

const OperandSet kBf16Tn{{Element::kBF16, Layout::kRow}, {Element::kBF16, Layout::kColumn},
                         {Element::kBF16, Layout::kColumn}, {Element::kBF16, Layout::kColumn}};

ProfileRow row(const std::string& kernel, GemmShape shape, double tflops, const char* verification) {
  ProfileRow r;
  r.provider = kernel == "cublas" ? "cublas" : "tessel";
  r.kernel = kernel;
  r.problem.shape = shape;
  r.operands = kBf16Tn;
  r.ran = true;
  r.tflops = tflops;
  r.verification = verification;
  return r;
}

const GemmShape kSquare{4096, 4096, 4096, 1};
const GemmShape kDecode{4096, 16, 4096, 1};

TEST(ProfBest, FastestVerifiedKernelPerProblem) {
  std::vector<ProfileRow> rows = {row("cublas", kSquare, 700, kNotVerified), row("k_a", kSquare, 400, kPassed),
                                  row("k_b", kSquare, 450, kPassed),         row("k_fast_wrong", kSquare, 900, kFailed),
                                  row("cublas", kDecode, 17, kNotVerified),  row("k_a", kDecode, 9, kPassed),
                                  row("k_b", kDecode, 8, kPassed)};
  ProfileRow refused = row("k_c", kDecode, 0, kNotRun);
  refused.ran = false;
  refused.status = "Error Not Supported";
  rows.push_back(refused);
  const auto best = best_per_problem(rows);
  ASSERT_EQ(best.size(), 2u);
  EXPECT_EQ(best[0].shape, kSquare);
  ASSERT_TRUE(best[0].best);
  EXPECT_EQ(best[0].best->kernel, "k_b");  // not the faster kernel that failed verification
  EXPECT_EQ(best[0].fastest->kernel, "k_fast_wrong");
  EXPECT_DOUBLE_EQ(*best[0].cublas_tflops, 700);
  EXPECT_EQ(best[1].best->kernel, "k_a");

  const std::string md = results_markdown(best, RunInfo{{{"device", "test"}}});
  EXPECT_NE(md.find("- device: test"), std::string::npos);
  EXPECT_NE(md.find("| 4096x4096x4096 | bf16/bf16->bf16 tn | `k_b` | 450.0 | 700.0 | 0.64x | passed (faster "
                    "k_fast_wrong failed) |"),
            std::string::npos);
}

TEST(ProfBest, CmakeListRoundTrip) {
  const std::vector<ProfileRow> rows = {row("tessel_z", kSquare, 400, kPassed), row("tessel_a", kSquare, 300, kPassed),
                                        row("tessel_a", kDecode, 9, kPassed), row("tessel_m", {1024, 1024, 32768, 1}, 5, kPassed)};
  const std::string text = emit_best_cmake(best_per_problem(rows));
  EXPECT_NE(text.find("set(TESSEL_PROF_BEST_KERNELS\n  tessel_a\n  tessel_m\n  tessel_z\n)\n"), std::string::npos);
  EXPECT_NE(text.find("# 4096x16x4096 bf16/bf16->bf16 tn: tessel_a 9.0 TFLOP/s"), std::string::npos);
  EXPECT_EQ(read_kernel_list(text, "best.cmake"), (std::vector<std::string>{"tessel_a", "tessel_m", "tessel_z"}));
}

TEST(ProfBest, NoVerifiedWinnerIsAnError) {
  const std::vector<ProfileRow> rows = {row("k_a", kSquare, 400, kFailed), row("k_b", kSquare, 300, kNotVerified)};
  EXPECT_THROW(emit_best_cmake(best_per_problem(rows)), ProfError);
  EXPECT_THROW(read_kernel_list("# nothing here\n", "x.cmake"), ProfError);
  EXPECT_THROW(read_kernel_list("set(TESSEL_PROF_BEST_KERNELS a b\n", "x.cmake"), ProfError);
}

}  // namespace
}  // namespace tessel::prof
