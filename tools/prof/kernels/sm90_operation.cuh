#pragma once
// GemmOperation for the Hopper handle tessel::gemm::device::GemmSm90 (TMA, wgmma, cooperative or
// ping-pong warp-specialized schedule, persistent CTAs, and with the stream-K scheduler the
// split-K / stream-K decompositions, whose workspace the profiler allocates).
//
// The handle writes D row-major. tessel-prof's TN problems, like cuBLAS, write D column-major:
// D (M x N, column-major) is D^T (N x M, row-major) = B^T A^T, so the adaptor runs the handle on
// (N, M, K) with A and B swapped, which reads exactly the same memory. The kernel then sits in the
// same operand set as the Sm80 TN kernels and cuBLAS, and its name (which the handle gives
// without a "_drow" mark) means what the Sm80 names mean. Its raster walks the handle's M, which
// is the problem's N: --raster=along_n, not along_m.

#include <climits>
#include <memory>
#include <string>
#include <type_traits>

#include "kernels/element_of.hpp"
#include "kernels/handle_operation.hpp"
#include "kernels/registry.hpp"
#include "kernels/sm90_checks.hpp"
#include "tessel/gemm/device/gemm_sm90.hpp"

namespace tessel::prof::kernels {

/// The handle's side of HandleOperation (handle_operation.hpp).
template <class Gemm>
struct Sm90TnAdaptor {
  static KernelDescription describe() {
    KernelDescription desc;
    using Cfg = typename Gemm::Cfg;
    KernelDescription& d = desc;
    d.name = Gemm::name();
    d.arch = "sm90a";
    d.min_compute_capability = 90;
    d.a = {element_of<typename Gemm::ElementA>(), Layout::kRow};
    d.b = {element_of<typename Gemm::ElementB>(), Layout::kColumn};
    d.c = d.d = {element_of<typename Gemm::ElementD>(), Layout::kColumn};
    d.accumulator = Element::kF32;
    d.tile = {Cfg::BM, Cfg::BN, Cfg::BK};
    d.instruction = {64, Cfg::BN, 16};  // wgmma m64nBNk16, one per consumer warpgroup
    d.cluster = {1, 1, 1};
    d.stages = Cfg::Stages;
    d.schedule = Cfg::Schedule::kName;
    d.threads = Cfg::kThreads;
    d.smem_bytes = Cfg::kSmemBytes;
    d.alignment = Gemm::kAlignment;
    d.persistent = true;
    d.supports_raster_along_n = true;
    return desc;
  }

  static StatusInfo check(const GemmArguments& a) { return check_sm90_tn(a, Gemm::kAlignment, 16); }  // bf16 or f16

  static typename Gemm::Arguments convert(const GemmArguments& a) {
    using EA = typename Gemm::ElementA;
    using ED = typename Gemm::ElementD;
    typename Gemm::Arguments t{};
    t.problem_size = {int(a.shape.n), int(a.shape.m), int(a.shape.k)};
    t.ref_A = {static_cast<const EA*>(a.B), a.ldb};
    t.ref_B = {static_cast<const EA*>(a.A), a.lda};
    t.ref_C = {static_cast<const ED*>(a.C), a.ldc};
    t.ref_D = {static_cast<ED*>(a.D), a.ldd};
    t.epilogue.alpha = float(a.alpha);
    t.epilogue.beta = float(a.beta);
    t.swizzle = int(a.swizzle);
    return t;
  }
};

template <class Gemm>
using Sm90TnOperation = HandleOperation<Gemm, Sm90TnAdaptor<Gemm>>;

template <class Gemm>
std::unique_ptr<GemmOperation> make_sm90_tn_operation() {
  return std::make_unique<Sm90TnOperation<Gemm>>();
}

}  // namespace tessel::prof::kernels
