#pragma once
// The reductions a fusion can compute, each as: the value it starts from, what it takes of an
// element, how two partial results combine, and how a partial result joins the one in memory.
//
//   ReduceSum      sum of x            starts at 0      memory: atomicAdd
//   ReduceMax      max of x            starts at -inf   memory: atomicMax / atomicMin on the bits
//   ReduceAbsMax   max of |x| (amax)   starts at 0      memory: atomicMax on the bits
//
// Max and amax are exact and independent of order: a float's bit pattern read as an integer
// orders like the float (for x >= 0 as signed or unsigned; for x < 0 reversed, as unsigned), so
// one integer atomic gives the exact maximum. A sum through atomicAdd is not: the order in which
// warps arrive changes the rounding, so two runs may differ in the last bits.
//
// NaN: max and amax ignore it (fmaxf keeps the other operand), so one NaN cannot hide every
// other value; a sum propagates it. The memory a reduction joins must start at the identity
// (0 for sum and amax, -inf for max), for example with cudaMemsetAsync(ptr, 0, bytes) for amax:
// the kernel only ever combines into it.

#if !defined(__CUDACC_RTC__)
#include <cmath>
#endif

#include "tessel/config.hpp"

namespace tessel::epilogue::fusion {

struct ReduceSum {
  static constexpr const char* name() { return "sum"; }
  TESSEL_HD static float identity() { return 0.f; }
  TESSEL_HD static float input(float x) { return x; }
  TESSEL_HD static float combine(float a, float b) { return a + b; }
  // Join a partial result to the one at `p`: an atomic on the device, a plain update on the host.
  TESSEL_HD static void join(float* p, float v) {
#if defined(__CUDA_ARCH__)
    atomicAdd(p, v);
#else
    *p += v;
#endif
  }
};

struct ReduceMax {
  static constexpr const char* name() { return "max"; }
  TESSEL_HD static float identity() { return -__builtin_huge_valf(); }
  TESSEL_HD static float input(float x) { return x; }
  TESSEL_HD static float combine(float a, float b) { return fmaxf(a, b); }
  TESSEL_HD static void join(float* p, float v) {
#if defined(__CUDA_ARCH__)
    if (v != v) return;
    // Non-negative floats (sign bit clear) order like their bits as signed integers, above every
    // negative one; negative floats order reversed as unsigned integers, below every positive one.
    if (!signbit(v)) {
      atomicMax(reinterpret_cast<int*>(p), __float_as_int(v));
    } else {
      atomicMin(reinterpret_cast<unsigned int*>(p), __float_as_uint(v));
    }
#else
    *p = fmaxf(*p, v);
#endif
  }
};

struct ReduceAbsMax {
  static constexpr const char* name() { return "amax"; }
  TESSEL_HD static float identity() { return 0.f; }
  TESSEL_HD static float input(float x) { return fabsf(x); }
  TESSEL_HD static float combine(float a, float b) { return fmaxf(a, b); }
  TESSEL_HD static void join(float* p, float v) {
#if defined(__CUDA_ARCH__)
    // v >= 0 and not NaN (combine dropped any), so its bits order like the value.
    atomicMax(reinterpret_cast<unsigned int*>(p), __float_as_uint(v));
#else
    *p = fmaxf(*p, v);
#endif
  }
};

}  // namespace tessel::epilogue::fusion
