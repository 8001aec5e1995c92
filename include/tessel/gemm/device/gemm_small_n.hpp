#pragma once
// tessel::gemm::device::GemmSmallN: the handle of the small-N ("decode") kernel,
// kernel/sm80_gemm_small_n.hpp.
//
//   using Gemm = tessel::gemm::device::GemmSmallN<bfloat16_t /*D*/>;
//   Gemm::Arguments args{{M, N, K}, {dW, K} /*weights M x K*/, {dX, K} /*activations N x K*/,
//                        {dY, N} /*M x N*/, {1.f, 0.f}};
//   std::size_t bytes = Gemm::get_workspace_size(args);     // split-K fixup, 0 when not split
//   Gemm gemm;
//   if (auto s = gemm.initialize(args, workspace, stream); !s.ok()) puts(s.what().c_str());
//   gemm.run(stream);                                        // puts(gemm.describe().c_str())
//
// D = alpha * A B^T + beta * D: with beta != 0 the kernel reads D before writing it (a residual
// added in place). Any N in 1..64 (N padded to 8, 16, 32 or 64 inside), any M, K a multiple of 8.
// The K split is chosen from M, K and the GPU (split_k = 0) or given; either way the result has
// the same bits on every run with the same split.
//
// Variants (Arguments::variant, -1: the plan's choice): 0 is the chunked kernel
// (kernel/sm80_gemm_small_n.hpp), 1-9 the streaming kernels (kernel/sm80_gemm_small_n_stream.hpp)
// with the shapes listed in variant_name(); bench/NOTES.md ("Small-N kernel variants") says what
// each is for and what the sweep (decode_bench --variants all) should show. Variant 10
// (kHopperVariant) is the general Hopper kernel (TMA + wgmma, 128x64 tiles with the tokens padded
// to 64 by TMA's zero fill, the stream-K scheduler's decomposition): on a compute capability 9.0
// GPU with sm_90a code, the plan takes it for N > 16, where it read the weights faster than the
// chunked kernel on the H200 (8192x64x8192: 42.0 against 50.5 us). Variant 11 (kTmaVariant)
// streams the weights through TMA into a shared-memory ring (kernel/sm90_gemm_small_n_tma.hpp):
// N <= 16, on a compute capability 9.0 GPU with sm_90a code, where the plan takes it for N <= 16
// from about 0.45 row blocks of 32 per SM on (2048 rows on an H200).
//
// The ring takes N up to 64 (blocks of 8, 16, 32 or 64 columns); the plan picks it on its own at
// N <= 16, and for N 17-64 when variant 11 is asked for.
//
// f16 (GemmSmallN<half_t, half_t>: f16 A, B and D) has the TMA ring only: the Sm80 kernels and
// variant 10 are bf16, so an f16 handle runs the ring for any N <= 64 on a compute capability
// 9.0 GPU and refuses the other variants by name.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "tessel/arch/runtime.hpp"
#include "tessel/arch/sm90a_image.hpp"
#include "tessel/gemm/collective/sm90_builder.hpp"
#include "tessel/gemm/device/gemm_universal_sm90.hpp"
#include "tessel/gemm/gemm_shape.hpp"
#include "tessel/gemm/kernel/decomposition.hpp"
#include "tessel/gemm/kernel/sm80_gemm_small_n.hpp"
#include "tessel/gemm/kernel/sm80_gemm_small_n_stream.hpp"
#include "tessel/gemm/kernel/sm90_gemm_small_n_tma.hpp"
#include "tessel/gemm/kernel/small_n_rules.hpp"
#include "tessel/gemm/kernel/stream_k_fixup.hpp"
#include "tessel/status.hpp"

namespace tessel::gemm::device {

template <class ElementD_, class ElementAB_ = bfloat16_t>
class GemmSmallN {
 public:
  using ElementA = ElementAB_;
  using ElementB = ElementAB_;
  using ElementD = ElementD_;
  /// f16 operands: the TMA ring (variant 11) is the only kernel.
  static constexpr bool kRingOnly = std::is_same_v<ElementA, half_t>;
  static_assert(kRingOnly ? std::is_same_v<ElementD, half_t>
                          : std::is_same_v<ElementA, bfloat16_t> && (std::is_same_v<ElementD, bfloat16_t> || std::is_same_v<ElementD, float>),
                "GemmSmallN: bf16 A and B with a bfloat16_t or float D, or f16 A, B and D");
  // The kernels are tagged Sm80 (mma.sync, cp.async); a build without 80+ fails here, by name.
  static_assert(arch::require_compiled_target<arch::Sm80>());
  static constexpr int kMaxN = 64;
  static constexpr int kAlignment = 8;  // elements of a 16-byte vector
  static constexpr int kRowsPerCta = kernel::SmallNTile<1>::kRows;  // of the chunked kernel (variant 0)
  static constexpr int kMinRowsPerCta = 16;                          // the narrowest variant's
  static constexpr int kVariants = 12;
  static constexpr int kHopperVariant = 10;
  static constexpr int kTmaVariant = 11;

  struct Epilogue {
    float alpha = 1.f, beta = 0.f;
  };
  struct Arguments {
    GemmCoord problem_size;
    TensorRef<ElementA const, RowMajor> ref_A;  // weights, M x K
    TensorRef<ElementB const, RowMajor> ref_B;  // activations, N x K (K contiguous)
    TensorRef<ElementD, RowMajor> ref_D;        // M x N; read too when beta != 0
    Epilogue epilogue;
    int split_k = 0;  // K slices (CTAs) per row block; 0: chosen from the shape and the GPU
    int variant = -1;  // kernel variant 0 .. kVariants-1 (variant_name()); -1: chosen from the shape and the GPU
    // Elements between D's columns: 1 for the row-major D above (ref_D.ld between rows). A
    // PyTorch decode call D = x W^T runs here as D^T = W x^T, whose M x N result is D stored
    // column-major: ref_D.ld = 1 and d_col_stride D's row stride (>= M). Not for variant 10.
    std::int64_t d_col_stride = 1;
  };

  /// One compiled kernel: variant x N8.
  struct KernelInfo {
    void const* fn = nullptr;
    int threads = 0, smem = 0, rows = 0;
    int chunk_k = 0;  // k per k-tile of the decomposition
    int k_slices = 1, depth = 0;
  };

  /// How a problem is run: the kernel variant, the K split and why.
  struct Plan {
    int variant = 0;     // kernel variant (variant_name)
    int threads = 0, smem = 0;
    int n8 = 1;          // n8 blocks per CTA: N padded to 8 * n8
    int row_blocks = 0;  // row blocks of the variant's CTA height
    int rows = 0;        // the TMA ring's rows a block (variant 11: kernel::small_n_tma_rows)
    int chunks = 0;      // k-chunks per row
    int chunk_k = 0;     // k per chunk
    int splits = 1;      // K slices per row block
    int sms = 0, ctas_per_sm = 0;
    kernel::Decomposition split;
    std::size_t workspace = 0;
    std::string reason;
  };

  /// Whether this kernel can compute the problem, and if not, which rule it breaks.
  static StatusInfo can_implement(Arguments const& a) {
    auto const& p = a.problem_size;
    if (p.m <= 0 || p.n <= 0 || p.k <= 0)
      return {Status::kErrorInvalidProblem, "problem size " + dims(p) + " is empty or negative: M, N and K must all be positive"};
    if (p.n > kMaxN)
      return {Status::kErrorNotSupported, "N = " + std::to_string(p.n) + " is above the " + std::to_string(kMaxN) +
                                              " columns the small-N kernel keeps in registers: use the tiled GEMM "
                                              "(device::Gemm or device::GemmSm90)"};
    if (a.variant < -1 || a.variant >= kVariants)
      return {Status::kErrorInvalidProblem, "variant = " + std::to_string(a.variant) + ": pass -1 (automatic) or 0.." +
                                                std::to_string(kVariants - 1)};
    if (kRingOnly && a.variant != -1 && a.variant != kTmaVariant)
      return {Status::kErrorNotSupported, "f16 runs on the small-N TMA ring only (variant 11); variant " + std::to_string(a.variant) +
                                              " is bf16: use bf16 for it, or variant -1 or 11"};
    if (a.split_k < 0)
      return {Status::kErrorInvalidProblem, "split_k = " + std::to_string(a.split_k) + ": pass 0 (automatic) or a positive count"};
    if (!a.ref_A.data || !a.ref_B.data || !a.ref_D.data)
      return {Status::kErrorInvalidProblem, std::string("a null pointer for ") + (!a.ref_A.data ? "A" : !a.ref_B.data ? "B" : "D") +
                                                ": pass device pointers to the matrices"};
    if (a.ref_A.ld < p.k) return {Status::kErrorInvalidProblem, overlap("A", a.ref_A.ld, "K", p.k)};
    if (a.ref_B.ld < p.k) return {Status::kErrorInvalidProblem, overlap("B", a.ref_B.ld, "K", p.k)};
    if (a.d_col_stride == 1) {
      if (a.ref_D.ld < p.n) return {Status::kErrorInvalidProblem, overlap("D", a.ref_D.ld, "N", p.n)};
    } else if (a.ref_D.ld != 1 || a.d_col_stride < p.m || a.variant == kHopperVariant) {
      return {Status::kErrorInvalidProblem, "d_col_stride = " + std::to_string(a.d_col_stride) + " with ref_D.ld = " +
                                                std::to_string(a.ref_D.ld) + ": a column-major D takes ref_D.ld = 1 and "
                                                "d_col_stride >= M (" + std::to_string(p.m) + "), and not variant 10"};
    }
    // Rows of A and B are read in 16-byte vectors along K, none straddling the end of K.
    if (auto s = check_extent_alignment("K", p.k, kAlignment, 16); !s.ok()) return s;
    if (auto s = check_extent_alignment("leading dimension of A", a.ref_A.ld, kAlignment, 16); !s.ok()) return s;
    if (auto s = check_extent_alignment("leading dimension of B", a.ref_B.ld, kAlignment, 16); !s.ok()) return s;
    if (auto s = check_pointer_alignment("base address of A", a.ref_A.data, 16); !s.ok()) return s;
    if (auto s = check_pointer_alignment("base address of B", a.ref_B.data, 16); !s.ok()) return s;
    if (std::int64_t(p.m + kMinRowsPerCta - 1) / kMinRowsPerCta * std::max(a.split_k, 1) > 2147483647LL)
      return {Status::kErrorInvalidProblem, "problem size " + dims(p) + " needs more thread blocks than a grid holds"};
    if constexpr (kRingOnly) {
      return hopper_variants_available();
    } else {
      return arch::check_kernel_arch<arch::Sm80>(kernel_info(0, n8_for(p.n)).fn);
    }
  }

  /// Whether variants 10 and 11 (the Hopper kernel and the TMA ring) can run here: a compute
  /// capability 9.0 GPU, and sm_90a code for them in this binary (a build whose CUDA
  /// architectures lack 90a has none). The plan never picks them otherwise.
  static StatusInfo hopper_variants_available() { return arch::check_sm90a_image(tma_ring(1, 0).fn); }

  /// The plan for `a` on the current device: variant, split, workspace, reason.
  static StatusInfo make_plan(Arguments const& a, Plan& plan) {
    auto const& p = a.problem_size;
    plan = {};
    plan.n8 = n8_for(p.n);
    int device = 0;
    if (auto s = arch::status_from_cuda(cudaGetDevice(&device), "cudaGetDevice"); !s.ok()) return s;
    if (auto s = arch::status_from_cuda(cudaDeviceGetAttribute(&plan.sms, cudaDevAttrMultiProcessorCount, device),
                                        "querying the SM count");
        !s.ok())
      return s;
    plan.sms = std::max(plan.sms, 1);
    if constexpr (kRingOnly) {
      return make_tma_plan(a, plan);
    } else {
      return make_sm80_or_hopper_plan(a, plan);
    }
  }

 private:
  static StatusInfo make_sm80_or_hopper_plan(Arguments const& a, Plan& plan) {
    auto const& p = a.problem_size;
    // Variant 11 takes any N up to 64 when asked for; the plan takes it on its own where
    // kernel::small_n_tma_takes does (N <= 16: at 32 and 64 columns the ring ran 10-12% slower
    // than the Hopper kernel, bench/NOTES.md "The small-N TMA ring to 64 columns"). It is tried
    // before the Hopper kernel, so that raising kernel::kSmallNTmaAutoMaxN is all a faster
    // wide ring would need.
    if (a.variant == kTmaVariant ||
        (a.variant < 0 && kernel::small_n_tma_takes(p.m, p.n, plan.sms) && tma_kernel_runs(plan.n8)))
      return make_tma_plan(a, plan);
    if (a.variant == kHopperVariant || (a.variant < 0 && p.n > 16 && a.d_col_stride == 1 && Hopper::can_implement(hopper_args(a)).ok()))
      return make_hopper_plan(a, plan);
    plan.variant = a.variant >= 0 ? a.variant : pick_variant(p.m, plan.sms);
    if (plan.n8 > 2) plan.variant = 0;  // the streaming kernels take N <= 16
    const KernelInfo info = kernel_info(plan.variant, plan.n8);
    plan.threads = info.threads;
    plan.smem = info.smem;
    plan.chunk_k = info.chunk_k;
    plan.row_blocks = (p.m + info.rows - 1) / info.rows;
    plan.chunks = (p.k + plan.chunk_k - 1) / plan.chunk_k;
    if (info.smem > 48 * 1024) {
      auto e = cudaFuncSetAttribute(info.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, info.smem);
      if (auto s = arch::status_from_cuda(e, "raising the kernel's shared-memory limit"); !s.ok()) return s;
    }
    if (auto s = arch::status_from_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&plan.ctas_per_sm, info.fn, info.threads,
                                                                                     info.smem),
                                        "querying the kernel's occupancy");
        !s.ok())
      return s;
    plan.ctas_per_sm = std::max(plan.ctas_per_sm, 1);
    const int resident = plan.sms * plan.ctas_per_sm;
    if (a.split_k > 0) {
      plan.splits = std::min(a.split_k, plan.chunks);
    } else if (plan.variant == 0) {
      // NOTES: the kernel is bound by DRAM, not by waves: what matters is enough CTAs resident
      // to keep ~all SMs loading, each with the same work. Split K until the row blocks fill the
      // resident CTAs, then back off to the fewest slices with the same deepest slice (fewer
      // partials to write and reduce).
      int s = std::clamp(resident / plan.row_blocks, 1, plan.chunks);
      const int per = (plan.chunks + s - 1) / s;
      plan.splits = (plan.chunks + per - 1) / per;
    } else {
      // Streaming variants: split across CTAs only until there is about one CTA per SM (the
      // fixup costs a fence, an atomic and an L2 round trip), and never below one ring of k
      // blocks per warp.
      const int want = (plan.sms * 9 + 9) / 10;
      const int most = std::max(1, plan.chunks / (info.k_slices * info.depth));
      plan.splits = plan.row_blocks >= want ? 1 : std::clamp((want + plan.row_blocks - 1) / plan.row_blocks, 1, most);
    }
    kernel::TileGrid tiles;  // one tile per row block, one k-tile per chunk
    tiles.tiles_m = plan.row_blocks;
    tiles.k_tiles = plan.chunks;
    kernel::DecompositionOptions options;
    options.mode = kernel::DecompositionMode::SplitK;
    options.splits = plan.splits;
    plan.split = kernel::make_decomposition(tiles, plan.row_blocks * plan.splits, options);
    plan.workspace = kernel::workspace_bytes(plan.split, info.threads * 4 * plan.n8);
    const int grid = plan.split.grid;
    plan.reason = std::string(variant_name(plan.variant)) + (a.variant >= 0 ? " (requested)" : "") + ", " +
                  (plan.splits > 1 ? "split-K x" + std::to_string(plan.splits) : std::string("no K split")) + ": " +
                  std::to_string(plan.row_blocks) + " row blocks of " + std::to_string(info.rows) + " x " +
                  std::to_string(plan.chunks) + " k-chunks of " + std::to_string(plan.chunk_k) + " -> " +
                  std::to_string(grid) + " CTAs of " + std::to_string(info.threads) + " for " + std::to_string(resident) +
                  " resident (" + std::to_string(plan.ctas_per_sm) + " per SM x " + std::to_string(plan.sms) +
                  " SMs); N padded to " + std::to_string(8 * plan.n8) + (a.split_k > 0 ? "; split requested" : "") +
                  (plan.workspace ? "; deterministic fixup, workspace " + std::to_string(plan.workspace) + " bytes" : "");
    return {};
  }

 public:
  /// The variants' names: "chunked" (the barrier-per-chunk kernel) and "stream_<m16 blocks>x<k
  /// slices>_d<ring depth>[_1cta]" (the streaming kernels, N <= 16).
  static char const* variant_name(int v) {
    switch (v) {
      case 0: return "chunked";
      case 1: return "stream_8x1_d6";
      case 2: return "stream_8x1_d4";
      case 3: return "stream_16x1_d6";
      case 4: return "stream_4x1_d6";
      case 5: return "stream_4x2_d6";
      case 6: return "stream_2x4_d6";
      case 7: return "stream_2x8_d6";
      case 8: return "stream_1x4_d6";
      case 9: return "stream_2x4_d16_1cta";
      case kHopperVariant: return "sm90_streamk_128x64";
      case kTmaVariant: return "sm90_tma_ring";
      default: return "?";
    }
  }

  /// The variant the plan takes for M rows on `sms` SMs (NOTES: bench/NOTES.md, "Small-N kernel
  /// variants"): 128-row CTAs when they alone give ~one CTA per SM or more, else narrower CTAs
  /// with the k range split over their warps (no global fixup), 32 rows per CTA at ~one per SM.
  static int pick_variant(int m, int sms) {  // N <= 16; above, always the chunked kernel
    const int want = (sms * 9 + 9) / 10;
    auto blocks = [&](int rows) { return (m + rows - 1) / rows; };
    if (blocks(128) >= want) return 1;    // stream_8x1_d6 (28672 rows: 224 CTAs, 2 per SM)
    if (blocks(32) <= sms) return 7;      // stream_2x8_d6 (4096 rows: 128 CTAs of 16 warps; fewer rows: split K across CTAs too)
    if (blocks(32) <= 2 * sms) return 6;  // stream_2x4_d6 (8192 rows: 256 CTAs, 2 per SM)
    return 5;                             // stream_4x2_d6
  }

  static KernelInfo kernel_info(int variant, int n8) {
    switch (n8) {
      case 1: return kernel_info_n8<1>(variant);
      case 2: return kernel_info_n8<2>(variant);
      case 4: return kernel_info_n8<4>(variant);
      default: return kernel_info_n8<8>(variant);
    }
  }

  /// Bytes of device workspace `initialize` needs for `a` (0 when K is not split).
  static std::size_t get_workspace_size(Arguments const& a) {
    if (!can_implement(a).ok()) return 0;
    Plan plan;
    return make_plan(a, plan).ok() ? plan.workspace : 0;
  }

  /// Check, plan, and zero the workspace's counters (once: every launch leaves them zero).
  StatusInfo initialize(Arguments const& a, void* workspace = nullptr, cudaStream_t stream = nullptr) {
    initialized_ = false;  // a refused initialize must not leave an earlier problem ready to run
    if (auto s = can_implement(a); !s.ok()) return s;
    if (auto s = make_plan(a, plan_); !s.ok()) return s;
    if (plan_.workspace != 0 && workspace == nullptr)
      return {Status::kErrorWorkspaceNull, plan_.reason + ": pass get_workspace_size(args) = " +
                                               std::to_string(plan_.workspace) +
                                               " bytes of device memory, or set split_k = 1"};
    if constexpr (!kRingOnly) {
      if (plan_.variant == kHopperVariant) {
        if (auto s = hopper_.initialize(hopper_args(a), workspace, stream); !s.ok()) return s;
        initialized_ = true;
        return {};
      }
    }
    auto const& p = a.problem_size;
    if (plan_.variant == kTmaVariant) {
      if (auto s = make_tma_maps(a, plan_.n8, plan_.rows); !s.ok()) return s;
      // The ring reads A and B through the maps; params_ keeps bf16 pointers, null here.
      params_ = {p.m, p.n, p.k, nullptr, a.ref_A.ld, nullptr, a.ref_B.ld, a.ref_D.data, a.ref_D.ld,
                 a.epilogue.alpha, a.epilogue.beta, plan_.split, {}, a.d_col_stride};
      initialized_ = true;
      return {};
    }
    if constexpr (kRingOnly) {
      return {Status::kErrorInternal, "an f16 plan other than the TMA ring"};
    } else {
      return initialize_sm80(a, workspace, stream);
    }
  }

 private:
  StatusInfo initialize_sm80(Arguments const& a, void* workspace, cudaStream_t stream) {
    auto const& p = a.problem_size;
    if (plan_.workspace != 0) {
      auto e = cudaMemsetAsync(workspace, 0, kernel::fixup_counter_bytes(plan_.split), stream);
      if (auto s = arch::status_from_cuda(e, "zeroing the split-K counters"); !s.ok()) return s;
    }
    params_ = {p.m, p.n, p.k, a.ref_A.data, a.ref_A.ld, a.ref_B.data, a.ref_B.ld, a.ref_D.data, a.ref_D.ld,
               a.epilogue.alpha, a.epilogue.beta, plan_.split,
               kernel::make_fixup_workspace(workspace, plan_.split, plan_.threads * 4 * plan_.n8), a.d_col_stride};
    initialized_ = true;
    return {};
  }

 public:
  StatusInfo run(cudaStream_t stream = nullptr) {
    if (!initialized_) return {Status::kErrorInternal, "run() before a successful initialize(): call initialize(args) first"};
    if (plan_.variant == kTmaVariant) {
      void* tma_args[] = {&map_a_, &map_b_, &params_, &plan_.row_blocks, &plan_.chunks};
      return launch(tma_ring(plan_.n8, params_.k, params_.m, plan_.sms).fn, tma_args, stream, "launching the small-N TMA kernel");
    }
    if constexpr (kRingOnly) {
      return {Status::kErrorInternal, "an f16 plan other than the TMA ring"};
    } else {
      if (plan_.variant == kHopperVariant) return hopper_.run(stream);
      void* kernel_args[] = {&params_};
      return launch(kernel_info(plan_.variant, plan_.n8).fn, kernel_args, stream, "launching the small-N GEMM kernel");
    }
  }

  StatusInfo operator()(cudaStream_t stream = nullptr) { return run(stream); }
  StatusInfo operator()(Arguments const& a, void* workspace = nullptr, cudaStream_t stream = nullptr) {
    if (auto s = initialize(a, workspace, stream); !s.ok()) return s;
    return run(stream);
  }

  /// "tessel_sm80_gemm_small_n_bf16_bf16_bf16_128xN64_tn": 128-row CTAs, N up to 64, A row-major
  /// (t), B as a K x N column-major matrix (n), D row-major; f16's ring: 32-row blocks, N <= 64.
  static std::string name() {
    if constexpr (kRingOnly) return "tessel_sm90_gemm_small_n_tma_f16_f16_f16_32xN64_tn";
    return std::string("tessel_sm80_gemm_small_n_bf16_bf16_") + (std::is_same_v<ElementD, float> ? "f32" : "bf16") + "_" +
           std::to_string(kRowsPerCta) + "xN" + std::to_string(kMaxN) + "_tn";
  }

  /// The plan of the last successful initialize, in one line.
  std::string describe() const { return initialized_ ? plan_.reason : "not initialized"; }
  Plan const& plan() const { return plan_; }

 private:
  // Variant 10: the Hopper kernel on D = A B^T as it stands (A K-major, B = the activations as a
  // K-major K x N matrix, D row-major), 128x64 tiles, with the decomposition of the stream-K
  // scheduler (split_k: 0 its heuristic, 1 data-parallel, s > 1 split-K into s slices).
  using HopperTile = GemmShape<128, 64, 64>;
  using HopperCluster = GemmShape<1, 1, 1>;
  using HopperEpilogue =
      typename collective::EpilogueBuilder<arch::Sm90, OpClassTensorOp, HopperTile, HopperCluster, collective::EpilogueTileAuto,
                                           float, float, ElementD, RowMajor, kAlignment, ElementD, RowMajor, kAlignment,
                                           collective::EpilogueScheduleAuto>::CollectiveOp;
  using HopperMainloop = typename collective::CollectiveBuilder<
      arch::Sm90, OpClassTensorOp, ElementA, RowMajor, kAlignment, ElementB, ColumnMajor, kAlignment, float, HopperTile,
      HopperCluster, collective::StageCountAutoCarveout<int(sizeof(typename HopperEpilogue::SharedStorage))>,
      collective::KernelTmaWarpSpecializedCooperative>::CollectiveOp;
  using Hopper = GemmUniversalAdapter<kernel::GemmUniversal<ProblemShapeMNKL, HopperMainloop, HopperEpilogue, StreamKScheduler>>;

  static typename Hopper::Arguments hopper_args(Arguments const& a) {
    auto const& p = a.problem_size;
    typename Hopper::Arguments h;
    h.problem_shape = {p.m, p.n, p.k, 1};
    h.mainloop = {a.ref_A.data, {std::int64_t(a.ref_A.ld), Int<1>{}, std::int64_t(0)}, a.ref_B.data,
                  {std::int64_t(a.ref_B.ld), Int<1>{}, std::int64_t(0)}};
    h.epilogue.thread.alpha = a.epilogue.alpha;
    h.epilogue.thread.beta = a.epilogue.beta;
    h.epilogue.ptr_C = a.ref_D.data;  // beta != 0: D is read in place, as by the other variants
    h.epilogue.dC = {std::int64_t(a.ref_D.ld), Int<1>{}, std::int64_t(0)};
    h.epilogue.ptr_D = a.ref_D.data;
    h.epilogue.dD = {std::int64_t(a.ref_D.ld), Int<1>{}, std::int64_t(0)};
    h.scheduler.decomposition_mode = a.split_k == 0   ? kernel::DecompositionMode::Heuristic
                                     : a.split_k == 1 ? kernel::DecompositionMode::DataParallel
                                                      : kernel::DecompositionMode::SplitK;
    h.scheduler.splits = a.split_k > 1 ? a.split_k : 0;
    return h;
  }

  static StatusInfo make_hopper_plan(Arguments const& a, Plan& plan) {
    auto const h = hopper_args(a);
    if (auto s = Hopper::can_implement(h); !s.ok()) return s;
    plan.variant = kHopperVariant;
    plan.threads = Hopper::Cfg::kThreads;
    plan.smem = Hopper::Cfg::kSmemBytes;
    plan.ctas_per_sm = 1;
    plan.split.grid = plan.sms;  // persistent: at most one CTA per SM
    plan.workspace = Hopper::get_workspace_size(h);
    plan.reason = std::string(variant_name(kHopperVariant)) + (a.variant >= 0 ? " (requested)" : "") +
                  ", the Hopper kernel, N padded to 64: " + Hopper::decomposition_report(h) +
                  (plan.workspace ? "; workspace " + std::to_string(plan.workspace) + " bytes" : "");
    return {};
  }

  // Variant 11: the TMA ring (kernel/sm90_gemm_small_n_tma.hpp), N <= 64, sm_90a code on a
  // compute capability 9.0 GPU; one persistent CTA per SM over 32- or 16-row blocks, no K split.
  // One compiled ring: its kernel, shared memory, stages in flight, k per stage and rows a block.
  struct RingInfo {
    void const* fn = nullptr;
    int smem = 0, stages = 0, chunk_k = 0, rows = 32;
  };
  template <int N8, int Boxes, int Stages, int Rows = 32>
  static RingInfo ring_info() {
    using Tile = kernel::SmallNTmaTile<N8, Boxes, Stages, 2, Rows>;
    return {reinterpret_cast<void const*>(&kernel::sm90_gemm_small_n_tma<N8, Boxes, Stages, ElementD, ElementA, Rows>),
            Tile::kSmemBytes, Tile::kStages, Tile::kChunk, Rows};
  }
  // The rings of kernel::small_n_tma_ring (kernel/small_n_rules.hpp): for 32-row blocks 256-k
  // stages, as many as fit, for K < 8192 and for N > 16, and 512-k stages, 3 of them, from K =
  // 8192 on at N <= 16; 16-row blocks with 512-k stages where M rows on `sms` SMs take them.
  static RingInfo tma_ring(int n8, int k, std::int64_t m = 0, int sms = 0) {
    auto const ring = kernel::small_n_tma_ring(k, n8, 2, m, sms);
    if (ring.rows == 16) return n8 == 1 ? ring_info<1, 8, 0, 16>() : ring_info<2, 8, 0, 16>();
    if (ring.boxes == 8) return n8 == 1 ? ring_info<1, 8, 3>() : ring_info<2, 8, 3>();
    switch (n8) {
      case 1: return ring_info<1, 4, 0>();
      case 2: return ring_info<2, 4, 0>();
      case 4: return ring_info<4, 4, 0>();
      default: return ring_info<8, 4, 0>();
    }
  }
  static_assert(kernel::small_n_tma_ring(8192, 2).boxes == 8 && kernel::small_n_tma_ring(8192, 2).stages == 3 &&
                    kernel::small_n_tma_ring(8191, 2).boxes == 4 && kernel::small_n_tma_ring(8191, 2).stages == 0 &&
                    kernel::small_n_tma_ring(8192, 4).boxes == 4 && kernel::small_n_tma_ring(8192, 4).stages == 0,
                "tma_ring instantiates the rings small_n_tma_ring names");
  static bool tma_kernel_runs(int n8) { return arch::check_sm90a_image(tma_ring(n8, 0).fn).ok(); }

  static StatusInfo make_tma_plan(Arguments const& a, Plan& plan) {
    auto const& p = a.problem_size;
    const RingInfo ring = tma_ring(plan.n8, p.k, p.m, plan.sms);
    if (auto s = arch::check_sm90a_image(ring.fn); !s.ok()) return s;
    using Tile1 = kernel::SmallNTmaTile<1>;
    plan.variant = kTmaVariant;
    plan.threads = Tile1::kThreads;
    plan.smem = ring.smem;
    plan.chunk_k = ring.chunk_k;
    plan.rows = ring.rows;
    plan.row_blocks = (p.m + ring.rows - 1) / ring.rows;
    plan.chunks = (p.k + plan.chunk_k - 1) / plan.chunk_k;
    plan.splits = 1;
    plan.ctas_per_sm = 1;
    plan.split = {};
    plan.split.grid = std::min(plan.row_blocks, plan.sms);
    plan.workspace = 0;
    auto e = cudaFuncSetAttribute(ring.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, plan.smem);
    if (auto s = arch::status_from_cuda(e, "raising the TMA kernel's shared-memory limit"); !s.ok()) return s;
    plan.reason = std::string(variant_name(kTmaVariant)) + (a.variant >= 0 ? " (requested)" : "") + ", the TMA ring: " +
                  std::to_string(plan.row_blocks) + " row blocks of " + std::to_string(ring.rows) + " over " +
                  std::to_string(plan.split.grid) + " persistent CTAs of " + std::to_string(plan.threads) + ", " +
                  std::to_string(plan.chunks) + " stages of " + std::to_string(plan.chunk_k) + " k each, " +
                  std::to_string(ring.stages) + " in flight; N padded to " +
                  std::to_string(8 * plan.n8) + (a.split_k > 1 ? "; split_k ignored: this kernel does not split K" : "");
    return {};
  }

  StatusInfo make_tma_maps(Arguments const& a, int n8, int rows) {
    auto const& p = a.problem_size;
    using Tile = kernel::SmallNTmaTile<1>;
    const arch::TmaView va{a.ref_A.data, std::uint64_t(p.k), std::uint64_t(p.m), 1, std::uint64_t(a.ref_A.ld), 0,
                           std::uint32_t(Tile::kBoxK), std::uint32_t(rows)};
    const arch::TmaView vb{a.ref_B.data, std::uint64_t(p.k), std::uint64_t(p.n), 1, std::uint64_t(a.ref_B.ld), 0,
                           std::uint32_t(Tile::kBoxK), std::uint32_t(8 * n8)};
    constexpr auto kType = arch::tma_data_type<ElementA>();
    // NOTES: L2 fetches 128 bytes around each 128-byte box row of A, not 256: 2-3% faster on
    // the shapes of several row blocks per CTA (bench/NOTES.md, "Decode through TMA", run 5).
    if (auto s = arch::make_tma_map(map_a_, kType, 2, va, CU_TENSOR_MAP_SWIZZLE_128B, "A", arch::kTmaL2Promotion128B); !s.ok())
      return s;
    return arch::make_tma_map(map_b_, kType, 2, vb, CU_TENSOR_MAP_SWIZZLE_128B, "B");
  }

  /// One launch of the planned grid of `fn`; the launch's error, or the one it left behind.
  StatusInfo launch(void const* fn, void** args, cudaStream_t stream, char const* what) const {
    auto e = cudaLaunchKernel(fn, dim3(unsigned(plan_.split.grid)), dim3(unsigned(plan_.threads)), args, std::size_t(plan_.smem), stream);
    if (e != cudaSuccess) return arch::status_from_cuda(e, what);
    return arch::status_from_cuda(cudaGetLastError(), what);
  }
  static int n8_for(int n) { return n <= 8 ? 1 : n <= 16 ? 2 : n <= 32 ? 4 : 8; }
  template <int N8, class Cfg>
  static KernelInfo stream_info() {
    using Tile = kernel::SmallNStreamTile<N8, Cfg>;
    return {reinterpret_cast<void const*>(&kernel::sm80_gemm_small_n_stream<N8, Cfg, ElementD>), Tile::kThreads,
            Tile::kSmemBytes, Tile::kRows, 32, Tile::kKSlices, Tile::kDepth};
  }
  template <int N8>
  static KernelInfo kernel_info_n8(int variant) {
    using kernel::SmallNStreamConfig;
    if constexpr (N8 <= 2) switch (variant) {
      case 1: return stream_info<N8, SmallNStreamConfig<8, 1, 6, 1, 2>>();
      case 2: return stream_info<N8, SmallNStreamConfig<8, 1, 4, 1, 2>>();
      case 3: return stream_info<N8, SmallNStreamConfig<16, 1, 6, 1, 1>>();
      case 4: return stream_info<N8, SmallNStreamConfig<4, 1, 6, 1, 4>>();
      case 5: return stream_info<N8, SmallNStreamConfig<4, 2, 6, 1, 2>>();
      case 6: return stream_info<N8, SmallNStreamConfig<2, 4, 6, 1, 2>>();
      case 7: return stream_info<N8, SmallNStreamConfig<2, 8, 6, 1, 1>>();
      case 8: return stream_info<N8, SmallNStreamConfig<1, 4, 6, 1, 4>>();
      case 9: return stream_info<N8, SmallNStreamConfig<2, 4, 16, 1, 1>>();
      default: break;
    }
    // Variant 0, and every variant from N = 17 on (the streaming kernels take N <= 16).
    using Tile = kernel::SmallNTile<N8>;
    return {reinterpret_cast<void const*>(&kernel::sm80_gemm_small_n<N8, ElementD>), Tile::kThreads, Tile::kSmemBytes,
            Tile::kRows, Tile::kChunk, 1, 1};
  }
  static std::string dims(GemmCoord p) { return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k); }
  static std::string overlap(char const* which, std::int64_t ld, char const* extent, int value) {
    return std::string("leading dimension of ") + which + " is " + std::to_string(ld) + ", smaller than " + extent + " = " +
           std::to_string(value) + ": rows would overlap";
  }

  kernel::SmallNParams<ElementD> params_{};
  struct NoHopper {};
  std::conditional_t<kRingOnly, NoHopper, Hopper> hopper_;  // variant 10 (bf16 only)
  CUtensorMap map_a_{}, map_b_{};  // variant 11
  Plan plan_{};
  bool initialized_ = false;
};

}  // namespace tessel::gemm::device
