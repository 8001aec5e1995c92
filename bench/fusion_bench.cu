// The Hopper epilogue fusion and the FP8 GEMM, each against what it replaces, in one process.
//
//   fusion_bench [--part fusion|fp8|fp8block|all] [--shapes MxNxK[,MxNxK...]] [--runs R] [--warmup W] [--samples S]
//
// Part "fusion", bf16 in, TN (A row-major M x K, B column-major K x N), D row-major, f32 accumulate;
// by default 8192x8192x8192 and 8192x28672x8192 (M x N x K):
//   tessel plain   GemmUniversalAdapter from the collective builders, bf16 D, 128x256x64 tile,
//                  cluster 1x1x1, cooperative
//   tessel fused   the same mainloop with LinCombBiasGeluAmaxFp8: D = e4m3(scale_d * gelu(acc + bias)),
//                  amax of the pre-scale values; the memset that zeroes amax before each launch is
//                  part of the timed step, as it is part of the real cost
//   unfused        a GEMM writing bf16 D (cuBLAS, or tessel plain), then one elementwise kernel
//                  (verify/fp8_epilogue_chain.cuh) that reads D and does bias + GELU + amax + e4m3,
//                  amax memset included;
//                  GELU in both forms: erf (PyTorch's default) and tanh (approximate="tanh",
//                  hardware tanh on the device), each fused row checked against its own chain
// Part "fp8": e4m3 x e4m3 -> bf16, f32 accumulate, TN (both operands K-major, as wgmma requires for
// 8-bit types), D row-major; by default 4096^3, 8192^3 and 8192x28672x8192. tessel 128x256x128
// (cooperative, clusters of 1 and 2x1), 128x128x128 with promoted accumulation (cooperative) and
// 128x128x128 ping-pong, against cuBLASLt's FP8 matmul, the first algorithm of its heuristic with
// a 32 MB workspace, in its default accumulation and in its fast-accumulation mode
// (CUBLASLT_MATMUL_DESC_FAST_ACCUM). tessel's default mainloop accumulates in the tensor core without
// promotion to f32 registers, which is what the fast mode does, so that column is the like-for-like
// one for the first two; the promoted kernel compares with cuBLASLt's default mode.
// Part "fp8block": FP8 with per-block scales (DeepSeek-V3: f32 scales per 1 x 128 of A, per
// 128 x 128 of B), e4m3 -> bf16; by default 4096x7168x4096, 8192x7168x7168, 4096x18432x7168 and
// 4096x7168x16384. tessel's block-scaled 128x128x128 kernel against cuBLASLt's block-scaled matmul
// (VEC128_32F and BLK128x128_32F scale modes) in both orientations (D row-major, and D column-major
// where cuBLASLt's heuristic offers it), and against tessel's per-tensor FP8 kernels on the same
// operands (the cost of the scales).
//
// Method: correct first, then fast; a failed check is reported, that shape's kernels are not timed,
// and the program exits 1. Timing: CUDA events around every step; all steps of a part interleaved
// launch by launch, so clocks and temperature treat them alike, each iteration queued behind a
// short spin kernel (no step waits for the host) and starting one step further along the order;
// warm-up iterations first, then the median of R >= 20. Operands rotate over buffer sets that
// together hold more than four times the L2 (each launch takes the next set, so none finds its
// inputs in L2 from an earlier one); the count is printed, at least four where memory allows and
// never fewer than two.
//
// Verification, fusion part (operands uniform in [-1, 1], bias uniform in [-4, 4], scale_d 3, so
// that the tail of the distribution saturates at 448):
//   plain:  every element against cuBLAS within both kernels' error budgets, and a sample against a
//           double reference (bench_verify.cuh);
//   fused:  every element against the unfused kernel applied to the f32 accumulators of the same
//           mainloop (tessel with an f32 D): equal except where a different contraction of the same
//           float math moves a value across an e4m3 rounding boundary, so within 1 e4m3 ulp, with the
//           count of differing elements reported; the amax over the whole output within 1e-3
//           relative of that chain's; and a grid of sampled elements against
//           e4m3(scale * gelu(exact + bias)) from a double reference, within 1 e4m3 ulp;
//   chains: their amax within 1e-2 relative of the fused one (their D is rounded to bf16 first).
// Verification, fp8 part: once on small integers (+-1, +-2), where every accumulation order and the
// tensor core's reduced-precision accumulation give the exact sum, so tessel must equal cuBLASLt in
// every element and bf16(exact) on the samples (within 1 bf16 ulp; differences counted); then on
// the timing data (uniform in [-1, 1]), where a sample against the double reference is held to a
// coarse bound, |err| <= rms/4 + bf16 rounding with rms = sqrt(sum (a b)^2) (a misplaced element
// errs by about 1.4 rms), and the worst error of every kernel is reported.
//
// Output: a header line (GPU, driver, CUDA and cuBLAS versions) and a markdown table per part.
// Exit status: 0 all checks passed, 1 a check failed, 2 no usable GPU or a bad command line,
// 3 a CUDA or cuBLAS error.

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "bench_common.hpp"
#include "bench_verify.cuh"
#include "cublas_gemm.hpp"
#include "tessel/arch/runtime.hpp"
#include "tessel/epilogue/fusion.hpp"
#include "tessel/gemm/device/gemm_universal_sm90.hpp"
#include "tessel/verify/cublaslt_fp8.hpp"
#include "tessel/verify/device_buffer.cuh"
#include "tessel/verify/device_fill.cuh"
#include "tessel/verify/device_spin.cuh"
#include "tessel/verify/fp8_epilogue_chain.cuh"
#include "tessel/verify/ulp_compare.cuh"

namespace {

using namespace tessel;
using bench::fmt;
using bench::median;
using namespace tessel::gemm;
namespace fu = tessel::epilogue::fusion;
using tessel::verify::check_cuda;
using tessel::verify::DeviceBuffer;
using verify::bias_gelu_amax_e4m3;  // the unfused epilogue (verify/fp8_epilogue_chain.cuh)
using verify::Distribution;
using verify::ulp_compare;
using verify::ulp_distance;
using verify::UlpReport;
using bf16 = bfloat16_t;
using e4m3 = float_e4m3_t;

constexpr float kScaleD = 3.f;

// ---- The tessel kernels ---------------------------------------------------------------------------

/// TN with D row-major (the kernel's native layout): A row-major M x K, B column-major K x N, one
/// 128-byte swizzle row of K per stage, cooperative, cluster 1x1x1 unless given, the stage count left to the
/// builder.
template <class EAB, int BM, int BN, class ED, class Fusion = epilogue::LinearCombination<ED, bf16>,
          class Schedule = collective::KernelTmaWarpSpecializedCooperative, int ClusterM = 1>
struct Sm90TN {
  static constexpr int kAlignAB = 16 / int(sizeof(EAB));
  using Tile = GemmShape<BM, BN, 128 / int(sizeof(EAB))>;
  using Cluster = GemmShape<ClusterM, 1, 1>;
  using Epilogue = typename collective::EpilogueBuilder<arch::Sm90, OpClassTensorOp, Tile, Cluster, collective::EpilogueTileAuto,
                                                        float, float, bf16, RowMajor, 8, ED, RowMajor, 16 / int(sizeof(ED)),
                                                        collective::EpilogueScheduleAuto, Fusion>::CollectiveOp;
  using Mainloop = typename collective::CollectiveBuilder<
      arch::Sm90, OpClassTensorOp, EAB, RowMajor, kAlignAB, EAB, ColumnMajor, kAlignAB, float, Tile, Cluster,
      collective::StageCountAutoCarveout<int(sizeof(typename Epilogue::SharedStorage))>,
      Schedule>::CollectiveOp;
  using Gemm = device::GemmUniversalAdapter<kernel::GemmUniversal<ProblemShapeMNKL, Mainloop, Epilogue>>;
};

using Fp8Epilogue = fu::LinCombBiasGeluAmaxFp8<bf16, bf16, e4m3>;
using PlainBf16 = Sm90TN<bf16, 128, 256, bf16>::Gemm;
using PlainF32 = Sm90TN<bf16, 128, 256, float>::Gemm;  // verification only: the accumulators themselves
using FusedE4m3 = Sm90TN<bf16, 128, 256, e4m3, Fp8Epilogue>::Gemm;
// GELU in its tanh form, with the hardware tanh (activation.hpp): the activation at a few
// instructions per element instead of erf's ~25.
using Fp8EpilogueTanh = fu::LinCombBiasGeluAmaxFp8<bf16, bf16, e4m3, fu::GeluTanh>;
using FusedE4m3Tanh = Sm90TN<bf16, 128, 256, e4m3, Fp8EpilogueTanh>::Gemm;
// The same pair on the ping-pong schedule, where one consumer's epilogue runs under the other's
// mainloop instead of stopping both.
using Pingpong = kernel::KernelTmaWarpSpecializedPingpong;
using PlainPingpong = Sm90TN<bf16, 128, 128, bf16, epilogue::LinearCombination<bf16, bf16>, Pingpong>::Gemm;
using FusedPingpong = Sm90TN<bf16, 128, 128, e4m3, Fp8Epilogue, Pingpong>::Gemm;
using Fp8Wide = Sm90TN<e4m3, 128, 256, bf16>::Gemm;
// The wide tile in a 2x1 cluster: B multicast to both CTAs, half of B's L2 reads, so that the
// producer's 3-stage lookahead (0.74 us of math per stage) is less exposed to L2 latency.
// (Ping-pong measured 0.89-0.93 of cuBLASLt on 64x256 tiles, 0.97-1.00 on 128x128: NOTES.md.)
using Fp8Cluster = Sm90TN<e4m3, 128, 256, bf16, epilogue::LinearCombination<bf16, bf16>,
                          collective::KernelTmaWarpSpecializedCooperative, 2>::Gemm;
// Promoted accumulation (each K tile's partial sum added into f32 registers): the accurate mode.
using Fp8Promoted = Sm90TN<e4m3, 128, 128, bf16, epilogue::LinearCombination<bf16, bf16>,
                           collective::KernelTmaWarpSpecializedCooperativeFP8Promoted>::Gemm;
// Ping-pong 128x128: each consumer's epilogue under the other's mainloop.
using Fp8Pingpong = Sm90TN<e4m3, 128, 128, bf16, epilogue::LinearCombination<bf16, bf16>, Pingpong>::Gemm;
using Fp8Kernels = std::tuple<Fp8Wide, Fp8Cluster, Fp8Promoted, Fp8Pingpong>;
// Per-block scales (DeepSeek-V3: A per 1 x 128, B per 128 x 128), promoted accumulation.
using Fp8BlockScaled = Sm90TN<e4m3, 128, 128, bf16, epilogue::LinearCombination<bf16, bf16>,
                              collective::KernelTmaWarpSpecializedCooperativeFP8BlockScaled>::Gemm;
constexpr int kFp8Kernels = int(std::tuple_size_v<Fp8Kernels>);

/// f(kernel, index) for each of the FP8 part's tessel kernels, in order.
template <class F>
void for_each_fp8(Fp8Kernels& kernels, F&& f) {
  [&]<std::size_t... I>(std::index_sequence<I...>) { (f(std::get<I>(kernels), int(I)), ...); }(std::make_index_sequence<kFp8Kernels>{});
}

template <class Gemm>
StatusInfo init_tn(Gemm& gemm, typename Gemm::ElementA const* a, typename Gemm::ElementB const* b, typename Gemm::ElementD* d,
                   int m, int n, int k, typename Gemm::Fusion::Arguments const& fusion = {}) {
  typename Gemm::Arguments args;
  args.problem_shape = {m, n, k, 1};
  args.mainloop.ptr_A = a;
  args.mainloop.dA = make_packed_stride(StrideKMajor{}, m, k);
  args.mainloop.ptr_B = b;
  args.mainloop.dB = make_packed_stride(StrideKMajor{}, n, k);  // B as (N, K): column-major K x N
  args.epilogue.thread = fusion;
  args.epilogue.dC = make_packed_stride(StrideKMajor{}, m, n);
  args.epilogue.ptr_D = d;
  args.epilogue.dD = make_packed_stride(StrideKMajor{}, m, n);
  return gemm.initialize(args);
}

template <class Fusion>
typename Fusion::Arguments fused_arguments(bf16 const* bias, float const* scale_d, float* amax) {
  typename Fusion::Arguments f;
  f.ptr_bias = bias;
  f.ptr_scale_d = scale_d;
  f.ptr_amax = amax;
  return f;
}

void throw_if(StatusInfo const& s, std::string const& what) {
  if (!s.ok()) throw std::runtime_error(what + ": " + s.what());
}

// ---- Sampled double references on the host -------------------------------------------------------------

/// A grid of sampled output elements, rows x cols, with the operand rows and columns they need
/// copied to the host as doubles: the corners always, the other rows and columns hashed.
struct Sample {
  int k = 0;
  std::vector<int> rows, cols;
  std::vector<double> a, b;  // rows.size() x k, cols.size() x k
  struct Exact {
    double sum, rms;  // sum_k a b, and sqrt(sum_k (a b)^2), the scale of its rounding errors
  };
  std::vector<Exact> exact;  // row-major over (rows, cols)
};

std::vector<int> sample_indices(int extent, int count, std::uint64_t seed) {
  std::vector<int> v(std::size_t(std::max(2, count)));
  v.front() = 0;
  v.back() = extent - 1;
  for (std::size_t i = 1; i + 1 < v.size(); ++i) v[i] = int(verify::splitmix64(seed + i) % std::uint64_t(extent));
  return v;
}

template <class T>
std::vector<double> fetch_doubles(T const* src, std::size_t count) {
  std::vector<T> raw(count);
  check_cuda(cudaMemcpy(raw.data(), src, count * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
  std::vector<double> out(count);
  for (std::size_t i = 0; i < count; ++i) out[i] = to_double(raw[i]);
  return out;
}

/// A row-major M x K and B column-major K x N on the device; about `samples` elements in all.
template <class T>
Sample take_sample(T const* a, T const* b, int m, int n, int k, int samples) {
  Sample s;
  s.k = k;
  int const side = std::max(2, int(std::ceil(std::sqrt(double(samples)))));
  s.rows = sample_indices(m, side, 0x5eed0001);
  s.cols = sample_indices(n, side, 0x5eed0002);
  for (int r : s.rows) {
    auto row = fetch_doubles(a + std::size_t(r) * k, std::size_t(k));
    s.a.insert(s.a.end(), row.begin(), row.end());
  }
  for (int c : s.cols) {
    auto col = fetch_doubles(b + std::size_t(c) * k, std::size_t(k));
    s.b.insert(s.b.end(), col.begin(), col.end());
  }
  for (std::size_t i = 0; i < s.rows.size(); ++i)
    for (std::size_t j = 0; j < s.cols.size(); ++j) {
      double sum = 0, sq = 0;
      for (int kk = 0; kk < k; ++kk) {
        double const p = s.a[i * k + kk] * s.b[j * k + kk];
        sum += p;
        sq += p * p;
      }
      s.exact.push_back({sum, std::sqrt(sq)});
    }
  return s;
}

/// The sampled elements against their exact sums: the worst error in units of the sum's rms, and
/// how many lie beyond bound(exact) ("not within": NaN counts).
template <class Bound>
std::pair<double, std::size_t> sample_errors(std::vector<bf16> const& got, Sample const& smp, Bound bound) {
  double worst = 0;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    auto const& e = smp.exact[i];
    double const err = std::fabs(to_double(got[i]) - e.sum);
    worst = std::max(worst, err / e.rms);
    bad += !(err <= bound(e));
  }
  return {worst, bad};
}

/// The sampled elements of a row-major M x N output, in the sample's order.
template <class T>
std::vector<T> gather(T const* d, Sample const& s, int n) {
  std::vector<T> out, row(static_cast<std::size_t>(n));
  for (int r : s.rows) {
    check_cuda(cudaMemcpy(row.data(), d + std::size_t(r) * n, row.size() * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
    for (int c : s.cols) out.push_back(row[std::size_t(c)]);
  }
  return out;
}

template <class Gelu>
double gelu_exact(double x) {
  if constexpr (std::is_same_v<Gelu, fu::GeluTanh>) {
    return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / 3.14159265358979323846) * (x + 0.044715 * x * x * x)));
  } else {
    static_assert(std::is_same_v<Gelu, fu::GeluErf>, "gelu_exact: GeluErf or GeluTanh");
    return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
  }
}

struct SampleUlps {
  std::size_t exact = 0, within_one = 0, count = 0;
  bool ok() const { return within_one == count; }
};

template <class T>
SampleUlps sample_ulps(std::vector<T> const& got, std::vector<T> const& want) {
  SampleUlps r;
  r.count = got.size();
  for (std::size_t i = 0; i < got.size(); ++i) {
    unsigned const d = ulp_distance(got[i], want[i]);
    r.exact += d == 0;
    r.within_one += d <= 1;
  }
  return r;
}

// ---- Timing helpers --------------------------------------------------------------------------------------


/// The events of one timed step on the default stream: start, stop, and a split between its two
/// parts where it has two (a GEMM and the epilogue kernel after it).
class StepEvents {
 public:
  StepEvents() {
    for (auto& e : ev_) check_cuda(cudaEventCreate(&e), "cudaEventCreate");
  }
  ~StepEvents() {
    for (auto e : ev_) cudaEventDestroy(e);
  }
  StepEvents(StepEvents const&) = delete;
  StepEvents& operator=(StepEvents const&) = delete;
  void start() { record(0); }
  void split() { record(1); }
  void stop() { record(2); }
  float ms() const { return elapsed(0, 2); }
  float first_ms() const { return elapsed(0, 1); }
  float second_ms() const { return elapsed(1, 2); }

 private:
  void record(int i) { check_cuda(cudaEventRecord(ev_[i]), "cudaEventRecord"); }
  float elapsed(int a, int b) const {
    float t = 0;
    check_cuda(cudaEventElapsedTime(&t, ev_[a], ev_[b]), "cudaEventElapsedTime");
    return t;
  }
  cudaEvent_t ev_[3]{};
};


/// Warm-up iterations, then `runs` timed ones, each queued behind a 1 ms spin kernel (longer than
/// the host takes to queue an iteration). Iteration i runs step (i + j) mod steps in place j, so
/// that every step takes every place in the order equally often: none always runs first after
/// the spin kernel, or always after the same neighbour. `record()` reads the events of each timed
/// iteration.
template <class Run, class Record>
void interleave(int steps, int warmup, int runs, Run&& run, Record&& record) {
  for (int it = 0; it < warmup + runs; ++it) {
    check_cuda(verify::spin(1'000'000ull), "spin_kernel launch");
    for (int j = 0; j < steps; ++j) run((it + j) % steps);
    check_cuda(cudaDeviceSynchronize(), "timed iteration");
    if (it >= warmup) record();
  }
}

/// Each launch takes the next buffer set.
struct RoundRobin {
  int sets, next = 0;
  int operator()() {
    int const s = next;
    next = (next + 1) % sets;
    return s;
  }
};

/// How many buffer sets of `set_bytes` to rotate over: together more than four times the L2, at
/// least four, but only as many as fit beside `reserve_bytes` of other allocations; never fewer than two.
int buffer_sets(double set_bytes, double reserve_bytes, int l2, std::string const& label) {
  int const want = std::max(4, int(std::ceil(4.0 * l2 / set_bytes)));
  std::size_t free = 0, total = 0;
  check_cuda(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
  double const room = double(free) - reserve_bytes - double(1ull << 30);  // 1 GiB for the libraries and the runtime
  int const fit = room > 0 ? int(room / set_bytes) : 0;
  int const sets = std::min(want, fit);
  if (sets < 2) throw std::runtime_error(label + ": fewer than two buffer sets fit in device memory");
  std::printf("# %s: %d buffer sets of %.0f MB, %.0f MB in all, %.1fx the %d MB L2%s\n", label.c_str(), sets, set_bytes / 1e6,
              sets * set_bytes / 1e6, sets * set_bytes / l2, l2 >> 20,
              sets < want ? " (fewer than wanted: memory allows no more)" : "");
  std::fflush(stdout);
  return sets;
}

std::string dims(int m, int n, int k) { return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k); }
double tflops(int m, int n, int k, double ms) { return 2.0 * m * n * k / (ms * 1e-3) / 1e12; }

struct Row {
  std::string shape, what, ratio = "-", ratio2 = "-", verification;
  double ms = 0, tflops = 0;
  bool timed = false, ok = true;
};

struct Options {
  std::vector<std::array<int, 3>> shapes;  // empty: each part's own
  bool fusion = true, fp8 = true, fp8_block = true;
  int runs = 30, warmup = 5, samples = 4096;
};

struct Context {
  cublasHandle_t blas;
  cublasLtHandle_t lt;
  int sms = 0, l2 = 0;
};

// ---- Part 1: the fused epilogue -------------------------------------------------------------------------

/// One rotation slot of part 1: operands, outputs and the two tessel handles bound to them.
template <class PlainT, class FusedT>
struct FusionSet {
  DeviceBuffer<bf16> a, b, d, bias;
  DeviceBuffer<e4m3> q;
  DeviceBuffer<float> amax;
  PlainT plain;
  FusedT fused;
  FusionSet(int m, int n, int k, int index, float const* scale_d)
      : a(std::size_t(m) * k), b(std::size_t(n) * k), d(std::size_t(m) * n), bias(std::size_t(n)), q(std::size_t(m) * n), amax(1) {
    verify::fill_random_device(a.data(), a.size(), 100 + 3 * index, Distribution::uniform(-1, 1));
    verify::fill_random_device(b.data(), b.size(), 101 + 3 * index, Distribution::uniform(-1, 1));
    verify::fill_random_device(bias.data(), bias.size(), 102 + 3 * index, Distribution::uniform(-4, 4));
    throw_if(init_tn(plain, a.data(), b.data(), d.data(), m, n, k), PlainT::name());
    throw_if(init_tn(fused, a.data(), b.data(), q.data(), m, n, k,
                     fused_arguments<typename FusedT::Fusion>(bias.data(), scale_d, amax.data())),
             FusedT::name());
  }
};

void zero_amax(float* amax) { check_cuda(cudaMemsetAsync(amax, 0, sizeof(float)), "cudaMemsetAsync(amax)"); }
float read_float(float const* p) {
  float v = 0;
  check_cuda(cudaMemcpy(&v, p, sizeof v, cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
  return v;
}
double relative(double x, double ref) { return std::fabs(x - ref) / std::max(std::fabs(ref), 1e-30); }

/// cuBLAS's bf16 GEMM with the same TN operands and a row-major D: as the column-major N x M
/// matrix D^T = B^T A^T, i.e. the TN problem with A and B exchanged.
void cublas_row_major(cublasHandle_t h, int m, int n, int k, bf16 const* a, bf16 const* b, bf16* d) {
  bench::cublas_gemm_tn<bf16, bf16>(h, n, m, k, b, a, d);
}

struct FusionVerdict {
  std::string plain, cublas, fused, chain_cublas, chain_tessel;
  bool ok_plain = false, ok_cublas = false, ok_fused = false, ok_chains = false;
  bool all() const { return ok_plain && ok_cublas && ok_fused && ok_chains; }
};

/// Every check of part 1, on buffer set 0.
template <class Gelu, class Set>
FusionVerdict verify_fusion(Set& s, int m, int n, int k, float const* scale_d, Context const& cx, int samples) {
  FusionVerdict v;
  std::size_t const mn = std::size_t(m) * n;
  DeviceBuffer<bf16> dc(mn);
  // Plain GEMM against cuBLAS, every element, and both against a double reference on a sample.
  verify::poison_device(s.d.data(), mn);
  verify::poison_device(dc.data(), mn);
  throw_if(s.plain.run(), "plain GEMM");
  cublas_row_major(cx.blas, m, n, k, s.a.data(), s.b.data(), dc.data());
  check_cuda(cudaDeviceSynchronize(), "plain GEMMs");
  bench::PairReport pair;
  {
    DeviceBuffer<float> mag(mn);
    DeviceBuffer<bf16> abs_a(s.a.size()), abs_b(s.b.size());
    bench::abs_device(s.a.data(), abs_a.data(), s.a.size());
    bench::abs_device(s.b.data(), abs_b.data(), s.b.size());
    bench::cublas_gemm_tn<bf16, float>(cx.blas, n, m, k, abs_b.data(), abs_a.data(), mag.data());
    check_cuda(cudaDeviceSynchronize(), "magnitude GEMM");
    pair = bench::compare_pair(s.d.data(), dc.data(), mag.data(), mn, k);
  }
  // The row-major M x N output is the column-major N x M one of the exchanged problem.
  bench::SampleReport const sample = bench::sample_check(s.b.data(), s.a.data(), s.d.data(), dc.data(), n, m, k, samples);
  v.ok_plain = pair.failed == 0 && sample.failed_tessel == 0;
  v.ok_cublas = sample.failed_cublas == 0;
  v.plain = v.ok_plain ? "ok: all vs cuBLAS (worst " + fmt("%.2f", pair.worst) + " of budget), " + std::to_string(sample.samples) +
                             " vs f64 (worst " + fmt("%.2f", sample.worst_tessel) + ")"
                       : "FAIL: " + std::to_string(pair.failed) + " differ from cuBLAS beyond budget, " +
                             std::to_string(sample.failed_tessel) + " of " + std::to_string(sample.samples) + " samples vs f64";
  v.cublas = (v.ok_cublas ? "ok: " : "FAIL: ") + std::to_string(sample.samples - sample.failed_cublas) + "/" +
             std::to_string(sample.samples) + " vs f64 (worst " + fmt("%.2f", sample.worst_cublas) + " of budget)";

  // The unfused epilogue over tessel's f32 accumulators: what the fused kernel should write.
  DeviceBuffer<float> d32(mn), amax_ref(1), amax_chain(1);
  DeviceBuffer<e4m3> q_ref(mn), q_chain(mn);
  {
    PlainF32 g32;
    throw_if(init_tn(g32, s.a.data(), s.b.data(), d32.data(), m, n, k), PlainF32::name());
    throw_if(g32.run(), "f32 GEMM");
    zero_amax(amax_ref.data());
    bias_gelu_amax_e4m3<Gelu>(d32.data(), s.bias.data(), scale_d, amax_ref.data(), q_ref.data(), m, n, cx.sms);
  }
  verify::poison_device(s.q.data(), mn);
  zero_amax(s.amax.data());
  throw_if(s.fused.run(), "fused GEMM");
  check_cuda(cudaDeviceSynchronize(), "fused GEMM");
  UlpReport const whole = ulp_compare(s.q.data(), q_ref.data(), std::int64_t(mn));
  float const amax_fused = read_float(s.amax.data()), amax_f32 = read_float(amax_ref.data());
  double const amax_rel = relative(amax_fused, amax_f32);

  // A sample against e4m3(scale * gelu(exact + bias)), the exact sum from a double reference.
  Sample const smp = take_sample(s.a.data(), s.b.data(), m, n, k, samples);
  std::vector<double> const bias = fetch_doubles(s.bias.data(), std::size_t(n));
  std::vector<e4m3> want;
  for (std::size_t i = 0; i < smp.rows.size(); ++i)
    for (std::size_t j = 0; j < smp.cols.size(); ++j) {
      double const z = smp.exact[i * smp.cols.size() + j].sum + bias[std::size_t(smp.cols[j])];
      want.push_back(numeric_cast<e4m3>(float(kScaleD * gelu_exact<Gelu>(z))));
    }
  SampleUlps const su = sample_ulps(gather(s.q.data(), smp, n), want);
  v.ok_fused = whole.beyond_one == 0 && amax_rel <= 1e-3 && amax_fused > 0 && su.ok();
  v.fused = std::string(v.ok_fused ? "ok" : "FAIL") + ": vs the unfused epilogue on f32 accumulators " + std::to_string(whole.differ) +
            " of " + std::to_string(mn) + " differ, " + std::to_string(whole.beyond_one) + " by > 1 ulp; amax " +
            fmt("%.6g", amax_fused) + " (rel " + fmt("%.1e", amax_rel) + "); vs f64 " + std::to_string(su.exact) + "/" +
            std::to_string(su.count) + " exact, " + std::to_string(su.count - su.within_one) + " beyond 1 ulp";

  // The chains: their amax from a bf16-rounded D, so close to the fused one but not equal.
  auto chain = [&](bf16 const* d, std::string& text) {
    zero_amax(amax_chain.data());
    bias_gelu_amax_e4m3<Gelu>(d, s.bias.data(), scale_d, amax_chain.data(), q_chain.data(), m, n, cx.sms);
    check_cuda(cudaDeviceSynchronize(), "unfused epilogue");
    UlpReport const u = ulp_compare(q_chain.data(), q_ref.data(), std::int64_t(mn));
    double const rel = relative(read_float(amax_chain.data()), amax_fused);
    bool const ok = rel <= 1e-2;
    text = std::string(ok ? "ok" : "FAIL") + ": amax rel " + fmt("%.1e", rel) + " of fused; vs f32 chain " +
           std::to_string(u.differ) + " differ, " + std::to_string(u.beyond_one) + " by > 1 ulp (D rounded to bf16 first)";
    return ok;
  };
  bool const c1 = chain(dc.data(), v.chain_cublas);
  bool const c2 = chain(s.d.data(), v.chain_tessel);
  v.ok_chains = c1 && c2;
  return v;
}

// ---- Part 2: the FP8 GEMM ------------------------------------------------------------------------------

/// cuBLASLt's FP8 matmul (verify/cublaslt_fp8.hpp) for the TN problem with a row-major D: the
/// column-major N x M matrix D^T = B^T A^T, so cuBLASLt's A is our B and its B our A.
class LtFp8 {
 public:
  LtFp8(cublasLtHandle_t h, int m, int n, int k, bool fast_accum, void* workspace, std::size_t workspace_bytes)
      : lt_(h, {n, m, k, k, k, n, fast_accum}, workspace, workspace_bytes) {
    if (lt_.status() != CUBLAS_STATUS_SUCCESS)
      throw std::runtime_error("cuBLASLt has no FP8 algorithm for " + dims(m, n, k) + ": " + cublasGetStatusName(lt_.status()));
  }
  void run(e4m3 const* a, e4m3 const* b, bf16* d) { bench::check_cublas(lt_.run(b, a, d), "cublasLtMatmul"); }

 private:
  verify::CublasLtFp8 lt_;
};

/// One rotation slot of part 2.
struct Fp8Set {
  DeviceBuffer<e4m3> a, b;
  DeviceBuffer<bf16> d;
  Fp8Kernels gemms;
  Fp8Set(int m, int n, int k, int index) : a(std::size_t(m) * k), b(std::size_t(n) * k), d(std::size_t(m) * n) {
    fill(index, Distribution::uniform(-1, 1));
    for_each_fp8(gemms, [&](auto& g, int) { throw_if(init_tn(g, a.data(), b.data(), d.data(), m, n, k), g.name()); });
  }
  void fill(int index, Distribution dist) {
    verify::fill_random_device(a.data(), a.size(), 200 + 2 * index, dist);
    verify::fill_random_device(b.data(), b.size(), 201 + 2 * index, dist);
  }
};

struct Fp8Verdict {
  std::string lt, lt_fast;
  std::array<std::string, kFp8Kernels> tessel;
  bool ok = true;
};

/// Every check of part 2, on buffer set 0 (left holding the timing data).
Fp8Verdict verify_fp8(Fp8Set& s, LtFp8& lt, LtFp8& lt_fast, int m, int n, int k, int samples) {
  Fp8Verdict v;
  std::size_t const mn = std::size_t(m) * n;
  DeviceBuffer<bf16> d_lt(mn), d_fast(mn);
  auto run_lts = [&] {
    verify::poison_device(d_lt.data(), mn);
    verify::poison_device(d_fast.data(), mn);
    lt.run(s.a.data(), s.b.data(), d_lt.data());
    lt_fast.run(s.a.data(), s.b.data(), d_fast.data());
    check_cuda(cudaDeviceSynchronize(), "cuBLASLt FP8");
  };
  auto run_tessel = [&](auto& gemm) {
    verify::poison_device(s.d.data(), mn);
    throw_if(gemm.run(), "FP8 GEMM");
    check_cuda(cudaDeviceSynchronize(), "FP8 GEMM");
  };

  // Small integers (+-1, +-2): every partial sum is an integer far below 2^11, exact in any order
  // and in any accumulator that keeps 12 bits or more, the tensor core's reduced-precision FP8
  // accumulation included; so every correct kernel writes bf16(exact sum).
  s.fill(0, Distribution::integers(-2, 2));
  run_lts();
  Sample smp = take_sample(s.a.data(), s.b.data(), m, n, k, samples);
  std::vector<bf16> want;
  for (auto const& e : smp.exact) want.push_back(numeric_cast<bf16>(float(e.sum)));  // an integer below 2^24: exact in float
  auto exact_text = [&](std::vector<bf16> const& got, bool& ok) {
    SampleUlps const u = sample_ulps(got, want);
    ok = ok && u.ok();
    return "integer data: " + std::to_string(u.exact) + "/" + std::to_string(u.count) + " f64 samples exact" +
           (u.ok() ? "" : ", " + std::to_string(u.count - u.within_one) + " beyond 1 ulp");
  };
  bool ok_lt = true, ok_fast = true;
  std::array<bool, kFp8Kernels> ok_tessel;
  ok_tessel.fill(true);
  v.lt = exact_text(gather(d_lt.data(), smp, n), ok_lt);
  v.lt_fast = exact_text(gather(d_fast.data(), smp, n), ok_fast);
  auto tessel_exact = [&](auto& gemm, bool& ok) {
    run_tessel(gemm);
    UlpReport const u = ulp_compare(s.d.data(), d_lt.data(), std::int64_t(mn));
    ok = u.beyond_one == 0;
    return exact_text(gather(s.d.data(), smp, n), ok) + ", " + std::to_string(u.differ) + " of " + std::to_string(mn) +
           " differ from cuBLASLt" + (u.beyond_one ? " (" + std::to_string(u.beyond_one) + " by > 1 ulp)" : "");
  };
  for_each_fp8(s.gemms, [&](auto& g, int i) { v.tessel[i] = tessel_exact(g, ok_tessel[i]); });

  // The timing data: errors of every kernel against the double reference, on the sample.
  s.fill(0, Distribution::uniform(-1, 1));
  run_lts();
  smp = take_sample(s.a.data(), s.b.data(), m, n, k, samples);
  auto accuracy = [&](std::vector<bf16> const& got, bool& ok) {
    auto const [worst, bad] = sample_errors(got, smp, [](Sample::Exact const& e) { return 0.25 * e.rms + std::fabs(e.sum) / 256; });
    ok = ok && bad == 0;
    return "; uniform data: worst |err| " + fmt("%.1e", worst) + " rms vs f64" + (bad ? ", " + std::to_string(bad) + " beyond rms/4" : "");
  };
  v.lt += accuracy(gather(d_lt.data(), smp, n), ok_lt);
  v.lt_fast += accuracy(gather(d_fast.data(), smp, n), ok_fast);
  auto tessel_random = [&](auto& gemm, bool& ok) {
    run_tessel(gemm);
    UlpReport const u = ulp_compare(s.d.data(), d_fast.data(), std::int64_t(mn));
    return accuracy(gather(s.d.data(), smp, n), ok) + ", " + std::to_string(u.differ) + " differ from fast-accum cuBLASLt";
  };
  for_each_fp8(s.gemms, [&](auto& g, int i) { v.tessel[i] += tessel_random(g, ok_tessel[i]); });
  auto verdict = [](bool ok, std::string& text) { text = (ok ? "ok: " : "FAIL: ") + text; };
  verdict(ok_lt, v.lt);
  verdict(ok_fast, v.lt_fast);
  v.ok = ok_lt && ok_fast;
  for (int i = 0; i < kFp8Kernels; ++i) {
    verdict(ok_tessel[i], v.tessel[i]);
    v.ok = v.ok && ok_tessel[i];
  }
  return v;
}

template <class PlainT, class FusedT>
void bench_fusion(int m, int n, int k, Options const& o, Context const& cx, std::vector<Row>& rows) {
  std::string const shape = dims(m, n, k);
  double const mk = double(m) * k, nk = double(n) * k, mn = double(m) * n;
  double const set_bytes = 2 * (mk + nk + mn) + mn + 2.0 * n;  // A, B, bf16 D, e4m3 D, bias
  // Verification's own buffers: cuBLAS's D, the f32 D, |A||B|, two e4m3 outputs, |A| and |B|.
  double const verify_bytes = mn * (2 + 4 + 4 + 2) + 2 * (mk + nk);
  int const sets = buffer_sets(set_bytes, verify_bytes, cx.l2, shape + " fusion");
  DeviceBuffer<float> scale_d(std::vector<float>{kScaleD});
  std::vector<FusionSet<PlainT, FusedT>> set;
  set.reserve(std::size_t(sets));
  for (int i = 0; i < sets; ++i) set.emplace_back(m, n, k, i, scale_d.data());

  using Gelu = typename FusedT::Fusion::GeluForm;
  FusionVerdict const v = verify_fusion<Gelu>(set[0], m, n, k, scale_d.data(), cx, o.samples);
  auto row = [&](std::string what, std::string const& verification, bool ok) {
    rows.push_back({shape, std::move(what), "-", "-", verification, 0, 0, false, ok});
    return rows.size() - 1;
  };
  std::size_t const r_cublas = row("cuBLAS bf16 GEMM (cublasGemmEx), bf16 D", v.cublas, v.ok_cublas);
  std::size_t const r_plain = row("tessel plain `" + PlainT::name() + "`", v.plain, v.ok_plain);
  std::size_t const r_fused = row("tessel fused `" + FusedT::name() + "` + amax memset", v.fused, v.ok_fused);
  std::string const epi = std::string("bias/") + fu::detail::functor_name<Gelu>() + "/amax/e4m3 kernel";
  std::size_t const r_chain_c = row("unfused: cuBLAS GEMM + " + epi, v.chain_cublas, v.ok_chains);
  std::size_t const r_chain_t = row("unfused: tessel plain GEMM + " + epi, v.chain_tessel, v.ok_chains);
  if (!v.all()) return;

  // The steps: plain, fused, the cuBLAS chain and the tessel chain (each GEMM | epilogue).
  enum { kPlain, kFused, kChainCublas, kChainTessel, kSteps };
  std::vector<StepEvents> ev(kSteps);
  std::vector<float> t_plain, t_fused, t_cublas, t_cublas_epi, t_chain_c, t_tessel, t_tessel_epi, t_chain_t;
  RoundRobin next{sets};
  auto run = [&](int step) {
    auto& x = set[std::size_t(next())];
    StepEvents& e = ev[std::size_t(step)];
    e.start();
    if (step == kPlain) {
      throw_if(x.plain.run(), "plain GEMM");
    } else if (step == kFused) {
      zero_amax(x.amax.data());
      throw_if(x.fused.run(), "fused GEMM");
    } else {
      if (step == kChainCublas) cublas_row_major(cx.blas, m, n, k, x.a.data(), x.b.data(), x.d.data());
      else throw_if(x.plain.run(), "plain GEMM");
      e.split();
      zero_amax(x.amax.data());
      bias_gelu_amax_e4m3<Gelu>(x.d.data(), x.bias.data(), scale_d.data(), x.amax.data(), x.q.data(), m, n, cx.sms);
    }
    e.stop();
  };
  auto record = [&] {
    t_plain.push_back(ev[kPlain].ms());
    t_fused.push_back(ev[kFused].ms());
    t_cublas.push_back(ev[kChainCublas].first_ms());
    t_cublas_epi.push_back(ev[kChainCublas].second_ms());
    t_chain_c.push_back(ev[kChainCublas].ms());
    t_tessel.push_back(ev[kChainTessel].first_ms());
    t_tessel_epi.push_back(ev[kChainTessel].second_ms());
    t_chain_t.push_back(ev[kChainTessel].ms());
  };
  interleave(kSteps, o.warmup, o.runs, run, record);
  auto set_time = [&](std::size_t r, double ms) {
    rows[r].ms = ms;
    rows[r].tflops = tflops(m, n, k, ms);
    rows[r].timed = true;
  };
  double const plain = median(t_plain), fused = median(t_fused), cublas = median(t_cublas);
  double const unfused_c = median(t_chain_c), unfused_t = median(t_chain_t);
  set_time(r_cublas, cublas);
  set_time(r_plain, plain);
  set_time(r_fused, fused);
  set_time(r_chain_c, unfused_c);
  set_time(r_chain_t, unfused_t);
  rows[r_plain].ratio = fmt("%.2fx cuBLAS speed", cublas / plain);
  rows[r_fused].ratio = fmt("fused/plain %.3f (goal <= 1.05)", fused / plain);
  rows[r_chain_c].ratio = fmt("unfused/fused %.2f (goal >= 1.33)", unfused_c / fused);
  rows[r_chain_t].ratio = fmt("unfused/fused %.2f (goal >= 1.33)", unfused_t / fused);
  rows[r_chain_c].ratio2 = fmt("GEMM %.3f + epilogue ", cublas) + fmt("%.3f ms", median(t_cublas_epi));
  rows[r_chain_t].ratio2 = fmt("GEMM %.3f + epilogue ", median(t_tessel)) + fmt("%.3f ms", median(t_tessel_epi));
  std::printf("# %s fusion: plain %.3f ms, fused %.3f ms, cuBLAS %.3f ms, unfused %.3f / %.3f ms (medians of %d)\n", shape.c_str(),
              plain, fused, cublas, unfused_c, unfused_t, o.runs);
  std::fflush(stdout);
}

void bench_fp8(int m, int n, int k, Options const& o, Context const& cx, std::vector<Row>& rows) {
  std::string const shape = dims(m, n, k);
  double const mk = double(m) * k, nk = double(n) * k, mn = double(m) * n;
  double const set_bytes = mk + nk + 2 * mn;
  double const workspace_bytes = 32 << 20;
  double const verify_bytes = 4 * mn + workspace_bytes;  // two cuBLASLt outputs, the workspace
  int const sets = buffer_sets(set_bytes, verify_bytes, cx.l2, shape + " fp8");
  DeviceBuffer<unsigned char> workspace{std::size_t(workspace_bytes)};
  LtFp8 lt(cx.lt, m, n, k, false, workspace.data(), workspace.size());
  LtFp8 lt_fast(cx.lt, m, n, k, true, workspace.data(), workspace.size());
  std::vector<Fp8Set> set;
  set.reserve(std::size_t(sets));
  for (int i = 0; i < sets; ++i) set.emplace_back(m, n, k, i);

  Fp8Verdict const v = verify_fp8(set[0], lt, lt_fast, m, n, k, o.samples);
  auto row = [&](std::string what, std::string const& verification) {
    rows.push_back({shape, std::move(what), "-", "-", verification, 0, 0, false, v.ok});
    return rows.size() - 1;
  };
  std::size_t const r_lt = row("cuBLASLt FP8 (heuristic's first algorithm)", v.lt);
  std::size_t const r_fast = row("cuBLASLt FP8, fast accumulation", v.lt_fast);
  std::size_t r[2 + kFp8Kernels] = {r_lt, r_fast};
  for_each_fp8(set[0].gemms, [&](auto& g, int i) { r[2 + i] = row("tessel `" + g.name() + "`", v.tessel[i]); });
  if (!v.ok) return;

  enum { kLt, kFast, kSteps = 2 + kFp8Kernels };
  std::vector<StepEvents> ev(kSteps);
  std::vector<std::vector<float>> t(kSteps);
  RoundRobin next{sets};
  auto run = [&](int step) {
    Fp8Set& x = set[std::size_t(next())];
    StepEvents& e = ev[std::size_t(step)];
    e.start();
    if (step == kLt) lt.run(x.a.data(), x.b.data(), x.d.data());
    else if (step == kFast) lt_fast.run(x.a.data(), x.b.data(), x.d.data());
    else for_each_fp8(x.gemms, [&](auto& g, int i) { if (step == 2 + i) throw_if(g.run(), "FP8 GEMM"); });
    e.stop();
  };
  auto record = [&] {
    for (int i = 0; i < kSteps; ++i) t[std::size_t(i)].push_back(ev[std::size_t(i)].ms());
  };
  interleave(kSteps, o.warmup, o.runs, run, record);
  double ms[kSteps];
  for (int i = 0; i < kSteps; ++i) ms[i] = median(t[std::size_t(i)]);
  for (int i = 0; i < kSteps; ++i) {
    rows[r[i]].ms = ms[i];
    rows[r[i]].tflops = tflops(m, n, k, ms[i]);
    rows[r[i]].timed = true;
  }
  double const goal = (m == 8192 && n == 8192 && k == 8192) ? 1.05 : 1.0;
  for (int i = 2; i < kSteps; ++i) {
    rows[r[i]].ratio = fmt("%.3f", ms[kLt] / ms[i]) + fmt(" (goal >= %.2f)", goal);
    rows[r[i]].ratio2 = fmt("%.3f", ms[kFast] / ms[i]);
  }
  std::string tessel;
  for (int i = 2; i < kSteps; ++i) tessel += fmt(i > 2 ? " / %.1f" : "%.1f", rows[r[i]].tflops);
  std::printf("# %s fp8: cuBLASLt %.1f, fast %.1f, tessel %s TFLOP/s (medians of %d)\n", shape.c_str(), rows[r_lt].tflops,
              rows[r_fast].tflops, tessel.c_str(), o.runs);
  std::fflush(stdout);
}

// ---- Part 3: FP8 with per-block scales ---------------------------------------------------------------

/// cuBLASLt's block-scaled FP8 matmul (1 x 128 scales on A, 128 x 128 on B, the layouts of
/// device::make_block_scale_stride_A/_B) in one orientation: D row-major (the column-major D^T, so
/// cuBLASLt's A is our B, with the 128 x 128 scales) or D column-major (its A is our A).
class LtBlockScaled {
 public:
  /// sfa, sfb: scales of the problem's layout, for cuBLASLt's heuristic (see cublaslt_fp8.hpp).
  LtBlockScaled(cublasLtHandle_t h, int m, int n, int k, bool d_row_major, float const* sfa, float const* sfb, void* workspace,
                std::size_t workspace_bytes)
      : row_major_(d_row_major), lt_(h, problem(m, n, k, d_row_major, sfa, sfb), workspace, workspace_bytes) {}
  bool offered() const { return lt_.status() == CUBLAS_STATUS_SUCCESS; }
  std::string status() const { return cublasGetStatusName(lt_.status()); }
  void run(e4m3 const* a, e4m3 const* b, float const* sfa, float const* sfb, bf16* d) const {
    if (row_major_) bench::check_cublas(lt_.run(b, a, d, 1.f, 0.f, nullptr, sfb, sfa), "cublasLtMatmul (block scales)");
    else bench::check_cublas(lt_.run(a, b, d, 1.f, 0.f, nullptr, sfa, sfb), "cublasLtMatmul (block scales)");
  }

 private:
  static verify::CublasLtFp8::Problem problem(int m, int n, int k, bool row_major, float const* sfa, float const* sfb) {
    verify::CublasLtFp8::Problem p{row_major ? n : m, row_major ? m : n, k, k, k, row_major ? n : m};
    p.scale_mode_a = row_major ? CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F : CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
    p.scale_mode_b = row_major ? CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F : CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
    p.scale_a = row_major ? sfb : sfa;
    p.scale_b = row_major ? sfa : sfb;
    return p;
  }
  bool row_major_;
  verify::CublasLtFp8 lt_;
};

/// One rotation slot of part 3: e4m3 operands uniform in [-1, 1], f32 scales uniform in [0.5, 2],
/// and the tessel kernels bound to them: block-scaled, and the per-tensor fast and promoted ones.
struct Fp8BlockSet {
  DeviceBuffer<e4m3> a, b;
  DeviceBuffer<float> sfa, sfb;
  DeviceBuffer<bf16> d;
  Fp8BlockScaled block;
  Fp8Wide wide;
  Fp8Promoted promoted;
  Fp8BlockSet(int m, int n, int k, int index)
      : a(std::size_t(m) * k), b(std::size_t(n) * k), sfa(scale_count_a(m, k)), sfb(scale_count_b(n, k)), d(std::size_t(m) * n) {
    verify::fill_random_device(a.data(), a.size(), 300 + 4 * index, Distribution::uniform(-1, 1));
    verify::fill_random_device(b.data(), b.size(), 301 + 4 * index, Distribution::uniform(-1, 1));
    verify::fill_random_device(sfa.data(), sfa.size(), 302 + 4 * index, Distribution::uniform(0.5, 2));
    verify::fill_random_device(sfb.data(), sfb.size(), 303 + 4 * index, Distribution::uniform(0.5, 2));
    typename Fp8BlockScaled::Arguments args;
    args.problem_shape = {m, n, k, 1};
    args.mainloop = {a.data(), make_packed_stride(StrideKMajor{}, m, k), b.data(), make_packed_stride(StrideKMajor{}, n, k),
                     sfa.data(), make_block_scale_stride_A(m, k), sfb.data(), make_block_scale_stride_B(n, k)};
    args.epilogue.dC = make_packed_stride(StrideKMajor{}, m, n);
    args.epilogue.ptr_D = d.data();
    args.epilogue.dD = make_packed_stride(StrideKMajor{}, m, n);
    throw_if(block.initialize(args), Fp8BlockScaled::name());
    throw_if(init_tn(wide, a.data(), b.data(), d.data(), m, n, k), Fp8Wide::name());
    throw_if(init_tn(promoted, a.data(), b.data(), d.data(), m, n, k), Fp8Promoted::name());
  }
  static std::size_t scale_count_a(int m, int k) { return std::size_t(get<2>(make_block_scale_stride_A(m, k))); }
  static std::size_t scale_count_b(int n, int k) { return std::size_t(get<2>(make_block_scale_stride_B(n, k))); }
};

/// The sample's exact sums with the block scales applied: sum_kb sa(r, kb) sb(c / 128, kb) sum_k a b.
void apply_block_scales(Sample& smp, Fp8BlockSet const& s, int m, int n, int k) {
  auto const sfa = fetch_doubles(s.sfa.data(), s.sfa.size()), sfb = fetch_doubles(s.sfb.data(), s.sfb.size());
  auto const da = make_block_scale_stride_A(m, k), db = make_block_scale_stride_B(n, k);
  std::size_t e = 0;
  for (std::size_t i = 0; i < smp.rows.size(); ++i)
    for (std::size_t j = 0; j < smp.cols.size(); ++j, ++e) {
      double sum = 0, sq = 0;
      for (int kk = 0; kk < k; ++kk) {
        int const kb = kk / kernel::kBlockScaleK;
        double const scale = sfa[std::size_t(smp.rows[i] * get<0>(da) + kb * get<1>(da))] *
                             sfb[std::size_t((smp.cols[j] / kernel::kBlockScaleN) * get<0>(db) + kb * get<1>(db))];
        double const p = smp.a[i * k + kk] * smp.b[j * k + kk] * scale;
        sum += p;
        sq += p * p;
      }
      smp.exact[e] = {sum, std::sqrt(sq)};
    }
}

/// Part 3: tessel's block-scaled kernel against cuBLASLt's in both orientations and against
/// tessel's per-tensor FP8 kernels (fast and promoted accumulation) on the same operands. Every
/// block-scaled result is checked on a sample against the double reference (promoted accumulation
/// in f32 then bf16: within |sum| / 128 + rms / 1000), and tessel against cuBLASLt element by element.
void bench_fp8_block(int m, int n, int k, Options const& o, Context const& cx, std::vector<Row>& rows) {
  std::string const shape = dims(m, n, k);
  double const mk = double(m) * k, nk = double(n) * k, mn = double(m) * n;
  double const set_bytes = mk + nk + 2 * mn + 4.0 * (Fp8BlockSet::scale_count_a(m, k) + Fp8BlockSet::scale_count_b(n, k));
  double const workspace_bytes = 32 << 20;
  int const sets = buffer_sets(set_bytes, 4 * mn + workspace_bytes, cx.l2, shape + " fp8 block-scaled");
  DeviceBuffer<unsigned char> workspace{std::size_t(workspace_bytes)};
  std::vector<Fp8BlockSet> set;
  set.reserve(std::size_t(sets));
  for (int i = 0; i < sets; ++i) set.emplace_back(m, n, k, i);
  LtBlockScaled const lt_row(cx.lt, m, n, k, true, set[0].sfa.data(), set[0].sfb.data(), workspace.data(), workspace.size());
  LtBlockScaled const lt_col(cx.lt, m, n, k, false, set[0].sfa.data(), set[0].sfb.data(), workspace.data(), workspace.size());

  // Correct first, on set 0.
  Fp8BlockSet& s = set[0];
  Sample smp = take_sample(s.a.data(), s.b.data(), m, n, k, o.samples);
  apply_block_scales(smp, s, m, n, k);
  auto accuracy = [&](std::vector<bf16> const& got, bool& ok) {
    auto const [worst, bad] = sample_errors(got, smp, [](Sample::Exact const& e) { return std::fabs(e.sum) / 128 + e.rms / 1000; });
    ok = ok && bad == 0;
    return "worst |err| " + fmt("%.1e", worst) + " rms vs f64" + (bad ? ", " + std::to_string(bad) + " beyond bound" : "");
  };
  std::size_t const count = std::size_t(mn);
  DeviceBuffer<bf16> d_row(count), d_col(count);
  verify::poison_device(s.d.data(), count);
  throw_if(s.block.run(), "block-scaled FP8 GEMM");
  check_cuda(cudaDeviceSynchronize(), "block-scaled FP8 GEMM");
  bool ok_tessel = true, ok_row = true, ok_col = true;
  std::string v_tessel = accuracy(gather(s.d.data(), smp, n), ok_tessel), v_row = "not offered: ", v_col = "not offered: ";
  if (lt_row.offered()) {
    verify::poison_device(d_row.data(), count);
    lt_row.run(s.a.data(), s.b.data(), s.sfa.data(), s.sfb.data(), d_row.data());
    check_cuda(cudaDeviceSynchronize(), "cuBLASLt block-scaled");
    v_row = accuracy(gather(d_row.data(), smp, n), ok_row);
    UlpReport const u = ulp_compare(s.d.data(), d_row.data(), std::int64_t(count));
    v_tessel += ", " + std::to_string(u.differ) + " of " + std::to_string(count) + " differ from cuBLASLt (" +
                std::to_string(u.beyond_one) + " by > 1 ulp)";
  } else {
    v_row += lt_row.status();
  }
  if (lt_col.offered()) {
    verify::poison_device(d_col.data(), count);
    lt_col.run(s.a.data(), s.b.data(), s.sfa.data(), s.sfb.data(), d_col.data());
    check_cuda(cudaDeviceSynchronize(), "cuBLASLt block-scaled");
    // Column-major M x N: the sample's element (r, c) is D[c * M + r], that is row c of the N x M D^T.
    Sample t = smp;
    std::swap(t.rows, t.cols);
    std::vector<bf16> got_t = gather(d_col.data(), t, m), got;
    for (std::size_t i = 0; i < smp.rows.size(); ++i)
      for (std::size_t j = 0; j < smp.cols.size(); ++j) got.push_back(got_t[j * smp.rows.size() + i]);
    v_col = accuracy(got, ok_col);
  } else {
    v_col += lt_col.status();
  }
  auto verdict = [](bool ok, std::string const& text) { return (ok ? "ok: " : "FAIL: ") + text; };
  bool const ok = ok_tessel && ok_row && ok_col;
  auto row = [&](std::string what, std::string const& verification, bool row_ok) {
    rows.push_back({shape, std::move(what), "-", "-", verification, 0, 0, false, row_ok});
    return rows.size() - 1;
  };
  enum { kTessel, kLtRow, kLtCol, kWide, kPromoted, kSteps };
  std::size_t r[kSteps];
  r[kTessel] = row("tessel `" + Fp8BlockScaled::name() + "`", verdict(ok_tessel, v_tessel), ok_tessel);
  r[kLtRow] = row("cuBLASLt block-scaled, D row-major", verdict(ok_row, v_row), ok_row);
  r[kLtCol] = row("cuBLASLt block-scaled, D column-major", verdict(ok_col, v_col), ok_col);
  r[kWide] = row("tessel per-tensor fast `" + Fp8Wide::name() + "`", "(per-tensor: other numbers)", true);
  r[kPromoted] = row("tessel per-tensor promoted `" + Fp8Promoted::name() + "`", "(per-tensor: other numbers)", true);
  if (!ok) return;

  std::vector<StepEvents> ev(kSteps);
  std::vector<std::vector<float>> t(kSteps);
  RoundRobin next{sets};
  auto run = [&](int step) {
    if ((step == kLtRow && !lt_row.offered()) || (step == kLtCol && !lt_col.offered())) return;
    Fp8BlockSet& x = set[std::size_t(next())];
    StepEvents& e = ev[std::size_t(step)];
    e.start();
    if (step == kTessel) throw_if(x.block.run(), "block-scaled FP8 GEMM");
    else if (step == kLtRow) lt_row.run(x.a.data(), x.b.data(), x.sfa.data(), x.sfb.data(), x.d.data());
    else if (step == kLtCol) lt_col.run(x.a.data(), x.b.data(), x.sfa.data(), x.sfb.data(), x.d.data());
    else if (step == kWide) throw_if(x.wide.run(), "FP8 GEMM");
    else throw_if(x.promoted.run(), "FP8 GEMM");
    e.stop();
  };
  auto record = [&] {
    for (int i = 0; i < kSteps; ++i)
      if (!((i == kLtRow && !lt_row.offered()) || (i == kLtCol && !lt_col.offered())))
        t[std::size_t(i)].push_back(ev[std::size_t(i)].ms());
  };
  interleave(kSteps, o.warmup, o.runs, run, record);
  double ms[kSteps];
  for (int i = 0; i < kSteps; ++i) {
    ms[i] = t[std::size_t(i)].empty() ? 0 : median(t[std::size_t(i)]);
    rows[r[i]].timed = ms[i] > 0;
    rows[r[i]].ms = ms[i];
    rows[r[i]].tflops = ms[i] > 0 ? tflops(m, n, k, ms[i]) : 0;
  }
  double best_lt = 0;
  for (int i : {kLtRow, kLtCol})
    if (ms[i] > 0) best_lt = best_lt > 0 ? std::min(best_lt, ms[i]) : ms[i];
  if (best_lt > 0) rows[r[kTessel]].ratio = fmt("%.3f vs best cuBLASLt (goal >= 1.0)", best_lt / ms[kTessel]);
  rows[r[kTessel]].ratio2 = fmt("%.3f vs per-tensor fast", ms[kWide] / ms[kTessel]) +
                            fmt(", %.3f vs promoted (goal >= 0.9)", ms[kPromoted] / ms[kTessel]);
  std::printf("# %s fp8 block-scaled: tessel %.1f, cuBLASLt row %.1f / col %.1f, per-tensor fast %.1f / promoted %.1f TFLOP/s\n",
              shape.c_str(), rows[r[kTessel]].tflops, rows[r[kLtRow]].tflops, rows[r[kLtCol]].tflops, rows[r[kWide]].tflops,
              rows[r[kPromoted]].tflops);
  std::fflush(stdout);
}

std::string table(std::vector<Row> const& rows, char const* ratio_head, char const* ratio2_head) {
  std::string s = std::string("| shape | what | ms | TFLOP/s | ") + ratio_head + " | " + ratio2_head + " | verification |\n" +
                  "|---|---|---:|---:|---|---|---|\n";
  for (Row const& r : rows) {
    s += "| " + r.shape + " | " + r.what + " | " + (r.timed ? fmt("%.3f", r.ms) : "-") + " | " +
         (r.timed ? fmt("%.1f", r.tflops) : "-") + " | " + r.ratio + " | " + r.ratio2 + " | " + r.verification + " |\n";
  }
  return s;
}

// The kernel driver's version as nvidia-smi shows it, where the driver publishes it: the first
// token after "Kernel Module" that starts with a digit ("... Kernel Module  550.54.15  ..." or
// "... Open Kernel Module for x86_64  570.86.15 ...").
std::string kernel_driver_version() {
  std::ifstream f("/proc/driver/nvidia/version");
  std::string line;
  if (!std::getline(f, line)) return "unknown";
  std::size_t const at = line.find("Kernel Module");
  if (at == std::string::npos) return "unknown";
  std::istringstream words(line.substr(at + 13));
  for (std::string w; words >> w;)
    if (std::isdigit(static_cast<unsigned char>(w[0]))) return w;
  return "unknown";
}

std::string version(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

int usage(char const* argv0, std::string const& why) {
  std::fprintf(stderr,
               "%s%s\nusage: %s [--part fusion|fp8|fp8block|all] [--shapes MxNxK[,MxNxK...]] [--runs R>=20] [--warmup W] [--samples S]\n"
               "every extent a multiple of 16\n",
               why.c_str(), why.empty() ? "" : "\n", argv0);
  return 2;
}

bool parse_shapes(std::string const& text, std::vector<std::array<int, 3>>& out) {
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t const end = std::min(text.find(',', pos), text.size());
    std::array<int, 3> s{};
    char tail = 0;
    if (std::sscanf(text.substr(pos, end - pos).c_str(), "%dx%dx%d%c", &s[0], &s[1], &s[2], &tail) != 3) return false;
    for (int x : s)
      if (x <= 0 || x % 16 != 0 || x > (1 << 20)) return false;
    out.push_back(s);
    pos = end + 1;
  }
  return !out.empty();
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string const a = argv[i];
    if (i + 1 >= argc) return usage(argv[0], "missing value after " + a);
    std::string const v = argv[++i];
    auto positive = [&](int& out, int lo) { return bench::parse_int(v.c_str(), lo, 1 << 20, out); };
    bool ok = true;
    if (a == "--runs") ok = positive(o.runs, 20);
    else if (a == "--warmup") ok = positive(o.warmup, 1);
    else if (a == "--samples") ok = positive(o.samples, 4);
    else if (a == "--shapes") ok = parse_shapes(v, o.shapes);
    else if (a == "--part") {
      o.fusion = v == "fusion" || v == "all";
      o.fp8 = v == "fp8" || v == "all";
      o.fp8_block = v == "fp8block" || v == "all";
      ok = o.fusion || o.fp8 || o.fp8_block;
    } else {
      return usage(argv[0], "unknown option " + a);
    }
    if (!ok) return usage(argv[0], "bad value for " + a + ": " + v);
  }

  arch::DeviceArch dev;
  if (int const rc = bench::require_cuda_device("fusion_bench", "this benchmark needs a compute capability 9.0 GPU (H100, H200)", dev))
    return rc;
  if (dev.compute_capability != 90) {
    std::fprintf(stderr, "fusion_bench: %s is compute capability %d.%d; the sm_90a kernels here need 9.0 (H100, H200)\n",
                 dev.name.c_str(), dev.compute_capability / 10, dev.compute_capability % 10);
    return 2;
  }

  std::vector<Row> fusion_rows, fp8_rows, block_rows;
  Context cx{};
  int driver = 0, runtime = 0, blas_major = 0, blas_minor = 0, blas_patch = 0;
  std::size_t lt_version = 0;
  try {
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    check_cuda(cudaDeviceGetAttribute(&cx.sms, cudaDevAttrMultiProcessorCount, 0), "cudaDeviceGetAttribute(SMs)");
    check_cuda(cudaDeviceGetAttribute(&cx.l2, cudaDevAttrL2CacheSize, 0), "cudaDeviceGetAttribute(L2)");
    bench::check_cublas(cublasCreate(&cx.blas), "cublasCreate");
    bench::check_cublas(cublasLtCreate(&cx.lt), "cublasLtCreate");
    cublasGetProperty(MAJOR_VERSION, &blas_major);
    cublasGetProperty(MINOR_VERSION, &blas_minor);
    cublasGetProperty(PATCH_LEVEL, &blas_patch);
    lt_version = cublasLtGetVersion();
    auto shapes_or = [&](std::vector<std::array<int, 3>> defaults) { return o.shapes.empty() ? defaults : o.shapes; };
    if (o.fusion)
      for (auto const& s : shapes_or({{8192, 8192, 8192}, {8192, 28672, 8192}})) {
        bench_fusion<PlainBf16, FusedE4m3>(s[0], s[1], s[2], o, cx, fusion_rows);
        bench_fusion<PlainBf16, FusedE4m3Tanh>(s[0], s[1], s[2], o, cx, fusion_rows);
        bench_fusion<PlainPingpong, FusedPingpong>(s[0], s[1], s[2], o, cx, fusion_rows);
      }
    if (o.fp8)
      for (auto const& s : shapes_or({{4096, 4096, 4096}, {8192, 8192, 8192}, {8192, 28672, 8192}}))
        bench_fp8(s[0], s[1], s[2], o, cx, fp8_rows);
    if (o.fp8_block)
      for (auto const& s : shapes_or({{4096, 7168, 4096}, {8192, 7168, 7168}, {4096, 18432, 7168}, {4096, 7168, 16384}}))
        bench_fp8_block(s[0], s[1], s[2], o, cx, block_rows);
    cublasLtDestroy(cx.lt);
    cublasDestroy(cx.blas);
  } catch (std::exception const& e) {
    std::fprintf(stderr, "fusion_bench: %s\n", e.what());
    return 3;
  }

  std::printf("\n%s (%d SMs, L2 %d MB), driver %s (CUDA driver API %s), CUDA runtime %s, cuBLAS %d.%d.%d, cuBLASLt %zu; "
              "median of %d launches after %d warm-up; TFLOP/s counts 2MNK\n",
              dev.name.c_str(), cx.sms, cx.l2 >> 20, kernel_driver_version().c_str(), version(driver).c_str(),
              version(runtime).c_str(), blas_major, blas_minor, blas_patch, lt_version, o.runs, o.warmup);
  if (o.fusion) {
    std::printf("\n### bf16 GEMM + bias + GELU + amax + e4m3 (TN, D row-major, scale_d %g)\n\n%s", double(kScaleD),
                table(fusion_rows, "ratio", "split").c_str());
  }
  if (o.fp8) {
    std::printf("\n### FP8 GEMM e4m3 x e4m3 -> bf16 (TN, D row-major)\n\n%s",
                table(fp8_rows, "vs cuBLASLt", "vs cuBLASLt fast accum").c_str());
  }
  auto all_ok = [](std::vector<Row> const& rows) {
    return std::all_of(rows.begin(), rows.end(), [](Row const& r) { return r.ok; });
  };
  if (o.fp8_block) {
    std::printf("\n### FP8 GEMM with per-block scales, e4m3 x e4m3 -> bf16 (A 1 x 128, B 128 x 128; TN)\n\n%s",
                table(block_rows, "vs cuBLASLt", "vs tessel per-tensor").c_str());
  }
  return all_ok(fusion_rows) && all_ok(fp8_rows) && all_ok(block_rows) ? 0 : 1;
}
