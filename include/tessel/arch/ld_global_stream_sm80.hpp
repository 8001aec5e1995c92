#pragma once
// Global loads for operands that are streamed through once (a decode GEMM's weights):
//
//   @p ld.global.L1::no_allocate.L2::256B.v4.u32 {r0, r1, r2, r3}, [ptr];   (else zeros)
//
// L1::no_allocate do not displace L1 lines for bytes never read again (PTX ISA 7.4, sm_70+).
// L2::256B        on a miss, fetch the whole 256-byte block (sm_80+): the same warp asks for the
//                 rest of it a few instructions later, and DRAM serves one larger burst better
//                 than four small ones.
// The predicate gives an out-of-range element zeros without a branch: the ragged edge of a
// matrix reads nothing and contributes 0 * b = 0 to a dot product.
//
// NOTES: deliberately not ld.global.nc. Data read through the non-coherent path cannot change
// during the kernel, so ptxas may sink such loads past a cp.async wait, past bar.sync and in
// between the instructions that consume earlier loads. Seen in the small-N kernel's SASS: of 16
// loads, 2 were issued before the wait, 10 after it, and 4 after the barrier behind HMMAs that
// waited on the first ones, i.e. two DRAM latencies in a row. A weak load is ordered by the
// barrier, so a caller that issues its loads before __syncthreads() gets them in flight together.

#include <cstdint>

#include "tessel/arch/tags.hpp"
#include "tessel/arch/util.hpp"

namespace tessel::arch {

#if defined(__CUDACC__)

// `@p ld.global<QUAL>.v4.u32` into four zeroed registers: 16 bytes from `gmem` where `valid`.
#define TESSEL_LD_GLOBAL_V4_PREDICATED(QUAL, V, GMEM, VALID)                     \
  asm volatile(                                                                 \
      "{\n"                                                                     \
      "  .reg .pred p;\n"                                                       \
      "  setp.ne.b32 p, %5, 0;\n"                                               \
      "  mov.b32 %0, 0;\n"                                                      \
      "  mov.b32 %1, 0;\n"                                                      \
      "  mov.b32 %2, 0;\n"                                                      \
      "  mov.b32 %3, 0;\n"                                                      \
      "  @p ld.global" QUAL ".v4.u32 {%0, %1, %2, %3}, [%4];\n"                \
      "}\n"                                                                     \
      : "=r"(V.x), "=r"(V.y), "=r"(V.z), "=r"(V.w)                              \
      : "l"(GMEM), "r"(int(VALID)))

// 16 bytes from the 16-byte aligned `gmem` when `valid`, else 16 zero bytes (nothing is read).
template <class Dummy = void>
__device__ __forceinline__ uint4 ld_global_stream_128(const void* gmem, bool valid) {
  uint4 v{0, 0, 0, 0};
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  TESSEL_ARCH_TOO_OLD(Dummy, "ld.global.L1::no_allocate.L2::256B", "sm_80");
#elif defined(__CUDA_ARCH__)
  TESSEL_LD_GLOBAL_V4_PREDICATED(".L1::no_allocate.L2::256B", v, gmem, valid);
#else
  (void)gmem, (void)valid;
#endif
  return v;
}

// The same through L1 (a plain weak load, cached): for small operands every warp of a CTA, and
// every CTA, reads again (a decode GEMM's activations, L2-resident).
// NOTES: not ld.global.nc either: with .nc, ptxas hoisted a whole round of these loads to its
// start in the small-N kernel, and the ring of them spilled at 128 registers.
__device__ __forceinline__ uint4 ld_global_l1_128(const void* gmem, bool valid) {
  uint4 v{0, 0, 0, 0};
#if defined(__CUDA_ARCH__)
  TESSEL_LD_GLOBAL_V4_PREDICATED("", v, gmem, valid);
#else
  (void)gmem, (void)valid;
#endif
  return v;
}

#undef TESSEL_LD_GLOBAL_V4_PREDICATED

#endif  // __CUDACC__

}  // namespace tessel::arch
