#pragma once
// GemmOperation for the CUTLASS 2.x-style handle tessel::gemm::device::Gemm (arch::Sm75 and
// arch::Sm80): the description is read off the handle's types, and the untyped arguments are
// turned back into its typed Arguments.
//
// The handle computes one matrix per launch and rasters along M; a batch or --raster=along_n is
// refused here with kErrorNotSupported and a sentence, so the profiler lists the kernel with its
// reason instead of dropping it.

#include <climits>
#include <memory>
#include <string>
#include <type_traits>

#include "kernels/registry.hpp"
#include "tessel/gemm/device/gemm.hpp"

namespace tessel::prof::kernels {

template <class T>
constexpr Element element_of() {
  if constexpr (std::is_same_v<T, half_t>) return Element::kF16;
  else if constexpr (std::is_same_v<T, bfloat16_t>) return Element::kBF16;
  else return Element::kF32;
}

template <class Tag>
constexpr Layout layout_of() {
  return std::is_same_v<Tag, gemm::RowMajor> ? Layout::kRow : Layout::kColumn;
}

/// The handle with the catalogue's fixed choices: f32 accumulation, tensor cores, D = alpha AB + beta C.
template <class EA, class LA, class EB, class LB, class EC, class LC, class Arch, int TM, int TN, int TK, int WM,
          int WN, int WK, int IM, int IN, int IK, int Stages>
using Sm80Gemm = gemm::device::Gemm<EA, LA, EB, LB, EC, LC, float, gemm::OpClassTensorOp, Arch, gemm::GemmShape<TM, TN, TK>,
                                    gemm::GemmShape<WM, WN, WK>, gemm::GemmShape<IM, IN, IK>,
                                    epilogue::LinearCombination<EC, float, float>, Stages>;

template <class Gemm>
class Sm80GemmOperation final : public GemmOperation {
 public:
  Sm80GemmOperation() {
    KernelDescription& d = desc_;
    d.name = Gemm::name();
    constexpr bool sm75 = std::is_same_v<typename Gemm::ArchTag, arch::Sm75>;
    d.arch = sm75 ? "sm75" : "sm80";
    d.min_compute_capability = Gemm::ArchTag::kMinComputeCapability;
    d.a = {element_of<typename Gemm::ElementA>(), layout_of<typename Gemm::LayoutA>()};
    d.b = {element_of<typename Gemm::ElementB>(), layout_of<typename Gemm::LayoutB>()};
    d.c = {element_of<typename Gemm::ElementC>(), layout_of<typename Gemm::LayoutC>()};
    d.d = d.c;
    d.accumulator = Element::kF32;
    d.tile = {Gemm::ThreadblockShape::kM, Gemm::ThreadblockShape::kN, Gemm::ThreadblockShape::kK};
    d.warp = {Gemm::WarpShape::kM, Gemm::WarpShape::kN, Gemm::WarpShape::kK};
    d.instruction = {Gemm::InstructionShape::kM, Gemm::InstructionShape::kN, Gemm::InstructionShape::kK};
    d.stages = Gemm::kStages;
    d.schedule = Gemm::kStages == 2 ? "twostage" : "multistage";
    d.threads = Gemm::kThreads;
    d.smem_bytes = Gemm::kSharedStorageSize;
    d.alignment = Gemm::kAlignment;
  }

  const KernelDescription& description() const override { return desc_; }

  StatusInfo can_implement(const GemmArguments& args) const override {
    if (auto s = check_unsupported(args); !s.ok()) return s;
    return Gemm::can_implement(typed(args));
  }

  std::size_t workspace_size(const GemmArguments& args) const override {
    return Gemm::get_workspace_size(typed(args));
  }

  StatusInfo initialize(const GemmArguments& args, void* workspace, cudaStream_t stream,
                        std::unique_ptr<GemmLaunch>& launch) const override {
    launch.reset();
    if (StatusInfo s = check_unsupported(args); !s.ok()) return s;
    auto prepared = std::make_unique<Launch>();
    if (StatusInfo s = prepared->gemm.initialize(typed(args), workspace, stream); !s.ok()) return s;
    launch = std::move(prepared);
    return {};
  }

 private:
  struct Launch final : GemmLaunch {
    Gemm gemm;
    StatusInfo run(cudaStream_t stream) override { return gemm.run(stream); }
  };

  static StatusInfo check_unsupported(const GemmArguments& args) {
    if (args.shape.batch != 1) {
      return {Status::kErrorNotSupported, "batch " + std::to_string(args.shape.batch) +
                                              ": the Sm75/Sm80 handle computes one matrix per launch; pass --batch=1"};
    }
    if (args.raster == Raster::kAlongN) {
      return {Status::kErrorNotSupported,
              "--raster=along_n: the Sm75/Sm80 kernels raster along M (in groups of --swizzle row tiles); use "
              "--raster=along_m or heuristic"};
    }
    if (args.shape.m > INT_MAX || args.shape.n > INT_MAX || args.shape.k > INT_MAX || args.swizzle > INT_MAX) {
      return {Status::kErrorInvalidProblem, "an extent above 2^31 - 1: the handle takes int problem sizes"};
    }
    return {};
  }

  static typename Gemm::Arguments typed(const GemmArguments& a) {
    using EA = typename Gemm::ElementA;
    using EB = typename Gemm::ElementB;
    using EC = typename Gemm::ElementC;
    typename Gemm::Arguments t{};
    t.problem_size = {int(a.shape.m), int(a.shape.n), int(a.shape.k)};
    t.ref_A = {static_cast<const EA*>(a.A), a.lda};
    t.ref_B = {static_cast<const EB*>(a.B), a.ldb};
    t.ref_C = {static_cast<const EC*>(a.C), a.ldc};
    t.ref_D = {static_cast<EC*>(a.D), a.ldd};
    t.epilogue.alpha = float(a.alpha);
    t.epilogue.beta = float(a.beta);
    t.split_k_slices = 1;
    t.swizzle = int(a.swizzle);
    return t;
  }

  KernelDescription desc_;
};

template <class Gemm>
std::unique_ptr<GemmOperation> make_sm80_operation() {
  return std::make_unique<Sm80GemmOperation<Gemm>>();
}

}  // namespace tessel::prof::kernels
