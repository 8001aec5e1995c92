#pragma once
// The fixup of tiles computed by more than one work unit (split-K, stream-K): deterministic, and
// free of waits, so it cannot hang whatever number of CTAs is resident.
//
// Tile t has units u_0, ..., u_{n-1} in ascending k_begin, unit j holding the partial sum
//   P_j = sum_{k in [k_begin_j, k_end_j)} A_k B_k     (f32, one value per accumulator register)
// and the tile's result is D = epilogue(S) with S = (...((P_0 + P_1) + P_2) ... + P_{n-1}),
// always in that order. The protocol:
//   1. every unit stores P_j in slot (t, j) of the workspace;
//   2. it fences (its stores become visible device-wide before what follows), and one thread
//      increments the tile's counter: old = atomicAdd(count_t, 1);
//   3. the unit that sees old == n-1 arrived last: every other unit's P_j is visible to it. It
//      forms S in the fixed order above, taking its own P_j from registers and the others from
//      the workspace (the Hopper kernel reads its own back too), runs the epilogue, and sets count_t back to 0 for the next launch.
//      Every other unit is done with the tile at step 2.
// Nobody waits for anybody: a unit's work is finished the moment it has arrived, so the kernel
// completes with any number of CTAs resident, one included. Which unit arrives last changes
// from run to run; S does not, because the sum's order is fixed by k_begin, not by arrival, and
// a value read back from the workspace has the same bits it had in registers.
//
// Workspace: [counters: fixup_tiles() x u32, padded to 256 B][slots: fixup_tiles() x
// slots_per_tile x slot_floats f32]. A slot holds one CTA's accumulators thread-interleaved
// (element e of thread i at e * threads + i), so the stores and loads are coalesced whatever the
// fragment layout. The counters must be zero before the first launch (cudaMemsetAsync once); each
// launch leaves them zero. One workspace serves one launch at a time.

#include <cstddef>
#include <cstdint>

#include "tessel/gemm/kernel/decomposition.hpp"
#include "tessel/layout/config.hpp"

namespace tessel::gemm::kernel {

struct FixupWorkspace {
  unsigned* counters = nullptr;  // fixup_tiles() arrival counters
  float* partials = nullptr;     // fixup_tiles() * slots_per_tile slots
  int slot_floats = 0;           // floats per slot: threads per CTA * accumulators per thread
};

namespace detail {
TESSEL_HD constexpr std::size_t align_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }
}  // namespace detail

/// Bytes of the counters at the front of the workspace (what cudaMemsetAsync must zero).
TESSEL_HD constexpr std::size_t fixup_counter_bytes(const Decomposition& d) {
  return detail::align_up(std::size_t(d.fixup_tiles()) * sizeof(unsigned), 256);
}

/// Workspace bytes for `d` when each CTA holds `slot_floats` accumulators; 0 when no tile needs a fixup.
TESSEL_HD constexpr std::size_t workspace_bytes(const Decomposition& d, int slot_floats) {
  if (d.fixup_tiles() == 0) return 0;
  return fixup_counter_bytes(d) +
         std::size_t(d.fixup_tiles()) * std::size_t(d.slots_per_tile) * std::size_t(slot_floats) * sizeof(float);
}

TESSEL_HD inline FixupWorkspace make_fixup_workspace(void* base, const Decomposition& d, int slot_floats) {
  if (base == nullptr || d.fixup_tiles() == 0) return {nullptr, nullptr, slot_floats};
  auto* bytes = static_cast<unsigned char*>(base);
  return {reinterpret_cast<unsigned*>(bytes), reinterpret_cast<float*>(bytes + fixup_counter_bytes(d)), slot_floats};
}

/// Did the unit that saw the counter at `previous` before its increment arrive last?
TESSEL_HD constexpr bool completes_tile(unsigned previous, int units) { return previous == unsigned(units - 1); }

/// S = (...((P_0 + P_1) + P_2) ... + P_{n-1}) for each of N accumulators, with P_own = `acc`
/// and every other P_j = load(j, e). The one place the order is written down; the kernel and the
/// host simulation both call it.
/// NOTES: the loads of kBatch slices of kGroup accumulators (64 values at N <= 8, 32 above) are
/// issued together and only then added in order: a loop that loaded one slice at a time would
/// wait one L2 round trip per slice, microseconds at the end of a kernel that lasts ten. Groups
/// of at most 16 accumulators keep acc, the group's sums and the loaded values within the
/// registers left after a mainloop (at N = 32, three live copies of 32 values spilled).
template <int N, class Load>
TESSEL_HD void reduce_in_order(int units, int own_order, float (&acc)[N], Load&& load) {
  constexpr int kGroup = N < 16 ? N : 16;
  constexpr int kBatch = N <= 8 ? 64 / N : 32 / kGroup;
  static_assert(N % kGroup == 0, "reduce_in_order: above 16 accumulators, a multiple of 16");
  // NOTES: every loop over accumulators is unrolled: an index the compiler cannot resolve moves
  // the whole accumulator array to local memory (and, in the Hopper kernel, serializes wgmma).
TESSEL_UNROLL
  for (int e0 = 0; e0 < N; e0 += kGroup) {
    float sum[kGroup] = {};  // assigned at j == 0; the initializer only quiets -Wmaybe-uninitialized
    for (int j0 = 0; j0 < units; j0 += kBatch) {
      float v[kBatch][kGroup];
TESSEL_UNROLL
      for (int b = 0; b < kBatch; ++b)
TESSEL_UNROLL
        for (int e = 0; e < kGroup; ++e) {
          const int j = j0 + b;
          v[b][e] = (j < units && j != own_order) ? load(j, e0 + e) : acc[e0 + e];
        }
TESSEL_UNROLL
      for (int b = 0; b < kBatch; ++b)
TESSEL_UNROLL
        for (int e = 0; e < kGroup; ++e) {
          const int j = j0 + b;
          if (j == 0) sum[e] = v[b][e];
          else if (j < units) sum[e] += v[b][e];
        }
    }
TESSEL_UNROLL
    for (int e = 0; e < kGroup; ++e) acc[e0 + e] = sum[e];
  }
}

/// The same S as reduce_in_order, for a caller whose own partial is already in the workspace
/// (step 1): acc = P_0, then acc += P_j for j = 1, ..., units-1, every slice read back. Slice j's
/// accumulators come in chunks of kChunk, each chunk's loads issued together.
/// NOTES: once acc is stored it is dead, so it can carry the running sum and only one chunk of
/// loaded values sits beside it. reduce_in_order keeps acc, a group's sums and a batch of loads
/// live at once; at 128 accumulators per thread (the Hopper kernel's BN = 256) that spilled.
/// Reading one's own partial back costs one slice of L2 reads per fixup.
template <int kChunk, int N, class Load>
TESSEL_HD void sum_slices_in_order(int units, float (&acc)[N], Load&& load) {
  static_assert(N % kChunk == 0, "sum_slices_in_order: the chunk must divide the accumulator count");
TESSEL_UNROLL
  for (int e = 0; e < N; ++e) acc[e] = load(0, e);
  for (int j = 1; j < units; ++j) {
TESSEL_UNROLL
    for (int c0 = 0; c0 < N; c0 += kChunk) {
      float v[kChunk];
TESSEL_UNROLL
      for (int e = 0; e < kChunk; ++e) v[e] = load(j, c0 + e);
TESSEL_UNROLL
      for (int e = 0; e < kChunk; ++e) acc[c0 + e] += v[e];
    }
  }
}

#if defined(__CUDACC__)
/// Steps 1-3 for the calling CTA's unit `u` (!u.whole_tile()): a 1-D CTA of kThreads threads,
/// each holding N accumulators. Returns true in the CTA that arrived last, with the tile's full
/// sum now in `acc` (it runs the epilogue); false elsewhere (the CTA is done with this tile).
/// Every thread of the CTA must call it: it contains barriers.
/// NOTES: kThreads is a template parameter so that element e's offset e * kThreads is an
/// immediate: with a run-time stride each of the N loads needs its own 64-bit address register,
/// which spilled at N = 32.
template <int kThreads, int N>
__device__ bool fixup_partial_tile(const FixupWorkspace& ws, const Decomposition& d, const WorkUnit& u,
                                   float (&acc)[N]) {
  const int thread = int(threadIdx.x);
  const float* tile_slots = ws.partials + std::size_t(d.slot(u.tile, 0)) * ws.slot_floats + thread;
  unsigned* counter = ws.counters + d.fixup_index(u.tile);

  float* mine = ws.partials + std::size_t(d.slot(u.tile, u.order)) * ws.slot_floats + thread;
TESSEL_UNROLL
  for (int e = 0; e < N; ++e) __stcg(mine + e * kThreads, acc[e]);  // to L2: read by another SM
  __threadfence();  // release: this thread's partial is visible before the arrival below

  int last = 0;
  __syncthreads();  // every thread has fenced
  if (thread == 0) last = completes_tile(atomicAdd(counter, 1u), u.units);
  if (!__syncthreads_or(last)) return false;
  __threadfence();  // acquire: the loads below see what the other units fenced before arriving

  reduce_in_order(u.units, u.order, acc, [&](int j, int e) {
    return __ldcg(tile_slots + std::size_t(j) * ws.slot_floats + e * kThreads);
  });
  if (thread == 0) atomicExch(counter, 0u);  // everyone else has arrived: nobody reads it again
  return true;
}
#endif

}  // namespace tessel::gemm::kernel
