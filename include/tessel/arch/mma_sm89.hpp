#pragma once
// Ada / Hopper warp-level FP8 tensor-core MMA, K = 32:
//   mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32
//   mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32
//
// One warp computes D (16x8, f32) = A (16x32, row) * B (32x8, col) + C. Per thread: A four 32-bit
// registers of four 8-bit elements each, B two, C and D four f32, as for m16n8k16 with 16-bit
// elements. Measured in bytes the two instructions' fragments are the same: lane (g, t) holds
// bytes 4t..4t+3 and 16+4t..16+4t+3 of A's rows g and g+8 and of B's column g (PTX ISA, "Matrix
// Fragments for mma.m16n8k32"). So a kernel that places 16-bit fragments by byte offsets (the
// small-N rings) takes FP8 by swapping the instruction alone.
//
// The PTX ISA gives these forms from sm_89 on; Hopper (sm_90a) has them, beside wgmma.

#include <cstdint>

#include "tessel/arch/tags.hpp"
#include "tessel/arch/util.hpp"

namespace tessel::arch {

namespace detail {
template <bool kE4M3>
struct Mma16x8x32F32Fp8 {
  using Arch = Sm80;  // the nearest tag: the device pass must be sm_89 or newer (checked below)
  static constexpr int kM = 16;
  static constexpr int kN = 8;
  static constexpr int kK = 32;
  static constexpr int kARegisters = 4;
  static constexpr int kBRegisters = 2;
  static constexpr int kCRegisters = 4;

#if defined(__CUDACC__)
  template <class Dummy = void>
  __device__ __forceinline__ static void fma(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2],
                                             const float (&c)[4]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 890
    TESSEL_ARCH_TOO_OLD(Dummy, "mma.sync.aligned.m16n8k32 (e4m3, e5m2)", "sm_89");
#elif defined(__CUDA_ARCH__)
    if constexpr (kE4M3) {
      asm volatile(
          "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 "
          "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
          : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
    } else {
      asm volatile(
          "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32 "
          "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
          : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
    }
#else
    (void)d, (void)a, (void)b, (void)c;
#endif
  }
#endif
};
}  // namespace detail

struct Mma16x8x32F32E4M3E4M3F32 : detail::Mma16x8x32F32Fp8<true> {};
struct Mma16x8x32F32E5M2E5M2F32 : detail::Mma16x8x32F32Fp8<false> {};

}  // namespace tessel::arch
