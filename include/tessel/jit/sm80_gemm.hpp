#pragma once
// The Sm75/Sm80 GEMM kernel and its configuration, without the host-side handle: the header a
// run-time compilation (NVRTC) includes. gemm/device/gemm.hpp cannot be that header because it
// brings the CUDA runtime and <string> with it, which NVRTC does not have.
//
// GemmKernelConfig is the Config that device::Gemm builds inside itself, spelled as a stand-alone
// template with the same members, so that kernel::gemm_kernel<GemmKernelConfig<...>> is the same
// kernel as the handle launches. A host test (tests/host/jit_kernel_config_test.cu) asserts at
// compile time that both agree member by member.
//
//   using Cfg = tessel::jit::GemmKernelConfig<half_t, RowMajor, ColumnMajor, float, RowMajor,
//                                             arch::Sm80, GemmShape<128,128,32>, GemmShape<64,64,32>,
//                                             GemmShape<16,8,16>, epilogue::LinearCombination<float>, 3>;
//   template __global__ void tessel::gemm::kernel::gemm_kernel<Cfg>(tessel::gemm::kernel::GemmParams<Cfg>);

#include <type_traits>

#include "tessel/arch/mma_sm75.hpp"
#include "tessel/arch/mma_sm80.hpp"
#include "tessel/arch/tags.hpp"
#include "tessel/atom/tiled_mma.hpp"
#include "tessel/epilogue/linear_combination.hpp"
#include "tessel/gemm/collective/sm70_mma_twostage.hpp"
#include "tessel/gemm/collective/sm80_mma_multistage.hpp"
#include "tessel/gemm/gemm_shape.hpp"
#include "tessel/gemm/kernel/gemm.hpp"
#include "tessel/numeric.hpp"

namespace tessel::jit {

// The tensor-core instruction of an (arch, element, instruction shape) triple; the handle's
// choice, and its rules.
template <class ArchTag, class Element, class InstructionShape>
struct MmaOpFor {
  static_assert(InstructionShape::kM == 16 && InstructionShape::kN == 8 &&
                    (InstructionShape::kK == 8 || InstructionShape::kK == 16),
                "GemmKernelConfig: the instruction shape must be GemmShape<16,8,8> or GemmShape<16,8,16>");
  static_assert(!(InstructionShape::kK == 16 && std::is_same_v<ArchTag, arch::Sm75>),
                "GemmKernelConfig: the 16x8x16 instruction needs arch::Sm80; Turing (arch::Sm75) has 16x8x8");
  static_assert(!(InstructionShape::kK == 8 && std::is_same_v<Element, bfloat16_t>),
                "GemmKernelConfig: bf16 inputs need the 16x8x16 instruction (arch::Sm80)");
  using type = std::conditional_t<InstructionShape::kK == 8, arch::Mma16x8x8F32F16F16F32,
                                  std::conditional_t<std::is_same_v<Element, bfloat16_t>, arch::Mma16x8x16F32BF16BF16F32,
                                                     arch::Mma16x8x16F32F16F16F32>>;
};

template <class Element_, class LayoutA_, class LayoutB_, class ElementC_, class LayoutC_, class ArchTag_,
          class ThreadblockShape, class WarpShape, class InstructionShape, class Epilogue_, int Stages_>
struct GemmKernelConfig {
  // The handle's static_asserts that keep a kernel from being silently wrong; the ones that
  // only reject a type (element, layout tag) fail inside the kernel anyway.
  static_assert(ThreadblockShape::kM % WarpShape::kM == 0 && ThreadblockShape::kN % WarpShape::kN == 0,
                "GemmKernelConfig: the threadblock shape must be a whole number of warp shapes in M and N");
  static_assert(ThreadblockShape::kK == WarpShape::kK, "GemmKernelConfig: the warp shape's K must equal the threadblock shape's K");
  static_assert(std::is_same_v<ArchTag_, arch::Sm80> || Stages_ == 2,
                "GemmKernelConfig: arch::Sm75 has no cp.async, so its mainloop has exactly 2 stages");

  using ElementA = Element_;
  using ElementB = Element_;
  using ElementC = ElementC_;
  using LayoutA = LayoutA_;
  using LayoutB = LayoutB_;
  using LayoutC = LayoutC_;
  using ArchTag = ArchTag_;
  using Epilogue = typename Epilogue_::OutputOp;  // the linear combination's, as device::Gemm's
  static constexpr int BM = ThreadblockShape::kM, BN = ThreadblockShape::kN, BK = ThreadblockShape::kK;
  static constexpr int Stages = Stages_;
  static constexpr bool kAKMajor = std::is_same_v<LayoutA, gemm::RowMajor>;     // A(M,K) row-major: K contiguous
  static constexpr bool kBKMajor = std::is_same_v<LayoutB, gemm::ColumnMajor>;  // B(K,N) column-major: K contiguous
  using MmaOp = typename MmaOpFor<ArchTag, Element_, InstructionShape>::type;
  using TiledMma = atom::TiledMma<MmaOp, typename WarpShape::MNK,
                                  Shape<Int<ThreadblockShape::kM / WarpShape::kM>, Int<ThreadblockShape::kN / WarpShape::kN>>>;
  using Mainloop = std::conditional_t<(Stages == 2), gemm::collective::MainloopSm70TwoStage<GemmKernelConfig>,
                                      gemm::collective::MainloopSm80CpAsync<GemmKernelConfig>>;
  static constexpr int kThreads = TiledMma::kThreads;
  static constexpr int kSharedStorageSize = Mainloop::kSmemBytes;
};

}  // namespace tessel::jit
