// The small-N (decode) GEMM against cuBLAS, side by side in one process.
//
//   decode_bench [--m M --n N --k K] [--splits S,S,...] [--variants all|V,V,...] [--runs R>=50] [--warmup W]
//                [--samples S] [--out FILE]
//
// Problem: D(M,N) = A(M,K) B(N,K)^T, A the weights (bf16, row-major), B the activations (bf16,
// N x K, K contiguous), D bf16 row-major, FP32 accumulate, alpha 1, beta 0. By default
// 4096x16x4096, 28672x16x8192, 4096x1x4096 and 8192x64x8192.
//
// cuBLAS is column-major. A row-major M x N D is the column-major N x M matrix D^T = B A^T, so
// cuBLAS computes the very same memory as the swapped problem (m, n) = (N, M) with op(B) = T on
// the N x K activations and op(A) = N on the weights read as a K x M column-major matrix. That
// run is what tessel is verified against. cuBLAS is also timed on the unswapped problem (D
// column-major, M x N), which reads the same A and B and writes D transposed; the ratio is taken
// against the faster of the two.
//
// Method (as gemm_bench.cu): correct first, then fast. Every element of tessel's D is checked
// against cuBLAS within the sum of both error budgets, a sample against a double reference on
// the device, and a second run must give the same bits; a failure is reported, not timed, and
// the program exits 1. Timing: CUDA events around each launch, tessel and both cuBLAS runs
// interleaved launch by launch, warm-up first, median of R >= 50. Each launch takes the next of
// many buffer sets (A, B, D), together more than 4x the L2 cache, so no launch finds its weights
// in L2. The launches of a batch are queued behind a short spin kernel so that the GPU runs them
// back to back: at ~10 us per GEMM, host launch latency must not land between the events.
//
// Graph columns: a decode step runs its GEMMs back to back, with no event and no host between
// them. So every row is also timed as METHOD's short-kernel rule says: one CUDA graph per
// contender holding one launch on each buffer set in turn (the sets as above, so each launch
// still reads its weights from DRAM), replays timed with events, median / launches per graph.
// This is the time a launch adds to a step.
//
// Floor rows: after a shape's GEMM rows, two that are not GEMMs, timed the same way in the same
// run (their launches interleaved, behind the spin kernel, median of R, A taken from the rotated
// sets). floor:empty is an empty kernel launched as tessel's chosen kernel is (grid, block, shared
// memory): the fixed launch + ramp cost. floor:read_A reads A once, cold in L2, with 16-byte loads
// on every resident thread: what streaming the weights costs here. A goal such as 10 us for
// 4096x16x4096 is only meaningful next to what a cold 32 MB read costs on this GPU in this harness,
// which the copy-bandwidth estimate alone does not say (it leaves out launch and ramp).
//
// --splits lists K split counts to run tessel with (0: its own choice, the default), one table
// row each, on the same buffers: a tuning sweep in one run. --variants lists kernel variants
// (GemmSmallN::variant_name; -1 the handle's choice, the default; "all" is -1 and every variant),
// one row per (split, variant), each verified before it is timed: the variant sweep of
// bench/NOTES.md ("Small-N kernel variants") is `--variants all`.
//
// Variant 10 (sm90_streamk_128x64) is the general Hopper kernel, on a compute capability 9.0 GPU
// only: with it --splits 0 is its decomposition heuristic, 1 data-parallel, s > 1 split-K.
//
// Output: a markdown table on stdout (and in FILE with --out): time, achieved TB/s of compulsory
// traffic (A + B read once, D written once), TFLOP/s, the time at the measured device copy
// bandwidth (the floor), both cuBLAS times, the ratio, tessel's plan, and the verification; on
// a floor row, its time, TB/s of A (floor:read_A) and its launch in the plan column.

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
#include <vector>

#include "bench_common.hpp"
#include "bench_verify.cuh"
#include "cublas_gemm.hpp"
#include "tessel/arch/runtime.hpp"
#include "tessel/gemm/device/gemm_small_n.hpp"
#include "tessel/verify/device_buffer.cuh"
#include "tessel/verify/device_fill.cuh"
#include "tessel/verify/device_spin.cuh"

namespace {

using namespace tessel;
using bench::fmt;
using bench::median;
using tessel::verify::check_cuda;
using tessel::verify::DeviceBuffer;
using T = bfloat16_t;
using Gemm = gemm::device::GemmSmallN<T>;

struct Options {
  std::vector<std::array<int, 3>> shapes{{4096, 16, 4096}, {28672, 16, 8192}, {4096, 1, 4096}, {8192, 64, 8192}};
  std::vector<int> splits{0};     // 0: the handle chooses
  std::vector<int> variants{-1};  // -1: the handle chooses
  int runs = 100;
  int warmup = 10;
  int samples = 4096;
  std::string out;
};

struct Row {
  std::string shape, variant, plan, verification;
  double bytes = 0, flops = 0;
  double tessel_us = 0, cublas_row_us = 0, cublas_col_us = 0;
  double tessel_graph_us = 0, cublas_graph_us = 0;  // per launch, replaying one graph (cuBLAS: the faster form)
  bool ok = false;
  bool floor = false;  // a floor:* row: not a GEMM, no cuBLAS columns
};

std::string shape_name(int m, int n, int k) { return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k); }

// floor:empty. Does nothing: launched as tessel's kernel is, its time is what any launch costs in
// this harness before it does work (launch, CTA ramp, drain).
__global__ void empty_kernel() {}

// floor:read_A. Reads `n` 16-byte vectors once, grid-stride, folding them into one word per
// thread. The word is stored only if it equals `key`, which the caller makes impossible (see
// bench_floors) where the compiler cannot prove it: every load stays, and nothing is written.
__global__ void read_kernel(const uint4* __restrict__ src, std::size_t n, unsigned key, unsigned* sink) {
  unsigned acc = 0;
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
#pragma unroll 4  // several loads in flight per thread
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint4 v = src[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == key) *sink = acc;
}

// Device-to-device copy bandwidth, (read + write bytes) / time, median of 10 copies of 1 GiB:
// the bandwidth a streaming kernel can hope for on this GPU.
double copy_bandwidth_tbs() {
  const std::size_t bytes = std::size_t(1) << 30;
  DeviceBuffer<unsigned char> src(bytes), dst(bytes);
  check_cuda(cudaMemset(src.data(), 1, bytes), "cudaMemset");
  cudaEvent_t a, b;
  check_cuda(cudaEventCreate(&a), "cudaEventCreate");
  check_cuda(cudaEventCreate(&b), "cudaEventCreate");
  std::vector<float> ms;
  for (int i = 0; i < 12; ++i) {
    check_cuda(cudaEventRecord(a), "cudaEventRecord");
    check_cuda(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice), "cudaMemcpyAsync");
    check_cuda(cudaEventRecord(b), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(b), "cudaEventSynchronize");
    float t = 0;
    check_cuda(cudaEventElapsedTime(&t, a, b), "cudaEventElapsedTime");
    if (i >= 2) ms.push_back(t);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return 2.0 * double(bytes) / (median(ms) * 1e-3) / 1e12;
}

using Launch = std::function<void(cudaStream_t)>;

// The times of `launches`, each the median of o.runs after o.warmup, in us, measured as every row
// here is: interleaved launch by launch on `stream`, CUDA events around each launch, the launches
// of a batch queued behind a short spin kernel so that the GPU runs them back to back (at ~10 us
// a launch, host launch latency must not land between the events).
std::vector<double> time_launches(const std::vector<Launch>& launches, const Options& o, cudaStream_t stream) {
  constexpr int kBatch = 10;  // iterations queued behind one spin kernel
  const std::size_t per = launches.size() + 1;  // events per iteration
  const int total = o.warmup + o.runs;
  std::vector<cudaEvent_t> ev(per * kBatch);
  for (auto& e : ev) check_cuda(cudaEventCreate(&e), "cudaEventCreate");
  std::vector<std::vector<float>> ms(launches.size());
  for (int i0 = 0; i0 < total; i0 += kBatch) {
    const int count = std::min(kBatch, total - i0);
    check_cuda(verify::spin(2'000'000ull, stream), "spin kernel");  // 2 ms: longer than queueing a batch takes on the host
    for (int b = 0; b < count; ++b) {
      cudaEvent_t* e = &ev[per * std::size_t(b)];
      check_cuda(cudaEventRecord(e[0], stream), "cudaEventRecord");
      for (std::size_t j = 0; j < launches.size(); ++j) {
        launches[j](stream);
        check_cuda(cudaEventRecord(e[j + 1], stream), "cudaEventRecord");
      }
    }
    check_cuda(cudaEventSynchronize(ev[per * std::size_t(count) - 1]), "cudaEventSynchronize");
    for (int b = 0; b < count; ++b) {
      if (i0 + b < o.warmup) continue;
      const cudaEvent_t* e = &ev[per * std::size_t(b)];
      for (std::size_t j = 0; j < launches.size(); ++j) {
        float t = 0;
        check_cuda(cudaEventElapsedTime(&t, e[j], e[j + 1]), "cudaEventElapsedTime");
        ms[j].push_back(t);
      }
    }
  }
  for (auto& e : ev) cudaEventDestroy(e);
  check_cuda(cudaGetLastError(), "timed launches");
  std::vector<double> us;
  for (const auto& t : ms) us.push_back(median(t) * 1e3);
  return us;
}

// The time per launch of each of `launches` when `per_graph` of them (each call takes the next
// buffer set) run back to back from one CUDA graph: replays timed as time_launches times a launch,
// divided by per_graph.
std::vector<double> time_graphs(const std::vector<Launch>& launches, int per_graph, const Options& o, cudaStream_t stream) {
  std::vector<cudaGraphExec_t> execs;
  for (const Launch& launch : launches) {
    cudaGraph_t graph = nullptr;
    check_cuda(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    for (int i = 0; i < per_graph; ++i) launch(stream);
    check_cuda(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
    cudaGraphExec_t exec = nullptr;
    check_cuda(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
    check_cuda(cudaGraphDestroy(graph), "cudaGraphDestroy");
    execs.push_back(exec);
  }
  std::vector<Launch> replays;
  for (cudaGraphExec_t exec : execs)
    replays.push_back([exec](cudaStream_t s) { check_cuda(cudaGraphLaunch(exec, s), "cudaGraphLaunch"); });
  std::vector<double> us = time_launches(replays, o, stream);
  for (cudaGraphExec_t exec : execs) cudaGraphExecDestroy(exec);
  for (double& t : us) t /= per_graph;
  return us;
}

// The operands of one shape: `sets` buffer sets and the magnitudes for set 0's budget.
struct ShapeBuffers {
  int sets = 0;
  std::vector<DeviceBuffer<T>> A, B, Dt, Dr, Dc;  // Dt tessel's D, Dr / Dc cuBLAS's (D row / column-major)
  DeviceBuffer<float> mag;                        // |B||A|^T, for the budget of the tessel-vs-cuBLAS comparison
};

// One (shape, split): verification, then timing, on buffers prepared by bench_shape.
void bench_split(int m, int n, int k, int split, int variant, const Options& o, cublasHandle_t handle,
                 cudaStream_t stream, ShapeBuffers& buf, std::vector<Row>& rows) {
  const std::size_t d_elems = std::size_t(m) * n;
  const int sets = buf.sets;
  auto& A = buf.A;
  auto& B = buf.B;
  auto& Dt = buf.Dt;
  auto& Dr = buf.Dr;
  auto& Dc = buf.Dc;
  Row row;
  row.shape = shape_name(m, n, k);
  row.variant = variant < 0 ? "default" : Gemm::variant_name(variant);
  row.bytes = double(std::size_t(m) * k + std::size_t(n) * k + d_elems) * sizeof(T);
  row.flops = 2.0 * m * n * k;
  // cuBLAS runs: the swapped problem gives D row-major (tessel's layout); the plain one D^T.
  auto cublas_row = [&](int s, cudaStream_t st = nullptr) {
    bench::check_cublas(cublasSetStream(handle, st), "cublasSetStream");
    bench::cublas_gemm_tn<T, T>(handle, n, m, k, B[s].data(), A[s].data(), Dr[s].data());
  };
  auto cublas_col = [&](int s, cudaStream_t st) {
    bench::check_cublas(cublasSetStream(handle, st), "cublasSetStream");
    bench::cublas_gemm_tn<T, T>(handle, m, n, k, A[s].data(), B[s].data(), Dc[s].data());
  };

  // One initialized handle per set (a timed launch is run() alone) sharing one workspace: they
  // run one after another on one stream, and each launch leaves the counters at zero.
  std::vector<Gemm> gemms(static_cast<std::size_t>(sets));
  auto args = [&](int s) {
    return Gemm::Arguments{{m, n, k}, {A[s].data(), k}, {B[s].data(), k}, {Dt[s].data(), n}, {1.f, 0.f}, split, variant};
  };
  DeviceBuffer<unsigned char> workspace(std::max<std::size_t>(Gemm::get_workspace_size(args(0)), 1));
  for (int s = 0; s < sets; ++s) {
    if (const StatusInfo st = gemms[std::size_t(s)].initialize(args(s), workspace.data(), stream); !st.ok()) {
      row.verification = "refused: " + st.what();
      rows.push_back(row);
      return;
    }
  }
  row.plan = gemms[0].describe();
  check_cuda(cudaDeviceSynchronize(), "initialize");

  // ---- Correct first, on set 0 ----
  verify::poison_device(Dt[0].data(), d_elems);
  verify::poison_device(Dr[0].data(), d_elems);
  if (const StatusInfo st = gemms[0].run(stream); !st.ok()) {
    row.verification = "launch failed: " + st.what();
    rows.push_back(row);
    return;
  }
  cublas_row(0, stream);
  check_cuda(cudaDeviceSynchronize(), "first runs");
  // In D^T's column-major terms (what the helpers expect): m' = N, n' = M, "A" = B, "B" = A.
  const bench::PairReport pair = bench::compare_pair(Dt[0].data(), Dr[0].data(), buf.mag.data(), d_elems, k);
  const bench::SampleReport sample = bench::sample_check(B[0].data(), A[0].data(), Dt[0].data(), Dr[0].data(), n, m, k, o.samples);
  const std::vector<T> first = Dt[0].download();
  verify::poison_device(Dt[0].data(), d_elems);
  if (const StatusInfo st = gemms[0].run(stream); !st.ok()) throw std::runtime_error(st.what());
  check_cuda(cudaDeviceSynchronize(), "second run");
  const std::vector<T> second = Dt[0].download();
  const bool same_bits = std::memcmp(first.data(), second.data(), first.size() * sizeof(T)) == 0;
  row.ok = pair.failed == 0 && sample.failed_tessel == 0 && sample.failed_cublas == 0 && same_bits;
  if (!row.ok) {
    row.verification = "FAIL: " + std::to_string(pair.failed) + " of " + std::to_string(d_elems) + " differ from cuBLAS";
    if (pair.failed) {  // first failure, in D^T's column-major index: row = e / N, col = e % N
      row.verification += " (first at row " + std::to_string(pair.first / n) + ", col " + std::to_string(pair.first % n) + ")";
    }
    row.verification += "; vs f64 on " + std::to_string(sample.samples) + " samples: tessel " +
                        std::to_string(sample.failed_tessel) + " out of budget, cuBLAS " + std::to_string(sample.failed_cublas) +
                        (same_bits ? "" : "; a second run gave different bits");
    rows.push_back(row);
    return;
  }
  row.verification = "ok: all vs cuBLAS (worst " + fmt("%.2f", pair.worst) + " of budget), " + std::to_string(sample.samples) +
                     " vs f64 (worst " + fmt("%.2f", sample.worst_tessel) + "), same bits twice";

  // ---- Then fast ----
  int launch = 0;  // every launch takes the next buffer set
  const std::vector<Launch> launches{
      [&](cudaStream_t st) {
        if (const StatusInfo r = gemms[std::size_t(launch++ % sets)].run(st); !r.ok()) throw std::runtime_error(r.what());
      },
      [&](cudaStream_t st) { cublas_row(launch++ % sets, st); }, [&](cudaStream_t st) { cublas_col(launch++ % sets, st); }};
  const std::vector<double> us = time_launches(launches, o, stream);
  row.tessel_us = us[0];
  row.cublas_row_us = us[1];
  row.cublas_col_us = us[2];
  // A graph holds one launch per set: capture starts on any set and covers them all.
  const std::vector<double> graph_us = time_graphs(launches, sets, o, stream);
  row.tessel_graph_us = graph_us[0];
  row.cublas_graph_us = std::min(graph_us[1], graph_us[2]);
  std::printf("# %s %s: tessel %.1f us, cuBLAS %.1f us (D row-major) / %.1f us (D column-major); in graphs of %d: tessel "
              "%.1f us, cuBLAS %.1f / %.1f us; medians of %d\n",
              row.shape.c_str(), row.variant.c_str(), row.tessel_us, row.cublas_row_us, row.cublas_col_us, sets,
              row.tessel_graph_us, graph_us[1], graph_us[2], o.runs);
  rows.push_back(row);
}

// The floor rows of one shape, on the buffers of its GEMM rows: floor:empty with the grid, block
// and shared memory of tessel's own plan, and floor:read_A, every resident thread reading A (its
// own rotation through the sets, so cold in L2) with 16-byte loads. None for a shape tessel refuses.
void bench_floors(int m, int n, int k, const Options& o, cudaStream_t stream, ShapeBuffers& buf, std::vector<Row>& rows) {
  const Gemm::Arguments args{{m, n, k}, {buf.A[0].data(), k}, {buf.B[0].data(), k}, {buf.Dt[0].data(), n}, {1.f, 0.f}, 0, -1};
  Gemm::Plan plan;
  if (!Gemm::can_implement(args).ok() || !Gemm::make_plan(args, plan).ok()) return;
  if (plan.smem > 48 * 1024) {
    check_cuda(cudaFuncSetAttribute(empty_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, plan.smem),
               "cudaFuncSetAttribute(empty_kernel)");
  }
  constexpr int kReadThreads = 256;
  int per_sm = 0;  // all resident at once: one wave, as many loads in flight as the GPU holds
  check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read_kernel, kReadThreads, 0),
             "querying the read kernel's occupancy");
  per_sm = std::max(per_sm, 1);
  const int read_grid = per_sm * plan.sms;
  // K is a multiple of 8 (can_implement), so A is whole 16-byte vectors. A holds values in [-1, 1]:
  // the exponent's top bit (bit 14) of every bf16 is clear, so no XOR of them has bit 30 set and
  // the key ~0u never matches.
  const std::size_t vectors = std::size_t(m) * k * sizeof(T) / sizeof(uint4);
  DeviceBuffer<unsigned> sink(1);
  int set = 0;
  const std::vector<Launch> launches{[&](cudaStream_t st) {
                                       empty_kernel<<<plan.split.grid, plan.threads, std::size_t(plan.smem), st>>>();
                                       check_cuda(cudaGetLastError(), "launching the empty kernel");
                                     },
                                     [&](cudaStream_t st) {
                                       const auto* a = reinterpret_cast<const uint4*>(buf.A[std::size_t(set++ % buf.sets)].data());
                                       read_kernel<<<read_grid, kReadThreads, 0, st>>>(a, vectors, ~0u, sink.data());
                                       check_cuda(cudaGetLastError(), "launching the read kernel");
                                     }};
  const std::vector<double> us = time_launches(launches, o, stream);
  const std::vector<double> graph_us = time_graphs(launches, buf.sets, o, stream);
  Row empty, read;
  empty.shape = read.shape = shape_name(m, n, k);
  empty.floor = read.floor = empty.ok = read.ok = true;
  empty.variant = "floor:empty";
  empty.tessel_us = us[0];
  empty.tessel_graph_us = graph_us[0];
  empty.plan = std::to_string(plan.split.grid) + " CTAs of " + std::to_string(plan.threads) + ", " + std::to_string(plan.smem) +
               " bytes of shared memory (tessel's " + Gemm::variant_name(plan.variant) + " launch)";
  empty.verification = "not a GEMM: an empty kernel, launch + ramp + drain";
  read.variant = "floor:read_A";
  read.tessel_us = us[1];
  read.tessel_graph_us = graph_us[1];
  read.bytes = double(vectors) * sizeof(uint4);
  read.plan = std::to_string(read_grid) + " CTAs of " + std::to_string(kReadThreads) + " (" + std::to_string(per_sm) +
              " per SM), 16-byte loads, grid-stride";
  read.verification = "not a GEMM: reads A once (" + fmt("%.1f", read.bytes / 1e6) + " MB, cold in L2), writes nothing";
  std::printf("# %s floors: empty kernel %.1f us, read A %.1f us; in graphs of %d: %.1f / %.1f us; medians of %d\n",
              read.shape.c_str(), empty.tessel_us, read.tessel_us, buf.sets, empty.tessel_graph_us, read.tessel_graph_us, o.runs);
  rows.push_back(empty);
  rows.push_back(read);
}

void bench_shape(int m, int n, int k, const Options& o, cublasHandle_t handle, cudaStream_t stream, std::vector<Row>& rows) {
  const std::size_t a_elems = std::size_t(m) * k, b_elems = std::size_t(n) * k, d_elems = std::size_t(m) * n;
  // Buffer sets: every launch (tessel, cuBLAS D row-major, cuBLAS D column-major) takes the next,
  // so a set comes back only after `sets - 1` others have streamed through L2.
  int l2 = 0;
  check_cuda(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0), "cudaDeviceGetAttribute(L2)");
  const double set_bytes = double(a_elems + b_elems) * sizeof(T) + 3.0 * d_elems * sizeof(T);
  ShapeBuffers buf;
  buf.sets = std::max(4, int(std::ceil(4.0 * l2 / set_bytes)) + 1);
  std::printf("# %dx%dx%d: %d buffer sets of %.1f MB (L2 %d MB)\n", m, n, k, buf.sets, set_bytes / 1e6, l2 >> 20);
  for (int s = 0; s < buf.sets; ++s) {
    buf.A.emplace_back(a_elems);
    buf.B.emplace_back(b_elems);
    buf.Dt.emplace_back(d_elems);
    buf.Dr.emplace_back(d_elems);
    buf.Dc.emplace_back(d_elems);
    verify::fill_random_device(buf.A.back().data(), a_elems, 300 + 2 * s, verify::Distribution::uniform(-1, 1));
    verify::fill_random_device(buf.B.back().data(), b_elems, 301 + 2 * s, verify::Distribution::uniform(-1, 1));
  }
  buf.mag = DeviceBuffer<float>(d_elems);
  {
    DeviceBuffer<T> abs_a(a_elems), abs_b(b_elems);
    bench::abs_device(buf.A[0].data(), abs_a.data(), a_elems);
    bench::abs_device(buf.B[0].data(), abs_b.data(), b_elems);
    bench::cublas_gemm_tn<T, float>(handle, n, m, k, abs_b.data(), abs_a.data(), buf.mag.data());
    check_cuda(cudaDeviceSynchronize(), "magnitude GEMM");
  }
  for (int split : o.splits)
    for (int variant : o.variants) bench_split(m, n, k, split, variant, o, handle, stream, buf, rows);
  bench_floors(m, n, k, o, stream, buf, rows);
}

// The issue's goals, where the shape is one of its shapes, per launch / in graphs.
std::string goal(const Row& r) {
  const double best = std::min(r.cublas_row_us, r.cublas_col_us);
  auto verdict = [](bool a, bool b) { return std::string(a ? "met" : "MISSED") + " / " + (b ? "met" : "MISSED"); };
  if (r.shape == "4096x16x4096") return verdict(r.tessel_us <= 10.0, r.tessel_graph_us <= 10.0) + " (<= 10 us)";
  if (r.shape == "28672x16x8192")
    return verdict(r.tessel_us <= best, r.tessel_graph_us <= r.cublas_graph_us) + " (>= 1.0x cuBLAS)";
  return "-";
}

std::string table(const std::vector<Row>& rows, double copy_tbs) {
  std::string s =
      "| shape (MxNxK) | variant | tessel us | TB/s | TFLOP/s | floor us | cuBLAS us (D row) | cuBLAS us (D col) | cuBLAS best / tessel "
      "| tessel us, graph | cuBLAS best us, graph | ratio, graph | goal (per launch / graph) | tessel plan | verification |\n"
      "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|\n";
  for (const Row& r : rows) {
    const bool timed = r.ok && r.tessel_us > 0;
    const bool gemm = timed && !r.floor;  // a floor row has a time and bytes, but no FLOPs and no cuBLAS
    const double best = std::min(r.cublas_row_us, r.cublas_col_us);
    auto cell = [&](bool on, const char* f, double v) { return on ? fmt(f, v) : std::string("-"); };
    s += "| " + r.shape + " | " + r.variant + " | " + cell(timed, "%.1f", r.tessel_us) + " | " +
         cell(timed && r.bytes > 0, "%.2f", r.bytes / (r.tessel_us * 1e-6) / 1e12) + " | " +
         cell(gemm, "%.1f", r.flops / (r.tessel_us * 1e-6) / 1e12) + " | " +
         cell(copy_tbs > 0 && r.bytes > 0, "%.1f", r.bytes / (copy_tbs * 1e12) * 1e6) + " | " +
         cell(gemm, "%.1f", r.cublas_row_us) + " | " + cell(gemm, "%.1f", r.cublas_col_us) + " | " +
         cell(gemm, "%.2fx", best / r.tessel_us) + " | " + cell(timed, "%.1f", r.tessel_graph_us) + " | " +
         cell(gemm, "%.1f", r.cublas_graph_us) + " | " + cell(gemm, "%.2fx", r.cublas_graph_us / r.tessel_graph_us) + " | " +
         (gemm ? goal(r) : "-") + " | " + r.plan + " | " + r.verification + " |\n";
  }
  return s;
}

int usage(const char* argv0, const char* why) {
  std::fprintf(stderr,
               "%s%s\nusage: %s [--m M --n N --k K] [--splits S,S,... (0: automatic)] [--variants all|V,V,... (-1: automatic)] "
               "[--runs R>=50] [--warmup W] [--samples S] [--out FILE]\n",
               why, *why ? "\n" : "", argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  int m = 0, n = 0, k = 0;
  bool all_variants = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return usage(argv[0], ("missing value after " + a).c_str());
    const char* v = argv[++i];
    auto positive = [&](int& out) { return bench::parse_int(v, 1, 1 << 20, out); };
    bool ok = true;
    if (a == "--m") ok = positive(m);
    else if (a == "--n") ok = positive(n);
    else if (a == "--k") ok = positive(k);
    else if (a == "--splits") ok = bench::parse_int_list(v, 0, 4096, o.splits);
    else if (a == "--variants") {
      if (std::string(v) == "all") {
        all_variants = true;
        o.variants.clear();
        for (int x = -1; x < Gemm::kVariants; ++x) o.variants.push_back(x);
      } else {
        ok = bench::parse_int_list(v, -1, Gemm::kVariants - 1, o.variants);
      }
    }
    else if (a == "--runs") ok = positive(o.runs) && o.runs >= 50;
    else if (a == "--warmup") ok = positive(o.warmup);
    else if (a == "--samples") ok = positive(o.samples) && o.samples >= 2;
    else if (a == "--out") o.out = v;
    else return usage(argv[0], ("unknown option " + a).c_str());
    if (!ok) return usage(argv[0], ("bad value for " + a + ": " + v).c_str());
  }
  if (m || n || k) {
    if (!(m && n && k)) return usage(argv[0], "--m, --n and --k go together");
    o.shapes = {{m, n, k}};
  }

  arch::DeviceArch dev;
  if (int const rc = bench::require_cuda_device("decode_bench", "the benchmark needs a GPU of compute capability 8.0 or newer", dev))
    return rc;
  // "all" means every variant this GPU runs: the Hopper kernel's only on compute capability 9.0.
  if (all_variants && dev.compute_capability != 90) std::erase(o.variants, Gemm::kHopperVariant);
  int driver = 0, runtime = 0, cublas_version = 0, sms = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);

  std::vector<Row> rows;
  double copy_tbs = 0;
  try {
    copy_tbs = copy_bandwidth_tbs();
    std::printf("# device copy bandwidth: %.2f TB/s (read + write, 1 GiB)\n", copy_tbs);
    cublasHandle_t handle;
    bench::check_cublas(cublasCreate(&handle), "cublasCreate");
    bench::check_cublas(cublasGetVersion(handle, &cublas_version), "cublasGetVersion");
    // Graphs are captured from a stream of our own, not the legacy one; a blocking stream, so that
    // the checks' work on the legacy stream stays ordered with it.
    cudaStream_t stream = nullptr;
    check_cuda(cudaStreamCreate(&stream), "cudaStreamCreate");
    for (const auto& s : o.shapes) bench_shape(s[0], s[1], s[2], o, handle, stream, rows);
    cublasDestroy(handle);
    cudaStreamDestroy(stream);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "decode_bench: %s\n", e.what());
    return 3;
  }

  char env[768];
  std::snprintf(env, sizeof env,
                "%s (compute capability %d.%d, %d SMs), driver API %d, CUDA runtime %d, cuBLAS %d; bf16 in, FP32 "
                "accumulate, bf16 D; A weights M x K row-major, B activations N x K; median of %d launches after %d "
                "warm-up; graph columns: per launch in a CUDA graph of one launch per buffer set; floor us = the row's bytes (A + B + D; floor:read_A: A) at the measured copy bandwidth of %.2f TB/s; "
                "floor:* rows are not GEMMs but measured floors (header of bench/decode_bench.cu)\n\n",
                dev.name.c_str(), dev.compute_capability / 10, dev.compute_capability % 10, sms, driver, runtime,
                cublas_version, o.runs, o.warmup, copy_tbs);
  const std::string out = std::string(env) + table(rows, copy_tbs);
  std::printf("\n%s", out.c_str());
  if (!o.out.empty()) {
    std::ofstream f(o.out);
    f << out;
    if (!f) {
      std::fprintf(stderr, "decode_bench: cannot write %s\n", o.out.c_str());
      return 3;
    }
  }
  const bool all_ok = std::all_of(rows.begin(), rows.end(), [](const Row& r) { return r.ok; });
  return all_ok ? 0 : 1;
}
