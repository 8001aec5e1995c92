#pragma once
// Thread-block clusters (sm_90): a CTA's rank in its cluster, the cluster-wide barrier, and
// arriving on an mbarrier in another CTA's shared memory (PTX ISA: "Distributed shared memory",
// mapa, barrier.cluster).

#include <cstdint>

#include "tessel/arch/util.hpp"

namespace tessel::arch {

#if defined(__CUDACC__)
__device__ __forceinline__ std::uint32_t cluster_cta_rank() {
  std::uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
/// Every thread of every CTA in the cluster arrives, then waits for all the others. The arrive is
/// relaxed (no ordering of this thread's earlier memory operations); with
/// fence.mbarrier_init.release.cluster before it (mbarrier_init_fence), enough to publish barrier
/// initialisation to the peer CTAs.
/// NOTES: the release arrive compiles to MEMBAR.ALL.GPU and ERRBAR on every thread; at a kernel's
/// start those stalled each CTA ~0.5 us before its first load (bench/NOTES.md, "Small GEMMs").
__device__ __forceinline__ void cluster_sync_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}
/// Arrive on the barrier at `bar`'s offset in the shared memory of cluster CTA `cta_rank`
/// (which may be this CTA).
// NOTES: the default (CTA-scope) release. A cluster-scope release made every consumer wait for
// its outstanding memory operations before handing a stage back, and cost the 2x1-cluster
// kernels more than half their throughput on the H200 (bench/NOTES.md). The stage's readers are
// wgmma groups already retired by wgmma.wait_group, so nothing is left for the release to order.
__device__ __forceinline__ void mbarrier_arrive_cluster(std::uint64_t* bar, std::uint32_t cta_rank) {
  asm volatile(
      "{\n.reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(cvta_to_shared(bar)),
      "r"(cta_rank)
      : "memory");
}
#endif

}  // namespace tessel::arch
