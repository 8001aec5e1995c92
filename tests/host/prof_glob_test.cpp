// Kernel selection by --kernels / --ignore-kernels patterns and by operand types.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/glob.hpp"
#include "core/selection.hpp"

namespace tessel::prof {
namespace {

TEST(ProfGlob, WholeNameGlobs) {
  EXPECT_TRUE(glob_match("*", ""));
  EXPECT_TRUE(glob_match("tessel_sm80_*_tn", "tessel_sm80_gemm_bf16_bf16_bf16_128x128x32_64x64x32_3stage_tn"));
  EXPECT_FALSE(glob_match("tessel_sm80_*_tn", "tessel_sm80_gemm_f16_f16_f32_128x128x32_64x64x32_3stage_nt"));
  EXPECT_TRUE(glob_match("*128x?56*", "x_128x256x32_y"));
  EXPECT_FALSE(glob_match("*128x?56", "x_128x256x32_y"));
  EXPECT_TRUE(glob_match("a*b*c", "aXXbYYbZZc"));
  EXPECT_FALSE(glob_match("a*b*c", "aXXbYYbZZ"));
  EXPECT_FALSE(glob_match("abc", "abcd"));
  EXPECT_TRUE(glob_match("**a", "a"));
}

TEST(ProfGlob, PlainWordsMatchAsSubstrings) {
  EXPECT_TRUE(pattern_matches("bf16", "tessel_sm80_gemm_bf16_bf16_bf16_128x128x32_64x64x32_3stage_tn"));
  EXPECT_FALSE(pattern_matches("bf16", "tessel_sm80_gemm_f16_f16_f16_128x128x32_64x64x32_3stage_tn"));
  EXPECT_FALSE(pattern_matches("bf16*", "tessel_sm80_gemm_bf16"));  // a glob is anchored
}

const std::vector<std::string> kNames = {"k_bf16_128_tn", "k_bf16_256_tn", "k_f16_128_tn", "k_f16_128_nt"};

TEST(ProfGlob, SelectKeepsOrderAndAppliesIgnores) {
  EXPECT_EQ(select_names(kNames, {}, {}), kNames);
  EXPECT_EQ(select_names(kNames, {"*_tn"}, {"*256*"}),
            (std::vector<std::string>{"k_bf16_128_tn", "k_f16_128_tn"}));
  EXPECT_EQ(select_names(kNames, {"nt", "k_bf16_256*"}, {}),
            (std::vector<std::string>{"k_bf16_256_tn", "k_f16_128_nt"}));
}

TEST(ProfGlob, UnknownPatternIsAnErrorNamingIt) {
  try {
    select_names(kNames, {"*_tn", "k_fp8*"}, {});
    FAIL() << "no error";
  } catch (const ProfError& e) {
    EXPECT_EQ(e.exit_code(), kExitUsage);
    EXPECT_EQ(std::string(e.what()),
              "--kernels=k_fp8*: no kernel compiled into this tessel-prof matches 'k_fp8*'; expected a name or glob "
              "such as 'tessel_sm80_gemm_bf16_*_tn' (run --mode=enumerate to list the 4 compiled kernels)");
  }
  try {
    select_names(kNames, {}, {"zzz"});
    FAIL() << "no error";
  } catch (const ProfError& e) {
    EXPECT_NE(std::string(e.what()).find("--ignore-kernels=zzz"), std::string::npos);
  }
  // A catalogue kernel that was not built: say how to build it.
  try {
    select_names(kNames, {"k_f32*"}, {}, {"k_f32_64_tn", "k_f32_128_tn"});
    FAIL() << "no error";
  } catch (const ProfError& e) {
    EXPECT_NE(std::string(e.what()).find("2 kernel(s) of the catalogue do, but were not built"), std::string::npos);
  }
}

KernelDescription desc(const std::string& name, Element in, Element out, Layout a, Layout b) {
  KernelDescription d;
  d.name = name;
  d.a = {in, a};
  d.b = {in, b};
  d.c = d.d = {out, Layout::kColumn};
  return d;
}

TEST(ProfSelection, OperandFiltersAndSets) {
  const std::vector<KernelDescription> all = {
      desc("k_bf16_tn", Element::kBF16, Element::kBF16, Layout::kRow, Layout::kColumn),
      desc("k_bf16_tn_2", Element::kBF16, Element::kBF16, Layout::kRow, Layout::kColumn),
      desc("k_f16_nt", Element::kF16, Element::kF32, Layout::kColumn, Layout::kRow)};
  Options o;
  EXPECT_EQ(select_kernels(all, o, {}).size(), 3u);
  EXPECT_EQ(operand_sets(all).size(), 2u);
  o.a = {Element::kBF16, std::nullopt};
  auto s = select_kernels(all, o, {});
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[1].name, "k_bf16_tn_2");
  o.a = {};
  o.c = {Element::kF32, Layout::kColumn};
  s = select_kernels(all, o, {});
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].name, "k_f16_nt");
  o.c = {Element::kF32, Layout::kRow};
  EXPECT_TRUE(select_kernels(all, o, {}).empty());
  EXPECT_NE(no_operand_match_sentence(all, o).find("--C=f32:row"), std::string::npos);
  EXPECT_EQ(blas_layout_suffix(operands_of(all[0])), "tn");
  EXPECT_EQ(blas_layout_suffix(operands_of(all[2])), "nt");
}

TEST(ProfSelection, FiltersFillGapsTheBlasWay) {
  Options o;
  o.a = {Element::kBF16, std::nullopt};
  const OperandSet s = operands_from_filters(o);
  EXPECT_EQ(s.a, (Operand{Element::kBF16, Layout::kRow}));
  EXPECT_EQ(s.b, (Operand{Element::kBF16, Layout::kColumn}));
  EXPECT_EQ(s.c, (Operand{Element::kBF16, Layout::kColumn}));
  EXPECT_EQ(s.d, s.c);
}

}  // namespace
}  // namespace tessel::prof
