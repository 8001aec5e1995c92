#pragma once
// Architecture tags, and the compile-time rules that tie a tag to the architectures a translation
// unit is compiled for.
//
// A tag names the oldest architecture whose instructions a kernel uses. Two things must agree with
// it, and each has a check here:
//
// 1. Build time. nvcc (checked with 13.0) defines __CUDA_ARCH_LIST__ in every compilation pass,
//    host pass included, as the comma-separated list of virtual architectures being compiled
//    (`-gencode arch=compute_80,...` contributes 800; CMake's CUDA_ARCHITECTURES 75;80;90a gives
//    750,800,900). A kernel templated on a tag states
//
//        static_assert(tessel::arch::require_compiled_target<Tag>());
//
//    and the build fails, naming the architecture to add, when no compiled architecture can run
//    the tag's instructions. Without that check a kernel body guarded by __CUDA_ARCH__ would
//    compile to nothing in every pass and fail only at run time.
//    sm_90a is special: wgmma and setmaxnreg exist only in the arch-specific target, which
//    __CUDA_ARCH_LIST__ spells 900 just like plain sm_90. So the device pass for 900 also checks
//    __CUDA_ARCH_FEAT_SM90_ALL, which nvcc defines only for compute_90a, and fails the build
//    when an Sm90 kernel is compiled for sm_90 without the "a".
//    Compilers that do not define __CUDA_ARCH_LIST__ (clang's CUDA mode, a host compiler) skip
//    the build-time half; the run-time gate in arch/runtime.hpp still applies.
//
// 2. Each device pass. In a pass whose __CUDA_ARCH__ cannot run the tag's instructions the
//    kernel body is compiled out: `if constexpr (tessel::arch::device_pass_supports<Tag>())`.
//    That pass still yields a kernel image (a 75;80;90a build carries an sm_75 image of an Sm80
//    kernel), so the host must not launch it there: arch/runtime.hpp reads which image the
//    device would run and returns kErrorArchMismatch instead.

#include <type_traits>

#include "tessel/config.hpp"

namespace tessel::arch {

// Turing: mma.sync m16n8k8 (f16), ldmatrix.
struct Sm75 {
  static constexpr int kMinComputeCapability = 75;
  static constexpr bool kArchSpecific = false;
  static constexpr const char* kName = "sm_75";
};

// Ampere: mma.sync m16n8k16 (f16, bf16), cp.async.
struct Sm80 {
  static constexpr int kMinComputeCapability = 80;
  static constexpr bool kArchSpecific = false;
  static constexpr const char* kName = "sm_80";
};

// Hopper with its arch-specific features (wgmma, setmaxnreg): runs on compute capability 9.0 only.
struct Sm90 {
  static constexpr int kMinComputeCapability = 90;
  static constexpr bool kArchSpecific = true;
  static constexpr const char* kName = "sm_90a";
};

template <class T>
inline constexpr bool is_arch_tag_v =
    std::is_same_v<T, Sm75> || std::is_same_v<T, Sm80> || std::is_same_v<T, Sm90>;

// Can code compiled for virtual architecture `arch` (in __CUDA_ARCH__ units: 800 for
// compute_80) run the tag's instructions? Arch-specific tags need their own architecture exactly;
// the others need it or newer.
template <class Tag>
TESSEL_HD constexpr bool arch_runs_tag(int arch) {
  static_assert(is_arch_tag_v<Tag>, "tessel::arch: not an architecture tag");
  return Tag::kArchSpecific ? arch == Tag::kMinComputeCapability * 10
                            : arch >= Tag::kMinComputeCapability * 10;
}

// Does any architecture in `list` (in __CUDA_ARCH__ units) run the tag?
template <class Tag, int N>
TESSEL_HD constexpr bool any_arch_runs_tag(const int (&list)[N]) {
  for (int arch : list) {
    if (arch_runs_tag<Tag>(arch)) return true;
  }
  return false;
}

#if defined(__CUDA_ARCH_LIST__)
inline constexpr bool kHaveCompiledArchList = true;
inline constexpr int kCompiledArchs[] = {__CUDA_ARCH_LIST__};
#else
inline constexpr bool kHaveCompiledArchList = false;
inline constexpr int kCompiledArchs[] = {0};
#endif

// True when the translation unit is compiled for an architecture that runs the tag, or when the
// compiler does not say what it compiles for.
template <class Tag>
inline constexpr bool is_compiled_target_v =
    !kHaveCompiledArchList || any_arch_runs_tag<Tag>(kCompiledArchs);

// The __CUDA_ARCH__ of the current device pass; 0 in the host pass.
#if defined(__CUDA_ARCH__)
inline constexpr int kDevicePassArch = __CUDA_ARCH__;
#else
inline constexpr int kDevicePassArch = 0;
#endif

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
inline constexpr bool kDevicePassHasSm90aFeatures = true;
#else
inline constexpr bool kDevicePassHasSm90aFeatures = false;
#endif

// In a device pass: can this pass emit the tag's instructions? Always false in the host pass.
template <class Tag>
TESSEL_HD constexpr bool device_pass_supports() {
  if constexpr (std::is_same_v<Tag, Sm90>) {
    return kDevicePassArch == 900 && kDevicePassHasSm90aFeatures;
  } else {
    return kDevicePassArch != 0 && arch_runs_tag<Tag>(kDevicePassArch);
  }
}

// The build-time rule of (1) above; returns true so that it can sit inside a static_assert.
// The messages are spelled out per tag because a static_assert message must be a literal.
template <class Tag>
TESSEL_HD constexpr bool require_compiled_target() {
  static_assert(is_arch_tag_v<Tag>, "tessel::arch: not an architecture tag");
  if constexpr (std::is_same_v<Tag, Sm75>) {
    static_assert(is_compiled_target_v<Tag>,
                  "tessel: a kernel tagged arch::Sm75 is compiled for no architecture of 7.5 or "
                  "newer: add 75 (or newer) to CMAKE_CUDA_ARCHITECTURES, or pass "
                  "-gencode arch=compute_75,code=sm_75");
  } else if constexpr (std::is_same_v<Tag, Sm80>) {
    static_assert(is_compiled_target_v<Tag>,
                  "tessel: a kernel tagged arch::Sm80 is compiled for no architecture of 8.0 or "
                  "newer: add 80 (or newer) to CMAKE_CUDA_ARCHITECTURES, or pass "
                  "-gencode arch=compute_80,code=sm_80");
  } else {
    static_assert(is_compiled_target_v<Tag>,
                  "tessel: a kernel tagged arch::Sm90 is compiled without sm_90a: add 90a to "
                  "CMAKE_CUDA_ARCHITECTURES, or pass -gencode arch=compute_90a,code=sm_90a");
    // `sizeof(Tag) > 0` keeps the condition dependent, so that it is checked only when an Sm90
    // kernel is instantiated, not wherever this header is included.
    static_assert((kDevicePassArch != 900 || kDevicePassHasSm90aFeatures) && sizeof(Tag) > 0,
                  "tessel: a kernel tagged arch::Sm90 is being compiled for sm_90 without the "
                  "\"a\": wgmma and setmaxnreg exist only in sm_90a; compile for 90a "
                  "(-gencode arch=compute_90a,code=sm_90a) instead of 90");
  }
  return true;
}

}  // namespace tessel::arch
