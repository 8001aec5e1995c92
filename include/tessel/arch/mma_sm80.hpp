#pragma once
// Ampere warp-level tensor-core MMA, K = 16:
//   mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
//   mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
//
// One warp computes D (16x8, f32) = A (16x16, row) * B (16x8, col) + C. Per thread: A four
// 32-bit registers holding two 16-bit elements each (a0..a7), B two (b0..b3), C and D four f32.
// The (row, col) of every element follows the PTX ISA section "Matrix Fragments for mma.m16n8k16
// with floating point type", modelled on the host in tessel/verify/mma_fragments.hpp.
// In SASS each is one HMMA.16816.F32 (with .BF16 for bf16): half the instruction count of
// m16n8k8 for the same warp tile, because each instruction is twice as deep in K.

#include <cstdint>

#include "tessel/arch/tags.hpp"
#include "tessel/arch/util.hpp"

namespace tessel::arch {

namespace detail {
// The two forms differ only in the element type the instruction names.
template <bool kBf16>
struct Mma16x8x16F32 {
  using Arch = Sm80;
  static constexpr int kM = 16;
  static constexpr int kN = 8;
  static constexpr int kK = 16;
  static constexpr int kARegisters = 4;
  static constexpr int kBRegisters = 2;
  static constexpr int kCRegisters = 4;

#if defined(__CUDACC__)
  template <class Dummy = void>
  __device__ __forceinline__ static void fma(float (&d)[4], const std::uint32_t (&a)[4],
                                             const std::uint32_t (&b)[2], const float (&c)[4]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    if constexpr (kBf16) {
      TESSEL_ARCH_TOO_OLD(Dummy, "mma.sync.aligned.m16n8k16 (bf16)", "sm_80");
    } else {
      TESSEL_ARCH_TOO_OLD(Dummy, "mma.sync.aligned.m16n8k16 (f16)", "sm_80");
    }
#elif defined(__CUDA_ARCH__)
    if constexpr (kBf16) {
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
          "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
          : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]),
            "f"(c[1]), "f"(c[2]), "f"(c[3]));
    } else {
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
          "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
          : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]),
            "f"(c[1]), "f"(c[2]), "f"(c[3]));
    }
#else
    (void)d, (void)a, (void)b, (void)c;
#endif
  }
#endif
};
}  // namespace detail

struct Mma16x8x16F32F16F16F32 : detail::Mma16x8x16F32<false> {};
struct Mma16x8x16F32BF16BF16F32 : detail::Mma16x8x16F32<true> {};

}  // namespace tessel::arch
