#pragma once
// tessel::gemm::device::GemmSm90: the Hopper kernel behind a 2.x-style handle, for the common
// case: bf16 (or f16) A row-major and B column-major (both K-major), D row-major, no cluster, D
// through shared memory and TMA stores where its rows are 16-byte aligned (straight from the
// registers elsewhere); the cooperative schedule unless another is named, and with
// StreamKScheduler the split-K / stream-K decompositions (a workspace: get_workspace_size).
// Everything else goes through GemmUniversalAdapter (gemm_universal_sm90.hpp).
//
//   using Gemm = tessel::gemm::device::GemmSm90<bfloat16_t /*D*/, 128, 256, 64, 4>;
//   Gemm gemm;
//   Gemm::Arguments args{{M, N, K}, {dA, lda} /*row-major M x K*/, {dB, ldb} /*column-major K x N*/,
//                        {dC, ldc}, {dD, ldd}, {alpha, beta}};
//   if (auto s = gemm(args); !s.ok()) puts(s.what().c_str());

#include <cstddef>
#include <string>
#include <type_traits>

#include "tessel/element_tag.hpp"
#include "tessel/gemm/device/gemm_universal_sm90.hpp"

namespace tessel::gemm::device {

template <class ElementD_, int BM = 128, int BN = 256, int BK = 64, int Stages = 4,
          class Schedule = kernel::KernelTmaWarpSpecializedCooperative, class Scheduler = PersistentScheduler,
          class ElementAB = bfloat16_t>
class GemmSm90 {
  static_assert(std::is_same_v<ElementAB, bfloat16_t> || std::is_same_v<ElementAB, half_t>, "GemmSm90: A and B are bf16 or f16");
  static_assert(BK == 64, "GemmSm90: BK is 64 16-bit elements = one 128-byte swizzle row");
  using Mainloop = kernel::Sm90KernelConfig<ElementAB, ElementAB, arch::Major::K, arch::Major::K, BM, BN, Stages, 1, 1, Schedule>;
  using EpilogueOp = typename collective::EpilogueBuilder<arch::Sm90, OpClassTensorOp, GemmShape<BM, BN, BK>, GemmShape<1, 1, 1>,
                                                        collective::EpilogueTileAuto, float, float, ElementD_, RowMajor, 8,
                                                        ElementD_, RowMajor, 8,
                                                        collective::EpilogueScheduleAuto>::CollectiveOp;
  using Adapter = GemmUniversalAdapter<kernel::GemmUniversal<ProblemShapeMNKL, Mainloop, EpilogueOp, Scheduler>>;

 public:
  using Cfg = typename Adapter::Cfg;  // the kernel's configuration as it runs: tile, stages, threads, shared memory
  using ElementA = ElementAB;
  using ElementB = ElementAB;
  using ElementD = ElementD_;
  static constexpr int kAlignment = 8;  // TMA: 16-byte strides and base addresses

  struct Epilogue {
    float alpha = 1.f, beta = 0.f;
  };
  struct Arguments {
    GemmCoord problem_size;
    TensorRef<ElementA const, RowMajor> ref_A;
    TensorRef<ElementB const, ColumnMajor> ref_B;
    TensorRef<ElementD const, RowMajor> ref_C;
    TensorRef<ElementD, RowMajor> ref_D;
    Epilogue epilogue;
    int swizzle = 8;
  };

  static StatusInfo can_implement(Arguments const& a) { return Adapter::can_implement(convert(a)); }
  /// Bytes of device workspace initialize() needs (split tiles' partial sums; 0 without StreamKScheduler).
  static std::size_t get_workspace_size(Arguments const& a) { return Adapter::get_workspace_size(convert(a)); }
  StatusInfo initialize(Arguments const& a, void* workspace = nullptr, cudaStream_t stream = nullptr) {
    return adapter_.initialize(convert(a), workspace, stream);
  }
  StatusInfo run(cudaStream_t stream = nullptr) { return adapter_.run(stream); }
  StatusInfo operator()(Arguments const& a, cudaStream_t stream = nullptr) {
    if (auto s = initialize(a, nullptr, stream); !s.ok()) return s;
    return run(stream);
  }
  static std::string name() {
    return "tessel_sm90_gemm_" + element_tag<ElementAB>() + "_" + element_tag<ElementAB>() + "_" + element_tag<ElementD>() + "_" +
           std::to_string(BM) + "x" + std::to_string(BN) + "x" + std::to_string(BK) + "_c1x1_" + std::to_string(Stages) + "stage_" +
           Schedule::kName + (std::is_same_v<Scheduler, StreamKScheduler> ? "_streamk" : "") + "_tn";
  }

 private:
  static typename Adapter::Arguments convert(Arguments const& a) {
    auto const& p = a.problem_size;
    typename Adapter::Arguments u;
    u.mode = GemmUniversalMode::kGemm;
    u.problem_shape = {p.m, p.n, p.k, 1};
    u.mainloop = {a.ref_A.data, StrideKMajor{std::int64_t(a.ref_A.ld), Int<1>{}, std::int64_t(0)}, a.ref_B.data,
                  StrideKMajor{std::int64_t(a.ref_B.ld), Int<1>{}, std::int64_t(0)}};
    u.epilogue.thread.alpha = a.epilogue.alpha;
    u.epilogue.thread.beta = a.epilogue.beta;
    u.epilogue.ptr_C = a.ref_C.data;
    u.epilogue.dC = StrideKMajor{std::int64_t(a.ref_C.ld), Int<1>{}, std::int64_t(0)};
    u.epilogue.ptr_D = a.ref_D.data;
    u.epilogue.dD = StrideKMajor{std::int64_t(a.ref_D.ld), Int<1>{}, std::int64_t(0)};
    u.scheduler = {kernel::RasterOrder::AlongM, a.swizzle};
    return u;
  }
  Adapter adapter_;
};

}  // namespace tessel::gemm::device
