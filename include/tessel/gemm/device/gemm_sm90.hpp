#pragma once
// tessel::gemm::device::GemmSm90: the handle of the Hopper TMA + wgmma kernel.
//
//   using Gemm = tessel::gemm::device::GemmSm90<bfloat16_t /*D*/, 128, 256, 64, 4>;
//   Gemm gemm;
//   Gemm::Arguments args{{M, N, K}, {dA, lda} /*row-major M x K*/, {dB, ldb} /*column-major K x N*/,
//                        {dC, ldc}, {dD, ldd}, {alpha, beta}};
//   if (auto s = gemm(args); !s.ok()) puts(s.what().c_str());

#include <cuda_runtime_api.h>

#include <algorithm>
#include <string>

#include "tessel/arch/runtime.hpp"
#include "tessel/gemm/gemm_shape.hpp"
#include "tessel/gemm/kernel/sm90_gemm_tma_warpspecialized.hpp"

namespace tessel::gemm::device {

template <class ElementD_, int BM = 128, int BN = 256, int BK = 64, int Stages = 4>
class GemmSm90 {
 public:
  using ElementA = bfloat16_t;
  using ElementB = bfloat16_t;
  using ElementD = ElementD_;
  using Cfg = kernel::Sm90TileConfig<BM, BN, BK, Stages>;
  static_assert(std::is_same_v<ElementD, bfloat16_t> || std::is_same_v<ElementD, float>,
                "GemmSm90: D must be bfloat16_t or float");
  static_assert(Cfg::kSmemBytes <= 227 * 1024, "GemmSm90: the stages do not fit in 227 KB of shared memory: use fewer stages");
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

  static StatusInfo can_implement(Arguments const& a) {
    auto const& p = a.problem_size;
    if (p.m <= 0 || p.n <= 0 || p.k <= 0)
      return {Status::kErrorInvalidProblem, "problem size " + dims(p) + " is empty or negative: M, N and K must all be positive"};
    if (!a.ref_A.data || !a.ref_B.data || !a.ref_D.data)
      return {Status::kErrorInvalidProblem, "a null pointer among A, B and D: pass device pointers to the matrices"};
    if (a.epilogue.beta != 0.f && !a.ref_C.data)
      return {Status::kErrorInvalidProblem, "beta is nonzero but C is null: pass C, or set beta to 0"};
    if (a.ref_A.ld < p.k) return {Status::kErrorInvalidProblem, "leading dimension of A is smaller than K"};
    if (a.ref_B.ld < p.k) return {Status::kErrorInvalidProblem, "leading dimension of B is smaller than K"};
    if (a.ref_D.ld < p.n) return {Status::kErrorInvalidProblem, "leading dimension of D is smaller than N"};
    if (auto s = check_extent_alignment("leading dimension of A", a.ref_A.ld, kAlignment, 16); !s.ok()) return s;
    if (auto s = check_extent_alignment("leading dimension of B", a.ref_B.ld, kAlignment, 16); !s.ok()) return s;
    if (auto s = check_pointer_alignment("base address of A", a.ref_A.data, 16); !s.ok()) return s;
    if (auto s = check_pointer_alignment("base address of B", a.ref_B.data, 16); !s.ok()) return s;
    return arch::check_kernel_arch<arch::Sm90>(reinterpret_cast<void const*>(&kernel::sm90_gemm_tma_warpspecialized<Cfg, ElementD>));
  }

  StatusInfo initialize(Arguments const& a) {
    initialized_ = false;  // a refused initialize must not leave an earlier problem ready to run
    if (auto s = can_implement(a); !s.ok()) return s;
    auto const& p = a.problem_size;
    if (auto s = arch::make_tma_2d_bf16_sw128(tma_a_, a.ref_A.data, p.m, p.k, a.ref_A.ld, BM, BK); !s.ok()) return s;
    if (auto s = arch::make_tma_2d_bf16_sw128(tma_b_, a.ref_B.data, p.n, p.k, a.ref_B.ld, BN, BK); !s.ok()) return s;
    auto e = cudaFuncSetAttribute(&kernel::sm90_gemm_tma_warpspecialized<Cfg, ElementD>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  Cfg::kSmemBytes);
    if (auto s = arch::status_from_cuda(e, "setting the kernel's shared-memory size"); !s.ok()) return s;
    int tiles_m = (p.m + BM - 1) / BM, tiles_n = (p.n + BN - 1) / BN;
    int device = 0;
    cudaGetDevice(&device);
    sms_ = 0;
    cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, device);
    if (sms_ <= 0) sms_ = 1;
    params_ = {p.m, p.n, p.k, a.ref_C.data, a.ref_C.ld, a.ref_D.data, a.ref_D.ld, a.epilogue.alpha, a.epilogue.beta,
               kernel::GroupedRaster{tiles_m, tiles_n, a.swizzle > 0 ? std::min(a.swizzle, tiles_m) : tiles_m}};
    initialized_ = true;
    return {};
  }

  StatusInfo run(cudaStream_t stream = nullptr) {
    if (!initialized_) return {Status::kErrorInternal, "run() before a successful initialize(): call initialize(args) first"};
    kernel::sm90_gemm_tma_warpspecialized<Cfg, ElementD>
        <<<std::min(params_.raster.tile_count(), sms_), Cfg::kThreads, Cfg::kSmemBytes, stream>>>(tma_a_, tma_b_, params_);
    return arch::status_from_cuda(cudaGetLastError(), "launching the sm90 GEMM kernel");
  }
  StatusInfo operator()(Arguments const& a, cudaStream_t stream = nullptr) {
    if (auto s = initialize(a); !s.ok()) return s;
    return run(stream);
  }

  static std::string name() {
    return std::string("tessel_sm90_gemm_bf16_bf16_") + (std::is_same_v<ElementD, float> ? "f32" : "bf16") + "_" +
           std::to_string(BM) + "x" + std::to_string(BN) + "x" + std::to_string(BK) + "_c1x1_" + std::to_string(Stages) +
           "stage_coop_tn";
  }

 private:
  static std::string dims(GemmCoord p) { return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k); }
  CUtensorMap tma_a_{};
  CUtensorMap tma_b_{};
  kernel::Sm90GemmParams<ElementD> params_{};
  int sms_ = 1;
  bool initialized_ = false;
};

}  // namespace tessel::gemm::device
