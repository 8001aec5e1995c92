#pragma once
// Small device helpers shared by the instruction wrappers: shared-memory addresses, lane index,
// vector loads and stores, and the compile error for an instruction used on too old an
// architecture.

#include <cstdint>

#include "tessel/config.hpp"

namespace tessel::arch {

namespace detail {
template <class>
inline constexpr bool dependent_false = false;
}  // namespace detail

// Each wrapper of an instruction that needs a newer architecture is a template with a defaulted
// `Dummy` parameter, so that this assertion fires only when a device pass for too old an
// architecture actually instantiates it, not wherever the header is included.
#define TESSEL_ARCH_TOO_OLD(DUMMY, INSTRUCTION, SM)                                              \
  static_assert(::tessel::arch::detail::dependent_false<DUMMY>,                                \
                "tessel: " INSTRUCTION " needs " SM " or newer, but this device pass compiles " \
                "for an older architecture: raise the architecture, or guard the caller with "  \
                "if constexpr (tessel::arch::device_pass_supports<Tag>())")

#if defined(__CUDACC__)

// Generic pointer into shared memory -> the 32-bit .shared address that ldmatrix, cp.async and
// the other shared-memory instructions take.
__device__ __forceinline__ std::uint32_t cvta_to_shared(const void* ptr) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(ptr));
}

// The thread's index within its warp.
__device__ __forceinline__ std::uint32_t lane_id() {
  std::uint32_t lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

// An unsigned type exactly `Bytes` wide, for moving that many bytes in one access.
template <int Bytes>
struct uint_bytes;
template <>
struct uint_bytes<1> {
  using type = std::uint8_t;
};
template <>
struct uint_bytes<2> {
  using type = std::uint16_t;
};
template <>
struct uint_bytes<4> {
  using type = std::uint32_t;
};
template <>
struct uint_bytes<8> {
  using type = uint2;
};
template <>
struct uint_bytes<16> {
  using type = uint4;
};
template <int Bytes>
using uint_bytes_t = typename uint_bytes<Bytes>::type;

// Copy `Bytes` bytes with one load and one store (LDG.E.128 / STS.128 for 16). Both pointers must
// be aligned to `Bytes`; the compiler picks the state space from what it can prove about them.
template <int Bytes>
__device__ __forceinline__ void copy_vector(void* dst, const void* src) {
  static_assert(Bytes == 1 || Bytes == 2 || Bytes == 4 || Bytes == 8 || Bytes == 16,
                "tessel: copy_vector moves 1, 2, 4, 8 or 16 bytes");
  using V = uint_bytes_t<Bytes>;
  *static_cast<V*>(dst) = *static_cast<const V*>(src);
}

// 128-bit global load and store. `.global` in the instruction avoids the generic-address check
// the compiler would otherwise emit when it cannot prove the pointer is global.
__device__ __forceinline__ uint4 load_global_128(const void* gmem) {
  uint4 v;
  asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(gmem));
  return v;
}

__device__ __forceinline__ void store_global_128(void* gmem, uint4 v) {
  asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};"
               :
               : "l"(gmem), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
}

#endif  // __CUDACC__

}  // namespace tessel::arch
