// Analyze mode's arithmetic: the seed's worked example, wave quantization and roofline floors.
#include <gtest/gtest.h>

#include "core/analysis.hpp"
#include "core/device_profile.hpp"
#include "core/error.hpp"
#include "core/limits.hpp"

#include <cmath>

namespace tessel::prof {
namespace {

const OperandSet kF16Tn{{Element::kF16, Layout::kRow}, {Element::kF16, Layout::kColumn},
                        {Element::kF16, Layout::kColumn}, {Element::kF16, Layout::kColumn}};

AnalysisInput input(std::int64_t m, std::int64_t n, std::int64_t k, Extent3 tile, int sms = 132) {
  AnalysisInput in;
  in.shape = {m, n, k, 1};
  in.operands = kF16Tn;
  in.tile = tile;
  in.sm_count = sms;
  return in;
}

// The seed: "For a square 4096x4096x4096 GEMM with 128x128 tiles there are 32*32 = 1,024 output
// tiles ... 1,024 / 132 = 7.76 waves: seven full waves, then a final wave in which only 100 of
// 132 SMs have work."
TEST(ProfAnalysis, SeedSquareProblemOn128x128Tiles) {
  const Analysis a = analyze(input(4096, 4096, 4096, {128, 128, 32}));
  EXPECT_EQ(a.tiles_m, 32);
  EXPECT_EQ(a.tiles_n, 32);
  EXPECT_EQ(a.tiles, 1024);
  EXPECT_EQ(fixed2(a.waves), "7.76");
  EXPECT_EQ(a.full_waves, 7);
  EXPECT_EQ(a.last_wave_sms, 100);
  EXPECT_DOUBLE_EQ(a.tile_efficiency, 1.0);
}

// "With 128x256 tiles there are 512 tiles and 3.88 waves."
TEST(ProfAnalysis, SeedSquareProblemOn128x256Tiles) {
  const Analysis a = analyze(input(4096, 4096, 4096, {128, 256, 32}));
  EXPECT_EQ(a.tiles, 512);
  EXPECT_EQ(fixed2(a.waves), "3.88");
  EXPECT_EQ(a.last_wave_sms, 512 - 3 * 132);
}

// "M = 4096 output features, N = 16 tokens, K = 4096 ... there are only 32 tiles for 132 SMs"
// and "seven-eighths of every tile is padding".
TEST(ProfAnalysis, SeedDecodeShape) {
  const Analysis a = analyze(input(4096, 16, 4096, {128, 128, 32}));
  EXPECT_EQ(a.tiles, 32);
  EXPECT_EQ(a.full_waves, 0);
  EXPECT_EQ(a.last_wave_sms, 32);
  EXPECT_EQ(fixed2(a.waves), "0.24");
  EXPECT_DOUBLE_EQ(a.tile_efficiency, 1.0 / 8.0);
}

TEST(ProfAnalysis, FullLastWaveRaggedTilesBatchAndResidency) {
  Analysis a = analyze(input(132 * 128, 128, 64, {128, 128, 32}));
  EXPECT_EQ(a.tiles, 132);
  EXPECT_EQ(fixed2(a.waves), "1.00");
  EXPECT_EQ(a.last_wave_sms, 132);
  EXPECT_DOUBLE_EQ(a.wave_efficiency, 1.0);

  a = analyze(input(129, 100, 64, {128, 128, 32}));  // ragged: 2 x 1 tiles
  EXPECT_EQ(a.tiles, 2);
  EXPECT_DOUBLE_EQ(a.tile_efficiency, 129.0 * 100.0 / (2.0 * 128 * 128));

  AnalysisInput in = input(4096, 4096, 4096, {128, 128, 32});
  in.shape.batch = 3;
  a = analyze(in);
  EXPECT_EQ(a.tiles, 3072);
  EXPECT_DOUBLE_EQ(a.flops, 3 * 2.0 * 4096.0 * 4096.0 * 4096.0);

  in = input(4096, 4096, 4096, {128, 128, 32});
  in.ctas_per_sm = 2;  // 264 slots: 1024 = 3 * 264 + 232, spread over all 132 SMs
  a = analyze(in);
  EXPECT_EQ(a.slots, 264);
  EXPECT_EQ(fixed2(a.waves), "3.88");
  EXPECT_EQ(a.last_wave_ctas, 232);
  EXPECT_EQ(a.last_wave_sms, 132);
}

TEST(ProfAnalysis, ClustersLaunchWhole) {
  AnalysisInput in = input(4096 + 128, 4096, 4096, {128, 256, 64});  // 33 row tiles
  in.cluster = {2, 1, 1};
  const Analysis a = analyze(in);
  EXPECT_EQ(a.tiles_m, 34);  // padded to whole clusters
  EXPECT_EQ(a.tiles, 34 * 16);
  in.sm_count = 131;  // 65 clusters of 2 fit
  EXPECT_EQ(analyze(in).slots, 130);
}

TEST(ProfAnalysis, RooflineFloors) {
  AnalysisInput in = input(4096, 16, 4096, {128, 128, 32});
  Analysis a = analyze(in);
  EXPECT_FALSE(a.floor_us.has_value());
  EXPECT_EQ(a.bound, "");
  in.matrix_tflops = 989;
  in.bandwidth_gbps = 4800;
  a = analyze(in);
  const double flops = 2.0 * 4096 * 16 * 4096;
  const double bytes = 2.0 * (4096.0 * 4096 + 4096.0 * 16 + 4096.0 * 16);  // A, B, D in f16; beta = 0
  EXPECT_DOUBLE_EQ(a.bytes, bytes);
  EXPECT_DOUBLE_EQ(a.intensity, flops / bytes);
  EXPECT_NEAR(*a.compute_floor_us, flops / 989e12 * 1e6, 1e-9);
  EXPECT_NEAR(*a.memory_floor_us, bytes / 4800e9 * 1e6, 1e-9);
  EXPECT_DOUBLE_EQ(*a.floor_us, *a.memory_floor_us);
  EXPECT_EQ(a.bound, "memory");
  // One wave; each of the 132 slots is charged a whole 128x128x4096 tile at the matrix rate.
  EXPECT_NEAR(*a.quantized_floor_us, 132 * 2.0 * 128 * 128 * 4096 / 989e12 * 1e6, 1e-9);

  in = input(8192, 8192, 8192, {128, 128, 32});
  in.matrix_tflops = 989;
  in.bandwidth_gbps = 4800;
  in.reads_c = true;
  a = analyze(in);
  EXPECT_EQ(a.bound, "compute");
  EXPECT_DOUBLE_EQ(a.bytes, 2.0 * (3 * 8192.0 * 8192 + 8192.0 * 8192));  // C read too
  EXPECT_GE(*a.quantized_floor_us, *a.floor_us);
}

TEST(ProfAnalysis, RejectsNonsense) {
  EXPECT_THROW(analyze(input(4096, 4096, 4096, {128, 128, 32}, 0)), std::invalid_argument);
  EXPECT_THROW(analyze(input(4096, 4096, 4096, {0, 128, 32})), std::invalid_argument);
  EXPECT_THROW(analyze(input(0, 4096, 4096, {128, 128, 32})), std::invalid_argument);
}

// Issue 16: huge M, N and batch wrapped the tile count to 0 or a negative number ("inf%").
TEST(ProfAnalysis, LargestExtentsCountExactlyOrAreRefused) {
  AnalysisInput in = input(kMaxExtent, kMaxExtent, 1, {1, 1, 0});
  Analysis a = analyze(in);
  EXPECT_EQ(a.tiles, kMaxExtent * kMaxExtent);
  EXPECT_DOUBLE_EQ(a.tile_efficiency, 1.0);
  EXPECT_GT(a.waves, 0);
  in.shape.batch = kMaxExtent;  // 2^93 tiles
  try {
    analyze(in);
    FAIL() << "no error";
  } catch (const ProfError& e) {
    EXPECT_EQ(e.exit_code(), kExitUsage);
    EXPECT_EQ(std::string(e.what()), "2147483647x2147483647x1x2147483647 on a 1x1 tile has more than 2^63 output "
                                     "tiles; analyze a smaller problem or a larger tile");
  }
  in = input(kMaxExtent, kMaxExtent, kMaxExtent, {kMaxTileExtent, kMaxTileExtent, kMaxTileExtent}, kMaxSmCount);
  in.shape.batch = std::int64_t(1) << 24;  // 2^19 x 2^19 x 2^24 = 2^62 tiles, the most that fit
  in.ctas_per_sm = kMaxCtasPerSm;
  in.matrix_tflops = kMinRate;
  in.bandwidth_gbps = kMinRate;
  a = analyze(in);
  EXPECT_EQ(a.tiles, std::int64_t(1) << 62);
  EXPECT_GT(a.tile_efficiency, 0);
  EXPECT_LE(a.tile_efficiency, 1);
  EXPECT_TRUE(std::isfinite(*a.quantized_floor_us));
  EXPECT_TRUE(std::isfinite(*a.floor_us));
}

TEST(ProfDeviceProfile, RoundTripAndErrors) {
  DeviceProfile p;
  p.device = "NVIDIA H200";
  p.compute_capability = "9.0";
  p.sm_count = 132;
  p.l2_bytes = 62914560;
  p.copy_bandwidth_gbps = 4312.5;
  p.matrix_tflops = {{"bf16", 751.9}, {"f16", 745.1}};
  p.measured = "2026-11-29T10:00:00Z";
  const DeviceProfile q = parse_device_profile(format_device_profile(p), "p.txt");
  EXPECT_EQ(q.device, p.device);
  EXPECT_EQ(q.compute_capability, "9.0");
  EXPECT_EQ(q.sm_count, 132);
  EXPECT_EQ(q.l2_bytes, 62914560);
  EXPECT_DOUBLE_EQ(q.copy_bandwidth_gbps, 4312.5);
  EXPECT_DOUBLE_EQ(*q.matrix_rate(Element::kBF16), 751.9);
  EXPECT_DOUBLE_EQ(*q.matrix_rate(Element::kF16), 745.1);
  EXPECT_FALSE(q.matrix_rate(Element::kF32).has_value());
  EXPECT_EQ(q.measured, p.measured);

  EXPECT_EQ(parse_device_profile("# comment\n\nsm_count = 7  # trailing\nfuture_key = 1\n", "x").sm_count, 7);
  try {
    parse_device_profile("sm_count = 132\nthis line is wrong\n", "p.txt");
    FAIL() << "no error";
  } catch (const ProfError& e) {
    EXPECT_EQ(std::string(e.what()), "p.txt:2: expected 'key = value', got 'this line is wrong'");
  }
  EXPECT_THROW(parse_device_profile("sm_count = many\n", "p.txt"), ProfError);
}

// Issue 16: sm_count = 4294967297 was used as 1, negative rates were taken.
TEST(ProfDeviceProfile, ValuesOutOfRangeAreRefused) {
  auto message = [](const std::string& text) {
    try {
      parse_device_profile(text, "p.txt");
    } catch (const ProfError& e) {
      EXPECT_EQ(e.exit_code(), kExitUsage);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("sm_count = 4294967297\n"),
            "p.txt:1: sm_count=4294967297: the value must be at most 4096; pass an integer from 1 to 4096");
  EXPECT_NE(message("sm_count = 0\n").find("must be at least 1"), std::string::npos);
  EXPECT_NE(message("sm_count = 132\nmatrix_tflops_bf16 = -751.9\n").find("p.txt:2: matrix_tflops_bf16=-751.9: "),
            std::string::npos);
  EXPECT_NE(message("copy_bandwidth_gbps = 0\n").find("must be from 0.001 to 1e+06"), std::string::npos);
  EXPECT_NE(message("copy_bandwidth_gbps = 1e308\n").find("must be from"), std::string::npos);
  EXPECT_NE(message("l2_bytes = -1\n").find("must be at least 0"), std::string::npos);
  EXPECT_EQ(message("sm_count = 4096\nmatrix_tflops_f16 = 1e6\ncopy_bandwidth_gbps = 0.001\n"), "no error");
}

}  // namespace
}  // namespace tessel::prof
