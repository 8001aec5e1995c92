#pragma once
// The Sm75/Sm80 GEMM kernel's parameter block (kernel/gemm.hpp's gemm_kernel takes it by value),
// in a header without device code, and the one block a launcher that serves every configuration
// fills: the Python extension's driver-API launcher (python/src/gemm_kernel.cpp) launches
// generated kernels of every Sm75/Sm80 configuration with Sm80LaunchParams (grouped ones with
// Sm80GroupedLaunchParams), and each generated source asserts TESSEL_SM80_PARAMS_MATCH (or
// TESSEL_SM80_GROUPED_PARAMS_MATCH) for its own block (python/tessel/jit/codegen.py).

#include <cstdint>

#include "tessel/detail/offset_of.hpp"
#include "tessel/epilogue/linear_combination.hpp"
#include "tessel/gemm/gemm_shape.hpp"
#include "tessel/gemm/kernel/grouped.hpp"
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

/// The grouped kernel's block (sm80_gemm_grouped.hpp): the dense block with the first group's
/// operands (its problem's m unused: the groups' rows are read on the device), the groups, and
/// the element strides from one group's operands to the next (A and D: masked layout only; C,
/// read where beta != 0: any layout, 0 sharing one C, and with ldc 0 a bias row per group).
template <class Config>
struct GemmGroupedParams {
  GemmParams<Config> gemm;
  Groups groups;
  std::int64_t batch_a = 0;
  std::int64_t batch_b = 0;
  std::int64_t batch_d = 0;
  std::int64_t batch_c = 0;
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
using Sm80GroupedLaunchParams = GemmGroupedParams<Sm80LaunchConfig>;

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

#define TESSEL_SM80_GROUPED_SAME_OFFSET(P, m) \
  (TESSEL_OFFSETOF(P, m) == TESSEL_OFFSETOF(::tessel::gemm::kernel::Sm80GroupedLaunchParams, m))

/// The same for the grouped kernel's block: its dense block matches, and the groups and strides
/// sit where Sm80GroupedLaunchParams has them.
#define TESSEL_SM80_GROUPED_PARAMS_MATCH(P)                                                                             \
  (sizeof(P) == sizeof(::tessel::gemm::kernel::Sm80GroupedLaunchParams) && TESSEL_SM80_PARAMS_MATCH(decltype(P::gemm)) && \
   TESSEL_SM80_GROUPED_SAME_OFFSET(P, gemm) && TESSEL_SM80_GROUPED_SAME_OFFSET(P, groups) &&                            \
   TESSEL_SM80_GROUPED_SAME_OFFSET(P, batch_a) && TESSEL_SM80_GROUPED_SAME_OFFSET(P, batch_b) &&                        \
   TESSEL_SM80_GROUPED_SAME_OFFSET(P, batch_d) && TESSEL_SM80_GROUPED_SAME_OFFSET(P, batch_c))
