"""The C++ every generated kernel starts with: the 16- and 8-bit float types and the vector copy.

It includes no header (cuda_fp16.h alone costs NVRTC about 0.1 s), so the narrow float types
are defined here as storage plus PTX conversions, with arithmetic done in float. Sections the
kernel does not use are left out (Builder.features).
"""

from __future__ import annotations

_CORE = r"""
namespace tessel_dsl {
struct half {
  unsigned short bits;
  half() = default;
  __device__ half(float f) { asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(f)); }
  __device__ operator float() const { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(bits)); return f; }
};
struct bfloat16 {
  unsigned short bits;
  bfloat16() = default;
  __device__ bfloat16(float f) {
    unsigned u = __float_as_uint(f);  // round to nearest even; a NaN stays a NaN
    bits = (u & 0x7fffffffu) > 0x7f800000u ? 0x7fc0 : (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  }
  __device__ operator float() const { return __uint_as_float((unsigned)bits << 16); }
};
#define TESSEL_DSL_FLOAT_OPS(T)                                                          \
  __device__ inline T operator+(T a, T b) { return T(float(a) + float(b)); }             \
  __device__ inline T operator-(T a, T b) { return T(float(a) - float(b)); }             \
  __device__ inline T operator*(T a, T b) { return T(float(a) * float(b)); }             \
  __device__ inline T operator/(T a, T b) { return T(float(a) / float(b)); }             \
  __device__ inline T operator-(T a) { return T(-float(a)); }                            \
  __device__ inline bool operator<(T a, T b) { return float(a) < float(b); }             \
  __device__ inline bool operator<=(T a, T b) { return float(a) <= float(b); }           \
  __device__ inline bool operator>(T a, T b) { return float(a) > float(b); }             \
  __device__ inline bool operator>=(T a, T b) { return float(a) >= float(b); }           \
  __device__ inline bool operator==(T a, T b) { return float(a) == float(b); }           \
  __device__ inline bool operator!=(T a, T b) { return float(a) != float(b); }
TESSEL_DSL_FLOAT_OPS(half)
TESSEL_DSL_FLOAT_OPS(bfloat16)

// N bytes from src to dst in one access (both aligned to N).
template <int N> struct bytes_t;
template <> struct bytes_t<1> { using type = unsigned char; };
template <> struct bytes_t<2> { using type = unsigned short; };
template <> struct bytes_t<4> { using type = unsigned; };
template <> struct bytes_t<8> { using type = uint2; };
template <> struct bytes_t<16> { using type = uint4; };
template <int N>
__device__ __forceinline__ void copy_bytes(void* dst, void const* src) {
  using V = typename bytes_t<N>::type;
  *reinterpret_cast<V*>(dst) = *reinterpret_cast<V const*>(src);
}
}  // namespace tessel_dsl
"""

_FP8 = r"""
namespace tessel_dsl {
// FP8 conversions: cvt with the e4m3x2 / e5m2x2 packed forms (sm_89 and later).
#define TESSEL_DSL_FP8(T, KIND)                                                                               \
  struct T {                                                                                                  \
    unsigned char bits;                                                                                       \
    T() = default;                                                                                            \
    __device__ T(float f) {                                                                                   \
      unsigned short p;                                                                                       \
      asm("cvt.rn.satfinite." KIND "x2.f32 %0, %1, %1;" : "=h"(p) : "f"(f));                              \
      bits = (unsigned char)(p & 0xff);                                                                       \
    }                                                                                                         \
    __device__ operator float() const {                                                                       \
      unsigned h;                                                                                             \
      unsigned short p = bits;                                                                                \
      asm("cvt.rn.f16x2." KIND "x2 %0, %1;" : "=r"(h) : "h"(p));                                            \
      float f;                                                                                                \
      asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"((unsigned short)(h & 0xffff)));                             \
      return f;                                                                                               \
    }                                                                                                         \
  };
TESSEL_DSL_FP8(e4m3, "e4m3")
TESSEL_DSL_FP8(e5m2, "e5m2")
}  // namespace tessel_dsl
"""

_MATH = r"""
namespace tessel_dsl {
__device__ __forceinline__ float ex2(float x) { float y; asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
__device__ __forceinline__ float lg2(float x) { float y; asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
__device__ __forceinline__ float rcp(float x) { float y; asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
}  // namespace tessel_dsl
"""

_SM90 = r"""
namespace tessel_dsl {
// A TMA descriptor (the driver's CUtensorMap: 128 opaque bytes, 64-byte aligned), passed as a
// __grid_constant__ kernel parameter so that TMA reads it where the launch put it.
struct alignas(64) TmaDesc { unsigned long long bits[16]; };
__device__ __forceinline__ unsigned smem_addr(void const* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void mbarrier_wait(unsigned bar, unsigned parity) {
  asm volatile("{\n.reg .pred done;\nwait_%=:\nmbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n@!done bra wait_%=;\n}\n"
               :: "r"(bar), "r"(parity) : "memory");
}
// wgmma's shared-memory descriptor of a K-major operand with a Sw-byte swizzle: start address and
// the 8-row stride in 16-byte units, the leading offset unused (1), the swizzle in bits 62-63.
template <int Sw>
__device__ __forceinline__ unsigned long long wgmma_desc(unsigned addr) {
  constexpr unsigned long long kLayout = Sw == 128 ? 1 : Sw == 64 ? 2 : 3;
  return ((addr & 0x3FFFFu) >> 4) | (1ull << 16) | ((unsigned long long)(8 * Sw >> 4) << 32) | (kLayout << 62);
}
}  // namespace tessel_dsl
"""

SECTIONS = {"fp8": _FP8, "math": _MATH, "sm90": _SM90}


def prelude(features) -> str:
    return _CORE + "".join(SECTIONS[f] for f in sorted(features) if f in SECTIONS)
