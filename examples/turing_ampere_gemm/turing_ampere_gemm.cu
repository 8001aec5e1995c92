// One GEMM built twice: for Turing (arch::Sm75, 16x8x8 mma, two stages) and for Ampere
// (arch::Sm80, 16x8x16 mma, three cp.async stages). Everything else is fixed: a 128x128x32
// threadblock of four 64x64x32 warps, FP16 in, FP32 accumulate, FP32 out, alpha 1, beta 0.
//
// CMake builds this file as gemm_sm75 (-DTESSEL_EXAMPLE_SM=75, compiled for sm_75) and gemm_sm80
// (-DTESSEL_EXAMPLE_SM=80, compiled for sm_80); tests/build/gemm holds the SASS checks on both.
// The program verifies its result against a double-precision host reference and times nothing.
//
// Exit status: 0 verified; 1 the check failed, or the kernel cannot run here (arch mismatch, a
// refused argument); 2 no CUDA device; 3 a CUDA call failed.

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../example_args.hpp"
#include "tessel/arch/runtime.hpp"
#include "tessel/gemm/device/gemm.hpp"
#include "tessel/verify/compare.hpp"
#include "tessel/verify/host_reference.hpp"
#include "tessel/verify/poison.hpp"
#include "tessel/verify/random.hpp"
#include "tessel/verify/tolerance.hpp"

#ifndef TESSEL_EXAMPLE_SM
#error "compile with -DTESSEL_EXAMPLE_SM=75 or -DTESSEL_EXAMPLE_SM=80"
#endif

namespace {

using namespace tessel;
using namespace tessel::gemm;

#if TESSEL_EXAMPLE_SM == 75
using ArchTag = arch::Sm75;
using InstructionShape = GemmShape<16, 8, 8>;
constexpr int kStages = 2;
#elif TESSEL_EXAMPLE_SM == 80
using ArchTag = arch::Sm80;
using InstructionShape = GemmShape<16, 8, 16>;
constexpr int kStages = 3;
#else
#error "TESSEL_EXAMPLE_SM must be 75 or 80"
#endif

using ThreadblockShape = GemmShape<128, 128, 32>;
using WarpShape = GemmShape<64, 64, 32>;
// NOTES: the seed's mainloop, one predicated K loop (KernelPolicySm80<kClassic>), whose SASS the
// seed's bets count (twice the HMMA of Sm75 at this warp tile). The library's default Sm80
// mainloop (v4) splits interior and edge tiles into two K loops, which doubles that count.
using Gemm = device::Gemm<half_t, RowMajor, half_t, ColumnMajor, float, RowMajor, float, OpClassTensorOp, ArchTag,
                          ThreadblockShape, WarpShape, InstructionShape, epilogue::LinearCombination<float>,
                          kStages, KernelPolicySm80<Sm80Mainloop::kClassic>>;

std::string shape(int m, int n, int k) { return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k); }

int cuda_failed(cudaError_t e, const char* what) {
  std::fprintf(stderr, "error: %s failed: %s: %s\n", what, cudaGetErrorName(e), cudaGetErrorString(e));
  return 3;
}

using tessel::examples::parse_extent;

}  // namespace

int main(int argc, char** argv) {
  int m = 512, n = 512, k = 512;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (!std::strcmp(a, "--m") || !std::strcmp(a, "--n") || !std::strcmp(a, "--k")) {
      if (!parse_extent(a, v, a[2] == 'm' ? m : a[2] == 'n' ? n : k)) return 1;
      ++i;
    } else {
      std::fprintf(stderr, "usage: %s [--m M] [--n N] [--k K]   (default 512 512 512)\n", argv[0]);
      return 1;
    }
  }

  constexpr int kWarps = (ThreadblockShape::kM / WarpShape::kM) * (ThreadblockShape::kN / WarpShape::kN);
  std::printf("%s\n", Gemm::name().c_str());
  std::printf("arch %s: threadblock %s, warp %s (%d warps), instruction %s, stages %d, shared memory %d bytes\n",
              ArchTag::kName, shape(ThreadblockShape::kM, ThreadblockShape::kN, ThreadblockShape::kK).c_str(),
              shape(WarpShape::kM, WarpShape::kN, WarpShape::kK).c_str(), kWarps,
              shape(InstructionShape::kM, InstructionShape::kN, InstructionShape::kK).c_str(), kStages,
              Gemm::kSharedStorageSize);
  std::printf("problem %s: A f16 row-major, B f16 column-major, D f32 row-major, f32 accumulate, alpha 1, beta 0\n",
              shape(m, n, k).c_str());

  // No device: say so plainly. Everything above (and the SASS) needs none.
  int devices = 0, driver = 0;
  if (cudaError_t e = cudaGetDeviceCount(&devices); e != cudaSuccess || devices == 0) {
    // Without any driver the runtime reports an "insufficient" one; say what is really missing.
    (void)cudaDriverGetVersion(&driver);
    std::fprintf(stderr,
                 "no CUDA device: %s. This program runs on an NVIDIA GPU of compute capability %d.%d or newer; "
                 "without one, inspect its machine code with tessel-sass.\n",
                 driver == 0 ? "no NVIDIA driver is loaded"
                 : e != cudaSuccess ? cudaGetErrorString(e)
                                    : "cudaGetDeviceCount found none",
                 ArchTag::kMinComputeCapability / 10, ArchTag::kMinComputeCapability % 10);
    return 2;
  }

  // The arch gate, before anything is allocated: the same check can_implement ends with.
  const StatusInfo gate = arch::check_kernel_arch<ArchTag>(reinterpret_cast<void const*>(&kernel::gemm_kernel<Gemm::Config>));
  if (!gate.ok()) {
    std::fprintf(stderr, "%s\n", gate.what().c_str());
    return 1;
  }
  arch::DeviceArch device;
  if (arch::query_device_arch(-1, device).ok()) {
    std::printf("device %s, compute capability %d.%d\n", device.name.c_str(), device.compute_capability / 10,
                device.compute_capability % 10);
  }

  const std::size_t a_elems = std::size_t(m) * k, b_elems = std::size_t(k) * n, d_elems = std::size_t(m) * n;
  std::vector<half_t> a(a_elems), b(b_elems);
  std::vector<float> d(d_elems);
  verify::fill_random(a.data(), a.size(), 84, verify::Distribution::uniform(-1, 1));
  verify::fill_random(b.data(), b.size(), 85, verify::Distribution::uniform(-1, 1));
  verify::poison(d.data(), d.size());

  half_t *da = nullptr, *db = nullptr;
  float* dd = nullptr;
  if (cudaError_t e = cudaMalloc(&da, a_elems * sizeof(half_t)); e != cudaSuccess) return cuda_failed(e, "cudaMalloc(A)");
  if (cudaError_t e = cudaMalloc(&db, b_elems * sizeof(half_t)); e != cudaSuccess) return cuda_failed(e, "cudaMalloc(B)");
  if (cudaError_t e = cudaMalloc(&dd, d_elems * sizeof(float)); e != cudaSuccess) return cuda_failed(e, "cudaMalloc(D)");
  if (cudaError_t e = cudaMemcpy(da, a.data(), a_elems * sizeof(half_t), cudaMemcpyHostToDevice); e != cudaSuccess)
    return cuda_failed(e, "cudaMemcpy(A) to the device");
  if (cudaError_t e = cudaMemcpy(db, b.data(), b_elems * sizeof(half_t), cudaMemcpyHostToDevice); e != cudaSuccess)
    return cuda_failed(e, "cudaMemcpy(B) to the device");
  if (cudaError_t e = cudaMemcpy(dd, d.data(), d_elems * sizeof(float), cudaMemcpyHostToDevice); e != cudaSuccess)
    return cuda_failed(e, "cudaMemcpy(D) to the device");

  // A (M,K) row-major: ld K. B (K,N) column-major: ld K. D (M,N) row-major: ld N. beta = 0, so
  // C is not read and may be null.
  Gemm::Arguments args{{m, n, k}, {da, k}, {db, k}, {nullptr, n}, {dd, n}, {1.f, 0.f}, 1};
  Gemm gemm;
  if (const StatusInfo s = Gemm::can_implement(args); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.what().c_str());
    return 1;
  }
  if (const StatusInfo s = gemm(args); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.what().c_str());
    return 1;
  }
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) return cuda_failed(e, "the GEMM kernel");
  if (cudaError_t e = cudaMemcpy(d.data(), dd, d_elems * sizeof(float), cudaMemcpyDeviceToHost); e != cudaSuccess)
    return cuda_failed(e, "cudaMemcpy to the host");
  cudaFree(da);
  cudaFree(db);
  cudaFree(dd);

  // The reference reads the same f16 values and sums in double; the budget covers f32
  // accumulation (sqrt(K)-scaled), the epilogue and the rounding to D.
  const auto ref = verify::host_reference_gemm<half_t, half_t, float>(
      1.0, verify::make_view<const half_t>(a.data(), m, k, verify::Order::kRowMajor, k),
      verify::make_view<const half_t>(b.data(), k, n, verify::Order::kColumnMajor, k), 0.0, verify::MatrixView<const float>{});
  const verify::CompareReport report =
      verify::compare(verify::make_view<const float>(d.data(), m, n, verify::Order::kRowMajor, n), ref,
                      verify::make_tolerance<float, float>());
  std::printf("%s\n", report.details().c_str());
  if (report.has_worst) {
    std::printf("worst element (%lld, %lld) used %.3f of its error budget\n", static_cast<long long>(report.worst.row),
                static_cast<long long>(report.worst.col), report.worst.ratio);
  }
  std::printf("%s\n", report.passed() ? "PASS" : "FAIL");
  return report.passed() ? 0 : 1;
}
