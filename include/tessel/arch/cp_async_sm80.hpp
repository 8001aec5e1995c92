#pragma once
// Ampere asynchronous global -> shared copies (SASS: LDGSTS).
//
//   cp.async.cg.shared.global [dst], [src], 16, src_size;   16 bytes, bypassing L1
//   cp.async.ca.shared.global [dst], [src], N, src_size;    N = 4, 8 or 16 bytes, through L1
//   cp.async.commit_group;  cp.async.wait_group N;  cp.async.wait_all;
//
// A copy reads `src_size` bytes (0 <= src_size <= N) and writes zeros to the rest of the N
// destination bytes. Giving 0 for an element outside the matrix is how a predicated mainloop loads
// ragged edges: the shared-memory tile is still fully written, with zeros where the matrix ends,
// and the source address is not read (it must still be a valid-looking global address, so pass
// the tile's base rather than an out-of-range pointer).
//
// Copies issued by a thread since its last commit_group form one group; wait_group<N> blocks until
// at most N of the thread's groups are still in flight. The copied bytes are visible to other
// threads only after the wait and a barrier (__syncthreads) that follows it.

#include <cstdint>

#include "tessel/arch/tags.hpp"
#include "tessel/arch/util.hpp"

namespace tessel::arch {

#if defined(__CUDACC__)

// 16 bytes, L1 bypassed (.cg), the first `src_bytes` of them read from `gmem_src`, the rest zero.
// Both addresses must be 16-byte aligned.
template <class Dummy = void>
__device__ __forceinline__ void cp_async_cg_16(std::uint32_t smem_dst, const void* gmem_src,
                                               std::uint32_t src_bytes = 16) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  TESSEL_ARCH_TOO_OLD(Dummy, "cp.async", "sm_80");
#elif defined(__CUDA_ARCH__)
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
               :
               : "r"(smem_dst), "l"(gmem_src), "r"(src_bytes)
               : "memory");
#else
  (void)smem_dst, (void)gmem_src, (void)src_bytes;
#endif
}

template <class Dummy = void>
__device__ __forceinline__ void cp_async_cg_16(void* smem_dst, const void* gmem_src,
                                               std::uint32_t src_bytes = 16) {
  cp_async_cg_16<Dummy>(cvta_to_shared(smem_dst), gmem_src, src_bytes);
}

// Predicated form: copy all 16 bytes when `valid`, else fill the destination with zeros.
template <class Dummy = void>
__device__ __forceinline__ void cp_async_cg_16_zfill(void* smem_dst, const void* gmem_src,
                                                     bool valid) {
  cp_async_cg_16<Dummy>(cvta_to_shared(smem_dst), gmem_src, valid ? 16u : 0u);
}

// 4, 8 or 16 bytes through L1 (.ca): the form for operands whose alignment is below 16 bytes.
template <int Bytes, class Dummy = void>
__device__ __forceinline__ void cp_async_ca(std::uint32_t smem_dst, const void* gmem_src,
                                            std::uint32_t src_bytes = Bytes) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16,
                "tessel: cp.async.ca copies 4, 8 or 16 bytes");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  TESSEL_ARCH_TOO_OLD(Dummy, "cp.async", "sm_80");
#elif defined(__CUDA_ARCH__)
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n"
               :
               : "r"(smem_dst), "l"(gmem_src), "n"(Bytes), "r"(src_bytes)
               : "memory");
#else
  (void)smem_dst, (void)gmem_src, (void)src_bytes;
#endif
}

template <int Bytes, class Dummy = void>
__device__ __forceinline__ void cp_async_ca(void* smem_dst, const void* gmem_src,
                                            std::uint32_t src_bytes = Bytes) {
  cp_async_ca<Bytes, Dummy>(cvta_to_shared(smem_dst), gmem_src, src_bytes);
}

// Close the current group of copies.
template <class Dummy = void>
__device__ __forceinline__ void cp_async_commit_group() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  TESSEL_ARCH_TOO_OLD(Dummy, "cp.async.commit_group", "sm_80");
#elif defined(__CUDA_ARCH__)
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// Wait until at most `N` committed groups of this thread are pending. The "memory" clobber keeps
// the compiler from reading the destination before the wait.
template <int N, class Dummy = void>
__device__ __forceinline__ void cp_async_wait_group() {
  static_assert(N >= 0, "tessel: cp.async.wait_group takes a non-negative group count");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  TESSEL_ARCH_TOO_OLD(Dummy, "cp.async.wait_group", "sm_80");
#elif defined(__CUDA_ARCH__)
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

// Wait for every copy this thread issued, committed or not.
template <class Dummy = void>
__device__ __forceinline__ void cp_async_wait_all() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  TESSEL_ARCH_TOO_OLD(Dummy, "cp.async.wait_all", "sm_80");
#elif defined(__CUDA_ARCH__)
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

#endif  // __CUDACC__

}  // namespace tessel::arch
