// The Sm75 GEMM (two-stage mainloop: one shared-memory stage, one register stage; mma.sync
// m16n8k8) on the device: every layout combination of A, B and C with f16 in and f32 out, f16
// and bf16 out, and a few threadblock and warp shapes, among them the seed exercise's 128x64x32
// threadblock over a 64x64x32 warp. Each configuration runs the shapes of gemm_test_support.hpp.
//
// Built for 75 only: a Turing GPU runs the sm_75 machine code, anything newer JIT-compiles the
// compute_75 PTX, so the Turing path is exercised on whichever device the tests find.

#include <gtest/gtest.h>

#include <string>
#include <tuple>

#include "gemm_test_support.hpp"

namespace {

using namespace tessel;
using namespace tessel::gemm;
using test::GemmCase;
using test::GemmConfig;

template <class LA, class LB, class TOut, class LC, class Tb = GemmShape<128, 128, 32>,
          class Warp = GemmShape<64, 64, 32>>
using Sm75Gemm = device::Gemm<half_t, LA, half_t, LB, TOut, LC, float, OpClassTensorOp, arch::Sm75, Tb, Warp,
                              GemmShape<16, 8, 8>, epilogue::LinearCombination<TOut>, 2>;

using R = RowMajor;
using C = ColumnMajor;

const GemmConfig kConfigs[] = {
    {"f16_f32_ArBcCr", &test::run_case<Sm75Gemm<R, C, float, R>>},
    {"f16_f32_ArBcCc", &test::run_case<Sm75Gemm<R, C, float, C>>},
    {"f16_f32_ArBrCr", &test::run_case<Sm75Gemm<R, R, float, R>>},
    {"f16_f32_ArBrCc", &test::run_case<Sm75Gemm<R, R, float, C>>},
    {"f16_f32_AcBcCr", &test::run_case<Sm75Gemm<C, C, float, R>>},
    {"f16_f32_AcBcCc", &test::run_case<Sm75Gemm<C, C, float, C>>},
    {"f16_f32_AcBrCr", &test::run_case<Sm75Gemm<C, R, float, R>>},
    {"f16_f32_AcBrCc", &test::run_case<Sm75Gemm<C, R, float, C>>},
    // The exercise: half the threadblock, the same warp tile, so two warps instead of four.
    {"f16_f16_ArBcCc_128x64x32", &test::run_case<Sm75Gemm<R, C, half_t, C, GemmShape<128, 64, 32>>>},
    {"f16_bf16_AcBrCr_64x64x32_w32x32x32",
     &test::run_case<Sm75Gemm<C, R, bfloat16_t, R, GemmShape<64, 64, 32>, GemmShape<32, 32, 32>>>},
    {"f16_f32_ArBrCc_128x128x64_w64x64x64",
     &test::run_case<Sm75Gemm<R, R, float, C, GemmShape<128, 128, 64>, GemmShape<64, 64, 64>>>},
    {"f16_f16_AcBcCr_256x128x32", &test::run_case<Sm75Gemm<C, C, half_t, R, GemmShape<256, 128, 32>>>},
};

class GemmSm75 : public ::testing::TestWithParam<std::tuple<GemmConfig, GemmCase>> {};

TEST_P(GemmSm75, MatchesReference) {
  TESSEL_SKIP_WITHOUT_GPU();
  ASSERT_TRUE(arch::device_can_run<arch::Sm75>())
      << "the device cannot run arch::Sm75 kernels; these tests need compute capability 7.5 or newer";
  const auto& [config, shape] = GetParam();
  config.run(shape);
}

INSTANTIATE_TEST_SUITE_P(Sm75, GemmSm75, ::testing::Combine(::testing::ValuesIn(kConfigs), ::testing::ValuesIn(test::gemm_cases())),
                         [](const ::testing::TestParamInfo<GemmSm75::ParamType>& info) {
                           return std::string(std::get<0>(info.param).name) + "__" + std::get<1>(info.param).name;
                         });

}  // namespace
