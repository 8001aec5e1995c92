// tessel::jit::GemmKernelConfig (the configuration a run-time compiled kernel is instantiated
// with) against device::Gemm<...>::Config (what the handle instantiates): the kernel reads only
// the members compared here, so equal members mean the same kernel. Checked at compile time,
// for each element type, layout and mainloop; the test binary only reports it.

#include <gtest/gtest.h>

#include <type_traits>

#include "tessel/gemm/device/gemm.hpp"
#include "tessel/jit/sm80_gemm.hpp"

namespace {

using namespace tessel;
using namespace tessel::gemm;

template <class Handle, class Jit>
constexpr bool same_kernel_config() {
  using H = typename Handle::Config;
  return std::is_same_v<typename H::ElementA, typename Jit::ElementA> && std::is_same_v<typename H::ElementB, typename Jit::ElementB> &&
         std::is_same_v<typename H::ElementC, typename Jit::ElementC> && std::is_same_v<typename H::LayoutA, typename Jit::LayoutA> &&
         std::is_same_v<typename H::LayoutB, typename Jit::LayoutB> && std::is_same_v<typename H::LayoutC, typename Jit::LayoutC> &&
         std::is_same_v<typename H::ArchTag, typename Jit::ArchTag> && std::is_same_v<typename H::Epilogue, typename Jit::Epilogue> &&
         std::is_same_v<typename H::TiledMma, typename Jit::TiledMma> && H::BM == Jit::BM && H::BN == Jit::BN && H::BK == Jit::BK &&
         H::Stages == Jit::Stages && H::kAKMajor == Jit::kAKMajor && H::kBKMajor == Jit::kBKMajor &&
         H::Mainloop::kSmemBytes == Jit::Mainloop::kSmemBytes && Handle::kThreads == Jit::kThreads &&
         Handle::kSharedStorageSize == Jit::kSharedStorageSize &&
         std::is_same_v<typename H::Mainloop::SmemLayoutA, typename Jit::Mainloop::SmemLayoutA> &&
         std::is_same_v<typename H::Mainloop::SmemLayoutB, typename Jit::Mainloop::SmemLayoutB>;
}

template <class T, class LA, class LB, class TC, class LC, class Arch, class Tb, class Warp, class Inst, int Stages>
constexpr bool agree() {
  using Epi = epilogue::LinearCombination<TC>;
  using Handle = device::Gemm<T, LA, T, LB, TC, LC, float, OpClassTensorOp, Arch, Tb, Warp, Inst, Epi, Stages>;
  using Jit = jit::GemmKernelConfig<T, LA, LB, TC, LC, Arch, Tb, Warp, Inst, Epi, Stages>;
  return same_kernel_config<Handle, Jit>();
}

using S128 = GemmShape<128, 128, 32>;
using W64 = GemmShape<64, 64, 32>;
using I16 = GemmShape<16, 8, 16>;

// The prebuilt set's tile for every element type and layout, a larger tile, the two-stage
// mainloop on Sm80 and the Turing kernel.
constexpr bool kAllAgree =
    agree<half_t, RowMajor, ColumnMajor, float, RowMajor, arch::Sm80, S128, W64, I16, 3>() &&
    agree<half_t, ColumnMajor, RowMajor, half_t, RowMajor, arch::Sm80, S128, W64, I16, 3>() &&
    agree<bfloat16_t, RowMajor, RowMajor, bfloat16_t, ColumnMajor, arch::Sm80, S128, W64, I16, 3>() &&
    agree<bfloat16_t, ColumnMajor, ColumnMajor, float, RowMajor, arch::Sm80, S128, W64, I16, 3>() &&
    agree<bfloat16_t, RowMajor, ColumnMajor, bfloat16_t, ColumnMajor, arch::Sm80, GemmShape<128, 256, 32>, W64, I16, 4>() &&
    agree<half_t, RowMajor, ColumnMajor, float, RowMajor, arch::Sm80, GemmShape<64, 128, 32>, GemmShape<32, 64, 32>, I16, 2>() &&
    agree<half_t, RowMajor, ColumnMajor, float, RowMajor, arch::Sm75, S128, W64, GemmShape<16, 8, 8>, 2>();
static_assert(kAllAgree, "tessel::jit::GemmKernelConfig no longer matches device::Gemm's Config: update include/tessel/jit/sm80_gemm.hpp");

TEST(JitKernelConfig, SameMembersAsTheHandlesConfig) { EXPECT_TRUE(kAllAgree); }

}  // namespace
