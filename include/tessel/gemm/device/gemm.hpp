#pragma once
// tessel::gemm::device::Gemm: the CUTLASS 2.x-style handle for the Sm75 and Sm80 paths.
//
//   using Gemm = tessel::gemm::device::Gemm<half_t, RowMajor, half_t, ColumnMajor, float, RowMajor,
//                                           float, OpClassTensorOp, arch::Sm80,
//                                           GemmShape<128,128,32>, GemmShape<64,64,32>,
//                                           GemmShape<16,8,16>, LinearCombination<float>, 3>;
//   Gemm gemm;
//   Gemm::Arguments args{{M, N, K}, {dA, lda}, {dB, ldb}, {dC, ldc}, {dD, ldd}, {alpha, beta}, 1};
//   if (auto s = gemm.can_implement(args); !s.ok()) puts(s.what().c_str());
//   gemm(args, nullptr, stream);
//
// The epilogue is epilogue::LinearCombination<ElementC> by default (or with an activation,
// LinearCombination<ElementC, ElementC, fusion::ReLU>): the kernel loads C itself and runs its
// OutputOp, so Arguments::epilogue holds only alpha and beta (its Scalars).
//
// The threadblock shape only decides how many warps there are; the warp shape is the unit of
// work: every warp computes a WarpM x WarpN tile with (WarpM/16)*(WarpN/8)*(WarpK/InstK) mma per
// K step, whatever the threadblock.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "tessel/arch/runtime.hpp"
#include "tessel/arch/tags.hpp"
#include "tessel/element_tag.hpp"
#include "tessel/epilogue/linear_combination.hpp"
#include "tessel/gemm/collective/sm70_mma_twostage.hpp"
#include "tessel/gemm/collective/sm80_mma_multistage.hpp"
#include "tessel/gemm/collective/sm80_mma_multistage_fast.hpp"
#include "tessel/gemm/kernel/gemm.hpp"
#include "tessel/status.hpp"

namespace tessel::gemm::device {

namespace detail {
// The instruction an (arch, element, instruction shape) triple names.
template <class ArchTag, class Element, class InstructionShape>
struct MmaOpFor {
  static_assert(InstructionShape::kM == 16 && InstructionShape::kN == 8,
                "Gemm: the tensor-core instructions are 16x8xK: InstructionShape must be GemmShape<16,8,8> or GemmShape<16,8,16>");
  static_assert(InstructionShape::kK == 8 || InstructionShape::kK == 16,
                "Gemm: InstructionShape must be GemmShape<16,8,8> (sm_75) or GemmShape<16,8,16> (sm_80)");
  static_assert(!(InstructionShape::kK == 16 && std::is_same_v<ArchTag, arch::Sm75>),
                "Gemm: the 16x8x16 instruction needs arch::Sm80; Turing (arch::Sm75) has 16x8x8");
  static_assert(!(InstructionShape::kK == 8 && std::is_same_v<Element, bfloat16_t>),
                "Gemm: bf16 inputs need the 16x8x16 instruction (arch::Sm80); 16x8x8 takes f16 only");
  using type = std::conditional_t<InstructionShape::kK == 8, arch::Mma16x8x8F32F16F16F32,
                                  std::conditional_t<std::is_same_v<Element, bfloat16_t>, arch::Mma16x8x16F32BF16BF16F32,
                                                     arch::Mma16x8x16F32F16F16F32>>;
};
}  // namespace detail

template <class ElementA_, class LayoutA_, class ElementB_, class LayoutB_, class ElementC_, class LayoutC_,
          class ElementAccumulator_ = float, class OperatorClass_ = OpClassTensorOp, class ArchTag_ = arch::Sm80,
          class ThreadblockShape_ = GemmShape<128, 128, 32>, class WarpShape_ = GemmShape<64, 64, 32>,
          class InstructionShape_ = GemmShape<16, 8, 16>,
          class EpilogueOutputOp_ = epilogue::LinearCombination<ElementC_>,
          int Stages_ = (std::is_same_v<ArchTag_, arch::Sm75> ? 2 : 3), class KernelPolicy_ = KernelPolicySm80Default>
class Gemm {
 public:
  using ElementA = ElementA_;
  using ElementB = ElementB_;
  using ElementC = ElementC_;
  using LayoutA = LayoutA_;
  using LayoutB = LayoutB_;
  using LayoutC = LayoutC_;
  using ElementAccumulator = ElementAccumulator_;
  using ArchTag = ArchTag_;
  using ThreadblockShape = ThreadblockShape_;
  using WarpShape = WarpShape_;
  using InstructionShape = InstructionShape_;
  using EpilogueOutputOp = EpilogueOutputOp_;
  static_assert(requires { typename EpilogueOutputOp::OutputOp; typename EpilogueOutputOp::Scalars; },
                "device::Gemm: the epilogue is an epilogue::LinearCombination<ElementC[, ElementC, Act]>");
  static_assert(std::is_same_v<typename EpilogueOutputOp::ElementOutput, ElementC_>,
                "device::Gemm: the epilogue's output type must be ElementC (C and D share one type here)");
  static constexpr int kStages = Stages_;
  using KernelPolicy = KernelPolicy_;

  // ---- The rules, checked where a user writes the type ----------------------------------------
  static_assert(std::is_same_v<OperatorClass_, OpClassTensorOp>, "Gemm: only OpClassTensorOp is provided");
  static_assert(arch::is_arch_tag_v<ArchTag> && !std::is_same_v<ArchTag, arch::Sm90>,
                "Gemm: this handle serves arch::Sm75 and arch::Sm80; Hopper kernels have their own handle");
  // An arch tag no compiled architecture can run is a build error naming the architecture to add
  // (arch/tags.hpp), not a kernel that silently compiles to nothing.
  static_assert(arch::require_compiled_target<ArchTag>());
  static_assert(std::is_same_v<ElementA, ElementB>, "Gemm: A and B must have the same element type");
  static_assert(std::is_same_v<ElementA, half_t> || std::is_same_v<ElementA, bfloat16_t>,
                "Gemm: A and B must be half_t or bfloat16_t");
  static_assert(std::is_same_v<ElementAccumulator, float>, "Gemm: the accumulator must be float");
  static_assert(std::is_same_v<ElementC, float> || std::is_same_v<ElementC, half_t> || std::is_same_v<ElementC, bfloat16_t>,
                "Gemm: C and D must be float, half_t or bfloat16_t");
  static_assert((std::is_same_v<LayoutA, RowMajor> || std::is_same_v<LayoutA, ColumnMajor>) &&
                    (std::is_same_v<LayoutB, RowMajor> || std::is_same_v<LayoutB, ColumnMajor>) &&
                    (std::is_same_v<LayoutC, RowMajor> || std::is_same_v<LayoutC, ColumnMajor>),
                "Gemm: layouts must be RowMajor or ColumnMajor");
  static_assert(ThreadblockShape::kM % WarpShape::kM == 0 && ThreadblockShape::kN % WarpShape::kN == 0,
                "Gemm: the threadblock shape must be a whole number of warp shapes in M and N");
  static_assert(ThreadblockShape::kK == WarpShape::kK, "Gemm: the warp shape's K must equal the threadblock shape's K");
  static_assert(std::is_same_v<ArchTag, arch::Sm80> || kStages == 2,
                "Gemm: arch::Sm75 has no cp.async, so its mainloop has exactly 2 stages");
  static_assert(std::is_same_v<ArchTag, arch::Sm75> || kStages >= 2, "Gemm: at least 2 stages");

  using MmaOp = typename detail::MmaOpFor<ArchTag, ElementA, InstructionShape>::type;

  struct Config {
    using ElementA = Gemm::ElementA;
    using ElementB = Gemm::ElementB;
    using ElementC = Gemm::ElementC;
    using LayoutA = Gemm::LayoutA;
    using LayoutB = Gemm::LayoutB;
    using LayoutC = Gemm::LayoutC;
    using ArchTag = Gemm::ArchTag;
    using Epilogue = typename EpilogueOutputOp::OutputOp;
    static constexpr int BM = ThreadblockShape::kM, BN = ThreadblockShape::kN, BK = ThreadblockShape::kK;
    static constexpr int Stages = kStages;
    static constexpr bool kAKMajor = std::is_same_v<LayoutA, RowMajor>;     // A(M,K) row-major: K contiguous
    static constexpr bool kBKMajor = std::is_same_v<LayoutB, ColumnMajor>;  // B(K,N) column-major: K contiguous
    using TiledMma = atom::TiledMma<MmaOp, typename WarpShape::MNK,
                                    Shape<Int<ThreadblockShape::kM / WarpShape::kM>, Int<ThreadblockShape::kN / WarpShape::kN>>>;
    static constexpr int kMinBlocksPerSm = KernelPolicy::kMinBlocksPerSm;
    static constexpr bool kSmemEpilogue = KernelPolicy::kSmemEpilogue;
    using Mainloop = std::conditional_t<
        (kStages == 2), collective::MainloopSm70TwoStage<Config>,
        std::conditional_t<KernelPolicy::kMainloop == Sm80Mainloop::kFast, collective::MainloopSm80CpAsyncFast<Config>,
                           collective::MainloopSm80CpAsync<Config>>>;
  };
  using Mainloop = typename Config::Mainloop;
  static constexpr int kThreads = Config::TiledMma::kThreads;
  static constexpr int kSharedStorageSize = std::max(int(Mainloop::kSmemBytes), kernel::epilogue_smem_bytes<Config>());
  static constexpr int kAlignment = 16 / int(sizeof(ElementA));  // elements per 16-byte vector

  struct Arguments {
    GemmCoord problem_size;
    TensorRef<ElementA const, LayoutA> ref_A;
    TensorRef<ElementB const, LayoutB> ref_B;
    TensorRef<ElementC const, LayoutC> ref_C;
    TensorRef<ElementC, LayoutC> ref_D;
    typename EpilogueOutputOp::Scalars epilogue;  // {alpha, beta}
    int split_k_slices = 1;
    int swizzle = 8;  // row tiles per raster group; 0: plain raster along M (see tile_scheduler.hpp)
  };

  /// Whether this kernel can compute the problem, and if not, why and what to do about it.
  static StatusInfo can_implement(Arguments const& args) {
    if (auto s = check_arguments(args); !s.ok()) return s;
    return arch::check_kernel_arch<ArchTag>(reinterpret_cast<void const*>(&kernel::gemm_kernel<Config>));
  }

  /// can_implement's rules on the arguments, without asking the device about the kernel's image
  /// (device::GemmGrouped applies them to one group's matrices and checks its own kernel).
  static StatusInfo check_arguments(Arguments const& args) {
    auto const& p = args.problem_size;
    if (p.m < 0 || p.n < 0 || p.k < 0)
      return {Status::kErrorInvalidProblem, "problem size " + dims(p) + " has a negative extent"};
    if (p.m == 0 || p.n == 0 || p.k == 0)
      return {Status::kErrorInvalidProblem, "problem size " + dims(p) + " is empty: M, N and K must all be positive"};
    if (args.split_k_slices != 1)
      return {Status::kErrorNotSupported, "split_k_slices = " + std::to_string(args.split_k_slices) +
                                              ": this kernel computes K in one slice; pass 1"};
    if (!args.ref_A.data || !args.ref_B.data || !args.ref_D.data)
      return {Status::kErrorInvalidProblem, std::string("a null pointer for ") + (!args.ref_A.data ? "A" : !args.ref_B.data ? "B" : "D") +
                                                ": pass device pointers to the matrices"};
    if (auto s = epilogue::check_source_present(args.epilogue.beta, args.ref_C.data); !s.ok()) return s;
    // A(M,K) and B(K,N) are read in 16-byte vectors along their contiguous mode.
    bool a_rows = std::is_same_v<LayoutA, RowMajor>, b_cols = std::is_same_v<LayoutB, ColumnMajor>;
    if (auto s = check_ld("A", args.ref_A.ld, a_rows ? p.k : p.m, a_rows ? "K" : "M"); !s.ok()) return s;
    if (auto s = check_ld("B", args.ref_B.ld, b_cols ? p.k : p.n, b_cols ? "K" : "N"); !s.ok()) return s;
    bool c_rows = std::is_same_v<LayoutC, RowMajor>;
    std::int64_t c_min = c_rows ? p.n : p.m;
    if (args.ref_D.ld < c_min)
      return {Status::kErrorInvalidProblem, "leading dimension of D is " + std::to_string(args.ref_D.ld) + ", smaller than " +
                                                (c_rows ? "N = " : "M = ") + std::to_string(c_min) + ": rows would overlap"};
    // ld 0 repeats C's first row (or column) over the other mode: a bias.
    if (args.epilogue.beta != 0 && args.ref_C.ld != 0 && args.ref_C.ld < c_min)
      return {Status::kErrorInvalidProblem, "leading dimension of C is " + std::to_string(args.ref_C.ld) + ", smaller than " +
                                                (c_rows ? "N = " : "M = ") + std::to_string(c_min) + ": rows would overlap"};
    if (auto s = check_contiguous_extent("K", p.k, a_rows || b_cols); !s.ok()) return s;
    if (auto s = check_contiguous_extent("M", p.m, !a_rows); !s.ok()) return s;
    if (auto s = check_contiguous_extent("N", p.n, !b_cols); !s.ok()) return s;
    if (auto s = check_pointer_alignment("base address of A", args.ref_A.data, 16); !s.ok()) return s;
    if (auto s = check_pointer_alignment("base address of B", args.ref_B.data, 16); !s.ok()) return s;
    if ((std::int64_t(p.m) + ThreadblockShape::kM - 1) / ThreadblockShape::kM *
            ((std::int64_t(p.n) + ThreadblockShape::kN - 1) / ThreadblockShape::kN) > 2147483647LL)
      return {Status::kErrorInvalidProblem, "problem size " + dims(p) + " needs more thread blocks than a grid holds"};
    return {};
  }

  static std::size_t get_workspace_size(Arguments const&) { return 0; }

  /// Check the arguments and the device, and prepare the launch. Nothing is allocated.
  StatusInfo initialize(Arguments const& args, void* workspace = nullptr, cudaStream_t stream = nullptr) {
    initialized_ = false;  // a refused initialize must not leave an earlier problem ready to run
    (void)workspace;
    (void)stream;
    if (auto s = can_implement(args); !s.ok()) return s;
    if (kSharedStorageSize > 48 * 1024) {
      auto e = cudaFuncSetAttribute(&kernel::gemm_kernel<Config>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedStorageSize);
      if (auto s = arch::status_from_cuda(e, "setting the kernel's shared-memory size"); !s.ok()) return s;
    }
    int tiles_m = (args.problem_size.m + ThreadblockShape::kM - 1) / ThreadblockShape::kM;
    int tiles_n = (args.problem_size.n + ThreadblockShape::kN - 1) / ThreadblockShape::kN;
    params_ = {args.problem_size, args.ref_A.data, args.ref_A.ld, args.ref_B.data, args.ref_B.ld, args.ref_C.data, args.ref_C.ld,
               args.ref_D.data, args.ref_D.ld, typename EpilogueOutputOp::OutputOp{args.epilogue},
               kernel::GroupedRaster{tiles_m, tiles_n, args.swizzle > 0 ? std::min(args.swizzle, tiles_m) : tiles_m}};
    initialized_ = true;
    return {};
  }

  StatusInfo run(cudaStream_t stream = nullptr) {
    if (!initialized_) return {Status::kErrorInternal, "run() before a successful initialize(): call initialize(args) first"};
    dim3 grid(params_.raster.tile_count(), 1, 1);
    kernel::gemm_kernel<Config><<<grid, kThreads, kSharedStorageSize, stream>>>(params_);
    return arch::status_from_cuda(cudaGetLastError(), "launching the GEMM kernel");
  }

  StatusInfo operator()(cudaStream_t stream = nullptr) { return run(stream); }
  StatusInfo operator()(Arguments const& args, void* workspace = nullptr, cudaStream_t stream = nullptr) {
    if (auto s = initialize(args, workspace, stream); !s.ok()) return s;
    return run(stream);
  }

  /// "tessel_sm80_gemm_f16_f16_f32_128x128x32_64x64x32_3stage_tn": readable and sortable.
  static std::string name() {
    std::string arch = std::is_same_v<ArchTag, arch::Sm75> ? "sm75" : "sm80";
    auto shape = [](int m, int n, int k) { return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k); };
    return "tessel_" + arch + "_gemm_" + element_tag<ElementA>() + "_" + element_tag<ElementB>() + "_" + element_tag<ElementC>() + "_" +
           shape(ThreadblockShape::kM, ThreadblockShape::kN, ThreadblockShape::kK) + "_" +
           shape(WarpShape::kM, WarpShape::kN, WarpShape::kK) + "_" + std::to_string(kStages) + "stage_" +
           (std::is_same_v<LayoutA, RowMajor> ? "t" : "n") + (std::is_same_v<LayoutB, ColumnMajor> ? "n" : "t") +
           (std::is_same_v<LayoutC, ColumnMajor> ? "" : "_drow") +  // D column-major, as BLAS writes it, unless marked
           policy_suffix();
  }
  /// "" for the default policy; "_v3" for the classic mainloop, "_b2" for 2 CTAs per SM in the
  /// launch bounds, "_sepi" for the staged epilogue.
  static std::string policy_suffix() {
    std::string s;
    if (KernelPolicy::kMainloop == Sm80Mainloop::kClassic && kStages > 2) s += "_v3";
    if (KernelPolicy::kMinBlocksPerSm > 1) s += "_b" + std::to_string(KernelPolicy::kMinBlocksPerSm);
    if (KernelPolicy::kSmemEpilogue) s += "_sepi";
    return s;
  }

 private:
  static std::string dims(GemmCoord p) { return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k); }
  static StatusInfo check_ld(char const* which, std::int64_t ld, int contiguous_extent, char const* extent_name) {
    if (ld < contiguous_extent)
      return {Status::kErrorInvalidProblem, std::string("leading dimension of ") + which + " is " + std::to_string(ld) +
                                                ", smaller than " + extent_name + " = " + std::to_string(contiguous_extent) +
                                                ": rows would overlap"};
    return check_extent_alignment(std::string("leading dimension of ") + which, ld, kAlignment, sizeof_bits_v<ElementA>);
  }
  static StatusInfo check_contiguous_extent(char const* name, int value, bool contiguous) {
    if (!contiguous) return {};
    return check_extent_alignment(name, value, kAlignment, sizeof_bits_v<ElementA>);
  }

  kernel::GemmParams<Config> params_{};
  bool initialized_ = false;
};

}  // namespace tessel::gemm::device
