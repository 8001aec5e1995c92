// Illegal Gemm configurations: each CASE names one and must fail to compile with the sentence
// of the rule it breaks; CASE 0 is the legal control that shows the file itself compiles.

#include "tessel/gemm/device/gemm.hpp"

using namespace tessel;
using namespace tessel::gemm;

template <class TIn, class Arch, class Tb, class Warp, class Inst, int Stages>
using G = device::Gemm<TIn, RowMajor, TIn, ColumnMajor, float, RowMajor, float, OpClassTensorOp, Arch, Tb, Warp, Inst,
                       epilogue::LinearCombination<float>, Stages>;
using T128 = GemmShape<128, 128, 32>;
using W64 = GemmShape<64, 64, 32>;
using I8 = GemmShape<16, 8, 8>;
using I16 = GemmShape<16, 8, 16>;

#if CASE == 0
using Sm75Ok = G<half_t, arch::Sm75, T128, W64, I8, 2>;
using Sm80Ok = G<bfloat16_t, arch::Sm80, T128, W64, I16, 3>;
int threads = Sm75Ok::kThreads + Sm80Ok::kThreads;
#elif CASE == 1  // Turing has no 16x8x16 instruction
int threads = G<half_t, arch::Sm75, T128, W64, I16, 2>::kThreads;
#elif CASE == 2  // no cp.async on Turing, so no third stage
int threads = G<half_t, arch::Sm75, T128, W64, I8, 3>::kThreads;
#elif CASE == 3  // bf16 exists only in the 16x8x16 instruction
int threads = G<bfloat16_t, arch::Sm80, T128, W64, I8, 3>::kThreads;
#elif CASE == 4  // 96 is not a whole number of 64-wide warps
int threads = G<half_t, arch::Sm80, GemmShape<128, 96, 32>, W64, I16, 3>::kThreads;
#elif CASE == 5  // the warp covers the threadblock's whole K slice
int threads = G<half_t, arch::Sm80, T128, GemmShape<64, 64, 16>, I16, 3>::kThreads;
#elif CASE == 6  // tensor-core inputs are 16-bit here
int threads = G<float, arch::Sm80, T128, W64, I16, 3>::kThreads;
#elif CASE == 7  // CUTLASS 2's LinearCombination<Out, Accumulator, Compute>: here the third is an activation
int threads = device::Gemm<half_t, RowMajor, half_t, ColumnMajor, float, RowMajor, float, OpClassTensorOp, arch::Sm80, T128, W64,
                           I16, epilogue::LinearCombination<float, float, float>, 3>::kThreads;
#elif CASE == 8  // the epilogue writes D, which is ElementC here
int threads = device::Gemm<half_t, RowMajor, half_t, ColumnMajor, float, RowMajor, float, OpClassTensorOp, arch::Sm80, T128, W64,
                           I16, epilogue::LinearCombination<half_t>, 3>::kThreads;
#else
#error "unknown CASE"
#endif
