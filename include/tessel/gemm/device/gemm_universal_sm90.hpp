#pragma once
// The 3.x-style handle of the Hopper kernels: a kernel type assembled from collectives, run
// through GemmUniversalAdapter.
//
//   using GemmKernel = kernel::GemmUniversal<ProblemShape, CollectiveMainloop, CollectiveEpilogue>;
//   using Gemm = device::GemmUniversalAdapter<GemmKernel>;
//   Gemm::Arguments args{GemmUniversalMode::kGemm, {M, N, K, L},
//                        {ptr_A, stride_A, ptr_B, stride_B},
//                        {{alpha, beta}, ptr_C, stride_C, ptr_D, stride_D},
//                        hw_info, {RasterOrder::Heuristic, /*swizzle*/ 8}};
//   Gemm gemm;
//   if (auto s = gemm.can_implement(args); !s.ok()) puts(s.what().c_str());
//   gemm.initialize(args, workspace);  gemm.run(stream);
//
// Strides are (row, column, batch) tuples of the algebra with a static unit stride where the
// operand is contiguous: A (M,K,L), B (N,K,L), C and D (M,N,L). make_packed_stride fills them.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "tessel/arch/runtime.hpp"
#include "tessel/arch/sm90a_image.hpp"
#include "tessel/element_tag.hpp"
#include "tessel/gemm/collective/sm90_builder.hpp"
#include "tessel/gemm/gemm_shape.hpp"
#include "tessel/gemm/kernel/sm90_gemm_tma_warpspecialized.hpp"
#include "tessel/gemm/kernel/sm90_launch_plan.hpp"
#include "tessel/layout/layout.hpp"

namespace tessel::gemm {

enum class GemmUniversalMode { kGemm, kBatched, kGrouped };

struct KernelHardwareInfo {
  int device_id = 0;
  int sm_count = 0;  // 0: ask the device
};

struct ProblemShapeMNKL {
  int m = 0, n = 0, k = 0, l = 1;
};

using StrideKMajor = Stride<std::int64_t, Int<1>, std::int64_t>;   // (rows, K, L): K contiguous
using StrideMNMajor = Stride<Int<1>, std::int64_t, std::int64_t>;  // (rows, K, L): rows contiguous
/// FP8 block scales (kernel/sm90_block_scales.hpp): element strides over (row or row block, K block, L).
using StrideBlockScale = Stride<std::int64_t, std::int64_t, std::int64_t>;

/// torch._scaled_mm's layouts of the DeepSeek-V3 scales, for A (M x K, 1 x 128 blocks: rows
/// contiguous) and B (N x K, 128 x 128 blocks: K blocks contiguous); batches one after another.
inline StrideBlockScale make_block_scale_stride_A(int m, int k) {
  std::int64_t const kb = (k + kernel::kBlockScaleK - 1) / kernel::kBlockScaleK;
  return {std::int64_t(1), std::int64_t(m), std::int64_t(m) * kb};
}
inline StrideBlockScale make_block_scale_stride_B(int n, int k) {
  std::int64_t const kb = (k + kernel::kBlockScaleK - 1) / kernel::kBlockScaleK;
  std::int64_t const nb = (n + kernel::kBlockScaleN - 1) / kernel::kBlockScaleN;
  return {kb, std::int64_t(1), nb * kb};
}

/// The packed stride of a (rows, cols, batches) operand whose static unit mode says which one is
/// contiguous: (cols, 1, rows*cols) or (1, rows, rows*cols). The batch count does not enter it.
template <class StrideT>
StrideT make_packed_stride(StrideT, int rows, int cols) {
  std::int64_t plane = std::int64_t(rows) * cols;
  if constexpr (std::is_same_v<StrideT, StrideKMajor>) return StrideT{std::int64_t(cols), Int<1>{}, plane};
  else return StrideT{Int<1>{}, std::int64_t(rows), plane};
}

namespace kernel {
/// Tile schedulers: whole tiles over persistent CTAs (the default), units of work from a
/// Decomposition (data-parallel, split-K or stream-K, chosen per problem; see decomposition.hpp),
/// or the tiles of G problems of one N and K whose row counts live on the device (grouped GEMM,
/// kernel/grouped.hpp; run in GemmUniversalMode::kGrouped).
struct PersistentScheduler {};
struct StreamKScheduler {};
struct GroupedScheduler {};

template <class ProblemShape, class CollectiveMainloop, class CollectiveEpilogue, class TileScheduler = PersistentScheduler>
struct GemmUniversal {
  static_assert(std::is_same_v<TileScheduler, PersistentScheduler> || std::is_same_v<TileScheduler, StreamKScheduler> ||
                    std::is_same_v<TileScheduler, GroupedScheduler> || std::is_void_v<TileScheduler>,
                "GemmUniversal: the tile scheduler is PersistentScheduler, StreamKScheduler or GroupedScheduler");
  using UserMainloop = CollectiveMainloop;  // A and B as the user sees them
  using Epilogue = CollectiveEpilogue;
  static constexpr bool kSwapAB = Epilogue::kColumnMajorD;
  static constexpr bool kStreamK = std::is_same_v<TileScheduler, StreamKScheduler>;
  static constexpr bool kGrouped = std::is_same_v<TileScheduler, GroupedScheduler>;
  static_assert(!kGrouped || !kSwapAB, "GemmUniversal: grouped GEMM writes a row-major D (each group's rows are rows of D)");
  using Mainloop = Sm90Rebind<CollectiveMainloop, kSwapAB, kStreamK, Epilogue::kTmaStoreD, kGrouped>;
  using Fusion = typename Epilogue::FusionCallbacks;
};
}  // namespace kernel
using kernel::GroupedScheduler;
using kernel::PersistentScheduler;
using kernel::StreamKScheduler;

namespace device {

template <class GemmKernel>
class GemmUniversalAdapter {
 public:
  using Cfg = typename GemmKernel::Mainloop;
  using User = typename GemmKernel::UserMainloop;
  static constexpr bool kSwapAB = GemmKernel::kSwapAB;
  using Fusion = typename GemmKernel::Fusion;
  using ElementA = typename User::ElementA;
  using ElementB = typename User::ElementB;
  using ElementC = typename GemmKernel::Epilogue::ElementC_;
  using ElementD = typename GemmKernel::Epilogue::ElementD_;
  using StrideA = std::conditional_t<User::MajorA == arch::Major::K, StrideKMajor, StrideMNMajor>;
  using StrideB = std::conditional_t<User::MajorB == arch::Major::K, StrideKMajor, StrideMNMajor>;
  using StrideC = std::conditional_t<kSwapAB, StrideMNMajor, StrideKMajor>;  // (M,N,L): row- or column-major
  using StrideD = StrideC;
  static_assert(Cfg::kSmemBytes <= collective::kSm90SmemBytes,
                "GemmUniversalAdapter: the stages do not fit in 227 KB of shared memory: use fewer stages");

  struct MainloopArguments {
    ElementA const* ptr_A = nullptr;
    StrideA dA{};
    ElementB const* ptr_B = nullptr;
    StrideB dB{};
    // Block-scaled FP8 kernels (KernelTmaWarpSpecializedCooperativeFP8BlockScaled) only: the f32
    // scales of A per row and 128 of K, and of B per 128 x 128 block (make_block_scale_stride_A/_B).
    float const* ptr_SFA = nullptr;
    StrideBlockScale dSFA{};
    float const* ptr_SFB = nullptr;
    StrideBlockScale dSFB{};
  };
  struct EpilogueArguments {
    typename Fusion::Arguments thread{};  // {alpha, beta} for the linear combination
    ElementC const* ptr_C = nullptr;
    StrideC dC{};
    ElementD* ptr_D = nullptr;
    StrideD dD{};
    // D^T's problem: a caller that runs D = A B as D^T = B^T A^T (the weights as A, so that a
    // decode call's few tokens do not leave most of a tile's rows empty) has this kernel store its
    // M x N result column-major, element (r, c) at c * get<0>(dD) + r, from the registers. A
    // row-major-D kernel only, one matrix, no C.
    bool store_d_column_major = false;
  };
  struct SchedulerArguments {
    kernel::RasterOrder raster_order = kernel::RasterOrder::Heuristic;
    int max_swizzle_size = 8;
    // StreamKScheduler kernels only: how K is divided among CTAs, and the split-K slice count
    // (0: the heuristic's).
    kernel::DecompositionMode decomposition_mode = kernel::DecompositionMode::Heuristic;
    int splits = 0;
    // kernel::ReductionMode::kNondeterministic: split tiles add their partials with float atomics
    // into one sum (less fixup traffic; the low bits of D may differ from run to run). The default
    // sums in a fixed order: the same bits on every run.
    kernel::ReductionMode reduction = kernel::ReductionMode::kDeterministic;
  };
  /// GemmUniversalMode::kGrouped: problem_shape is {rows, N, K, G}; B is (N, K, G); A and D are
  /// (rows, K) and (rows, N) holding the groups one after another (kContiguous: group_m[g] is the
  /// end row of group g, torch._grouped_mm's offs), or (rows, K, G) and (rows, N, G) with group g
  /// the first group_m[g] rows of its block (kMasked). group_m is device memory, read by the kernel.
  struct GroupedArguments {
    kernel::GroupedLayout layout = kernel::GroupedLayout::kContiguous;
    int const* group_m = nullptr;
  };
  struct Arguments {
    GemmUniversalMode mode = GemmUniversalMode::kGemm;
    ProblemShapeMNKL problem_shape{};
    MainloopArguments mainloop{};
    EpilogueArguments epilogue{};
    KernelHardwareInfo hw_info{};
    SchedulerArguments scheduler{};
    GroupedArguments grouped{};
  };

  static auto kernel_function() { return &kernel::sm90_gemm_tma_warpspecialized<Cfg, Fusion>; }

  /// Every rule the kernel and TMA impose, each refusal naming the rule and the fix.
  static StatusInfo can_implement(Arguments const& a) {
    auto const& p = a.problem_shape;
    if (p.m <= 0 || p.n <= 0 || p.k <= 0 || p.l <= 0)
      return {Status::kErrorInvalidProblem, "problem size " + dims(p) + " is empty or negative: M, N, K and L must all be positive"};
    if (a.mode == GemmUniversalMode::kGemm && p.l != 1)
      return {Status::kErrorInvalidProblem, "mode kGemm with L = " + std::to_string(p.l) + ": use GemmUniversalMode::kBatched"};
    if ((a.mode == GemmUniversalMode::kGrouped) != GemmKernel::kGrouped)
      return {Status::kErrorNotSupported, GemmKernel::kGrouped
                                              ? "a grouped kernel (GroupedScheduler) runs in mode kGrouped: set Arguments::mode"
                                              : "mode kGrouped needs a kernel built with kernel::GemmUniversal<..., GroupedScheduler>"};
    if (GemmKernel::kGrouped && !a.grouped.group_m)
      return {Status::kErrorInvalidProblem, "mode kGrouped without group_m: pass a device array of one int per group (the groups' "
                                            "end rows, or their row counts for the masked layout)"};
    if (!a.mainloop.ptr_A || !a.mainloop.ptr_B || !a.epilogue.ptr_D)
      return {Status::kErrorInvalidProblem, "a null pointer among A, B and D: pass device pointers to the matrices"};
    if (auto s = check_block_scales(a); !s.ok()) return s;
    if (!GemmKernel::kStreamK && a.scheduler.decomposition_mode != kernel::DecompositionMode::Heuristic &&
        a.scheduler.decomposition_mode != kernel::DecompositionMode::DataParallel)
      return {Status::kErrorNotSupported, std::string("decomposition ") + kernel::to_string(a.scheduler.decomposition_mode) +
                                              " requested from a kernel built with the persistent data-parallel scheduler: "
                                              "build it with kernel::GemmUniversal<..., StreamKScheduler>"};
    KernelSpace const ks = to_kernel(a);
    int const l_ad = batches_of_a_and_d(a);
    if (auto s = check_operand(ks.name_a, ks.ptr_a, ks.da, ks.p.m, ks.p.k, l_ad); !s.ok()) return s;
    if (auto s = check_operand(ks.name_b, ks.ptr_b, ks.db, ks.p.n, ks.p.k, ks.p.l); !s.ok()) return s;
    bool const d_col = a.epilogue.store_d_column_major;
    if (d_col && (kSwapAB || l_ad != 1 || a.epilogue.ptr_C || GemmKernel::kGrouped || Cfg::kBlockScaled))
      return {Status::kErrorNotSupported, "store_d_column_major is for one matrix without C on a kernel that writes a row-major D "
                                          "(not grouped, not block-scaled): pass no C, L = 1, or leave it false"};
    if (ks.ldd < (d_col ? ks.p.m : ks.p.n))
      return {Status::kErrorInvalidProblem, "the leading dimension of D (" + std::to_string(ks.ldd) + ") is smaller than its " +
                                                (kSwapAB || d_col ? "row count M" : "column count N") + " (" +
                                                std::to_string(d_col ? ks.p.m : ks.p.n) + ")"};
    if (l_ad > 1 && ks.batch_d < ks.ldd * ks.p.m)
      return {Status::kErrorInvalidProblem, "the batch stride of D is smaller than one M x N matrix: batches would overlap"};
    // The fusion's batches are B's (the groups of a grouped kernel: Sm90CollectiveEpilogue::store).
    if (auto s = Fusion::can_implement(fusion_arguments(a, ks), ks.p.m, ks.p.n, ks.p.l); !s.ok()) return s;
    return arch::check_sm90a_image(reinterpret_cast<void const*>(kernel_function()));
  }

  /// Split-K and stream-K kernels: the fixup's counters and partial tiles; 0 otherwise.
  static std::size_t get_workspace_size(Arguments const& a) {
    if constexpr (!GemmKernel::kStreamK) {
      return 0;
    } else {
      return kernel::workspace_bytes(decompose(a), kSlotFloats);
    }
  }
  /// The decomposition chosen for `a` and why (StreamKScheduler kernels), for reports.
  static std::string decomposition_report(Arguments const& a) {
    if constexpr (!GemmKernel::kStreamK) {
      return "data-parallel (persistent scheduler)";
    } else {
      return kernel::choose_decomposition(tile_grid(a), sm_count(a), options(a)).reason;
    }
  }

  StatusInfo initialize(Arguments const& a, void* workspace = nullptr, cudaStream_t stream = nullptr) {
    initialized_ = false;  // a refused initialize must not leave an earlier problem ready to run
    if (auto s = can_implement(a); !s.ok()) return s;
    KernelSpace const ks = to_kernel(a);
    auto const& p = ks.p;
    int const l_ad = batches_of_a_and_d(a);
    if (auto s = make_operand_map(tma_a_, ks.name_a, ks.ptr_a, ks.da, p.m, p.k, l_ad, typename Cfg::BoxesA{}); !s.ok()) return s;
    if (auto s = make_operand_map(tma_b_, ks.name_b, ks.ptr_b, ks.db, p.n, p.k, p.l, typename Cfg::BoxesB{}); !s.ok()) return s;
    CUtensorMap tma_d{};
    kernel::Sm90DStores const stores = kernel::sm90_d_stores(Cfg::kTmaStoreD, ks.ptr_d, p.n, ks.ldd, l_ad, ks.batch_d,
                                                             int(sizeof(ElementD)), a.epilogue.store_d_column_major);
    bool const tma_store_d = stores.tma;
    if (tma_store_d) {
      arch::TmaView v{ks.ptr_d, std::uint64_t(p.n), std::uint64_t(p.m), std::uint64_t(l_ad), std::uint64_t(ks.ldd),
                      std::uint64_t(ks.batch_d), std::uint32_t(128 / sizeof(ElementD)), 64};
      if (auto s = arch::make_tma_map(tma_d, arch::tma_data_type<ElementD>(), sizeof(ElementD), v, CU_TENSOR_MAP_SWIZZLE_128B, "D");
          !s.ok())
        return s;
    }
    auto e = cudaFuncSetAttribute(kernel_function(), cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::kSmemBytes);
    if (auto s = arch::status_from_cuda(e, "setting the kernel's shared-memory size"); !s.ok()) return s;
    // Persistent: as many clusters as can be resident at once (the occupancy query, for clusters),
    // but no more than there are tiles (kernel::make_sm90_launch_plan).
    int max_clusters = 0;
    if constexpr (Cfg::kClusterSize > 1) {
      cudaLaunchConfig_t cfg = launch_config(1, nullptr);
      cudaLaunchAttribute attr[1];
      cfg.attrs = cluster_attribute(attr);
      cfg.numAttrs = 1;
      cfg.gridDim = dim3(Cfg::kClusterSize * (sm_count(a) / Cfg::kClusterSize), 1, 1);
      if (cudaOccupancyMaxActiveClusters(&max_clusters, kernel_function(), &cfg) != cudaSuccess) max_clusters = 0;
      (void)cudaGetLastError();
    }
    kernel::Sm90LaunchPlan const plan = launch_plan(a, max_clusters);
    params_ = {p.m,
               p.n,
               p.k,
               ks.ptr_d,
               ks.ldd,
               ks.batch_d,
               stores.pairs,
               Fusion::to_params(fusion_arguments(a, ks)),
               plan.sched};
    params_.tma_d = tma_d;
    params_.tma_store_d = tma_store_d;
    params_.d_column_major = a.epilogue.store_d_column_major;
    if constexpr (Cfg::kBlockScaled) {
      if (auto s = make_block_scales(a, p, l_ad); !s.ok()) return s;
    }
    grid_ = plan.grid;
    if constexpr (GemmKernel::kStreamK) {
      params_.dec = plan.dec;
      std::size_t bytes = kernel::workspace_bytes(params_.dec, kSlotFloats);
      if (bytes > 0 && !workspace)
        return {Status::kErrorWorkspaceNull, "this problem's " + std::string(kernel::to_string(params_.dec.mode)) +
                                                 " decomposition needs a workspace of " + std::to_string(bytes) +
                                                 " bytes: allocate get_workspace_size(args) bytes and pass them to initialize"};
      params_.ws = kernel::make_fixup_workspace(workspace, params_.dec, kSlotFloats);
      if (bytes > 0) {
        // The counters (and, for the atomic reduction, the shared sums) start at zero; every
        // launch leaves them so.
        std::size_t const zeroed = params_.dec.deterministic ? kernel::fixup_counter_bytes(params_.dec) : bytes;
        auto e = cudaMemsetAsync(workspace, 0, zeroed, stream);
        if (auto s = arch::status_from_cuda(e, "clearing the fixup counters"); !s.ok()) return s;
      }
    }
    initialized_ = true;
    return {};
  }

  StatusInfo run(cudaStream_t stream = nullptr) {
    if (!initialized_) return {Status::kErrorInternal, "run() before a successful initialize(): call initialize(args) first"};
    cudaLaunchConfig_t cfg = launch_config(grid_, stream);
    cudaLaunchAttribute attr[1];
    if constexpr (Cfg::kClusterSize > 1) {
      cfg.attrs = cluster_attribute(attr);
      cfg.numAttrs = 1;
    }
    auto e = cudaLaunchKernelEx(&cfg, kernel_function(), tma_a_, tma_b_, params_);
    return arch::status_from_cuda(e, "launching the sm90 GEMM kernel");
  }
  StatusInfo operator()(Arguments const& a, void* workspace = nullptr, cudaStream_t stream = nullptr) {
    if (auto s = initialize(a, workspace, stream); !s.ok()) return s;
    return run(stream);
  }

  /// tessel_sm90_gemm_<A>_<B>_<D>_<BM>x<BN>x<BK>_c<cluster M>x<cluster N>_<stages>stage_<schedule>_<layouts>[_dcol][_streamk][_tmastore][_<fusion>]
  /// (layouts in BLAS letters: t = A row-major / B column-major, i.e. K-major; the tile as the kernel runs it)
  static std::string name() {
    std::string layouts = std::string(User::MajorA == arch::Major::K ? "t" : "n") + (User::MajorB == arch::Major::K ? "n" : "t") +
                          (kSwapAB ? "_dcol" : "") + (GemmKernel::kStreamK ? "_streamk" : "") + (GemmKernel::kGrouped ? "_grouped" : "") +
                          (Cfg::kTmaStoreD ? "_tmastore" : "");
    std::string fusion = Fusion::name() == "lincomb" ? "" : "_" + Fusion::name();
    return "tessel_sm90_gemm_" + element_tag<ElementA>() + "_" + element_tag<ElementB>() + "_" + element_tag<ElementD>() + "_" +
           std::to_string(Cfg::BM) + "x" + std::to_string(Cfg::BN) + "x" + std::to_string(Cfg::BK) + "_c" +
           std::to_string(Cfg::ClusterM) + "x" + std::to_string(Cfg::ClusterN) + "_" + std::to_string(Cfg::Stages) + "stage_" +
           Cfg::Schedule::kName + "_" + layouts + fusion;
  }
  int grid_size() const { return grid_; }

 private:
  static constexpr int kSlotFloats = 256 * Cfg::kMmaM * Cfg::Mma::kAccumulators;  // the consumers' accumulators
  static int sm_count(Arguments const& a) {
    int sms = a.hw_info.sm_count;
    if (sms <= 0) cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, a.hw_info.device_id);
    return sms > 0 ? sms : 1;
  }
  static kernel::TileGrid tile_grid(Arguments const& a) {
    KernelSpace const ks = to_kernel(a);
    return {(ks.p.m + Cfg::BM - 1) / Cfg::BM, (ks.p.n + Cfg::BN - 1) / Cfg::BN, ks.p.l, (ks.p.k + Cfg::BK - 1) / Cfg::BK};
  }
  static kernel::DecompositionOptions options(Arguments const& a) {
    kernel::DecompositionOptions o;
    o.mode = a.scheduler.decomposition_mode;
    o.splits = a.scheduler.splits;
    o.deterministic = a.scheduler.reduction == kernel::ReductionMode::kDeterministic;
    return o;
  }
  /// The scheduler, grid and decomposition of `a` (kernel/sm90_launch_plan.hpp, as the Python
  /// package's launcher plans them); max_clusters: resident clusters, 0 for the SM count.
  static kernel::Sm90LaunchPlan launch_plan(Arguments const& a, int max_clusters) {
    auto const& p = to_kernel(a).p;
    return kernel::make_sm90_launch_plan({Cfg::BM, Cfg::BN, Cfg::BK, Cfg::ClusterM, Cfg::ClusterN, GemmKernel::kStreamK, GemmKernel::kGrouped},
                                         p.m, p.n, p.k, p.l, kernel::Groups{a.grouped.group_m, p.l, int(a.grouped.layout), p.m, 0},
                                         a.scheduler.raster_order, a.scheduler.max_swizzle_size, options(a), sm_count(a), max_clusters);
  }
  static kernel::Decomposition decompose(Arguments const& a) { return launch_plan(a, 0).dec; }
  static std::string dims(ProblemShapeMNKL p) {
    return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k) + "x" + std::to_string(p.l);
  }
  /// The problem as the kernel runs it: A and B exchanged, and D transposed, for a column-major D.
  struct KernelSpace {
    ProblemShapeMNKL p;
    typename Cfg::ElementA const* ptr_a;
    std::conditional_t<Cfg::MajorA == arch::Major::K, StrideKMajor, StrideMNMajor> da;
    char const* name_a;
    typename Cfg::ElementB const* ptr_b;
    std::conditional_t<Cfg::MajorB == arch::Major::K, StrideKMajor, StrideMNMajor> db;
    char const* name_b;
    ElementC const* ptr_c;
    std::int64_t ldc, batch_c;  // row-major in the kernel's problem
    ElementD* ptr_d;
    std::int64_t ldd, batch_d;
  };
  static KernelSpace to_kernel(Arguments const& a) {
    auto const& p = a.problem_shape;
    auto const& m = a.mainloop;
    auto const& e = a.epilogue;
    if constexpr (kSwapAB)
      return {{p.n, p.m, p.k, p.l}, m.ptr_B, m.dB, "B", m.ptr_A, m.dA, "A",
              e.ptr_C, get<1>(e.dC), get<2>(e.dC), e.ptr_D, get<1>(e.dD), get<2>(e.dD)};
    else
      return {p, m.ptr_A, m.dA, "A", m.ptr_B, m.dB, "B", e.ptr_C, get<0>(e.dC), get<2>(e.dC), e.ptr_D, get<0>(e.dD), get<2>(e.dD)};
  }
  /// The batches of A and D: L, except for contiguous groups, which share one (rows, K) A and one
  /// (rows, N) D (B has L = G batches in every mode).
  static int batches_of_a_and_d(Arguments const& a) {
    return GemmKernel::kGrouped && a.grouped.layout == kernel::GroupedLayout::kContiguous ? 1 : a.problem_shape.l;
  }
  /// The fusion's arguments, with C from EpilogueArguments where the fusion was given none. C is
  /// batched like D: the fusion indexes it by the group of a grouped kernel, so contiguous groups,
  /// which share one D, share one C (batch stride 0; its rows are D's rows).
  static typename Fusion::Arguments fusion_arguments(Arguments const& a, KernelSpace const& ks) {
    typename Fusion::Arguments f = a.epilogue.thread;
    if constexpr (requires { f.ptr_C; f.ldc; f.batch_stride_C; }) {
      if (!f.ptr_C) {
        f.ptr_C = ks.ptr_c;
        f.ldc = ks.ldc;
        f.batch_stride_C = batches_of_a_and_d(a) == 1 ? 0 : ks.batch_c;
      }
    }
    return f;
  }
  /// Block scales: present exactly where the kernel applies them, strides that do not go backwards.
  static StatusInfo check_block_scales(Arguments const& a) {
    auto const& m = a.mainloop;
    bool const given = m.ptr_SFA || m.ptr_SFB;
    if constexpr (!Cfg::kBlockScaled) {
      if (given)
        return {Status::kErrorNotSupported, "block scales (ptr_SFA / ptr_SFB) passed to a kernel that applies none: build it "
                                            "with KernelTmaWarpSpecializedCooperativeFP8BlockScaled"};
      return {};
    } else {
      static_assert(!kSwapAB, "block-scaled FP8 writes a row-major D (the scales of A follow its rows)");
      if (!m.ptr_SFA || !m.ptr_SFB)
        return {Status::kErrorInvalidProblem, "a block-scaled kernel without ptr_SFA or ptr_SFB: pass the f32 scales of A (per "
                                              "row and 128 of K) and of B (per 128 x 128 block)"};
      auto const backwards = [](StrideBlockScale const& d) { return get<0>(d) < 0 || get<1>(d) < 0 || get<2>(d) < 0; };
      if (backwards(m.dSFA) || backwards(m.dSFB))
        return {Status::kErrorInvalidProblem, std::string("a negative stride in ") + (backwards(m.dSFA) ? "dSFA" : "dSFB") +
                                                  ": block scales take element strides >= 0 (make_block_scale_stride_A / _B)"};
      if (reinterpret_cast<std::uintptr_t>(m.ptr_SFA) % 4 || reinterpret_cast<std::uintptr_t>(m.ptr_SFB) % 4)
        return {Status::kErrorMisalignedOperand, "block scales must be 4-byte aligned f32 arrays"};
      return {};
    }
  }
  /// params_.scales: the two arrays, and their TMA maps where kernel::block_scales_fit_tma allows.
  StatusInfo make_block_scales(Arguments const& a, ProblemShapeMNKL const& p, int l_ad) {
    auto const& m = a.mainloop;
    kernel::Sm90BlockScales& sc = params_.scales;
    sc.a = {m.ptr_SFA, get<0>(m.dSFA), get<1>(m.dSFA), get<2>(m.dSFA)};
    sc.b = {m.ptr_SFB, get<0>(m.dSFB), get<1>(m.dSFB), get<2>(m.dSFB)};
    arch::TmaEncodeTiledFn encode = nullptr;
    if (auto s = arch::tma_encode_entry(encode); !s.ok()) return s;
    return kernel::prepare_block_scales(encode, sc, p.m, p.n, p.k, l_ad, p.l, Cfg::BM);
  }
  /// TMA's rules for one operand of `rows` x `k` x `l` elements.
  template <class T, class S>
  static StatusInfo check_operand(char const* name, T const* ptr, S const& stride, int rows, int k, int l) {
    constexpr bool kMajorK = std::is_same_v<S, StrideKMajor>;
    std::int64_t ld = kMajorK ? std::int64_t(get<0>(stride)) : std::int64_t(get<1>(stride));
    std::int64_t contiguous = kMajorK ? k : rows;
    std::string op(name);
    if (ld < contiguous)
      return {Status::kErrorInvalidProblem, "the leading dimension of " + op + " (" + std::to_string(ld) + ") is smaller than its " +
                                                (kMajorK ? "K" : "row count") + " (" + std::to_string(contiguous) + ")"};
    constexpr int kAlign = 16 / int(sizeof(T));
    if (auto s = check_extent_alignment(("leading dimension of " + op).c_str(), ld, kAlign, 16); !s.ok()) return s;
    if (l > 1) {
      std::int64_t batch = get<2>(stride);
      if (auto s = check_extent_alignment(("batch stride of " + op).c_str(), batch, kAlign, 16); !s.ok()) return s;
    }
    if (auto s = check_pointer_alignment(("base address of " + op).c_str(), ptr, 16); !s.ok()) return s;
    if (ld * std::int64_t(sizeof(T)) >= (std::int64_t(1) << 40))
      return {Status::kErrorInvalidProblem, "the leading dimension of " + op + " is 2^40 bytes or more, beyond TMA's stride limit"};
    return {};
  }
  template <class T, class S, class Boxes>
  static StatusInfo make_operand_map(CUtensorMap& map, char const* name, T const* ptr, S const& stride, int rows, int k, int l,
                                     Boxes) {
    constexpr bool kMajorK = std::is_same_v<S, StrideKMajor>;
    arch::TmaView v{ptr,
                    std::uint64_t(kMajorK ? k : rows),
                    std::uint64_t(kMajorK ? rows : k),
                    std::uint64_t(l),
                    std::uint64_t(kMajorK ? std::int64_t(get<0>(stride)) : std::int64_t(get<1>(stride))),
                    std::uint64_t(std::int64_t(get<2>(stride))),
                    std::uint32_t(Boxes::kBoxInner),
                    std::uint32_t(Boxes::kBoxOuter)};
    return arch::make_tma_map(map, arch::tma_data_type<T>(), sizeof(T), v, CU_TENSOR_MAP_SWIZZLE_128B, name);
  }
  static cudaLaunchConfig_t launch_config(int grid, cudaStream_t stream) {
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(grid, 1, 1);
    cfg.blockDim = dim3(Cfg::kThreads, 1, 1);
    cfg.dynamicSmemBytes = Cfg::kSmemBytes;
    cfg.stream = stream;
    return cfg;
  }
  static cudaLaunchAttribute* cluster_attribute(cudaLaunchAttribute (&attr)[1]) {
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = Cfg::kClusterSize;  // one-dimensional: Sm90ClusterRank places the CTAs
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    return attr;
  }

  CUtensorMap tma_a_{};
  CUtensorMap tma_b_{};
  kernel::Sm90GemmParams<Fusion> params_{};
  int grid_ = 1;
  bool initialized_ = false;
};

}  // namespace device
}  // namespace tessel::gemm
