#pragma once
// Sm90Op for one tile: the GemmUniversalAdapter the collective builders assemble for it, and its
// three entry points. Included by sm90_ops_<type>.cu, which instantiates every tile of
// hopper_tiles.def for its element type.
#include "sm90_ops.hpp"
#include "tessel/gemm/device/gemm_universal_sm90.hpp"

namespace tessel::gemm::front_door {

template <class T, int BM, int BN, int BK, class Schedule, class Scheduler, class Act, class LayoutB = ColumnMajor, int ClusterM = 1,
          int ClusterN = 1>
struct Sm90TileOp {
  using Tile = GemmShape<BM, BN, BK>;
  using Cluster = GemmShape<ClusterM, ClusterN, 1>;
  using Epilogue =
      typename collective::EpilogueBuilder<arch::Sm90, OpClassTensorOp, Tile, Cluster, collective::EpilogueTileAuto, float, float, T,
                                           RowMajor, 8, T, RowMajor, 8, collective::EpilogueScheduleAuto,
                                           epilogue::LinearCombination<T, T, Act>>::CollectiveOp;
  using Mainloop = typename collective::CollectiveBuilder<
      arch::Sm90, OpClassTensorOp, T, RowMajor, 8, T, LayoutB, 8, float, Tile, Cluster,
      collective::StageCountAutoCarveout<int(sizeof(typename Epilogue::SharedStorage))>, Schedule>::CollectiveOp;
  using Gemm = device::GemmUniversalAdapter<kernel::GemmUniversal<ProblemShapeMNKL, Mainloop, Epilogue, Scheduler>>;

  static typename Gemm::Arguments arguments(Sm90Problem const& p) {
    typename Gemm::Arguments a;
    a.problem_shape = {p.m, p.n, p.k, 1};
    a.mainloop.ptr_A = static_cast<T const*>(p.a);
    a.mainloop.dA = {p.lda, Int<1>{}, 0};
    a.mainloop.ptr_B = static_cast<T const*>(p.b);
    a.mainloop.dB = {p.ldb, Int<1>{}, 0};
    a.epilogue.thread.alpha = p.alpha;
    a.epilogue.thread.beta = p.beta;
    a.epilogue.ptr_C = static_cast<T const*>(p.c);
    a.epilogue.dC = {p.ldc, Int<1>{}, 0};
    a.epilogue.ptr_D = static_cast<T*>(p.d);
    a.epilogue.dD = {p.ldd, Int<1>{}, 0};
    a.epilogue.store_d_column_major = p.d_column_major;
    a.hw_info = {p.device, p.sm_count};
    return a;
  }
  static StatusInfo can_implement(Sm90Problem const& p) { return Gemm::can_implement(arguments(p)); }
  static std::size_t workspace_size(Sm90Problem const& p) { return Gemm::get_workspace_size(arguments(p)); }
  static StatusInfo run(Sm90Problem const& p, void* workspace, cudaStream_t stream) {
    Gemm gemm;
    return gemm(arguments(p), workspace, stream);
  }
  static std::string name() { return Gemm::name(); }
};

/// GroupedOp for one tile N and B layout: the cooperative 128 x BN tile on the grouped scheduler
/// (Sm90TileOp's kernel, assembled by the same builders).
template <class T, int BN, class LayoutB>
struct GroupedTileOp {
  using Gemm = typename Sm90TileOp<T, 128, BN, 64, collective::KernelTmaWarpSpecializedCooperative, GroupedScheduler,
                                   epilogue::fusion::Identity, LayoutB>::Gemm;
  static constexpr bool kBKMajor = std::is_same_v<LayoutB, ColumnMajor>;

  static typename Gemm::Arguments arguments(GroupedGemmArguments const& g, int device, int sm_count) {
    typename Gemm::Arguments a;
    a.mode = GemmUniversalMode::kGrouped;
    a.problem_shape = {g.rows, g.n, g.k, g.groups};
    a.mainloop.ptr_A = static_cast<T const*>(g.A.ptr);
    a.mainloop.dA = {g.A.ld, Int<1>{}, g.batch_a};  // (rows, K, G)
    a.mainloop.ptr_B = static_cast<T const*>(g.B.ptr);
    if constexpr (kBKMajor) a.mainloop.dB = {g.B.ld, Int<1>{}, g.batch_b};  // (N, K, G), K contiguous
    else a.mainloop.dB = {Int<1>{}, g.B.ld, g.batch_b};                     // (N, K, G), N contiguous
    a.epilogue.thread.alpha = g.alpha;
    a.epilogue.thread.beta = 0.f;
    if (g.bias) {  // C with ldc 0: the epilogue indexes it by the group, one row each
      a.epilogue.thread.beta = 1.f;
      a.epilogue.thread.ptr_C = static_cast<T const*>(g.bias);
      a.epilogue.thread.ldc = 0;
      a.epilogue.thread.batch_stride_C = g.bias_stride;
    }
    a.epilogue.ptr_D = static_cast<T*>(const_cast<void*>(g.D.ptr));
    a.epilogue.dD = {g.D.ld, Int<1>{}, g.batch_d};
    a.grouped = {g.layout == GroupLayout::kMasked ? kernel::GroupedLayout::kMasked : kernel::GroupedLayout::kContiguous, g.group_m};
    a.hw_info = {device, sm_count};
    return a;
  }
  static StatusInfo can_implement(GroupedGemmArguments const& g, int device, int sm_count) {
    return Gemm::can_implement(arguments(g, device, sm_count));
  }
  static StatusInfo run(GroupedGemmArguments const& g, int device, int sm_count, cudaStream_t stream) {
    Gemm gemm;
    return gemm(arguments(g, device, sm_count), nullptr, stream);
  }
  static std::string name() { return Gemm::name(); }
};

/// The grouped kernels of element type T: tile N 128 and 256, B K-major and N-major.
template <class T>
std::vector<GroupedOp> make_grouped_ops() {
  std::vector<GroupedOp> ops;
  auto add = [&]<int BN, class LayoutB>() {
    using Op = GroupedTileOp<T, BN, LayoutB>;
    ops.push_back({BN, Op::kBKMajor, &Op::name, &Op::can_implement, &Op::run});
  };
  add.template operator()<128, ColumnMajor>();
  add.template operator()<256, ColumnMajor>();
  add.template operator()<128, RowMajor>();
  add.template operator()<256, RowMajor>();
  return ops;
}

namespace schedules {
using cooperative = collective::KernelTmaWarpSpecializedCooperative;
using pingpong = collective::KernelTmaWarpSpecializedPingpong;
using persistent = PersistentScheduler;
using stream_k = StreamKScheduler;
}  // namespace schedules

/// Every tile of hopper_tiles.def for element type T and activation Act (for an activation, the
/// persistent tiles only).
template <class T, class Act>
std::vector<Sm90Op> make_sm90_ops() {
  constexpr bool kPlain = std::is_same_v<Act, epilogue::fusion::Identity>;
  std::vector<Sm90Op> ops;
#define TESSEL_HOPPER_TILE(bm, bn, bk, schedule, scheduler, efficiency, exposed)                                        \
  if constexpr (kPlain || std::is_same_v<schedules::scheduler, schedules::persistent>) {                              \
    using Op = Sm90TileOp<T, bm, bn, bk, schedules::schedule, schedules::scheduler, Act>;                              \
    ops.push_back({{bm, bn, bk, #schedule, std::string_view(#scheduler) == "stream_k"}, &Op::name, &Op::can_implement, \
                   &Op::workspace_size, &Op::run});                                                                    \
  }
#include "tessel/gemm/dispatch/hopper_tiles.def"
  return ops;
}

/// The cluster twins of hopper_tiles.def (TESSEL_CLUSTER_TWIN) for element type T and activation
/// Act, B K-major (the kernels' form); each Sm90Op's candidate is its tile's.
template <class T, class Act>
std::vector<Sm90Op> make_sm90_twin_ops() {
  std::vector<Sm90Op> ops;
#define TESSEL_CLUSTER_TWIN(bm, bn, bk, schedule, cluster_m, cluster_n)                                                    \
  {                                                                                                                          \
    using Op = Sm90TileOp<T, bm, bn, bk, schedules::schedule, schedules::persistent, Act, ColumnMajor, cluster_m, cluster_n>; \
    ops.push_back({{bm, bn, bk, #schedule, false}, &Op::name, &Op::can_implement, &Op::workspace_size, &Op::run}); \
  }
#include "tessel/gemm/dispatch/hopper_tiles.def"
  return ops;
}

/// make_sm90_ops (twins: make_sm90_twin_ops) for one activation given at run time.
template <class T, bool Twins = false>
std::vector<Sm90Op> make_sm90_ops(Activation act) {
  auto make = [&]<class Act>() {
    if constexpr (Twins) return make_sm90_twin_ops<T, Act>();
    else return make_sm90_ops<T, Act>();
  };
  switch (act) {
    case Activation::kReLU: return make.template operator()<epilogue::fusion::ReLU>();
    case Activation::kGeLU: return make.template operator()<epilogue::fusion::GeluErf>();
    case Activation::kSiLU: return make.template operator()<epilogue::fusion::SiLU>();
    default: return make.template operator()<epilogue::fusion::Identity>();
  }
}

}  // namespace tessel::gemm::front_door
