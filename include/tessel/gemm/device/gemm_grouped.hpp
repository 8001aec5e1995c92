#pragma once
// tessel::gemm::device::GemmGrouped: the Sm75/Sm80 grouped GEMM (kernel/sm80_gemm_grouped.hpp)
// behind a handle like device::Gemm's, for GPUs without wgmma.
//
//   D_g = epilogue(A_g B_g, C_g)    for g < G
//
// A (rows, K) and D (rows, N) row-major; B (K, N) per group, either layout. Contiguous layout:
// one A and one D hold the groups' rows one after another, group_m[g] the end row of group g
// (torch._grouped_mm's offs). Masked layout: a block of `rows` rows per group, batch_a and
// batch_d elements apart, group_m[g] the rows of block g in use. group_m lives on the device and
// only the kernel reads it. C, read where beta != 0, starts batch_c elements on for each group
// (ldc 0 repeats one row: a bias per group).
//
//   using Grouped = tessel::gemm::device::GemmGrouped<bfloat16_t, ColumnMajor, bfloat16_t>;
//   Grouped::Arguments args{kernel::GroupedLayout::kContiguous, d_offs, G, {rows, N, K},
//                           {dA, K}, {dB, K}, {nullptr, 0}, {dD, N}, 0, N * K, 0, 0, {1.f, 0.f}};
//   Grouped grouped;
//   if (auto s = grouped(args, nullptr, stream); !s.ok()) puts(s.what().c_str());

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>

#include "tessel/gemm/device/gemm.hpp"
#include "tessel/gemm/kernel/sm80_gemm_grouped.hpp"

namespace tessel::gemm::device {

template <class ElementAB_, class LayoutB_, class ElementC_, class ArchTag_ = arch::Sm80,
          class ThreadblockShape_ = GemmShape<128, 128, 32>, class WarpShape_ = GemmShape<64, 64, 32>,
          class InstructionShape_ = std::conditional_t<std::is_same_v<ArchTag_, arch::Sm75>, GemmShape<16, 8, 8>, GemmShape<16, 8, 16>>,
          class EpilogueOutputOp_ = epilogue::LinearCombination<ElementC_>,
          int Stages_ = (std::is_same_v<ArchTag_, arch::Sm75> ? 2 : 3)>
class GemmGrouped {
 public:
  /// The dense handle of the same configuration: its rules, its tile, its kernel configuration.
  using Dense = Gemm<ElementAB_, RowMajor, ElementAB_, LayoutB_, ElementC_, RowMajor, float, OpClassTensorOp, ArchTag_,
                     ThreadblockShape_, WarpShape_, InstructionShape_, EpilogueOutputOp_, Stages_>;
  using Config = typename Dense::Config;
  using EpilogueOutputOp = EpilogueOutputOp_;
  using ElementAB = ElementAB_;
  using ElementC = ElementC_;
  static constexpr int kThreads = Dense::kThreads;
  static constexpr int kSharedStorageSize = Dense::kSharedStorageSize;

  struct Arguments {
    kernel::GroupedLayout layout = kernel::GroupedLayout::kContiguous;
    int const* group_m = nullptr;  // device memory: one int per group (ends or counts)
    int groups = 0;                // G, 1 to 65535
    GemmCoord problem_size;        // (rows, N, K): contiguous, rows of A and D; masked, rows of one block
    TensorRef<ElementAB const, RowMajor> ref_A;  // the first group's (block's)
    TensorRef<ElementAB const, LayoutB_> ref_B;
    TensorRef<ElementC const, RowMajor> ref_C;
    TensorRef<ElementC, RowMajor> ref_D;
    std::int64_t batch_a = 0;  // masked: elements from one block of A to the next
    std::int64_t batch_b = 0;  // elements from one group's B to the next
    std::int64_t batch_c = 0;  // elements from one group's C to the next (0: one C)
    std::int64_t batch_d = 0;  // masked: elements from one block of D to the next
    typename EpilogueOutputOp::Scalars epilogue;  // {alpha, beta}
  };

  /// Whether this kernel can compute the groups, and if not, why: the dense handle's rules on one
  /// group's matrices, and the groups' own.
  static StatusInfo can_implement(Arguments const& a) {
    if (a.groups < 1 || a.groups > 65535) return {Status::kErrorInvalidProblem, std::to_string(a.groups) + " groups: give 1 to 65535"};
    if (a.layout != kernel::GroupedLayout::kContiguous && a.layout != kernel::GroupedLayout::kMasked)
      return {Status::kErrorInvalidProblem, "layout is not a GroupedLayout value (kContiguous or kMasked)"};
    if (!a.group_m)
      return {Status::kErrorInvalidProblem, "group_m is null: pass a device array of one int per group (the groups' end rows, or "
                                            "each block's row count)"};
    bool const masked = a.layout == kernel::GroupedLayout::kMasked;
    // Both kernel families step from one group to the next in 16-byte units (cp.async vectors).
    for (auto [name, stride, bytes] : {std::tuple{"batch_a", masked ? a.batch_a : 0, int(sizeof(ElementAB))},
                                       std::tuple{"batch_b", a.batch_b, int(sizeof(ElementAB))},
                                       std::tuple{"batch_d", masked ? a.batch_d : 0, int(sizeof(ElementC))}}) {
      if (stride < 0) return {Status::kErrorInvalidProblem, std::string(name) + " is negative: give an element stride >= 0"};
      if ((stride * bytes) % 16 != 0)
        return {Status::kErrorMisalignedOperand, std::string(name) + " (" + std::to_string(stride) +
                                                     " elements) is not a multiple of 16 bytes: pad each group's matrix"};
    }
    if (a.batch_c < 0) return {Status::kErrorInvalidProblem, "batch_c is negative: give an element stride >= 0"};
    auto const& p = a.problem_size;
    if (masked && a.groups > 1 && a.batch_d < (std::int64_t(p.m) - 1) * a.ref_D.ld + p.n)
      return {Status::kErrorInvalidProblem, "batch_d (" + std::to_string(a.batch_d) + ") is smaller than one block of " +
                                                std::to_string(p.m) + " rows of D: the groups' blocks would overlap"};
    if (auto s = Dense::check_arguments(dense_arguments(a)); !s.ok()) return s;
    return arch::check_kernel_arch<ArchTag_>(reinterpret_cast<void const*>(&kernel::gemm_grouped_kernel<Config>));
  }

  static std::size_t get_workspace_size(Arguments const&) { return 0; }

  /// Check the arguments and the device, and size the persistent grid: as many CTAs as are
  /// resident at once, never more than there can be tiles. Nothing is allocated.
  StatusInfo initialize(Arguments const& a, void* workspace = nullptr, cudaStream_t stream = nullptr) {
    initialized_ = false;
    (void)workspace;
    (void)stream;
    if (auto s = can_implement(a); !s.ok()) return s;
    auto const kernel_fn = &kernel::gemm_grouped_kernel<Config>;
    if (kSharedStorageSize > 48 * 1024) {
      auto e = cudaFuncSetAttribute(kernel_fn, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedStorageSize);
      if (auto s = arch::status_from_cuda(e, "setting the kernel's shared-memory size"); !s.ok()) return s;
    }
    int device = 0, sms = 0, per_sm = 0;
    if (auto s = arch::status_from_cuda(cudaGetDevice(&device), "querying the current device"); !s.ok()) return s;
    if (auto s = arch::status_from_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "counting the SMs");
        !s.ok())
      return s;
    if (auto s = arch::status_from_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel_fn, kThreads, kSharedStorageSize),
                                        "asking how many CTAs an SM holds");
        !s.ok())
      return s;
    auto const& p = a.problem_size;
    int const tiles_n = (p.n + Config::BN - 1) / Config::BN;
    params_ = {};
    params_.gemm = {p, a.ref_A.data, a.ref_A.ld, a.ref_B.data, a.ref_B.ld, a.ref_C.data, a.ref_C.ld, a.ref_D.data, a.ref_D.ld,
                    typename EpilogueOutputOp::OutputOp{a.epilogue}, kernel::GroupedRaster{1, tiles_n, 1}};
    params_.groups = {a.group_m, a.groups, int(a.layout), p.m, tiles_n};
    bool const masked = a.layout == kernel::GroupedLayout::kMasked;
    params_.batch_a = masked ? a.batch_a : 0;
    params_.batch_b = a.batch_b;
    params_.batch_d = masked ? a.batch_d : 0;
    params_.batch_c = a.batch_c;
    grid_ = std::max(1, std::min(params_.groups.tile_bound(Config::BM), sms * std::max(per_sm, 1)));
    initialized_ = true;
    return {};
  }

  StatusInfo run(cudaStream_t stream = nullptr) {
    if (!initialized_) return {Status::kErrorInternal, "run() before a successful initialize(): call initialize(args) first"};
    kernel::gemm_grouped_kernel<Config><<<grid_, kThreads, kSharedStorageSize, stream>>>(params_);
    return arch::status_from_cuda(cudaGetLastError(), "launching the grouped GEMM kernel");
  }

  StatusInfo operator()(cudaStream_t stream = nullptr) { return run(stream); }
  StatusInfo operator()(Arguments const& a, void* workspace = nullptr, cudaStream_t stream = nullptr) {
    if (auto s = initialize(a, workspace, stream); !s.ok()) return s;
    return run(stream);
  }

  /// The dense kernel's name with "_grouped": tessel_sm80_gemm_bf16_bf16_bf16_..._tn_drow_grouped.
  static std::string name() { return Dense::name() + "_grouped"; }

 private:
  /// One group's problem as the dense handle checks it (the rows of a block, or of all groups).
  static typename Dense::Arguments dense_arguments(Arguments const& a) {
    typename Dense::Arguments d;
    d.problem_size = a.problem_size;
    d.ref_A = a.ref_A;
    d.ref_B = a.ref_B;
    d.ref_C = a.ref_C;
    d.ref_D = a.ref_D;
    d.epilogue = a.epilogue;
    return d;
  }

  kernel::GemmGroupedParams<Config> params_{};
  int grid_ = 1;
  bool initialized_ = false;
};

}  // namespace tessel::gemm::device
