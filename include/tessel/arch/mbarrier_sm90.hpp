#pragma once
// mbarrier: the shared-memory barrier that TMA loads complete on, and that producer and consumer
// warps use to hand pipeline stages to each other (PTX ISA: "Parallel Synchronization and
// Communication Instructions: mbarrier").
//
// A barrier counts arrivals and, separately, bytes of transactions; a phase completes when both
// reach zero, and its parity bit flips. Waiting is on a parity: wait(parity p) returns once the
// phase with that parity has completed.

#include <cstdint>

#include "tessel/arch/util.hpp"

namespace tessel::arch {

#if defined(__CUDACC__)
__device__ __forceinline__ void mbarrier_init(std::uint64_t* bar, std::uint32_t arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(cvta_to_shared(bar)), "r"(arrivals));
}
/// Make initialised barriers visible to the async proxy (TMA) and the other threads.
__device__ __forceinline__ void mbarrier_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
/// Arrive once and announce `bytes` of transactions the phase must also wait for.
__device__ __forceinline__ void mbarrier_arrive_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(cvta_to_shared(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbarrier_arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(cvta_to_shared(bar)) : "memory");
}
/// An arrival that happens once all of this thread's earlier cp.async copies have landed; .noinc:
/// it is one of the arrivals the barrier was initialised to expect.
__device__ __forceinline__ void cp_async_mbarrier_arrive_noinc(std::uint64_t* bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(cvta_to_shared(bar)) : "memory");
}
/// Block until the phase of the given parity has completed.
__device__ __forceinline__ void mbarrier_wait(std::uint64_t* bar, std::uint32_t parity) {
  std::uint32_t addr = cvta_to_shared(bar);
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "wait_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait_%=;\n"
      "}\n" ::"r"(addr),
      "r"(parity)
      : "memory");
}
#endif

}  // namespace tessel::arch
