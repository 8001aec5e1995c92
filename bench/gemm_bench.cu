// tessel's Sm80 GEMM (mma.sync + cp.async) against cuBLAS, side by side in one process.
//
//   gemm_bench [--m M --n N --k K] [--dtype f16|bf16|all] [--runs R] [--warmup W] [--out FILE] [--sm80-only]
//              [--swizzle S]   (every kernel's raster group: S tiles along the fast side; default 8)
//              [--decomposition heuristic|data-parallel|stream-K|split-K:S] [--atomic-reduction]
//
// --sm80-only runs the Sm80 (mma.sync) kernels alone, without the Hopper ones. --decomposition
// overrides the heuristic of the kernels built with the stream-K scheduler (names ending in
// `_streamk`); each of them prints the decomposition it ran as a `# work:` line. --atomic-reduction
// makes their split tiles meet in the non-deterministic (float atomic) fixup.
//
// Problem: TN (A row-major, B column-major), D column-major in the input type, FP32 accumulate,
// alpha 1, beta 0; by default 4096^3 and 8192^3, f16 and bf16. cuBLAS runs the same problem with
// the same types (cublasGemmEx, CUBLAS_COMPUTE_32F).
//
// Method: correct first, then fast. Each (shape, dtype, tessel kernel) is verified before it is
// timed (bench_verify.cuh): every element against cuBLAS, a sample against a double reference;
// a failed check is reported and not timed, and the program exits 1. Timing: CUDA events around
// each launch, tessel and cuBLAS interleaved launch by launch so that clocks and temperature
// treat both alike, warm-up launches first (they also absorb the JIT compile and cuBLAS's
// heuristics), then the median of R >= 20 launches. The operands rotate over at least four
// buffer sets, together more than four times the L2 cache, every launch taking the next set, so
// no launch finds its inputs in L2 from an earlier one.
//
// Output: a markdown table on stdout (shape, dtype, tessel kernel, TFLOP/s of each, ratio,
// verification) and, with --out, the same table in FILE.

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "bench_common.hpp"
#include "bench_verify.cuh"
#include "cublas_gemm.hpp"
#include "hopper_tn.hpp"
#include "tessel/arch/runtime.hpp"
#include "tessel/gemm/device/gemm.hpp"
#include "tessel/verify/device_buffer.cuh"
#include "tessel/verify/device_fill.cuh"

namespace {

using namespace tessel;
using bench::fmt;
using bench::median;
using namespace tessel::gemm;
using tessel::verify::check_cuda;
using tessel::verify::DeviceBuffer;

template <class T, class Tb, class Warp, int Stages, class Policy = KernelPolicySm80Default>
using TesselTN = device::Gemm<T, RowMajor, T, ColumnMajor, T, ColumnMajor, float, OpClassTensorOp, arch::Sm80, Tb, Warp,
                              GemmShape<16, 8, 16>, epilogue::LinearCombination<T>, Stages, Policy>;
using V3 = KernelPolicySm80<Sm80Mainloop::kClassic>;             // the classic mainloop (the reference row)
using V4 = KernelPolicySm80<Sm80Mainloop::kFast>;                // XOR-split addresses, unpredicated interior copies (default)
using V4Sepi = KernelPolicySm80<Sm80Mainloop::kFast, 1, true>;   // + D through shared memory, 16-byte stores
using V4B2Sepi = KernelPolicySm80<Sm80Mainloop::kFast, 2, true>; // + 2 CTAs of 8 warps per SM (128 registers)

// The kernels benchmarked (bench/NOTES.md, Sm80 versions): v3 (the classic mainloop, the issue's
// configuration) as the reference, then the v4 mainloop on the same tile, with the staged
// epilogue, with 8 warps of 64x32 and 2 CTAs per SM (BK 64; at BK 32 the sm_80 build spills),
// and on the 128x256 tile (3 and 4 stages) and its transpose 256x128.
template <class T>
using Sm80Kernels = std::tuple<TesselTN<T, GemmShape<128, 128, 32>, GemmShape<64, 64, 32>, 3, V3>,
                               TesselTN<T, GemmShape<128, 128, 32>, GemmShape<64, 64, 32>, 3, V4>,
                               TesselTN<T, GemmShape<128, 128, 32>, GemmShape<64, 64, 32>, 3, V4Sepi>,
                               TesselTN<T, GemmShape<128, 128, 64>, GemmShape<64, 32, 64>, 3, V4B2Sepi>,
                               TesselTN<T, GemmShape<128, 256, 32>, GemmShape<64, 64, 32>, 3, V4Sepi>,
                               TesselTN<T, GemmShape<128, 256, 32>, GemmShape<64, 64, 32>, 4, V4Sepi>,
                               TesselTN<T, GemmShape<256, 128, 32>, GemmShape<64, 64, 32>, 3, V4Sepi>>;
// The Hopper TMA + wgmma kernels (refused with a Status where the build carries no sm_90a code or
// the GPU is not compute capability 9.0): the wide cooperative tile with and without a 2x1
// cluster, the seed's 128x128 tile with a 2x1 cluster, ping-pong (128x128, and 64x256 with and
// without a 2x1 cluster), the 128x128 cooperative kernel with and without the stream-K scheduler,
// 128x256 with it, and 128x192 (a wave count between the two) with and without it and with a 2x1
// cluster.
template <class T>
using HopperKernels = std::tuple<bench::HopperTN<T, 128, 256, 1>, bench::HopperTN<T, 128, 256, 2>,
                                 bench::HopperTN<T, 128, 128, 2>,
                                 bench::HopperTN<T, 128, 128, 1, gemm::kernel::KernelTmaWarpSpecializedPingpong>,
                                 bench::HopperTN<T, 64, 256, 1, gemm::kernel::KernelTmaWarpSpecializedPingpong>,
                                 bench::HopperTN<T, 64, 256, 2, gemm::kernel::KernelTmaWarpSpecializedPingpong>,
                                 bench::HopperTN<T, 128, 128, 1, gemm::kernel::KernelTmaWarpSpecializedCooperative>,
                                 bench::HopperTN<T, 128, 128, 1, gemm::kernel::KernelTmaWarpSpecializedCooperative,
                                                 gemm::StreamKScheduler>,
                                 bench::HopperTN<T, 128, 256, 1, gemm::kernel::KernelTmaWarpSpecializedCooperative,
                                                 gemm::StreamKScheduler>,
                                 bench::HopperTN<T, 128, 192, 1>, bench::HopperTN<T, 128, 192, 2>,
                                 bench::HopperTN<T, 128, 192, 1, gemm::kernel::KernelTmaWarpSpecializedCooperative,
                                                 gemm::StreamKScheduler>>;
template <class T>
using Kernels = decltype(std::tuple_cat(Sm80Kernels<T>{}, HopperKernels<T>{}));

struct Options {
  std::vector<std::array<int, 3>> shapes{{4096, 4096, 4096}, {8192, 8192, 8192}};
  std::vector<std::string> dtypes{"f16", "bf16"};
  int runs = 30;
  int warmup = 5;
  int samples = 4096;
  std::string out;
  bool sm80_only = false;  // --sm80-only: skip the Hopper kernels
  int swizzle = -1;        // --swizzle S: every kernel's raster group size (-1: each handle's default)
  gemm::kernel::DecompositionMode decomposition = gemm::kernel::DecompositionMode::Heuristic;
  int splits = 0;  // split-K:S
  bool atomic_reduction = false;
};

struct Row {
  std::string shape, dtype, kernel;
  double tessel_tflops = 0, cublas_tflops = 0;
  std::string verification;
  bool ok = false;
};



// One (shape, dtype): operands, cuBLAS, and every tessel kernel in turn.
template <class T>
void bench_shape(int m, int n, int k, const char* dtype, const Options& o, cublasHandle_t handle, std::vector<Row>& rows) {
  const std::size_t a_elems = std::size_t(m) * k, b_elems = std::size_t(k) * n, d_elems = std::size_t(m) * n;
  const double set_bytes = double(a_elems + b_elems + d_elems) * sizeof(T);
  int l2 = 0;
  check_cuda(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0), "cudaDeviceGetAttribute(L2)");
  // Every launch, tessel's or cuBLAS's, takes the next set round-robin, so a set comes back only
  // after `sets - 1` other launches have streamed their operands through L2. At least four, and
  // an even number so that tessel and cuBLAS alternate over disjoint sets.
  int sets = std::max(4, int(std::ceil(4.0 * l2 / set_bytes)));
  sets += sets % 2;
  const std::string shape = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  std::printf("# %s %s: %d buffer sets of %.0f MB (L2 %d MB)\n", shape.c_str(), dtype, sets, set_bytes / 1e6, l2 >> 20);

  std::vector<DeviceBuffer<T>> A, B, Dt, Dc;
  for (int s = 0; s < sets; ++s) {
    A.emplace_back(a_elems);
    B.emplace_back(b_elems);
    Dt.emplace_back(d_elems);
    Dc.emplace_back(d_elems);
    verify::fill_random_device(A.back().data(), a_elems, 100 + 2 * s, verify::Distribution::uniform(-1, 1));
    verify::fill_random_device(B.back().data(), b_elems, 101 + 2 * s, verify::Distribution::uniform(-1, 1));
  }
  // The magnitudes |A||B| for the budget of the tessel-vs-cuBLAS comparison (set 0 only).
  DeviceBuffer<float> mag(d_elems);
  {
    DeviceBuffer<T> abs_a(a_elems), abs_b(b_elems);
    bench::abs_device(A[0].data(), abs_a.data(), a_elems);
    bench::abs_device(B[0].data(), abs_b.data(), b_elems);
    bench::cublas_gemm_tn<T, float>(handle, m, n, k, abs_a.data(), abs_b.data(), mag.data());
    check_cuda(cudaDeviceSynchronize(), "magnitude GEMM");
  }
  const double flops = 2.0 * m * n * k;

  auto run_kernel = [&](auto const& gemm_tag) {
    using Gemm = std::decay_t<decltype(gemm_tag)>;
    Row row{shape, dtype, Gemm::name()};
    // One initialized handle per buffer set, so that a timed launch is run() alone.
    std::vector<Gemm> gemms(static_cast<std::size_t>(sets));
    for (int s = 0; s < sets; ++s) {
      typename Gemm::Arguments args{{m, n, k}, {A[s].data(), k}, {B[s].data(), k}, {nullptr, m}, {Dt[s].data(), m}, {1.f, 0.f}, 1};
      if (o.swizzle >= 0) args.swizzle = o.swizzle;
      if constexpr (requires { args.decomposition; }) {  // the stream-K scheduler's kernels
        args.decomposition = o.decomposition;
        args.split_k_slices = o.splits;
        if (o.atomic_reduction) args.reduction = gemm::kernel::ReductionMode::kNondeterministic;
      }
      if (const StatusInfo st = gemms[std::size_t(s)].initialize(args); !st.ok()) {
        row.verification = "refused: " + st.what();
        rows.push_back(row);
        return;
      }
    }
    // ---- Correct first, on set 0 ----
    verify::poison_device(Dt[0].data(), d_elems);
    verify::poison_device(Dc[0].data(), d_elems);
    if (const StatusInfo st = gemms[0].run(); !st.ok()) {
      row.verification = "launch failed: " + st.what();
      rows.push_back(row);
      return;
    }
    bench::cublas_gemm_tn<T, T>(handle, m, n, k, A[0].data(), B[0].data(), Dc[0].data());
    check_cuda(cudaDeviceSynchronize(), "first runs");
    const bench::PairReport pair = bench::compare_pair(Dt[0].data(), Dc[0].data(), mag.data(), d_elems, k);
    const bench::SampleReport sample =
        bench::sample_check(A[0].data(), B[0].data(), Dt[0].data(), Dc[0].data(), m, n, k, o.samples);
    row.ok = pair.failed == 0 && sample.failed_tessel == 0 && sample.failed_cublas == 0;
    if (!row.ok) {
      row.verification = "FAIL: " + std::to_string(pair.failed) + " of " + std::to_string(d_elems) + " differ from cuBLAS";
      if (pair.failed) {
        row.verification += " (first at row " + std::to_string(pair.first % m) + ", col " + std::to_string(pair.first / m) + ")";
      }
      row.verification += "; vs f64 on " + std::to_string(sample.samples) + " samples: tessel " +
                          std::to_string(sample.failed_tessel) + " out of budget, cuBLAS " + std::to_string(sample.failed_cublas);
      rows.push_back(row);
      return;
    }
    row.verification = "ok: all vs cuBLAS (worst " + fmt("%.2f", pair.worst) + "), " + std::to_string(sample.samples) +
                       " vs f64 (worst " + fmt("%.2f", sample.worst_tessel) + " / " + fmt("%.2f", sample.worst_cublas) + ")";

    // ---- Then fast ----
    cudaEvent_t ev[4];
    for (auto& e : ev) check_cuda(cudaEventCreate(&e), "cudaEventCreate");
    std::vector<float> t_ms, c_ms;
    for (int i = 0; i < o.warmup + o.runs; ++i) {
      const int st_set = (2 * i) % sets, cb_set = (2 * i + 1) % sets;
      check_cuda(cudaEventRecord(ev[0]), "cudaEventRecord");
      if (const StatusInfo st = gemms[std::size_t(st_set)].run(); !st.ok()) throw std::runtime_error(st.what());
      check_cuda(cudaEventRecord(ev[1]), "cudaEventRecord");
      bench::cublas_gemm_tn<T, T>(handle, m, n, k, A[cb_set].data(), B[cb_set].data(), Dc[cb_set].data());
      check_cuda(cudaEventRecord(ev[2]), "cudaEventRecord");
      check_cuda(cudaEventSynchronize(ev[2]), "cudaEventSynchronize");
      float t = 0, c = 0;
      check_cuda(cudaEventElapsedTime(&t, ev[0], ev[1]), "cudaEventElapsedTime");
      check_cuda(cudaEventElapsedTime(&c, ev[1], ev[2]), "cudaEventElapsedTime");
      if (i >= o.warmup) {
        t_ms.push_back(t);
        c_ms.push_back(c);
      }
    }
    for (auto& e : ev) cudaEventDestroy(e);
    row.tessel_tflops = flops / (median(t_ms) * 1e-3) / 1e12;
    row.cublas_tflops = flops / (median(c_ms) * 1e-3) / 1e12;
    std::printf("# %s %s %s: tessel %.1f TFLOP/s, cuBLAS %.1f TFLOP/s (medians of %d)\n", shape.c_str(), dtype,
                row.kernel.c_str(), row.tessel_tflops, row.cublas_tflops, o.runs);
    if constexpr (requires { gemms[0].describe(); }) std::printf("#   work: %s\n", gemms[0].describe().c_str());
    rows.push_back(row);
  };
  if (o.sm80_only) std::apply([&](auto&&... g) { (run_kernel(g), ...); }, Sm80Kernels<T>{});
  else std::apply([&](auto&&... g) { (run_kernel(g), ...); }, Kernels<T>{});
}

std::string table(const std::vector<Row>& rows) {
  std::string s =
      "| shape | dtype | tessel kernel | tessel TFLOP/s | cuBLAS TFLOP/s | ratio | verification |\n"
      "|---|---|---|---:|---:|---:|---|\n";
  for (const Row& r : rows) {
    const bool timed = r.ok && r.cublas_tflops > 0;
    s += "| " + r.shape + " | " + r.dtype + " | `" + r.kernel + "` | " + (timed ? fmt("%.1f", r.tessel_tflops) : "-") +
         " | " + (timed ? fmt("%.1f", r.cublas_tflops) : "-") + " | " +
         (timed ? fmt("%.2f", r.tessel_tflops / r.cublas_tflops) : "-") + " | " + r.verification + " |\n";
  }
  return s;
}

int usage(const char* argv0, const char* why) {
  std::fprintf(stderr,
               "%s%s\nusage: %s [--m M --n N --k K] [--dtype f16|bf16|all] [--runs R>=20] [--warmup W] [--samples S] "
               "[--out FILE] [--sm80-only] [--swizzle S] [--decomposition heuristic|data-parallel|stream-K|split-K:S] [--atomic-reduction]\n",
               why, *why ? "\n" : "", argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  int m = 0, n = 0, k = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--sm80-only") {
      o.sm80_only = true;
      continue;
    }
    if (a == "--atomic-reduction") {
      o.atomic_reduction = true;
      continue;
    }
    if (i + 1 >= argc) return usage(argv[0], ("missing value after " + a).c_str());
    const char* v = argv[++i];
    auto positive = [&](int& out) { return bench::parse_int(v, 1, 1 << 20, out); };
    bool ok = true;
    if (a == "--m") ok = positive(m);
    else if (a == "--n") ok = positive(n);
    else if (a == "--k") ok = positive(k);
    else if (a == "--runs") ok = positive(o.runs) && o.runs >= 20;
    else if (a == "--warmup") ok = positive(o.warmup);
    else if (a == "--samples") ok = positive(o.samples) && o.samples >= 2;
    else if (a == "--out") o.out = v;
    else if (a == "--swizzle") ok = positive(o.swizzle);
    else if (a == "--decomposition") {
      using gemm::kernel::DecompositionMode;
      const std::string d = v;
      if (d == "heuristic") o.decomposition = DecompositionMode::Heuristic;
      else if (d == "data-parallel") o.decomposition = DecompositionMode::DataParallel;
      else if (d == "stream-K") o.decomposition = DecompositionMode::StreamK;
      else if (d.rfind("split-K:", 0) == 0) {
        o.decomposition = DecompositionMode::SplitK;
        ok = bench::parse_int(v + 8, 1, 64, o.splits);
      } else {
        ok = false;
      }
    }
    else if (a == "--dtype") {
      const std::string d = v;
      if (d == "all") o.dtypes = {"f16", "bf16"};
      else if (d == "f16" || d == "bf16") o.dtypes = {d};
      else ok = false;
    } else {
      return usage(argv[0], ("unknown option " + a).c_str());
    }
    if (!ok) return usage(argv[0], ("bad value for " + a + ": " + v).c_str());
  }
  if (m || n || k) {
    if (!(m && n && k)) return usage(argv[0], "--m, --n and --k go together");
    o.shapes = {{m, n, k}};
  }

  arch::DeviceArch dev;
  if (int const rc = bench::require_cuda_device("gemm_bench", "the benchmark needs a GPU of compute capability 8.0 or newer", dev))
    return rc;
  int driver = 0, runtime = 0, cublas_version = 0, sms = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);

  std::vector<Row> rows;
  try {
    cublasHandle_t handle;
    bench::check_cublas(cublasCreate(&handle), "cublasCreate");
    bench::check_cublas(cublasGetVersion(handle, &cublas_version), "cublasGetVersion");
    for (const auto& s : o.shapes) {
      for (const std::string& d : o.dtypes) {
        if (d == "f16") bench_shape<half_t>(s[0], s[1], s[2], "f16", o, handle, rows);
        else bench_shape<bfloat16_t>(s[0], s[1], s[2], "bf16", o, handle, rows);
      }
    }
    cublasDestroy(handle);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemm_bench: %s\n", e.what());
    return 3;
  }

  char env[512];
  std::snprintf(env, sizeof env,
                "%s (compute capability %d.%d, %d SMs), driver API %d, CUDA runtime %d, cuBLAS %d; TN, D in the input "
                "type, FP32 accumulate; median of %d launches after %d warm-up\n\n",
                dev.name.c_str(), dev.compute_capability / 10, dev.compute_capability % 10, sms, driver, runtime,
                cublas_version, o.runs, o.warmup);
  const std::string out = std::string(env) + table(rows);
  std::printf("\n%s", out.c_str());
  if (!o.out.empty()) {
    std::ofstream f(o.out);
    f << out;
    if (!f) {
      std::fprintf(stderr, "gemm_bench: cannot write %s\n", o.out.c_str());
      return 3;
    }
  }
  const bool all_ok = std::all_of(rows.begin(), rows.end(), [](const Row& r) { return r.ok; });
  return all_ok ? 0 : 1;
}
