#pragma once
// wgmma: warpgroup-wide asynchronous tensor-core MMA (sm_90a), m64nNkK with f32 accumulation, A and
// B read from shared memory through matrix descriptors, or A from registers (PTX ISA:
// "Asynchronous Warpgroup Level Matrix Multiply-Accumulate Instructions").
//
// The 128 threads of a warpgroup (4 consecutive warps starting at a multiple of 4) each hold
// N/2 f32 accumulators of the 64xN tile: in warp w, lane l, register 4j+i holds row
// 16w + l/4 + 8*(i/2), column 8j + 2*(l%4) + i%2.
//
// Operands are K-major (K contiguous) or, for 16-bit types only, MN-major (M or N contiguous);
// the instruction transposes MN-major operands itself (its imm-trans-a / imm-trans-b).
// `float` operands are TF32: float32 in memory, of which the tensor core reads the sign, the
// exponent and the top 10 bits of the mantissa (k8: 32 bytes of K, as k16 and k32 are).
//
// A may instead come from registers (mma_rs): four 32-bit registers per thread holding the 64 x kK
// tile (kK = 16 for 16-bit types, 32 for 8-bit ones) as four mma.sync-style 8-row blocks per
// warp. In warp w, lane l, with E = 4 / sizeof(element) elements per register:
//   register 0: row 16w + l/4,     K columns E*(l%4) ... E*(l%4) + E-1
//   register 1: row 16w + l/4 + 8, the same columns
//   register 2: row 16w + l/4,     those columns + kK/2
//   register 3: row 16w + l/4 + 8, those columns + kK/2
// (lower K in the lower bits). This is the layout an ldmatrix.x4 of the tile leaves, and what
// lets a kernel transform A between shared memory and the tensor core.
//
// Shared-memory layout both descriptors below describe, 128-byte swizzle, in bytes:
//   K-major  (R rows x 128 bytes of K):  row r at r*128, 8-row groups 1024 apart;
//            a K step of 16 (32 for 8-bit types) is +32 bytes on the start address.
//   MN-major (K rows x 128 bytes of MN, in chunks of 64 MN elements): chunk c at c*chunk_bytes,
//            K row k inside it at k*128, 8-row groups 1024 apart; a K step of 16 is +2048 bytes.
// In the algebra both are Swizzle<3,4,3> o (8 rows, 8 16-byte columns) : (128, 16) per 1024-byte
// atom: the pattern TMA writes with CU_TENSOR_MAP_SWIZZLE_128B.
//
// K-major operands may also use the 64- and 32-byte swizzles (rows of 64 or 32 bytes of K; TMA's
// CU_TENSOR_MAP_SWIZZLE_64B / _32B): SmemSwizzle<64> = Swizzle<2,4,3> and SmemSwizzle<32> =
// Swizzle<1,4,3> on byte offsets, 8-row groups 8 * 64 and 8 * 32 bytes apart (wgmma_desc).
// Narrower rows mean a smaller K per stage, for tiles whose K is short or whose stages must be many.

#include <cuda_fp8.h>

#include <cstdint>
#include <type_traits>

#include "tessel/arch/util.hpp"
#include "tessel/arch/wgmma_sm90_ops.hpp"
#include "tessel/layout/swizzle.hpp"
#include "tessel/numeric.hpp"

namespace tessel::arch {

enum class Major { K, MN };

/// The swizzle TMA writes and wgmma reads with rows of `Bytes` bytes (128, 64 or 32), as a layout
/// function of the algebra on byte offsets: 16-byte chunk bits [4, 4 + B) XORed with the bits
/// [7, 7 + B) above them, B = log2(Bytes / 16).
/// Example, 64 bytes: byte 16 of row 2 (offset 144) moves to offset 144 ^ 16 = 128.
template <int Bytes>
using SmemSwizzle = Swizzle<Bytes == 128 ? 3 : Bytes == 64 ? 2 : 1, 4, 3>;

#if defined(__CUDACC__)
/// Shared-memory matrix descriptor for rows of SwizzleBytes (128, 64 or 32) bytes. For K-major
/// operands the leading byte offset is unused (the swizzle row covers the instruction's K); for
/// MN-major operands (128-byte swizzle only) it is the distance between 64-element MN chunks. The
/// stride byte offset is eight rows: 8 * SwizzleBytes.
template <Major M, int SwizzleBytes = 128>
__device__ __forceinline__ std::uint64_t wgmma_desc(void const* smem, std::uint32_t mn_chunk_bytes = 0) {
  static_assert(SwizzleBytes == 128 || SwizzleBytes == 64 || SwizzleBytes == 32, "wgmma: swizzles of 128, 64 or 32 bytes");
  static_assert(M == Major::K || SwizzleBytes == 128, "wgmma: tessel lays MN-major operands out with the 128-byte swizzle");
  constexpr std::uint64_t kLayout = SwizzleBytes == 128 ? 1 : SwizzleBytes == 64 ? 2 : 3;  // the descriptor's encoding
  std::uint64_t addr = cvta_to_shared(smem);
  std::uint64_t lbo = M == Major::K ? 1 : (mn_chunk_bytes >> 4);
  return ((addr & 0x3FFFF) >> 4)                           // start address, 16-byte units, bits 0-13
         | (lbo << 16)                                     // leading byte offset, bits 16-29
         | (std::uint64_t(8 * SwizzleBytes >> 4) << 32)    // stride byte offset, bits 32-45
         | (kLayout << 62);                                // layout type: the swizzle
}

/// The descriptor of the matrix `bytes` further on in shared memory: only the start-address field
/// (bits 0-13, 16-byte units) moves. Shared memory lies below 256 KB, so the 32-bit sum never
/// carries out of that field and the high word is left as it is.
__device__ __forceinline__ std::uint64_t wgmma_desc_advance(std::uint64_t desc, int bytes) {
  return (desc & ~std::uint64_t(0xFFFFFFFF)) | std::uint32_t(std::uint32_t(desc) + std::uint32_t(bytes >> 4));
}

/// The 128-byte form, the one the GEMM kernel uses.
template <Major M>
__device__ __forceinline__ std::uint64_t wgmma_desc_sw128(void const* smem, std::uint32_t mn_chunk_bytes = 0) {
  return wgmma_desc<M, 128>(smem, mn_chunk_bytes);
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit_group() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait_group() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
/// Keep the compiler from moving accumulator reads or writes across an asynchronous wgmma.
template <int R>
__device__ __forceinline__ void wgmma_fence_registers(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
#endif

/// One wgmma m64nNkK: Ab the operand type (half_t, bfloat16_t, __nv_fp8_e4m3, __nv_fp8_e5m2, or
/// float for TF32).
template <class Ab, int N, Major MajorA = Major::K, Major MajorB = Major::K>
struct Wgmma {
  static_assert(N == 64 || N == 96 || N == 128 || N == 192 || N == 256, "wgmma: tessel wraps N = 64, 96, 128, 192 and 256");
  static constexpr bool kIs16Bit = sizeof(Ab) == 2;
  static_assert(kIs16Bit || (MajorA == Major::K && MajorB == Major::K),
                "wgmma: 8-bit and TF32 operands must both be K-major (the instruction transposes only 16-bit types)");
  static constexpr int kAccumulators = N / 2;
  static constexpr int kK = 32 / int(sizeof(Ab));  // 32 bytes of K per instruction
  static constexpr int kTransA = MajorA == Major::MN, kTransB = MajorB == Major::MN;

#if defined(__CUDACC__)
// The wrapper of one (N, type, form) from wgmma_sm90_ops.hpp: CALL16 names it for the 16-bit
// types (k16, with transposes), CALLK for the others (k32 for 8-bit types, k8 for TF32).
#define TESSEL_WGMMA_DISPATCH(NN, CALL16, CALLK)                   \
  if constexpr (N == NN) {                                         \
    if constexpr (std::is_same_v<Ab, half_t>)                      \
      CALL16(NN, 16, f16)                                          \
    else if constexpr (std::is_same_v<Ab, bfloat16_t>)             \
      CALL16(NN, 16, bf16)                                         \
    else if constexpr (std::is_same_v<Ab, __nv_fp8_e4m3>)          \
      CALLK(NN, 32, e4m3)                                          \
    else if constexpr (std::is_same_v<Ab, __nv_fp8_e5m2>)          \
      CALLK(NN, 32, e5m2)                                          \
    else                                                           \
      CALLK(NN, 8, tf32)                                           \
  }
#define TESSEL_WGMMA_ALL_N(CALL16, CALLK) \
  TESSEL_WGMMA_DISPATCH(64, CALL16, CALLK)   \
  TESSEL_WGMMA_DISPATCH(96, CALL16, CALLK)   \
  TESSEL_WGMMA_DISPATCH(128, CALL16, CALLK)  \
  TESSEL_WGMMA_DISPATCH(192, CALL16, CALLK)  \
  TESSEL_WGMMA_DISPATCH(256, CALL16, CALLK)

  template <class Dummy = void>
  __device__ __forceinline__ static void mma(float (&d)[N / 2], std::uint64_t desc_a, std::uint64_t desc_b, int scale_d) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TESSEL_SS16(NN, KK, T) detail::wgmma_m64n##NN##k##KK##_f32_##T<kTransA, kTransB>(d, desc_a, desc_b, scale_d);
#define TESSEL_SSK(NN, KK, T) detail::wgmma_m64n##NN##k##KK##_f32_##T(d, desc_a, desc_b, scale_d);
    TESSEL_WGMMA_ALL_N(TESSEL_SS16, TESSEL_SSK)
#undef TESSEL_SS16
#undef TESSEL_SSK
#elif defined(__CUDA_ARCH__)
    TESSEL_ARCH_TOO_OLD(Dummy, "wgmma.mma_async", "sm_90a");
#else
    (void)d, (void)desc_a, (void)desc_b, (void)scale_d;
#endif
  }

  /// The same MMA with A from registers (`a`: this thread's fragment, layout above).
  template <class Dummy = void>
  __device__ __forceinline__ static void mma_rs(float (&d)[N / 2], std::uint32_t const (&a)[4], std::uint64_t desc_b,
                                                int scale_d) {
    static_assert(MajorA == Major::K, "wgmma: A from registers is a K-major fragment (use MajorA = Major::K)");
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TESSEL_RS16(NN, KK, T) detail::wgmma_m64n##NN##k##KK##_f32_##T##_rs<kTransB>(d, a, desc_b, scale_d);
#define TESSEL_RSK(NN, KK, T) detail::wgmma_m64n##NN##k##KK##_f32_##T##_rs(d, a, desc_b, scale_d);
    TESSEL_WGMMA_ALL_N(TESSEL_RS16, TESSEL_RSK)
#undef TESSEL_RS16
#undef TESSEL_RSK
#elif defined(__CUDA_ARCH__)
    TESSEL_ARCH_TOO_OLD(Dummy, "wgmma.mma_async", "sm_90a");
#else
    (void)d, (void)a, (void)desc_b, (void)scale_d;
#endif
  }
#undef TESSEL_WGMMA_ALL_N
#undef TESSEL_WGMMA_DISPATCH
#endif
};

}  // namespace tessel::arch
