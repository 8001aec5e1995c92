#pragma once
// The split-K / stream-K fixup (stream_k_fixup.hpp) inside the Hopper kernel, where only the two
// consumer warpgroups (256 threads, thread ids 128-383) hold accumulators: the producer
// warpgroup is elsewhere, so the CTA-wide barriers of the generic version become a named barrier
// over the consumers, and the "did I arrive last" vote goes through one int of shared memory.
// The protocol, its order of summation and its freedom from waits are the generic version's.

#include <cstdint>

#include "tessel/arch/warpgroup_sm90.hpp"
#include "tessel/gemm/kernel/decomposition.hpp"
#include "tessel/gemm/kernel/sm90_config.hpp"
#include "tessel/gemm/kernel/stream_k_fixup.hpp"

namespace tessel::gemm::kernel {

#if defined(__CUDACC__)
namespace detail {
/// The named barrier over the 256 consumer threads (Sm90Barrier::kConsumers).
__device__ __forceinline__ void consumer_sync() { arch::named_barrier_sync<Sm90Barrier::kConsumers, 256>(); }

/// Step 2 of the protocol for the consumers of one CTA, after each thread's part of step 1: the
/// release fence, one arrival on the tile's counter, and the vote through `flag`. True in the
/// unit that arrived last, after the acquire fence that lets it read the others' partials.
__device__ __forceinline__ bool arrived_last(FixupWorkspace const& ws, Decomposition const& d, WorkUnit const& u, int thread,
                                             int* flag) {
  __threadfence();  // release: this thread's part of the partial is visible before the arrival below
  consumer_sync();
  if (thread == 0) *flag = completes_tile(atomicAdd(ws.counters + d.fixup_index(u.tile), 1u), u.units);
  consumer_sync();
  if (!*flag) return false;
  __threadfence();  // acquire: the loads that follow see what the other units fenced before arriving
  return true;
}
}  // namespace detail

/// @pre the caller is a consumer thread (threadIdx.x in [128, 384)) of a cooperative kernel, and
///      !u.whole_tile(). Every consumer thread calls it.
/// @return true in the CTA whose unit completed the tile: `acc` then holds the tile's full sum.
/// With d.deterministic false the units add into the tile's one slot with float atomics (red,
/// no return value) instead of storing into their own; the last to arrive reads that sum and
/// sets the slot back to zero for the next launch. The order of the additions, and so the low
/// bits of D, then depends on the arrival order.
template <int N>
__device__ __forceinline__ bool sm90_fixup_partial_tile(FixupWorkspace const& ws, Decomposition const& d, WorkUnit const& u, float (&acc)[N],
                                        int* flag) {
  constexpr int kThreads = 256;
  int const thread = int(threadIdx.x) - 128;
  if (!d.deterministic) {
    float* sum = ws.partials + std::size_t(d.slot(u.tile, 0)) * ws.slot_floats + thread;
#pragma unroll
    for (int e = 0; e < N; ++e) atomicAdd(sum + e * kThreads, acc[e]);
    if (!detail::arrived_last(ws, d, u, thread, flag)) return false;
#pragma unroll
    for (int e = 0; e < N; ++e) acc[e] = __ldcg(sum + e * kThreads);
#pragma unroll
    for (int e = 0; e < N; ++e) __stcg(sum + e * kThreads, 0.f);
    if (thread == 0) atomicExch(ws.counters + d.fixup_index(u.tile), 0u);
    return true;
  }
  float* mine = ws.partials + std::size_t(d.slot(u.tile, u.order)) * ws.slot_floats + thread;
#pragma unroll
  for (int e = 0; e < N; ++e) __stcg(mine + e * kThreads, acc[e]);  // to L2: read by another SM
  if (!detail::arrived_last(ws, d, u, thread, flag)) return false;
  float const* slots = ws.partials + std::size_t(d.slot(u.tile, 0)) * ws.slot_floats + thread;
  constexpr int kChunk = N <= 64 ? N : N % 64 == 0 ? 64 : N / 2;  // 48 at BN = 192
  sum_slices_in_order<kChunk>(u.units, acc, [&](int j, int e) { return __ldcg(slots + std::size_t(j) * ws.slot_floats + e * kThreads); });
  if (thread == 0) atomicExch(ws.counters + d.fixup_index(u.tile), 0u);  // all have arrived: reset for the next launch
  return true;
}
#endif

}  // namespace tessel::gemm::kernel
