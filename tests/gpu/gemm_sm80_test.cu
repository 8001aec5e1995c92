// The Sm80 GEMM (cp.async multistage mainloop, mma.sync m16n8k16) on the device: every layout
// combination of A, B and C, f16 and bf16 in, f32 / f16 / bf16 out, a few threadblock, warp and
// stage choices, each over the shapes of gemm_test_support.hpp. Also the arch gate and the
// argument checks that need real device pointers.

#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "gemm_test_support.hpp"
#include "tessel/verify/device_fill.cuh"

namespace {

using namespace tessel;
using namespace tessel::gemm;
using test::GemmCase;
using test::GemmConfig;

template <class TIn, class LA, class LB, class TOut, class LC, class Tb = GemmShape<128, 128, 32>,
          class Warp = GemmShape<64, 64, 32>, int Stages = 3, class Inst = GemmShape<16, 8, 16>,
          class Policy = KernelPolicySm80Default>
using Sm80Gemm = device::Gemm<TIn, LA, TIn, LB, TOut, LC, float, OpClassTensorOp, arch::Sm80, Tb, Warp, Inst,
                              epilogue::LinearCombination<TOut>, Stages, Policy>;
// The v4 mainloop (XOR-split shared addresses), alone and with the staged epilogue and 2 CTAs per SM.
using V4 = KernelPolicySm80<Sm80Mainloop::kFast>;  // the default: the cases without a prefix run it too
using V3 = KernelPolicySm80<Sm80Mainloop::kClassic>;
using V4Sepi = KernelPolicySm80<Sm80Mainloop::kFast, 1, true>;
using V4B2Sepi = KernelPolicySm80<Sm80Mainloop::kFast, 2, true>;
using I16 = GemmShape<16, 8, 16>;
using T128 = GemmShape<128, 128, 32>;
using W64 = GemmShape<64, 64, 32>;

using R = RowMajor;
using C = ColumnMajor;

// The seed's configuration (128x128x32, warp 64x64x32, 3 stages) in all eight layout
// combinations, then one variation at a time: element types, tile shapes, stage counts, and the
// 16x8x8 instruction on the cp.async mainloop.
const GemmConfig kConfigs[] = {
    {"f16_f32_ArBcCr", &test::run_case<Sm80Gemm<half_t, R, C, float, R>>},
    {"f16_f32_ArBcCc", &test::run_case<Sm80Gemm<half_t, R, C, float, C>>},
    {"f16_f32_ArBrCr", &test::run_case<Sm80Gemm<half_t, R, R, float, R>>},
    {"f16_f32_ArBrCc", &test::run_case<Sm80Gemm<half_t, R, R, float, C>>},
    {"f16_f32_AcBcCr", &test::run_case<Sm80Gemm<half_t, C, C, float, R>>},
    {"f16_f32_AcBcCc", &test::run_case<Sm80Gemm<half_t, C, C, float, C>>},
    {"f16_f32_AcBrCr", &test::run_case<Sm80Gemm<half_t, C, R, float, R>>},
    {"f16_f32_AcBrCc", &test::run_case<Sm80Gemm<half_t, C, R, float, C>>},
    {"bf16_f32_ArBcCc", &test::run_case<Sm80Gemm<bfloat16_t, R, C, float, C>>},
    {"bf16_bf16_AcBrCc_128x128x64_w64x64x64_s4",
     &test::run_case<Sm80Gemm<bfloat16_t, C, R, bfloat16_t, C, GemmShape<128, 128, 64>, GemmShape<64, 64, 64>, 4>>},
    {"bf16_f16_ArBrCc_256x128x32_s5",
     &test::run_case<Sm80Gemm<bfloat16_t, R, R, half_t, C, GemmShape<256, 128, 32>, GemmShape<64, 64, 32>, 5>>},
    {"f16_f16_ArBrCr_64x64x32_w32x32x32",
     &test::run_case<Sm80Gemm<half_t, R, R, half_t, R, GemmShape<64, 64, 32>, GemmShape<32, 32, 32>>>},
    {"f16_bf16_AcBcCr_128x256x32",
     &test::run_case<Sm80Gemm<half_t, C, C, bfloat16_t, R, GemmShape<128, 256, 32>, GemmShape<64, 64, 32>>>},
    {"f16_f32_ArBcCr_64x128x32_w32x64x32",
     &test::run_case<Sm80Gemm<half_t, R, C, float, R, GemmShape<64, 128, 32>, GemmShape<32, 64, 32>>>},
    {"f16_f32_AcBcCc_two_stage",
     &test::run_case<Sm80Gemm<half_t, C, C, float, C, GemmShape<128, 128, 32>, GemmShape<64, 64, 32>, 2>>},
    {"f16_f32_ArBcCr_inst16x8x8_s3",
     &test::run_case<Sm80Gemm<half_t, R, C, float, R, GemmShape<128, 128, 32>, GemmShape<64, 64, 32>, 3, GemmShape<16, 8, 8>>>},
    // v4 mainloop: every layout combination (K-major and MN-major shared tiles), then the
    // staged epilogue (f16/bf16/f32 D, row- and column-major), 2 CTAs per SM, BK 64, 128x256.
    {"v4_f16_f32_ArBcCr", &test::run_case<Sm80Gemm<half_t, R, C, float, R, T128, W64, 3, I16, V4>>},
    {"v4_f16_f32_ArBrCc", &test::run_case<Sm80Gemm<half_t, R, R, float, C, T128, W64, 3, I16, V4>>},
    {"v4_f16_f32_AcBcCr", &test::run_case<Sm80Gemm<half_t, C, C, float, R, T128, W64, 3, I16, V4>>},
    {"v4_f16_f32_AcBrCc", &test::run_case<Sm80Gemm<half_t, C, R, float, C, T128, W64, 3, I16, V4>>},
    {"v4_sepi_f16_f16_ArBcCc", &test::run_case<Sm80Gemm<half_t, R, C, half_t, C, T128, W64, 3, I16, V4Sepi>>},
    {"v4_sepi_bf16_bf16_ArBcCr", &test::run_case<Sm80Gemm<bfloat16_t, R, C, bfloat16_t, R, T128, W64, 3, I16, V4Sepi>>},
    {"v4_sepi_f16_f32_AcBrCc_s4", &test::run_case<Sm80Gemm<half_t, C, R, float, C, T128, W64, 4, I16, V4Sepi>>},
    {"v4_b2_sepi_f16_f16_ArBcCc_128x128x64_w64x32x64",
     &test::run_case<Sm80Gemm<half_t, R, C, half_t, C, GemmShape<128, 128, 64>, GemmShape<64, 32, 64>, 3, I16, V4B2Sepi>>},
    // MN-major operands with f32 D at 2 CTAs per SM spill (5 STL in sm_90a): one CTA per SM here.
    {"v4_sepi_bf16_f32_AcBrCr_128x128x64_w64x32x64",
     &test::run_case<Sm80Gemm<bfloat16_t, C, R, float, R, GemmShape<128, 128, 64>, GemmShape<64, 32, 64>, 3, I16, V4Sepi>>},
    {"v4_sepi_f16_f16_ArBcCc_128x256x32",
     &test::run_case<Sm80Gemm<half_t, R, C, half_t, C, GemmShape<128, 256, 32>, W64, 3, I16, V4Sepi>>},
    // The classic (v3) mainloop, no longer the default: every layout combination once.
    {"v3_f16_f32_ArBcCr", &test::run_case<Sm80Gemm<half_t, R, C, float, R, T128, W64, 3, I16, V3>>},
    {"v3_bf16_bf16_AcBrCc", &test::run_case<Sm80Gemm<bfloat16_t, C, R, bfloat16_t, C, T128, W64, 3, I16, V3>>},
    {"v3_f16_f16_ArBrCr_s4", &test::run_case<Sm80Gemm<half_t, R, R, half_t, R, T128, W64, 4, I16, V3>>},
    {"v3_f16_f32_AcBcCc", &test::run_case<Sm80Gemm<half_t, C, C, float, C, T128, W64, 3, I16, V3>>},
};

class GemmSm80 : public ::testing::TestWithParam<std::tuple<GemmConfig, GemmCase>> {};

TEST_P(GemmSm80, MatchesReference) {
  TESSEL_SKIP_WITHOUT_GPU();
  ASSERT_TRUE(arch::device_can_run<arch::Sm80>())
      << "the device cannot run arch::Sm80 kernels; these tests need compute capability 8.0 or newer";
  const auto& [config, shape] = GetParam();
  config.run(shape);
}

INSTANTIATE_TEST_SUITE_P(Sm80, GemmSm80, ::testing::Combine(::testing::ValuesIn(kConfigs), ::testing::ValuesIn(test::gemm_cases())),
                         [](const ::testing::TestParamInfo<GemmSm80::ParamType>& info) {
                           return std::string(std::get<0>(info.param).name) + "__" + std::get<1>(info.param).name;
                         });

// ---- The arch gate on this device ------------------------------------------------------------
using Seed = Sm80Gemm<half_t, R, C, float, R>;

struct Operands {
  verify::DeviceBuffer<half_t> a{64 * 64}, b{64 * 64};
  verify::DeviceBuffer<float> d{64 * 64};
  Seed::Arguments args() const {
    return {{64, 64, 64}, {a.data(), 64}, {b.data(), 64}, {nullptr, 0}, {d.data(), 64}, {1.f, 0.f}, 1};
  }
};

TEST(GemmSm80ArchGate, CanImplementFollowsTheDevicesComputeCapability) {
  TESSEL_SKIP_WITHOUT_GPU();
  arch::DeviceArch device;
  ASSERT_TRUE(arch::query_device_arch(-1, device).ok());
  Operands ops;
  const StatusInfo s = Seed::can_implement(ops.args());
  if (device.compute_capability >= 80) {
    EXPECT_TRUE(s.ok()) << device.describe() << " has compute capability " << device.compute_capability << ": " << s.what();
  } else {
    EXPECT_EQ(s.status, Status::kErrorArchMismatch) << s.what();
    EXPECT_NE(s.message.find("arch::Sm80"), std::string::npos) << s.what();
  }
}

// ---- Argument checks that need device memory -------------------------------------------------
TEST(GemmSm80Arguments, MisalignedBaseAddressIsRefusedWithTheAddress) {
  TESSEL_SKIP_WITHOUT_GPU();
  Operands ops;
  Seed::Arguments args = ops.args();
  args.ref_A.data = ops.a.data() + 1;  // 2 bytes past a 256-byte aligned allocation
  const StatusInfo s = Seed::can_implement(args);
  EXPECT_EQ(s.status, Status::kErrorMisalignedOperand) << s.what();
  EXPECT_NE(s.message.find("base address of A is 0x"), std::string::npos) << s.what();
  EXPECT_NE(s.message.find("not aligned to the 16 bytes the vector loads need"), std::string::npos) << s.what();

  args = ops.args();
  args.ref_B.data = ops.b.data() + 4;  // 8 bytes off
  const StatusInfo sb = Seed::can_implement(args);
  EXPECT_EQ(sb.status, Status::kErrorMisalignedOperand) << sb.what();
  EXPECT_NE(sb.message.find("base address of B is 0x"), std::string::npos) << sb.what();
}

TEST(GemmSm80Arguments, RefusedInitializeLaunchesNothing) {
  TESSEL_SKIP_WITHOUT_GPU();
  Operands ops;
  verify::poison_device(ops.d.data(), ops.d.size());
  Seed::Arguments args = ops.args();
  args.ref_A.ld = 60;  // smaller than K = 64
  Seed gemm;
  const StatusInfo s = gemm(args);
  EXPECT_EQ(s.status, Status::kErrorInvalidProblem) << s.what();
  EXPECT_EQ(gemm.run().status, Status::kErrorInternal) << "run() after a refused initialize() must not launch";
  TESSEL_CUDA_CHECK(cudaDeviceSynchronize());
  for (float x : ops.d.download()) ASSERT_TRUE(verify::is_poison(x)) << "D was written by a refused GEMM";
}

TEST(GemmSm80Arguments, OperatorRunsTheSameAsInitializeAndRun) {
  TESSEL_SKIP_WITHOUT_GPU();
  Operands ops;
  verify::fill_random_device(ops.a.data(), ops.a.size(), 5, verify::Distribution::integers(-2, 2));
  verify::fill_random_device(ops.b.data(), ops.b.size(), 6, verify::Distribution::integers(-2, 2));
  verify::poison_device(ops.d.data(), ops.d.size());
  Seed gemm;
  ASSERT_TRUE(gemm(ops.args()).ok());
  TESSEL_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> first = ops.d.download();
  verify::poison_device(ops.d.data(), ops.d.size());
  ASSERT_TRUE(gemm.run().ok());  // the handle keeps its arguments
  TESSEL_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> second = ops.d.download();
  // Small integers: every product and partial sum is exact in f32, so the two runs agree bit
  // for bit and neither left an element unwritten.
  ASSERT_EQ(first, second);
  for (float x : second) ASSERT_FALSE(verify::is_poison(x));
}

}  // namespace
