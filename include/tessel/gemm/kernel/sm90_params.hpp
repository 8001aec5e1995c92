#pragma once
// The Hopper GEMM kernel's parameter block (kernel/sm90_gemm_tma_warpspecialized.hpp takes it by
// value), in a header without device code, so that every launcher fills the one struct: the C++
// adapter (device/gemm_universal_sm90.hpp) and the Python extension's driver-API launcher
// (python/src/sm90_launch.cpp), which launches generated kernels of every configuration with
// one block. TESSEL_SM90_PARAMS_MATCH(P) holds a configuration's block to that one; each generated
// source asserts it (python/tessel/jit/codegen_sm90.py).

#include <cstddef>
#include <cstdint>

#include "tessel/arch/cu_tensor_map.hpp"
#include "tessel/detail/offset_of.hpp"
#include "tessel/epilogue/linear_combination.hpp"
#include "tessel/gemm/kernel/decomposition.hpp"
#include "tessel/gemm/kernel/sm90_block_scale_rules.hpp"
#include "tessel/gemm/kernel/sm90_tile_scheduler.hpp"
#include "tessel/gemm/kernel/stream_k_fixup.hpp"
#include "tessel/numeric.hpp"

namespace tessel::gemm::kernel {

// NOTES: the launcher (host code, which may see the stand-in of arch/cu_tensor_map.hpp) and the
// kernels (nvcc's <cuda.h> or NVRTC's stand-in) must lay the block out alike; the descriptor is
// the one member whose layout is not plain C++ everywhere.
static_assert(sizeof(CUtensorMap) == 128 && alignof(CUtensorMap) == 128,
              "CUtensorMap is not 128 bytes at 128-byte alignment (CUDA 13's): the Hopper parameter block would differ "
              "between the launcher and the kernels; build with CUDA 13");

/// The scales of the scaled FP8 kernels: where they are, and (block scales) their maps.
///   block-scaled (sm90_block_scales.hpp): A's per row and 128 of K, B's per 128 rows of B
///     (columns of D) and 128 of K;
///   row-wise (Sm90KernelConfig::kRowwiseScales): A's per row, B's per row of B (column of D),
///     one K block spanning all of K (the k strides unused), read by the epilogue.
struct Sm90BlockScales {
  BlockScaleTensor a;
  BlockScaleTensor b;
  // by_tma: TMA maps over the two arrays (prepare_block_scales): A's as (rows, K blocks, batches)
  // in boxes of BM x kScaleGroup, B's as 1-D in boxes of kScaleGroup + 4. Else the scale warp's
  // cp.async path.
  bool by_tma = false;
  CUtensorMap tma_a, tma_b;
};

template <class Fusion>
struct Sm90GemmParams {
  using ElementD = typename Fusion::ElementOutput;
  int m, n, k;
  ElementD* D;
  std::int64_t ldd, batch_stride_D;
  bool pairs_aligned;  // D's rows, batches and base allow two neighbouring elements in one store
  typename Fusion::Params epi;
  Sm90TileScheduler sched;
  Decomposition dec;  // split-K / stream-K kernels: each CTA's units
  FixupWorkspace ws;
  CUtensorMap tma_d;  // TMA-store epilogues: D in boxes of 64 rows x 128 bytes, 128-byte swizzle
  // TMA-store epilogues: whether this problem's D meets TMA's rules (16-byte base, row and batch
  // strides, and rows that end on a 16-byte boundary, since the store's clipping is per 16 bytes);
  // where it does not, the kernel stores from registers instead.
  bool tma_store_d;
  // D^T's problem: the launcher ran D = A B as D^T = B^T A^T (the weights as A, for decode: M of a
  // few tokens would waste most of a tile's rows), so this kernel's D is stored column-major,
  // element (r, c) at c * ldd + r, from registers (tma_store_d and pairs_aligned are false).
  bool d_column_major;
  Sm90BlockScales scales;  // block-scaled and row-wise FP8 kernels only (last: the other kernels' layout stays)
};

/// The block a launcher that serves every configuration fills (the plain linear combination's,
/// bf16): every configuration's Sm90GemmParams has this layout, since its members differ only in
/// what D and C point to. The launcher zeroes kSm90ParamsCapacity bytes and fills this at their
/// start; a data-parallel kernel never reads the decomposition members it leaves zero.
using Sm90LaunchParams = Sm90GemmParams<epilogue::LinearCombination<bfloat16_t, bfloat16_t>>;
inline constexpr std::size_t kSm90ParamsCapacity = 1024;

}  // namespace tessel::gemm::kernel

#define TESSEL_SM90_SAME_OFFSET(P, m) \
  (TESSEL_OFFSETOF(P, m) == TESSEL_OFFSETOF(::tessel::gemm::kernel::Sm90LaunchParams, m))

/// Whether a configuration's parameter block P is Sm90LaunchParams' layout (and fits the
/// launcher's block): every member, and the linear combination's, at the same offset. A constant
/// expression for a static_assert (a macro: NVRTC's offsetof is no constant inside a function).
#define TESSEL_SM90_PARAMS_MATCH(P)                                                                                        \
  (sizeof(P) <= ::tessel::gemm::kernel::kSm90ParamsCapacity &&                                                             \
   sizeof(P) == sizeof(::tessel::gemm::kernel::Sm90LaunchParams) && TESSEL_SM90_SAME_OFFSET(P, m) &&                      \
   TESSEL_SM90_SAME_OFFSET(P, n) && TESSEL_SM90_SAME_OFFSET(P, k) && TESSEL_SM90_SAME_OFFSET(P, D) &&                     \
   TESSEL_SM90_SAME_OFFSET(P, ldd) && TESSEL_SM90_SAME_OFFSET(P, batch_stride_D) && TESSEL_SM90_SAME_OFFSET(P, pairs_aligned) && \
   TESSEL_SM90_SAME_OFFSET(P, epi.alpha) && TESSEL_SM90_SAME_OFFSET(P, epi.beta) && TESSEL_SM90_SAME_OFFSET(P, epi.ptr_C) &&   \
   TESSEL_SM90_SAME_OFFSET(P, epi.ldc) && TESSEL_SM90_SAME_OFFSET(P, epi.batch_stride_C) &&                               \
   TESSEL_SM90_SAME_OFFSET(P, epi.ptr_scale_a) && TESSEL_SM90_SAME_OFFSET(P, epi.ptr_scale_b) &&                          \
   TESSEL_SM90_SAME_OFFSET(P, sched) && TESSEL_SM90_SAME_OFFSET(P, dec) && TESSEL_SM90_SAME_OFFSET(P, ws) &&              \
   TESSEL_SM90_SAME_OFFSET(P, tma_d) && TESSEL_SM90_SAME_OFFSET(P, tma_store_d) &&                                        \
   TESSEL_SM90_SAME_OFFSET(P, d_column_major) && TESSEL_SM90_SAME_OFFSET(P, scales))

static_assert(TESSEL_SM90_PARAMS_MATCH(::tessel::gemm::kernel::Sm90LaunchParams),
              "Sm90LaunchParams outgrew the launcher's block: raise kSm90ParamsCapacity");
