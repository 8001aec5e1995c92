// The architecture rules without a GPU: which compiled architectures and which devices can run
// which arch tag, and the Status and sentence the run-time gate gives.

#include "tessel/arch/gate.hpp"

#include <gtest/gtest.h>

namespace {

using namespace tessel::arch;
using tessel::Status;

TEST(ArchTags, MinimumComputeCapabilities) {
  static_assert(Sm75::kMinComputeCapability == 75);
  static_assert(Sm80::kMinComputeCapability == 80);
  static_assert(Sm90::kMinComputeCapability == 90);
  EXPECT_STREQ(Sm90::kName, "sm_90a");
}

TEST(ArchTags, WhichCompiledArchitectureRunsWhichTag) {
  // Newer architectures run older tags...
  static_assert(arch_runs_tag<Sm75>(750) && arch_runs_tag<Sm75>(800) && arch_runs_tag<Sm75>(900));
  static_assert(arch_runs_tag<Sm80>(800) && arch_runs_tag<Sm80>(860) && arch_runs_tag<Sm80>(900));
  static_assert(!arch_runs_tag<Sm80>(750));
  // ...but the arch-specific Hopper features exist on 9.0 only.
  static_assert(arch_runs_tag<Sm90>(900));
  static_assert(!arch_runs_tag<Sm90>(800) && !arch_runs_tag<Sm90>(1000));

  constexpr int turing_only[] = {750};
  constexpr int ampere_hopper[] = {800, 900};
  constexpr int blackwell[] = {1000};
  static_assert(any_arch_runs_tag<Sm75>(turing_only));
  static_assert(!any_arch_runs_tag<Sm80>(turing_only));
  static_assert(any_arch_runs_tag<Sm80>(ampere_hopper) && any_arch_runs_tag<Sm90>(ampere_hopper));
  static_assert(any_arch_runs_tag<Sm80>(blackwell) && !any_arch_runs_tag<Sm90>(blackwell));
}

TEST(ArchTags, HostPassRunsNothing) {
  // A host compiler has no device pass; kernels guarded by device_pass_supports are empty here.
  static_assert(kDevicePassArch == 0);
  static_assert(!device_pass_supports<Sm75>() && !device_pass_supports<Sm90>());
  // g++ does not say what it compiles for, so the build-time rule cannot object.
  static_assert(!kHaveCompiledArchList && is_compiled_target_v<Sm90>);
}

TEST(ArchGate, Sm80KernelOnTuringIsAnArchMismatch) {
  const auto s = arch_gate<Sm80>(75, "device 0 (Tesla T4)", 0);
  EXPECT_EQ(s.status, Status::kErrorArchMismatch);
  EXPECT_NE(s.message.find("arch::Sm80"), std::string::npos) << s.message;
  EXPECT_NE(s.message.find("8.0 or newer"), std::string::npos) << s.message;
  EXPECT_NE(s.message.find("device 0 (Tesla T4) has compute capability 7.5"), std::string::npos)
      << s.message;
}

TEST(ArchGate, NewerDevicesRunOlderTags) {
  EXPECT_TRUE(arch_gate<Sm75>(75, "d", 75).ok());
  EXPECT_TRUE(arch_gate<Sm75>(90, "d", 75).ok());
  EXPECT_TRUE(arch_gate<Sm80>(90, "d", 80).ok());
  EXPECT_TRUE(arch_gate<Sm80>(86, "d", 0).ok());
}

TEST(ArchGate, Sm90aRunsOnlyOnComputeCapability90) {
  EXPECT_TRUE(arch_gate<Sm90>(90, "d", 90).ok());
  const auto blackwell = arch_gate<Sm90>(100, "device 0 (B200)", 0);
  EXPECT_EQ(blackwell.status, Status::kErrorArchMismatch);
  EXPECT_NE(blackwell.message.find("runs only on compute capability 9.0"), std::string::npos)
      << blackwell.message;
  EXPECT_EQ(arch_gate<Sm90>(80, "d", 0).status, Status::kErrorArchMismatch);
}

TEST(ArchGate, ImageWithTheBodyCompiledOutIsAnArchMismatch) {
  // A 75;80-real build on a 9.0 device: no sm_90 image, so the driver JIT-compiles the
  // compute_75 PTX, whose Sm80 body is empty.
  const auto s = arch_gate<Sm80>(90, "device 0 (NVIDIA H200)", 75);
  EXPECT_EQ(s.status, Status::kErrorArchMismatch);
  EXPECT_NE(s.message.find("compute_75"), std::string::npos) << s.message;
  EXPECT_NE(s.message.find("add 90 to CMAKE_CUDA_ARCHITECTURES"), std::string::npos) << s.message;
  EXPECT_NE(arch_gate<Sm90>(90, "d", 80).message.find("add 90a"), std::string::npos);
}

}  // namespace
