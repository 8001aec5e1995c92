#pragma once
// Shared by the Hopper GPU tests: the skip where no compute capability 9.0 GPU exists, and the
// kernel under test assembled as a user would, through the collective builders and the adapter.

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "gpu_test_util.hpp"
#include "grouped_problem.hpp"  // random_values
#include "tessel/gemm/device/gemm_universal_sm90.hpp"
#include "tessel/verify/random.hpp"

namespace tessel::test {

inline bool have_sm90() {
  int dev = 0, major = 0, minor = 0;
  return cudaGetDevice(&dev) == cudaSuccess && cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess &&
         cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) == cudaSuccess && major == 9 && minor == 0;
}

/// A, B of type E (16-byte alignment, one 128-byte swizzle row of K per stage), D of type ED
/// (alignment 8 elements: TMA stores where that is 16 bytes, register stores for 8-bit D).
template <class E, class LA, class LB, class ED, int BM, int BN, int CM = 1,
          class Schedule = gemm::collective::KernelScheduleAuto, class EpilogueSchedule = gemm::collective::EpilogueScheduleAuto,
          class Fusion = epilogue::LinearCombination<ED, ED>, class Scheduler = gemm::PersistentScheduler, int CN = 1>
using Sm90Gemm = gemm::device::GemmUniversalAdapter<gemm::kernel::GemmUniversal<
    gemm::ProblemShapeMNKL,
    typename gemm::collective::CollectiveBuilder<arch::Sm90, gemm::OpClassTensorOp, E, LA, 16 / sizeof(E), E, LB, 16 / sizeof(E), float,
                                                 gemm::GemmShape<BM, BN, 128 / sizeof(E)>, gemm::GemmShape<CM, CN, 1>,
                                                 gemm::collective::StageCountAuto, Schedule>::CollectiveOp,
    typename gemm::collective::EpilogueBuilder<arch::Sm90, gemm::OpClassTensorOp, gemm::GemmShape<BM, BN, 128 / sizeof(E)>,
                                               gemm::GemmShape<CM, CN, 1>, gemm::collective::EpilogueTileAuto, float, float, ED,
                                               gemm::RowMajor, 8, ED, gemm::RowMajor, 8, EpilogueSchedule, Fusion>::CollectiveOp,
    Scheduler>>;

}  // namespace tessel::test

#define TESSEL_SKIP_WITHOUT_SM90() \
  TESSEL_SKIP_WITHOUT_GPU();       \
  if (!::tessel::test::have_sm90()) GTEST_SKIP() << "needs a compute capability 9.0 GPU (sm_90a kernel)"
