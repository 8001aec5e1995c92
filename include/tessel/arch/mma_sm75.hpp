#pragma once
// Turing warp-level tensor-core MMA: mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32.
//
// One warp computes D (16x8, f32) = A (16x8, f16, row) * B (8x8, f16, col) + C. Each thread holds
// a fragment; the (row, col) of every fragment element is given by the PTX ISA section "Matrix
// Fragments for mma.m16n8k8" and modelled on the host in tessel/verify/mma_fragments.hpp. Per
// thread: A two .f16x2 registers (a0..a3), B one .f16x2 register (b0, b1), C and D four f32.
// In SASS this is one HMMA.1688.F32.

#include <cstdint>

#include "tessel/arch/tags.hpp"
#include "tessel/arch/util.hpp"

namespace tessel::arch {

struct Mma16x8x8F32F16F16F32 {
  using Arch = Sm75;
  static constexpr int kM = 16;
  static constexpr int kN = 8;
  static constexpr int kK = 8;
  // 32-bit registers per thread.
  static constexpr int kARegisters = 2;
  static constexpr int kBRegisters = 1;
  static constexpr int kCRegisters = 4;

#if defined(__CUDACC__)
  template <class Dummy = void>
  __device__ __forceinline__ static void fma(float (&d)[4], const std::uint32_t (&a)[2],
                                             const std::uint32_t (&b)[1], const float (&c)[4]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 750
    TESSEL_ARCH_TOO_OLD(Dummy, "mma.sync.aligned.m16n8k8 (f16)", "sm_75");
#elif defined(__CUDA_ARCH__)
    // Volatile although the result depends only on the operands: mma.sync is warp-collective
    // (.aligned), and the compiler must not sink it into a branch only some lanes take.
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 "
        "{%0, %1, %2, %3}, {%4, %5}, {%6}, {%7, %8, %9, %10};\n"
        : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b[0]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
#else
    (void)d, (void)a, (void)b, (void)c;
#endif
  }
#endif
};

}  // namespace tessel::arch
