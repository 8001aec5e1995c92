#pragma once
// Turing warp-level matrix load from shared memory:
//   ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{,.trans}.shared.b16
//
// The warp loads one, two or four 8x8 matrices of 16-bit elements. Lanes 8i..8i+7 supply the
// shared-memory addresses of the eight rows of matrix i (16 bytes each, 16-byte aligned); rows
// need not be contiguous, which is what lets a swizzled shared-memory layout feed it. Lane t
// receives in register i the elements (t/4, 2*(t%4)) and (t/4, 2*(t%4)+1) of matrix i, the
// lower column in the low half; with .trans it receives (2*(t%4), t/4) and (2*(t%4)+1, t/4)
// instead, i.e. the matrix read column-major. That is exactly an mma A or B fragment, which is
// why the pair exists. PTX ISA: "Warp-level matrix load instruction: ldmatrix".
//
// On sm_75 every lane must hold a valid address even for .x1 and .x2, whose addresses come only
// from lanes 0-7 and 0-15: give the upper lanes copies of the lower lanes' addresses.
// In SASS: LDSM.16.M88{,.2,.4} and, transposed, LDSM.16.MT88{,.2,.4}.

#include <cstdint>

#include "tessel/arch/tags.hpp"
#include "tessel/arch/util.hpp"

namespace tessel::arch {

#if defined(__CUDACC__)

// `smem_row` is this lane's row address in the .shared window (see cvta_to_shared).
// Volatile, so that it is neither dropped nor moved across other volatile asm; no "memory"
// clobber, so that the compiler may keep other values in registers across it. The data it reads
// was written by other threads, so a barrier (__syncthreads, __syncwarp, cp.async.wait_group)
// must separate those writes from it anyway, and a barrier is also a compiler fence.
template <int kMatrices, bool kTranspose = false, class Dummy = void>
__device__ __forceinline__ void ldmatrix(std::uint32_t (&d)[kMatrices], std::uint32_t smem_row) {
  static_assert(kMatrices == 1 || kMatrices == 2 || kMatrices == 4,
                "tessel: ldmatrix loads 1, 2 or 4 matrices (.x1, .x2, .x4)");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 750
  TESSEL_ARCH_TOO_OLD(Dummy, "ldmatrix", "sm_75");
#elif defined(__CUDA_ARCH__)
  if constexpr (kMatrices == 1 && !kTranspose) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n"
                 : "=r"(d[0])
                 : "r"(smem_row));
  } else if constexpr (kMatrices == 1) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n"
                 : "=r"(d[0])
                 : "r"(smem_row));
  } else if constexpr (kMatrices == 2 && !kTranspose) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(d[0]), "=r"(d[1])
                 : "r"(smem_row));
  } else if constexpr (kMatrices == 2) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(d[0]), "=r"(d[1])
                 : "r"(smem_row));
  } else if constexpr (!kTranspose) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(smem_row));
  } else {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(smem_row));
  }
#else
  (void)d, (void)smem_row;
#endif
}

// The same, from a generic pointer into shared memory.
template <int kMatrices, bool kTranspose = false, class Dummy = void>
__device__ __forceinline__ void ldmatrix(std::uint32_t (&d)[kMatrices], const void* smem_row) {
  ldmatrix<kMatrices, kTranspose, Dummy>(d, cvta_to_shared(smem_row));
}

// The names the PTX uses.
template <class Addr>
__device__ __forceinline__ void ldmatrix_x1(std::uint32_t (&d)[1], Addr row) {
  ldmatrix<1, false>(d, row);
}
template <class Addr>
__device__ __forceinline__ void ldmatrix_x2(std::uint32_t (&d)[2], Addr row) {
  ldmatrix<2, false>(d, row);
}
template <class Addr>
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&d)[4], Addr row) {
  ldmatrix<4, false>(d, row);
}
template <class Addr>
__device__ __forceinline__ void ldmatrix_x1_trans(std::uint32_t (&d)[1], Addr row) {
  ldmatrix<1, true>(d, row);
}
template <class Addr>
__device__ __forceinline__ void ldmatrix_x2_trans(std::uint32_t (&d)[2], Addr row) {
  ldmatrix<2, true>(d, row);
}
template <class Addr>
__device__ __forceinline__ void ldmatrix_x4_trans(std::uint32_t (&d)[4], Addr row) {
  ldmatrix<4, true>(d, row);
}

#endif  // __CUDACC__

}  // namespace tessel::arch
