// The seed's Hopper GEMM: FP16 in, FP32 accumulate, FP16 C and D (column-major), a 128x128x64 CTA
// tile, a 2x1x1 cluster sharing B through TMA multicast, stages from StageCountAutoCarveout and
// the schedule from KernelScheduleAuto; the CUTLASS 3.x host flow (can_implement, workspace,
// initialize, run), then every element checked against a double-precision host reference.
//
//   hopper_gemm [--m M] [--n N] [--k K]       (default 1024 1024 1024)
//
// Exit status: 0 verified; 1 the check failed or the kernel cannot run here (not a compute
// capability 9.0 GPU, a refused argument); 2 no CUDA device; 3 a CUDA call failed.

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../example_args.hpp"
#include "tessel/gemm/device/gemm_universal_sm90.hpp"
#include "tessel/verify/compare.hpp"
#include "tessel/verify/device_buffer.cuh"
#include "tessel/verify/host_reference.hpp"
#include "tessel/verify/poison.hpp"
#include "tessel/verify/random.hpp"
#include "tessel/verify/tolerance.hpp"

using namespace tessel;
using namespace tessel::gemm;

using ElementA = half_t;
using LayoutA = RowMajor;
using ElementB = half_t;
using LayoutB = ColumnMajor;
using ElementC = half_t;
using LayoutC = ColumnMajor;
using ElementAcc = float;
constexpr int AlignA = 128 / (8 * sizeof(ElementA));  // 8 elements = 16 bytes, what TMA needs
constexpr int AlignB = 128 / (8 * sizeof(ElementB));
constexpr int AlignC = 128 / (8 * sizeof(ElementC));

using TileShape = GemmShape<128, 128, 64>;  // CTA tile M x N x K
using ClusterShape = GemmShape<2, 1, 1>;    // 2 CTAs along M share B through TMA multicast

using CollectiveEpilogue =
    typename collective::EpilogueBuilder<arch::Sm90, OpClassTensorOp, TileShape, ClusterShape, collective::EpilogueTileAuto,
                                         ElementAcc, ElementAcc, ElementC, LayoutC, AlignC, ElementC, LayoutC, AlignC,
                                         collective::EpilogueScheduleAuto>::CollectiveOp;
using CollectiveMainloop = typename collective::CollectiveBuilder<
    arch::Sm90, OpClassTensorOp, ElementA, LayoutA, AlignA, ElementB, LayoutB, AlignB, ElementAcc, TileShape, ClusterShape,
    collective::StageCountAutoCarveout<int(sizeof(typename CollectiveEpilogue::SharedStorage))>,
    collective::KernelScheduleAuto>::CollectiveOp;
using GemmKernel = kernel::GemmUniversal<ProblemShapeMNKL, CollectiveMainloop, CollectiveEpilogue>;
using Gemm = device::GemmUniversalAdapter<GemmKernel>;

using tessel::examples::parse_extent;

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress lines appear even if the run is cut short
  int m = 1024, n = 1024, k = 1024;
  for (int i = 1; i < argc; ++i) {
    char const* a = argv[i];
    char const* v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (!std::strcmp(a, "--m") || !std::strcmp(a, "--n") || !std::strcmp(a, "--k")) {
      if (!parse_extent(a, v, a[2] == 'm' ? m : a[2] == 'n' ? n : k)) return 1;
      ++i;
    } else {
      std::fprintf(stderr, "usage: %s [--m M] [--n N] [--k K]   (default 1024 1024 1024)\n", argv[0]);
      return 1;
    }
  }
  std::printf("%s\n", Gemm::name().c_str());
  std::printf("tile 128x128x64, cluster 2x1x1, %d stages (%d bytes of shared memory), schedule %s\n", Gemm::Cfg::Stages,
              Gemm::Cfg::kSmemBytes, Gemm::Cfg::Schedule::kName);
  std::printf("problem %dx%dx%d: A f16 row-major, B f16 column-major, C and D f16 column-major, alpha 1, beta 0.5\n", m, n, k);

  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "no CUDA device: this program needs an NVIDIA GPU of compute capability 9.0 (Hopper)\n");
    return 2;
  }
  std::vector<ElementA> a(std::size_t(m) * k);
  std::vector<ElementB> b(std::size_t(k) * n);
  std::vector<ElementC> c(std::size_t(m) * n), d(std::size_t(m) * n);
  verify::fill_random(a.data(), a.size(), 90, verify::Distribution::uniform(-1, 1));
  verify::fill_random(b.data(), b.size(), 91, verify::Distribution::uniform(-1, 1));
  verify::fill_random(c.data(), c.size(), 92, verify::Distribution::uniform(-1, 1));
  verify::poison(d.data(), d.size());
  verify::DeviceBuffer<ElementA> da(a);
  verify::DeviceBuffer<ElementB> db(b);
  verify::DeviceBuffer<ElementC> dc(c), dd(d);

  KernelHardwareInfo hw{0, 0};
  Gemm::Arguments args{GemmUniversalMode::kGemm,
                       {m, n, k, 1},
                       {da.data(), make_packed_stride(Gemm::StrideA{}, m, k), db.data(), make_packed_stride(Gemm::StrideB{}, n, k)},
                       {{1.f, 0.5f}, dc.data(), make_packed_stride(Gemm::StrideC{}, m, n), dd.data(),
                        make_packed_stride(Gemm::StrideD{}, m, n)},
                       hw};
  args.scheduler.max_swizzle_size = 4;  // L2-friendly tile order

  Gemm gemm;
  if (StatusInfo s = gemm.can_implement(args); !s.ok()) {
    std::fprintf(stderr, "can_implement: %s\n", s.what().c_str());
    return 1;
  }
  std::size_t ws = Gemm::get_workspace_size(args);
  void* workspace = nullptr;
  if (ws && cudaMalloc(&workspace, ws) != cudaSuccess) return 3;
  if (StatusInfo s = gemm.initialize(args, workspace); !s.ok()) {
    std::fprintf(stderr, "initialize: %s\n", s.what().c_str());
    return 1;
  }
  if (StatusInfo s = gemm.run(); !s.ok()) {
    std::fprintf(stderr, "run: %s\n", s.what().c_str());
    return 1;
  }
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) {
    std::fprintf(stderr, "the GEMM kernel failed: %s\n", cudaGetErrorString(e));
    return 3;
  }
  cudaFree(workspace);
  d = dd.download();
  auto ref = verify::host_reference_gemm<ElementA, ElementB, ElementC>(
      1.0, verify::make_view<const ElementA>(a.data(), m, k, verify::Order::kRowMajor, k),
      verify::make_view<const ElementB>(b.data(), k, n, verify::Order::kColumnMajor, k), 0.5,
      verify::make_view<const ElementC>(c.data(), m, n, verify::Order::kColumnMajor, m));
  auto report = verify::compare(verify::make_view<const ElementC>(d.data(), m, n, verify::Order::kColumnMajor, m), ref,
                                verify::make_tolerance<float, ElementC>());
  std::printf("%s\n%s\n", report.details().c_str(), report.passed() ? "PASS" : "FAIL");
  return report.passed() ? 0 : 1;
}
