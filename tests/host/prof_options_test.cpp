// tessel-prof's command line: values, lists, ranges, operand specs, and the sentences for bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/int_list.hpp"
#include "core/limits.hpp"
#include "core/options.hpp"
#include "core/problem.hpp"
#include "core/shapes.hpp"
#include "core/text_file.hpp"

namespace tessel::prof {
namespace {

template <class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const ProfError& e) {
    return e.what();
  }
  return "no error";
}

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

// Issue 16: --m=9223372036854775807 stepped past INT64_MAX and grew without end; values past
// what the kernels take, or past 64 bits, are refused.
TEST(ProfIntList, ValuesPastTheKernelsIntRangeAreRefused) {
  auto message = [](const char* text) {
    try {
      parse_int_list("--m", text);
    } catch (const ProfError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("9223372036854775807"),
            "--m=9223372036854775807: '9223372036854775807' is out of range; expected values from 1 to 2147483647");
  EXPECT_NE(message("99999999999999999999").find("is out of range"), std::string::npos);
  EXPECT_NE(message("1:2147483648").find("'1:2147483648' is out of range"), std::string::npos);
  EXPECT_EQ(parse_int_list("--m", "2147483647"), (std::vector<std::int64_t>{kMaxExtent}));
  // A step past the end, even one of 2^63 - 1, gives the start alone instead of overflowing.
  EXPECT_EQ(parse_int_list("--m", "2147483640:2147483647:9223372036854775807"),
            (std::vector<std::int64_t>{2147483640}));
  EXPECT_EQ(parse_int_list("--m", "1:2147483647:1073741823"),
            (std::vector<std::int64_t>{1, 1073741824, 2147483647}));
}

TEST(ProfIntList, SingleIntegersNameTheirRange) {
  auto message = [](const char* text) {
    try {
      parse_int("--sm-count", text, 1, kMaxSmCount);
    } catch (const ProfError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("4294967297"), "--sm-count=4294967297: the value must be at most 4096; pass an integer from 1 to 4096");
  EXPECT_EQ(message("0"), "--sm-count=0: the value must be at least 1; pass an integer from 1 to 4096");
  EXPECT_NE(message("123456789012345678901234").find("must be at most 4096"), std::string::npos);
  EXPECT_NE(message("-123456789012345678901234").find("must be at least 1"), std::string::npos);
  EXPECT_NE(message("12x").find("'12x' is not an integer"), std::string::npos);
  EXPECT_EQ(parse_int("--sm-count", "132", 1, kMaxSmCount), 132);
  EXPECT_THROW(parse_rate("--matrix-tflops", "0"), ProfError);
  EXPECT_THROW(parse_rate("--matrix-tflops", "-989"), ProfError);
  EXPECT_THROW(parse_rate("--matrix-tflops", "1e300"), ProfError);
  EXPECT_DOUBLE_EQ(parse_rate("--matrix-tflops", "989.5"), 989.5);
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
  EXPECT_NE(usage_message({"--matrix-tflops=-5", "--mode=analyze"}).find("must be from 0.001 to 1e+06"), std::string::npos);
  EXPECT_NE(usage_message({"--profiling-iterations=0"}).find("at least 1"), std::string::npos);
}

// Issue 16: each of these was accepted and analyzed as something else (4294967424x128 as
// 128x128, K 4294967296 as 0), or selected every kernel (--kernels=,).
TEST(ProfOptions, OutOfRangeValuesAreRefusedNotTruncated) {
  EXPECT_EQ(usage_message({"--mode=analyze", "--tile=4294967424x128"}),
            "--tile=4294967424x128: M=4294967424: the value must be at most 4096; pass an integer from 1 to 4096");
  EXPECT_NE(usage_message({"--mode=analyze", "--tile=128x128x4294967296"}).find("must be at most 4096"), std::string::npos);
  EXPECT_EQ(parse_options({"--mode=analyze", "--tile=4096x4096x4096"}).tiles, (std::vector<Extent3>{{4096, 4096, 4096}}));
  EXPECT_NE(usage_message({"--mode=analyze", "--sm-count=4294967297"}).find("must be at most 4096"), std::string::npos);
  EXPECT_NE(usage_message({"--mode=analyze", "--ctas-per-sm=65"}).find("must be at most 64"), std::string::npos);
  EXPECT_NE(usage_message({"--mode=analyze", "--bandwidth-gbps=1e300"}).find("must be from"), std::string::npos);
  EXPECT_NE(usage_message({"--swizzle=4294967296"}).find("out of range"), std::string::npos);
  EXPECT_NE(usage_message({"--seed=-1"}).find("must be at least 0"), std::string::npos);
  EXPECT_NE(usage_message({"--shapes=4096x4096x9223372036854775807"}).find("must be at most 2147483647"),
            std::string::npos);
}

TEST(ProfOptions, EmptyKernelPatternsAreRefused) {
  for (const char* arg : {"--kernels=,", "--kernels=bf16,,f16", "--kernels=bf16,", "--ignore-kernels=,"}) {
    EXPECT_NE(usage_message({"--mode=enumerate", arg}).find("without empty entries"), std::string::npos) << arg;
  }
  EXPECT_EQ(parse_options({"--kernels=bf16, f16"}).kernels, (std::vector<std::string>{"bf16", "f16"}));
}

// Issue 16: --m=1:4096 --n=1:4096 expanded 16.7 million problems before anything looked at them.
TEST(ProfOptions, SweepsOverTheProblemLimitAreRefusedInEveryMode) {
  const std::string expected =
      "the sweep has more than 100000 problems (4096 --m x 4096 --n x 1 --k x 1 --batch x 1 --raster x 1 --swizzle), "
      "the limit of one run; sweep fewer sizes (a range with a larger step, such as --m=1024:8192:1024) or list the "
      "problems you serve with --shapes";
  EXPECT_EQ(usage_message({"--m=1:4096", "--n=1:4096"}), expected);
  EXPECT_EQ(usage_message({"--mode=enumerate", "--m=1:4096", "--n=1:4096"}), expected);
  // Six factors of 4096 pass 2^63: the count saturates instead of wrapping to a small number.
  EXPECT_NE(usage_message({"--m=1:4096", "--n=1:4096", "--k=1:4096", "--batch=1:4096", "--swizzle=0:4095",
                           "--raster=heuristic,along_m,along_n"})
                .find("more than 100000 problems"),
            std::string::npos);
  EXPECT_NE(usage_message({"--shapes=1x1x1,2x2x2,3x3x3,4x4x4,5x5x5,6x6x6,7x7x7,8x8x8,9x9x9", "--swizzle=0:4095",
                           "--raster=heuristic,along_m,along_n"})
                .find("(9 --shapes x 3 --raster x 4096 --swizzle)"),
            std::string::npos);
  EXPECT_EQ(expand_problems(parse_options({"--m=1:100", "--n=1:1000"})).size(), 100000u);
  Options built;  // expand_problems holds options built in code to the same limit
  built.m.assign(1000, 64);
  built.n.assign(1000, 64);
  EXPECT_THROW(expand_problems(built), ProfError);
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
  EXPECT_NE(message_of([] { parse_shape("s.txt:1", "2147483648x16x16"); }).find("must be at most 2147483647"),
            std::string::npos);
  std::string many;
  for (int i = 0; i <= kMaxProblems; ++i) many += "16x16x16\n";
  EXPECT_EQ(message_of([&] { parse_shapes_file(many, "s.txt"); }),
            "s.txt: lists more than 100000 shapes, the limit of one run; split the file");
}

// Issue 16: /dev/urandom and /dev/zero as a shapes file read until std::bad_alloc, and a
// directory read as an empty file ("no shapes").
TEST(ProfShapes, InputsThatAreNotTextFilesAreRefused) {
  const std::string dir = std::filesystem::temp_directory_path().string();
  EXPECT_EQ(usage_message({"--shapes-file=" + dir}),
            "--shapes-file=" + dir + ": is a directory; pass a text file with one MxNxK per line, such as bench/shapes.txt");
  EXPECT_EQ(message_of([&] { read_text_file(dir, "--input", "a CSV"); }), "--input=" + dir + ": is a directory; pass a CSV");
  if (std::filesystem::exists("/dev/zero")) {
    EXPECT_EQ(usage_message({"--shapes-file=/dev/zero"}),
              "--shapes-file=/dev/zero: is not a text file (byte 0 is NUL); pass a text file with one MxNxK per line, "
              "such as bench/shapes.txt");
  }
  if (std::filesystem::exists("/dev/urandom")) {
    EXPECT_NE(usage_message({"--shapes-file=/dev/urandom"}).find("is not a text file"), std::string::npos);
  }
  const std::string big = (std::filesystem::temp_directory_path() / "tessel_prof_big_shapes.txt").string();
  {
    std::ofstream out(big, std::ios::binary);
    const std::string line(1023, ' ');
    for (std::size_t i = 0; i <= kMaxInputFileBytes / 1024; ++i) out << line << '\n';
  }
  EXPECT_NE(usage_message({"--shapes-file=" + big}).find("is larger than 16 MiB, the limit for an input file"),
            std::string::npos);
  std::filesystem::remove(big);
}

// Issue 16: output files are checked where they are written.
TEST(ProfTextFile, UnwritableOutputsAreAnErrorNamingThePath) {
  auto failure = [](const std::string& path) {
    try {
      write_text_file(path, std::string(1 << 20, 'x'), "--output");
    } catch (const ProfError& e) {
      EXPECT_EQ(e.exit_code(), kExitUnwritable);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  if (std::filesystem::exists("/dev/full")) {
    EXPECT_EQ(failure("/dev/full"), "--output=/dev/full: writing the file failed (No space left on device); pass a "
                                    "path on a disk with room for it");
  }
  EXPECT_NE(failure("/nonexistent/dir/out.csv").find("cannot open the file for writing"), std::string::npos);
  EXPECT_NE(failure(std::filesystem::temp_directory_path().string()).find("cannot open the file for writing"),
            std::string::npos);
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
