#pragma once
// The Sm75/Sm80 GEMM kernel's parameter block (kernel/gemm.hpp's gemm_kernel takes it by value),
// in a header without device code, and the one block a launcher that serves every configuration
// fills: the Python extension's driver-API launcher (python/src/gemm_kernel.cpp) launches
// generated kernels of every Sm75/Sm80 configuration with Sm80LaunchParams, and each generated
// source asserts TESSEL_SM80_PARAMS_MATCH for its own block (python/tessel/jit/codegen.py).

#include <cstdint>

#include "tessel/detail/offset_of.hpp"
#include "tessel/epilogue/linear_combination.hpp"
#include "tessel/gemm/gemm_shape.hpp"
#include "tessel/gemm/kernel/tile_scheduler.hpp"
#include "tessel/numeric.hpp"

namespace tessel::gemm::kernel {

template <class Config>
struct GemmParams {
  using ElementA = typename Config::ElementA;
  using ElementB = typename Config::ElementB;
  using ElementC = typename Config::ElementC;
  GemmCoord problem;
  ElementA const* A;
  std::int64_t lda;
  ElementB const* B;
  std::int64_t ldb;
  ElementC const* C;
  std::int64_t ldc;
  ElementC* D;
  std::int64_t ldd;
  typename Config::Epilogue epilogue;
  GroupedRaster raster;
};

/// The types GemmParams reads from a configuration, for the launcher's block: a configuration
/// changes the types the pointers point to and the activation of the linear combination, neither
/// of which moves a member (every OutputOp is its Scalars {alpha, beta}).
struct Sm80LaunchConfig {
  using ElementA = bfloat16_t;
  using ElementB = bfloat16_t;
  using ElementC = bfloat16_t;
  using Epilogue = epilogue::LinearCombination<bfloat16_t>::OutputOp;
};
using Sm80LaunchParams = GemmParams<Sm80LaunchConfig>;

}  // namespace tessel::gemm::kernel

#define TESSEL_SM80_SAME_OFFSET(P, m) \
  (TESSEL_OFFSETOF(P, m) == TESSEL_OFFSETOF(::tessel::gemm::kernel::Sm80LaunchParams, m))

/// Whether a configuration's parameter block P is Sm80LaunchParams' layout: its size and every
/// member, alpha and beta included, at the same offset (a macro: NVRTC's offsetof is no constant
/// inside a function).
#define TESSEL_SM80_PARAMS_MATCH(P)                                                                                     \
  (sizeof(P) == sizeof(::tessel::gemm::kernel::Sm80LaunchParams) && TESSEL_SM80_SAME_OFFSET(P, problem) &&              \
   TESSEL_SM80_SAME_OFFSET(P, A) && TESSEL_SM80_SAME_OFFSET(P, lda) && TESSEL_SM80_SAME_OFFSET(P, B) &&                 \
   TESSEL_SM80_SAME_OFFSET(P, ldb) && TESSEL_SM80_SAME_OFFSET(P, C) && TESSEL_SM80_SAME_OFFSET(P, ldc) &&               \
   TESSEL_SM80_SAME_OFFSET(P, D) && TESSEL_SM80_SAME_OFFSET(P, ldd) && TESSEL_SM80_SAME_OFFSET(P, epilogue.params.alpha) && \
   TESSEL_SM80_SAME_OFFSET(P, epilogue.params.beta) && TESSEL_SM80_SAME_OFFSET(P, raster))
