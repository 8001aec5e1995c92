#pragma once
// The Hopper kernels behind the Sm80 handle's interface, so the benchmark times them beside the
// others on the same TN problem: A row-major M x K, B column-major K x N, D column-major M x N
// (as cuBLAS writes it; the adapter computes a column-major D as D^T = B^T A^T).

#include <string>
#include <utility>

#include "tessel/gemm/device/gemm.hpp"
#include "tessel/gemm/device/gemm_universal_sm90.hpp"

namespace tessel::bench {

template <class T, int BM, int BN, int ClusterM, class Schedule = gemm::collective::KernelScheduleAuto,
          class Scheduler = gemm::PersistentScheduler>
class HopperTN {
  using Tile = gemm::GemmShape<BM, BN, 64>;
  using Cluster = gemm::GemmShape<ClusterM, 1, 1>;
  using Epilogue = typename gemm::collective::EpilogueBuilder<arch::Sm90, gemm::OpClassTensorOp, Tile, Cluster,
                                                              gemm::collective::EpilogueTileAuto, float, float, T,
                                                              gemm::ColumnMajor, 8, T, gemm::ColumnMajor, 8,
                                                              gemm::collective::EpilogueScheduleAuto>::CollectiveOp;
  using Mainloop = typename gemm::collective::CollectiveBuilder<
      arch::Sm90, gemm::OpClassTensorOp, T, gemm::RowMajor, 8, T, gemm::ColumnMajor, 8, float, Tile, Cluster,
      gemm::collective::StageCountAutoCarveout<int(sizeof(typename Epilogue::SharedStorage))>, Schedule>::CollectiveOp;
  using Inner = gemm::device::GemmUniversalAdapter<gemm::kernel::GemmUniversal<gemm::ProblemShapeMNKL, Mainloop, Epilogue, Scheduler>>;

 public:
  struct Arguments {
    gemm::GemmCoord problem_size;
    gemm::TensorRef<T const, gemm::RowMajor> ref_A;
    gemm::TensorRef<T const, gemm::ColumnMajor> ref_B;
    gemm::TensorRef<T const, gemm::ColumnMajor> ref_C;
    gemm::TensorRef<T, gemm::ColumnMajor> ref_D;
    struct {
      float alpha = 1.f, beta = 0.f;
    } epilogue;
    int split_k_slices = 1;  // the K slices of DecompositionMode::SplitK (StreamKScheduler kernels)
    int swizzle = 8;  // the tile scheduler's group size (max_swizzle_size)
    gemm::kernel::DecompositionMode decomposition = gemm::kernel::DecompositionMode::Heuristic;
    gemm::kernel::ReductionMode reduction = gemm::kernel::ReductionMode::kDeterministic;
  };

  StatusInfo initialize(Arguments const& a) {
    auto const& p = a.problem_size;
    typename Inner::Arguments u;
    u.problem_shape = {p.m, p.n, p.k, 1};
    u.mainloop = {a.ref_A.data, {std::int64_t(a.ref_A.ld), Int<1>{}, std::int64_t(0)}, a.ref_B.data,
                  {std::int64_t(a.ref_B.ld), Int<1>{}, std::int64_t(0)}};
    u.epilogue.thread.alpha = a.epilogue.alpha;
    u.epilogue.thread.beta = a.epilogue.beta;
    u.epilogue.ptr_C = a.ref_C.data;
    u.epilogue.dC = {Int<1>{}, std::int64_t(a.ref_C.ld), std::int64_t(0)};
    u.epilogue.ptr_D = a.ref_D.data;
    u.epilogue.dD = {Int<1>{}, std::int64_t(a.ref_D.ld), std::int64_t(0)};
    u.scheduler.max_swizzle_size = a.swizzle;
    if constexpr (Inner::Cfg::kStreamK) {
      u.scheduler.decomposition_mode = a.decomposition;
      u.scheduler.splits = a.decomposition == gemm::kernel::DecompositionMode::SplitK ? a.split_k_slices : 0;
      u.scheduler.reduction = a.reduction;
    }
    plan_ = Inner::decomposition_report(u);
    // Split-K / stream-K kernels: the fixup's workspace, kept for the handle's lifetime.
    std::size_t bytes = Inner::get_workspace_size(u);
    if (bytes > workspace_bytes_) {
      if (workspace_) cudaFree(workspace_);
      workspace_ = nullptr;
      workspace_bytes_ = 0;
      if (auto s = arch::status_from_cuda(cudaMalloc(&workspace_, bytes), "allocating the GEMM workspace"); !s.ok()) return s;
      workspace_bytes_ = bytes;
    }
    return inner_.initialize(u, workspace_);
  }
  HopperTN() = default;
  HopperTN(HopperTN const&) = delete;
  HopperTN& operator=(HopperTN const&) = delete;
  HopperTN(HopperTN&& o) noexcept
      : inner_(o.inner_), workspace_(o.workspace_), workspace_bytes_(o.workspace_bytes_), plan_(std::move(o.plan_)) {
    o.workspace_ = nullptr;
    o.workspace_bytes_ = 0;
  }
  ~HopperTN() {
    if (workspace_) cudaFree(workspace_);
  }
  StatusInfo run(cudaStream_t stream = nullptr) { return inner_.run(stream); }
  static std::string name() { return Inner::name(); }
  /// How the last initialize() divided the work (its decomposition, and why).
  std::string const& describe() const { return plan_; }

 private:
  Inner inner_;
  void* workspace_ = nullptr;
  std::size_t workspace_bytes_ = 0;
  std::string plan_;
};

}  // namespace tessel::bench
