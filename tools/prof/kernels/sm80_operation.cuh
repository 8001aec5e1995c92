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

#include "kernels/element_of.hpp"
#include "kernels/handle_operation.hpp"
#include "kernels/registry.hpp"
#include "tessel/gemm/device/gemm.hpp"

namespace tessel::prof::kernels {

template <class Tag>
constexpr Layout layout_of() {
  return std::is_same_v<Tag, gemm::RowMajor> ? Layout::kRow : Layout::kColumn;
}

/// The handle with the catalogue's fixed choices: f32 accumulation, tensor cores, D = alpha AB + beta C.
template <class EA, class LA, class EB, class LB, class EC, class LC, class Arch, int TM, int TN, int TK, int WM,
          int WN, int WK, int IM, int IN, int IK, int Stages>
using Sm80Gemm = gemm::device::Gemm<EA, LA, EB, LB, EC, LC, float, gemm::OpClassTensorOp, Arch, gemm::GemmShape<TM, TN, TK>,
                                    gemm::GemmShape<WM, WN, WK>, gemm::GemmShape<IM, IN, IK>,
                                    epilogue::LinearCombination<EC>, Stages>;

/// The handle's side of HandleOperation (handle_operation.hpp).
template <class Gemm>
struct Sm80Adaptor {
  static KernelDescription describe() {
    KernelDescription desc;
    KernelDescription& d = desc;
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
    return desc;
  }

  static StatusInfo check(const GemmArguments& args) {
    return check_single_matrix_launch(args, "the Sm75/Sm80 handle", Raster::kAlongN,
                                      "--raster=along_n: the Sm75/Sm80 kernels raster along M (in groups of --swizzle row "
                                      "tiles); use --raster=along_m or heuristic");
  }

  static typename Gemm::Arguments convert(const GemmArguments& a) {
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
};

template <class Gemm>
using Sm80GemmOperation = HandleOperation<Gemm, Sm80Adaptor<Gemm>>;

template <class Gemm>
std::unique_ptr<GemmOperation> make_sm80_operation() {
  return std::make_unique<Sm80GemmOperation<Gemm>>();
}

}  // namespace tessel::prof::kernels
