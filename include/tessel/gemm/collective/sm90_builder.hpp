#pragma once
// The Hopper collective builders: from element types, layouts, alignments, tile and cluster
// shapes (or Auto), the mainloop and epilogue the kernel runs.
//
//   using Epilogue = collective::EpilogueBuilder<arch::Sm90, OpClassTensorOp, TileShape, ClusterShape,
//                                                EpilogueTileAuto, float, float, half_t, RowMajor, 8,
//                                                half_t, RowMajor, 8, EpilogueScheduleAuto>::CollectiveOp;
//   using Mainloop = collective::CollectiveBuilder<arch::Sm90, OpClassTensorOp, half_t, RowMajor, 8, half_t,
//                                                  ColumnMajor, 8, float, TileShape, ClusterShape,
//                                                  StageCountAutoCarveout<sizeof(typename Epilogue::SharedStorage)>,
//                                                  KernelScheduleAuto>::CollectiveOp;
//
// The stage count: the largest that fits in the 227 KB of shared memory a CTA may have, after
// the epilogue's share (the carveout) and the pipeline's barriers. Requests the kernel cannot
// serve are compile errors that say which rule they break.

#include <type_traits>

#include "tessel/arch/tags.hpp"
#include "tessel/epilogue/linear_combination.hpp"
#include "tessel/gemm/gemm_shape.hpp"
#include "tessel/gemm/kernel/sm90_config.hpp"

namespace tessel::gemm::collective {

struct StageCountAuto {
  static constexpr int kCarveoutBytes = 0;
};
template <int Bytes>
struct StageCountAutoCarveout {
  static constexpr int kCarveoutBytes = Bytes;
};
template <int N>
struct StageCount {
  static constexpr int kStages = N;
};
struct KernelScheduleAuto {};
struct EpilogueScheduleAuto {};          // TMA stores when D's alignment is 16 bytes, else direct
struct EpilogueTmaWarpSpecialized {};    // D through shared memory and TMA stores
struct EpilogueNoSmemWarpSpecialized {}; // D straight from the registers, no shared memory
struct EpilogueTileAuto {};
using kernel::KernelTmaWarpSpecializedCooperative;
using kernel::KernelTmaWarpSpecializedPingpong;
using kernel::KernelTmaWarpSpecializedCooperativeFP8Promoted;
using kernel::KernelTmaWarpSpecializedCooperativeFP8BlockScaled;

using kernel::kSm90SmemBytes;

namespace detail {
template <class T>
inline constexpr bool dependent_false = false;

template <class Layout, bool IsA>
constexpr arch::Major operand_major() {
  // A is M x K: row-major is K-major. B is K x N: column-major is K-major.
  if constexpr (IsA) return std::is_same_v<Layout, RowMajor> ? arch::Major::K : arch::Major::MN;
  else return std::is_same_v<Layout, ColumnMajor> ? arch::Major::K : arch::Major::MN;
}

template <class StageCountType, int StageBytes>
constexpr int stage_count() {
  if constexpr (requires { StageCountType::kStages; }) {
    return StageCountType::kStages;
  } else {
    // Each stage also takes its two barriers; the fixed part is the kernel's (sm90_smem_bytes).
    return (kSm90SmemBytes - StageCountType::kCarveoutBytes - kernel::kSm90FixedSmemBytes) / (StageBytes + kernel::kSm90StageBarrierBytes);
  }
}
}  // namespace detail

/// The epilogue: D row-major (or column-major, by exchanging A and B), each element the fusion's
/// callbacks make of its accumulator, written through shared memory and TMA stores (32 KB of
/// shared memory: its SharedStorage) or straight from the registers (none).
template <class ArchTag, class OpClass, class TileShape, class ClusterShape, class EpilogueTile, class ElementAccumulator,
          class ElementCompute, class ElementC, class LayoutC, int AlignmentC, class ElementD, class LayoutD, int AlignmentD,
          class Schedule, class Fusion = epilogue::LinearCombination<ElementD, ElementC>>
struct EpilogueBuilder {
  static_assert(std::is_same_v<ArchTag, arch::Sm90>, "EpilogueBuilder: this builder makes Sm90 epilogues (arch::Sm90)");
  static_assert(std::is_same_v<ElementAccumulator, float> && std::is_same_v<ElementCompute, float>,
                "EpilogueBuilder: the Sm90 epilogue accumulates and computes in float");
  static_assert(std::is_same_v<LayoutD, LayoutC>, "EpilogueBuilder: C and D must have the same layout");
  static_assert(std::is_same_v<LayoutD, RowMajor> || std::is_same_v<LayoutD, ColumnMajor>,
                "EpilogueBuilder: D must be RowMajor or ColumnMajor");
  static_assert(std::is_same_v<typename Fusion::ElementOutput, ElementD>, "EpilogueBuilder: the fusion must output ElementD");
  static_assert(!std::is_same_v<Schedule, EpilogueTmaWarpSpecialized> || AlignmentD * int(sizeof(ElementD)) % 16 == 0,
                "EpilogueBuilder: the TMA-store epilogue needs D aligned to 16 bytes (AlignmentD * sizeof(ElementD))");
  struct CollectiveOp {
    using FusionCallbacks = Fusion;
    using ElementC_ = ElementC;
    using ElementD_ = ElementD;
    // The kernel writes D row-major; a column-major D is computed as D^T = B^T A^T.
    static constexpr bool kColumnMajorD = std::is_same_v<LayoutD, ColumnMajor>;
    static constexpr bool kTmaStoreD =
        std::is_same_v<Schedule, EpilogueTmaWarpSpecialized> ||
        (std::is_same_v<Schedule, EpilogueScheduleAuto> && AlignmentD * int(sizeof(ElementD)) % 16 == 0);
    static constexpr int kSharedBytes = kTmaStoreD ? kernel::kSm90TmaStoreBytes : 0;
    struct SharedStorage {
      alignas(128) char buffers[kSharedBytes > 0 ? kSharedBytes : 1];
    };
  };
};

template <class ArchTag, class OpClass, class ElementA, class LayoutA, int AlignmentA, class ElementB, class LayoutB,
          int AlignmentB, class ElementAccumulator, class TileShape, class ClusterShape, class StageCountType,
          class KernelScheduleType>
struct CollectiveBuilder {
  static_assert(std::is_same_v<ArchTag, arch::Sm90>, "CollectiveBuilder: this builder makes Sm90 mainloops (arch::Sm90)");
  static_assert(std::is_same_v<OpClass, OpClassTensorOp>, "CollectiveBuilder: the Sm90 mainloop runs on tensor cores");
  static_assert(std::is_same_v<ElementAccumulator, float>, "CollectiveBuilder: the Sm90 mainloop accumulates in float");
  static_assert(AlignmentA * int(sizeof(ElementA)) % 16 == 0,
                "CollectiveBuilder: A's alignment is under 16 bytes, which TMA cannot serve: use 8 half/bfloat16 or 16 fp8 "
                "elements");
  static_assert(AlignmentB * int(sizeof(ElementB)) % 16 == 0,
                "CollectiveBuilder: B's alignment is under 16 bytes, which TMA cannot serve: use 8 half/bfloat16 or 16 fp8 "
                "elements");
  static constexpr int BM = TileShape::kM, BN = TileShape::kN, BK = TileShape::kK;
  static_assert(BK * int(sizeof(ElementA)) == 128,
                "CollectiveBuilder: the tile's K must be one 128-byte swizzle row: 64 for 16-bit types, 128 for 8-bit");
  static_assert(ClusterShape::kK == 1 && (ClusterShape::kM == 1 || ClusterShape::kM == 2) &&
                    (ClusterShape::kN == 1 || ClusterShape::kN == 2),
                "CollectiveBuilder: clusters of 1x1x1, 2x1x1, 1x2x1 or 2x2x1 are supported");
  using Schedule = std::conditional_t<std::is_same_v<KernelScheduleType, KernelScheduleAuto>,
                                      std::conditional_t<BM % 128 == 0, KernelTmaWarpSpecializedCooperative,
                                                         KernelTmaWarpSpecializedPingpong>,
                                      KernelScheduleType>;
  static constexpr int kStageBytes = (BM + BN) * 128;  // A and B
  // NOTES: a block-scaled kernel's shared memory is not stages plus the epilogue's carveout (its
  // scale ring grows with the stages, its TMA store keeps one buffer per warpgroup): its own
  // formula counts them (kernel::sm90_smem_bytes).
  static constexpr int kStages = Schedule::kBlockScaled && !requires { StageCountType::kStages; }
                                     ? kernel::sm90_fitting_stages(8, BM, BN, true, true)
                                     : detail::stage_count<StageCountType, kStageBytes>();
  static_assert(kStages >= 2, "CollectiveBuilder: fewer than two stages fit in shared memory: use a smaller tile");
  using CollectiveOp = kernel::Sm90KernelConfig<ElementA, ElementB, detail::operand_major<LayoutA, true>(),
                                                detail::operand_major<LayoutB, false>(), BM, BN, kStages, ClusterShape::kM,
                                                ClusterShape::kN, Schedule>;
};

}  // namespace tessel::gemm::collective

namespace tessel::gemm::kernel {
namespace detail {
// The stages that fit beside the epilogue's shared memory (the TMA store's buffers), at most `stages`.
constexpr int fitting_stages(int stages, int bm, int bn, bool block_scaled, bool tma_store_d) {
  int const fit = sm90_fitting_stages(stages, bm, bn, block_scaled, tma_store_d);
  return fit > 0 ? fit : stages;  // none fit: the adapter's shared-memory check says so
}
}  // namespace detail

/// The mainloop as the kernel runs it: A and B exchanged with their majors for D^T = B^T A^T
/// (Swap), units of work from a Decomposition (StreamK), D through TMA stores (TmaStoreD), the
/// tiles of G problems (Grouped), and no more stages than fit beside the epilogue's shared memory
/// (a builder asked for StageCountAuto without the carveout gets one stage fewer rather than a
/// launch failure).
template <class C, bool Swap, bool StreamK, bool TmaStoreD, bool Grouped = false, bool RowwiseScales = false>
using Sm90Rebind = Sm90KernelConfig<
    std::conditional_t<Swap, typename C::ElementB, typename C::ElementA>, std::conditional_t<Swap, typename C::ElementA, typename C::ElementB>,
    Swap ? C::MajorB : C::MajorA, Swap ? C::MajorA : C::MajorB, C::BM, C::BN,
    detail::fitting_stages(C::Stages, C::BM, C::BN, C::kBlockScaled, TmaStoreD),
    C::ClusterM, C::ClusterN, typename C::Schedule, StreamK, TmaStoreD, Grouped, RowwiseScales>;

}  // namespace tessel::gemm::kernel
