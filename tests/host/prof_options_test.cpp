// tessel-prof's command line: values, lists, ranges, operand specs, and the sentences for bad input.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/int_list.hpp"
#include "core/options.hpp"
#include "core/problem.hpp"
#include "core/shapes.hpp"

namespace tessel::prof {
namespace {

std::string usage_message(const std::vector<std::string>& args) {
  try {
    parse_options(args);
  } catch (const ProfError& e) {
    EXPECT_EQ(e.exit_code(), kExitUsage);
    return e.what();
  }
  ADD_FAILURE() << "no error for the arguments";
  return "";
}

TEST(ProfIntList, ValueListAndRange) {
  EXPECT_EQ(parse_int_list("--m", "4096"), (std::vector<std::int64_t>{4096}));
  EXPECT_EQ(parse_int_list("--m", "1024,4096"), (std::vector<std::int64_t>{1024, 4096}));
  EXPECT_EQ(parse_int_list("--m", "1024:8192:1024"),
            (std::vector<std::int64_t>{1024, 2048, 3072, 4096, 5120, 6144, 7168, 8192}));
  EXPECT_EQ(parse_int_list("--m", "1:4"), (std::vector<std::int64_t>{1, 2, 3, 4}));
  // The end is included only when the step lands on it.
  EXPECT_EQ(parse_int_list("--k", "256:1000:256"), (std::vector<std::int64_t>{256, 512, 768}));
  EXPECT_EQ(parse_int_list("--n", "16, 64:128:64,4096"), (std::vector<std::int64_t>{16, 64, 128, 4096}));
  EXPECT_EQ(parse_int_list("--swizzle", "0,8", 0), (std::vector<std::int64_t>{0, 8}));
}

TEST(ProfIntList, MalformedListsSayWhatWasExpected) {
  auto message = [](const char* text, std::int64_t min = 1) {
    try {
      parse_int_list("--m", text, min);
    } catch (const ProfError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("10x"), "--m=10x: '10x' is not an integer; expected a value (--m=4096), a comma-separated list "
                            "(--m=1024,4096) or a range start:end:step (--m=1024:8192:1024)");
  EXPECT_NE(message("1024,,4096").find("'' is malformed"), std::string::npos);
  EXPECT_NE(message("").find("the value is empty"), std::string::npos);
  EXPECT_NE(message("8192:1024").find("ends before it starts"), std::string::npos);
  EXPECT_NE(message("1:10:0").find("step of '1:10:0' must be positive"), std::string::npos);
  EXPECT_NE(message("1:2:3:4").find("is malformed"), std::string::npos);
  EXPECT_NE(message("0").find("at least 1"), std::string::npos);
  EXPECT_NE(message("-4").find("at least 1"), std::string::npos);
  EXPECT_NE(message("1:100000").find("more than 4096 values"), std::string::npos);
  EXPECT_EQ(message("0", 0), "no error");
}

TEST(ProfOptions, DefaultsAreTheProfilersUsual) {
  const Options o = parse_options({});
  EXPECT_EQ(o.mode, Mode::kProfile);
  EXPECT_EQ(o.m, (std::vector<std::int64_t>{1024}));
  EXPECT_EQ(o.batch, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(o.warmup_iterations, 10);
  EXPECT_EQ(o.profiling_iterations, 100);
  EXPECT_EQ(o.providers, (std::vector<Provider>{Provider::kTessel, Provider::kCublas}));
  EXPECT_EQ(o.verification_providers, (std::vector<Verifier>{Verifier::kCublas}));
  EXPECT_TRUE(o.verification_enabled);
  EXPECT_FALSE(o.kernels_given);
}

TEST(ProfOptions, CutlassStyleCommandLine) {
  const Options o = parse_options({"--operation=gemm", "--mode=analyze", "--kernels=bf16*_tn,tessel_sm80*",
                                   "--ignore-kernels=*_nt", "--m=4096", "--n=16,4096", "--k=1024:4096:1024",
                                   "--batch_count=2", "--A=bf16:row", "--B=bf16:column", "--C=f32", "--D=*:col",
                                   "--alpha=1.5", "--beta=-0.25", "--raster=along_m,along_n", "--swizzle=0,4,8",
                                   "--warmup-iterations=3", "--profiling-iterations=7", "--providers=cublas",
                                   "--verification-providers=cublas,device", "--verification-enabled=false",
                                   "--output=x.csv", "--json=x.json", "--plot=x.svg", "--sm-count=132",
                                   "--ctas-per-sm=2", "--tile=128x128,128x256x64", "--matrix-tflops=989",
                                   "--bandwidth-gbps=4800"});
  EXPECT_EQ(o.mode, Mode::kAnalyze);
  EXPECT_EQ(o.kernels, (std::vector<std::string>{"bf16*_tn", "tessel_sm80*"}));
  EXPECT_TRUE(o.kernels_given);
  EXPECT_EQ(o.ignore_kernels, (std::vector<std::string>{"*_nt"}));
  EXPECT_EQ(o.n, (std::vector<std::int64_t>{16, 4096}));
  EXPECT_EQ(o.k, (std::vector<std::int64_t>{1024, 2048, 3072, 4096}));
  EXPECT_EQ(o.batch, (std::vector<std::int64_t>{2}));
  EXPECT_EQ(o.a, (OperandFilter{Element::kBF16, Layout::kRow}));
  EXPECT_EQ(o.b, (OperandFilter{Element::kBF16, Layout::kColumn}));
  EXPECT_EQ(o.c, (OperandFilter{Element::kF32, std::nullopt}));
  EXPECT_EQ(o.d, (OperandFilter{std::nullopt, Layout::kColumn}));
  EXPECT_DOUBLE_EQ(o.alpha, 1.5);
  EXPECT_DOUBLE_EQ(o.beta, -0.25);
  EXPECT_EQ(o.raster, (std::vector<Raster>{Raster::kAlongM, Raster::kAlongN}));
  EXPECT_EQ(o.swizzle, (std::vector<std::int64_t>{0, 4, 8}));
  EXPECT_EQ(o.warmup_iterations, 3);
  EXPECT_EQ(o.profiling_iterations, 7);
  EXPECT_EQ(o.providers, (std::vector<Provider>{Provider::kCublas}));
  EXPECT_EQ(o.verification_providers, (std::vector<Verifier>{Verifier::kCublas, Verifier::kDevice}));
  EXPECT_FALSE(o.verification_enabled);
  EXPECT_EQ(o.sm_count, 132);
  EXPECT_EQ(o.ctas_per_sm, 2);
  ASSERT_EQ(o.tiles.size(), 2u);
  EXPECT_EQ(o.tiles[0], (Extent3{128, 128, 0}));
  EXPECT_EQ(o.tiles[1], (Extent3{128, 256, 64}));
  EXPECT_EQ(o.matrix_tflops, 989.0);
  EXPECT_EQ(o.bandwidth_gbps, 4800.0);
}

TEST(ProfOptions, BooleanFlagsTakeNoValueOrTrueFalse) {
  EXPECT_TRUE(parse_options({"--device-info"}).device_info);
  EXPECT_FALSE(parse_options({"--device-info=false"}).device_info);
  EXPECT_TRUE(parse_options({"-h"}).help);
  EXPECT_NE(usage_message({"--verification-enabled=maybe"}).find("expected true or false"), std::string::npos);
}

TEST(ProfOptions, ErrorsAreSentences) {
  EXPECT_EQ(usage_message({"--mm=3"}), "unknown option --mm (did you mean --m?); run tessel-prof --help for the options");
  EXPECT_EQ(usage_message({"--frobnicate"}), "unknown option --frobnicate; run tessel-prof --help for the options");
  EXPECT_EQ(usage_message({"--m"}), "--m needs a value, written --m=VALUE");
  EXPECT_EQ(usage_message({"gemm"}), "unexpected argument 'gemm': options are written --name=value (run tessel-prof --help)");
  EXPECT_NE(usage_message({"--operation=conv2d"}).find("expected gemm"), std::string::npos);
  EXPECT_NE(usage_message({"--mode=bench"}).find("profile, enumerate, analyze, report"), std::string::npos);
  EXPECT_NE(usage_message({"--A=f8:row"}).find("types f16, bf16, f32"), std::string::npos);
  EXPECT_NE(usage_message({"--A=f16:diagonal"}).find("layouts row, column"), std::string::npos);
  EXPECT_NE(usage_message({"--providers=tessel,magma"}).find("'magma' is not one"), std::string::npos);
  EXPECT_NE(usage_message({"--raster=spiral"}).find("heuristic, along_m, along_n"), std::string::npos);
  EXPECT_NE(usage_message({"--tile=128"}).find("tile shapes MxN or MxNxK"), std::string::npos);
  EXPECT_NE(usage_message({"--alpha=one"}).find("expected a finite number"), std::string::npos);
  EXPECT_NE(usage_message({"--matrix-tflops=-5", "--mode=analyze"}).find("a positive number"), std::string::npos);
  EXPECT_NE(usage_message({"--profiling-iterations=0"}).find("at least 1"), std::string::npos);
}

TEST(ProfOptions, ModeSpecificFlagsOutsideTheirModeAreNamed) {
  EXPECT_EQ(usage_message({"--sm-count=132"}), "--sm-count applies to --mode=analyze, not --mode=profile");
  EXPECT_EQ(usage_message({"--mode=enumerate", "--tile=128x128"}), "--tile applies to --mode=analyze, not --mode=enumerate");
  EXPECT_NE(usage_message({"--mode=report"}).find("needs --input=FILE.csv"), std::string::npos);
  EXPECT_NE(usage_message({"--mode=analyze", "--emit-best=x.cmake"}).find("--emit-best needs measured rows"),
            std::string::npos);
  EXPECT_NO_THROW(parse_options({"--mode=report", "--input=x.csv", "--emit-best=b.cmake", "--markdown=r.md"}));
}

TEST(ProfShapes, ListsAndFiles) {
  EXPECT_EQ(parse_shape("x", "4096x16x4096"), (GemmShape{4096, 16, 4096, 1}));
  EXPECT_EQ(parse_shape("x", "64x64x64x8"), (GemmShape{64, 64, 64, 8}));
  EXPECT_EQ(parse_shape("x", "28672 16 8192"), (GemmShape{28672, 16, 8192, 1}));
  const auto list = parse_shape_list("--shapes", "4096x4096x4096, 1024x1024x32768");
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[1], (GemmShape{1024, 1024, 32768, 1}));
  const auto file = parse_shapes_file("# the decode shapes\n4096x16x4096   # weights read once\n\n28672 16 8192\r\n", "s.txt");
  EXPECT_EQ(file, (std::vector<GemmShape>{{4096, 16, 4096, 1}, {28672, 16, 8192, 1}}));
  try {
    parse_shapes_file("4096x16x4096\n4096x16\n", "s.txt");
    FAIL() << "no error";
  } catch (const ProfError& e) {
    EXPECT_EQ(std::string(e.what()),
              "s.txt:2: '4096x16' is not a problem size; expected MxNxK or MxNxKxBATCH, such as 4096x16x4096");
  }
  EXPECT_THROW(parse_shape("x", "4096x0x4096"), ProfError);
  EXPECT_THROW(parse_shapes_file("# nothing\n", "s.txt"), ProfError);
}

TEST(ProfShapes, ReplaceTheCrossProduct) {
  const Options o = parse_options({"--shapes=4096x16x4096,8192x8192x256", "--swizzle=0,8"});
  const auto problems = expand_problems(o);
  ASSERT_EQ(problems.size(), 4u);
  EXPECT_EQ(problems[0].shape, (GemmShape{4096, 16, 4096, 1}));
  EXPECT_EQ(problems[1].swizzle, 8);
  EXPECT_EQ(problems[3].shape, (GemmShape{8192, 8192, 256, 1}));
  EXPECT_EQ(expand_problems(parse_options({"--m=1,2", "--n=3,4", "--k=5"})).size(), 4u);
  EXPECT_NE(usage_message({"--shapes=64x64x64", "--m=128"}).find("replace --m, --n, --k and --batch"), std::string::npos);
  EXPECT_NE(usage_message({"--shapes-file=/nonexistent/shapes.txt"}).find("cannot read the file"), std::string::npos);
}

}  // namespace
}  // namespace tessel::prof
