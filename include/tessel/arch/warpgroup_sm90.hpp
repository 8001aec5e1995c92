#pragma once
// Warpgroup-wide register budgets and named barriers (PTX ISA: setmaxnreg, bar.sync / bar.arrive).
//
// setmaxnreg moves registers between the warpgroups of a CTA: one that needs few gives them up
// (dec), one that holds accumulators takes them (inc). Every warp of the warpgroup executes it;
// the counts are immediates, multiples of 8 in [24, 256].
//
// A named barrier `id` (1..15; 0 is __syncthreads) completes when `Threads` threads have arrived;
// bar.sync arrives and waits, bar.arrive only arrives (a producer signalling a consumer).

#include "tessel/arch/util.hpp"

namespace tessel::arch {

#if defined(__CUDACC__)
template <int Registers>
__device__ __forceinline__ void warpgroup_reg_dealloc() {
  static_assert(Registers % 8 == 0 && Registers >= 24 && Registers <= 256, "setmaxnreg: a multiple of 8 in [24, 256]");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(Registers));
}
template <int Registers>
__device__ __forceinline__ void warpgroup_reg_alloc() {
  static_assert(Registers % 8 == 0 && Registers >= 24 && Registers <= 256, "setmaxnreg: a multiple of 8 in [24, 256]");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Registers));
}

/// bar.sync on a barrier whose id is known only at run time (one per warpgroup, say).
template <int Threads>
__device__ __forceinline__ void named_barrier_sync(int id) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "n"(Threads) : "memory");
}
template <int Threads>
__device__ __forceinline__ void named_barrier_arrive(int id) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "n"(Threads) : "memory");
}
/// bar.sync on a barrier fixed at compile time.
template <int Id, int Threads>
__device__ __forceinline__ void named_barrier_sync() {
  static_assert(Id >= 1 && Id <= 15, "named barriers 1..15 (0 is __syncthreads)");
  asm volatile("bar.sync %0, %1;\n" ::"n"(Id), "n"(Threads) : "memory");
}
#endif

}  // namespace tessel::arch
