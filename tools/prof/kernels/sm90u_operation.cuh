#pragma once
// GemmOperation for the Hopper kernels that GemmSm90 does not take, made by the collective
// builders and run through GemmUniversalAdapter: the FP8 mainloop (e4m3 A and B, bf16 D) and the
// fused FP8 epilogue (bf16 A and B, epilogue::fusion::LinCombBiasGeluAmaxFp8: bias, GELU, amax and
// the scaled e4m3 cast in one pass over the accumulators).
//
// The builders are asked for tessel-prof's TN with a column-major C and D; the adapter computes
// that as D^T = B^T A^T, as GemmSm90's adaptor (sm90_operation.cuh) does by hand: the same tiles
// over the same memory in the same order (the kernel's M is the problem's N, so the raster is
// along N), so that a fused row and the plain bf16 row of one tile differ in the epilogue alone.
// The fusion's row broadcast runs along the kernel's N, the problem's M: the bias holds one value
// per row of D, M values, like cuBLASLt's bias epilogue.

#include <memory>
#include <string>
#include <type_traits>

#include "kernels/element_of.hpp"
#include "kernels/handle_operation.hpp"
#include "kernels/registry.hpp"
#include "kernels/sm90_checks.hpp"
#include "tessel/element_tag.hpp"
#include "tessel/epilogue/fusion.hpp"
#include "tessel/gemm/device/gemm_universal_sm90.hpp"

namespace tessel::prof::kernels {

/// The kernel of one catalogue spec: A row-major and B column-major of EAB (K-major, as wgmma
/// needs for 8-bit types), bf16 C and ED D column-major, f32 accumulation, one CTA per cluster,
/// TMA stores for D where its rows allow them.
template <class EAB, class ED, int BM, int BN, int BK, int Stages, class Schedule, class Fusion>
struct Sm90UniversalTn {
  static constexpr int kAlignmentAB = 16 / int(sizeof(EAB));
  using Tile = gemm::GemmShape<BM, BN, BK>;
  using Cluster = gemm::GemmShape<1, 1, 1>;
  using Epilogue = typename gemm::collective::EpilogueBuilder<
      arch::Sm90, gemm::OpClassTensorOp, Tile, Cluster, gemm::collective::EpilogueTileAuto, float, float, bfloat16_t,
      gemm::ColumnMajor, 8, ED, gemm::ColumnMajor, 16 / int(sizeof(ED)), gemm::collective::EpilogueScheduleAuto,
      Fusion>::CollectiveOp;
  using Mainloop = typename gemm::collective::CollectiveBuilder<
      arch::Sm90, gemm::OpClassTensorOp, EAB, gemm::RowMajor, kAlignmentAB, EAB, gemm::ColumnMajor, kAlignmentAB, float, Tile,
      Cluster, gemm::collective::StageCount<Stages>, Schedule>::CollectiveOp;
  using Gemm = gemm::device::GemmUniversalAdapter<gemm::kernel::GemmUniversal<gemm::ProblemShapeMNKL, Mainloop, Epilogue>>;
};

/// The Epilogue a fusion computes; a fusion without a specialization is one tessel-prof cannot
/// describe, and does not compile.
template <class Fusion>
struct EpilogueOf;
template <class D, class C>
struct EpilogueOf<epilogue::LinearCombination<D, C>> {
  static constexpr Epilogue value = Epilogue::kLinearCombination;
};
template <class C, class Bias, class D>
struct EpilogueOf<epilogue::fusion::LinCombBiasGeluAmaxFp8<C, Bias, D, epilogue::fusion::GeluErf>> {
  static constexpr Epilogue value = Epilogue::kBiasGeluAmax;
};
template <class C, class Bias, class D>
struct EpilogueOf<epilogue::fusion::LinCombBiasGeluAmaxFp8<C, Bias, D, epilogue::fusion::GeluTanh>> {
  static constexpr Epilogue value = Epilogue::kBiasGeluTanhAmax;
};

/// The handle's side of HandleOperation (handle_operation.hpp).
template <class Gemm>
struct Sm90UniversalTnAdaptor {
  using Cfg = typename Gemm::Cfg;
  using Fusion = typename Gemm::Fusion;
  static constexpr Epilogue kEpilogue = EpilogueOf<Fusion>::value;
  static constexpr int kBits = 8 * int(sizeof(typename Gemm::ElementA));
  static constexpr int kAlignment = 128 / kBits;  // TMA: 16-byte strides and base addresses

  /// tessel_sm90_gemm_<A>_<B>_<D>_<tile>_c<M>x<N>_<stages>stage_<schedule>[_<epilogue>]_tn, as GemmSm90
  /// names its kernels, with the epilogue (core/types.hpp) where it is not the linear combination.
  static std::string name() {
    const std::string epilogue = kEpilogue == Epilogue::kLinearCombination ? "" : "_" + std::string(to_string(kEpilogue));
    return "tessel_sm90_gemm_" + element_tag<typename Gemm::ElementA>() + "_" + element_tag<typename Gemm::ElementB>() + "_" +
           element_tag<typename Gemm::ElementD>() + "_" + std::to_string(Cfg::BM) + "x" + std::to_string(Cfg::BN) + "x" +
           std::to_string(Cfg::BK) + "_c" + std::to_string(Cfg::ClusterM) + "x" + std::to_string(Cfg::ClusterN) + "_" +
           std::to_string(Cfg::Stages) + "stage_" +
           Cfg::Schedule::kName + epilogue + "_tn";
  }

  static KernelDescription describe() {
    KernelDescription d;
    d.name = name();
    d.arch = "sm90a";
    d.min_compute_capability = 90;
    d.a = {element_of<typename Gemm::ElementA>(), Layout::kRow};
    d.b = {element_of<typename Gemm::ElementB>(), Layout::kColumn};
    d.c = {element_of<typename Gemm::ElementC>(), Layout::kColumn};
    d.d = {element_of<typename Gemm::ElementD>(), Layout::kColumn};
    d.accumulator = Element::kF32;
    d.tile = {Cfg::BM, Cfg::BN, Cfg::BK};
    d.instruction = {64, Cfg::BN, 256 / kBits};  // wgmma m64nBNk(32 bytes), one per consumer warpgroup
    d.cluster = {Cfg::ClusterM, Cfg::ClusterN, 1};
    d.stages = Cfg::Stages;
    d.schedule = Cfg::Schedule::kName;
    d.epilogue = kEpilogue;
    d.threads = Cfg::kThreads;
    d.smem_bytes = Cfg::kSmemBytes;
    d.alignment = kAlignment;
    d.persistent = true;
    d.supports_raster_along_n = true;
    return d;
  }

  static StatusInfo check(const GemmArguments& a) {
    if (auto s = check_sm90_tn(a, kAlignment, kBits); !s.ok()) return s;
    if constexpr (kEpilogue != Epilogue::kLinearCombination) {
      // Said in the problem's terms: the fusion's own checks would speak of the transposed problem.
      auto missing = [](const char* what, const char* why) {
        return StatusInfo{Status::kErrorInvalidProblem, std::string(what) + " is null: " + name() + " " + why};
      };
      if (!a.bias) return missing("the bias pointer", "adds a bias of M bf16 values, one per row of D; pass GemmArguments::bias");
      if (!a.scale_d) return missing("the scale_d pointer", "multiplies by scale_d (one device float) before the e4m3 cast");
      if (!a.amax) return missing("the amax pointer", "raises one device float, 0 before the launch, to the amax of gelu(...)");
    }
    return {};
  }

  static typename Gemm::Arguments convert(const GemmArguments& a) {
    typename Gemm::Arguments t{};
    t.mode = gemm::GemmUniversalMode::kGemm;
    t.problem_shape = {int(a.shape.m), int(a.shape.n), int(a.shape.k), 1};
    t.mainloop.ptr_A = static_cast<const typename Gemm::ElementA*>(a.A);
    t.mainloop.dA = gemm::StrideKMajor{a.lda, Int<1>{}, std::int64_t(0)};
    t.mainloop.ptr_B = static_cast<const typename Gemm::ElementB*>(a.B);
    t.mainloop.dB = gemm::StrideKMajor{a.ldb, Int<1>{}, std::int64_t(0)};
    t.epilogue.thread.alpha = float(a.alpha);
    t.epilogue.thread.beta = float(a.beta);
    if constexpr (kEpilogue != Epilogue::kLinearCombination) {
      t.epilogue.thread.ptr_bias = static_cast<const bfloat16_t*>(a.bias);
      t.epilogue.thread.ptr_scale_d = a.scale_d;
      t.epilogue.thread.ptr_amax = a.amax;
    }
    t.epilogue.ptr_C = static_cast<const typename Gemm::ElementC*>(a.C);
    t.epilogue.dC = gemm::StrideMNMajor{Int<1>{}, a.ldc, std::int64_t(0)};
    t.epilogue.ptr_D = static_cast<typename Gemm::ElementD*>(a.D);
    t.epilogue.dD = gemm::StrideMNMajor{Int<1>{}, a.ldd, std::int64_t(0)};
    // The kernel's M is the problem's N: the order GemmSm90's rows run in.
    t.scheduler.raster_order = gemm::kernel::RasterOrder::AlongM;
    t.scheduler.max_swizzle_size = int(a.swizzle);
    return t;
  }
};

template <class Gemm>
std::unique_ptr<GemmOperation> make_sm90u_operation() {
  return std::make_unique<HandleOperation<Gemm, Sm90UniversalTnAdaptor<Gemm>>>();
}

}  // namespace tessel::prof::kernels
