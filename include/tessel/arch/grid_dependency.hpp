#pragma once
// Programmatic dependent launch (PDL, compute capability 9.0 on): a kernel launched with
// cudaLaunchAttributeProgrammaticStreamSerialization may start while the kernel before it in the
// stream still runs. It must call wait_for_prior_grid() before it touches anything that kernel
// writes; until then it may only do work that depends on nothing the earlier kernel produces.
// On older GPUs, and for a launch without the attribute, every function here is a no-op: the
// launch already waited for the kernel before it.
//
// prefetch_l2 is such independent work: L2 is the GPU's point of coherence, so a line fetched
// into it early cannot go stale when the earlier kernel writes it later (the write lands in L2).

#include <cstdint>

namespace tessel::arch {

/// Lets the next grid in the stream launch (PDL) as soon as every CTA of this one has called
/// this or exited. The next grid still waits in its own wait_for_prior_grid().
__device__ __forceinline__ void launch_dependent_grids() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;");
#endif
}

/// Blocks until the grid this one depends on has completed and its writes are visible.
__device__ __forceinline__ void wait_for_prior_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// Starts bringing the 128-byte line holding `ptr` into L2, without waiting for it.
__device__ __forceinline__ void prefetch_l2(void const* ptr) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("prefetch.global.L2 [%0];" ::"l"(ptr));
#else
  (void)ptr;
#endif
}

}  // namespace tessel::arch
