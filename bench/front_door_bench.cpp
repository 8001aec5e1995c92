// front_door_bench: the C++ front door, tessel::gemm::gemm (include/tessel/gemm/front_door.hpp),
// against cuBLASLt as frameworks call it (verify/cublaslt_gemm.hpp: a 32 MiB workspace, the
// heuristic's first candidates in both orientations, the fastest kept), on the PyTorch-convention
// problem D = x @ W.t() (x: M x K row-major, W: N x K row-major, D: M x N row-major).
//
//   front_door_bench [--shapes=MxNxK[:f16],...] [--rounds=15] [--calls=10] [--activation=relu|gelu|silu] [--bias]
//
// With --activation (and --bias), tessel computes act(x @ W.t() + bias) in its epilogue while
// cuBLASLt computes the plain GEMM: the ratio then charges tessel with the fusion, and
// fused / plain time is the plain run's ratio over the fused run's.
//
// Per shape: uniform random operands in [-1, 1), rotated over as many sets as take four times
// the L2 cache; both providers run once on a poisoned D, every element written and a sample of
// 512 checked against a float64 reference on the host; then the providers take turns, round by
// round, each round `calls` calls behind a kernel that holds the GPU (so the events time the
// kernels, not the host), the median round kept. Host time per call is timed apart, with the GPU
// held, as the wall time to enqueue. Prints a markdown table; exit status 1 if a check fails,
// 2 without a usable GPU.
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "hold_gpu.hpp"
#include "tessel/gemm/front_door.hpp"
#include "tessel/verify/activation_reference.hpp"
#include "tessel/verify/cublaslt_gemm.hpp"

namespace {

using tessel::bench::fmt;
using tessel::bench::median;
namespace tg = tessel::gemm;

struct Shape {
  int m, n, k;
  bool f16;
};

// bench/front_door.py's 24 shapes: decode and prefill token counts against LLM projections.
std::vector<Shape> default_shapes() {
  return {{1, 4096, 4096, false},      {16, 4096, 4096, false},    {16, 28672, 8192, false},  {32, 14336, 4096, false},
          {64, 8192, 8192, false},     {1, 14336, 4096, true},     {64, 4096, 14336, true},   {128, 6144, 4096, false},
          {512, 4096, 14336, false},   {512, 28672, 8192, false},  {2048, 6144, 4096, false}, {2048, 8192, 28672, false},
          {4096, 4096, 4096, false},   {4096, 28672, 4096, false}, {4096, 14336, 4096, true}, {8192, 8192, 8192, true},
          {8192, 18432, 7168, false},  {8192, 7168, 18432, false}, {16384, 4096, 4096, false}, {16384, 1024, 4096, false},
          {3000, 5120, 1536, false},   {1000, 1000, 1000, false},  {6144, 3000, 4096, false}, {8192, 8192, 256, false}};
}


#define CHECK_CUDA(x)                                                                             \
  do {                                                                                            \
    cudaError_t e_ = (x);                                                                         \
    if (e_ != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "front_door_bench: %s: %s\n", #x, cudaGetErrorString(e_));            \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

float to_float(std::uint16_t bits, bool f16) {
  if (f16) {
    __half h;
    std::memcpy(static_cast<void*>(&h), &bits, 2);
    return __half2float(h);
  }
  std::uint32_t w = std::uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &w, 4);
  return f;
}

std::uint16_t from_float(float x, bool f16) {
  std::uint16_t bits;
  if (f16) {
    __half h = __float2half_rn(x);
    std::memcpy(&bits, static_cast<void const*>(&h), 2);
  } else {
    __nv_bfloat16 b = __float2bfloat16_rn(x);
    std::memcpy(&bits, static_cast<void const*>(&b), 2);
  }
  return bits;
}

// Relative error of a sample of D against float64, and whether every element was written.
struct Check {
  double rel = 0;
  bool all_written = true;
};

/// `bias` (N values, or empty) and `act` as the provider applied them.
Check check(std::vector<std::uint16_t> const& d, std::vector<std::uint16_t> const& x, std::vector<std::uint16_t> const& w, Shape const& s,
            std::vector<std::uint16_t> const& bias, tg::Activation act) {
  Check c;
  for (std::uint16_t v : d) c.all_written = c.all_written && v != 0xffff;
  std::mt19937 rng(7);
  double num = 0, den = 0;
  for (int i = 0; i < 512; ++i) {
    int const r = int(rng() % s.m), col = int(rng() % s.n);
    double ref = 0;
    for (int kk = 0; kk < s.k; ++kk)
      ref += double(to_float(x[std::size_t(r) * s.k + kk], s.f16)) * to_float(w[std::size_t(col) * s.k + kk], s.f16);
    if (!bias.empty()) ref += to_float(bias[col], s.f16);
    ref = tessel::verify::reference_activation(act, ref);
    double const got = to_float(d[std::size_t(r) * s.n + col], s.f16);
    num += (got - ref) * (got - ref);
    den += ref * ref;
  }
  c.rel = std::sqrt(num / (den > 0 ? den : 1));
  return c;
}

bool parse_shapes(char const* v, std::vector<Shape>& out) {
  out.clear();
  std::string s(v);
  std::size_t pos = 0;
  while (pos <= s.size()) {
    std::size_t const end = std::min(s.find(',', pos), s.size());
    std::string item = s.substr(pos, end - pos);
    Shape sh{0, 0, 0, false};
    if (item.size() > 4 && item.substr(item.size() - 4) == ":f16") sh.f16 = true, item.resize(item.size() - 4);
    if (std::sscanf(item.c_str(), "%dx%dx%d", &sh.m, &sh.n, &sh.k) != 3 || sh.m < 1 || sh.n < 1 || sh.k < 1) return false;
    out.push_back(sh);
    pos = end + 1;
  }
  return !out.empty();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Shape> shapes = default_shapes();
  int rounds = 15, calls = 10;
  tg::Activation act = tg::Activation::kIdentity;
  bool with_bias = false;
  for (int i = 1; i < argc; ++i) {
    char const* a = argv[i];
    bool ok = true;
    if (!std::strncmp(a, "--shapes=", 9)) ok = parse_shapes(a + 9, shapes);
    else if (!std::strncmp(a, "--rounds=", 9)) ok = tessel::bench::parse_int(a + 9, 3, 1000, rounds);
    else if (!std::strncmp(a, "--calls=", 8)) ok = tessel::bench::parse_int(a + 8, 1, 1000, calls);
    else if (!std::strcmp(a, "--activation=relu")) act = tg::Activation::kReLU;
    else if (!std::strcmp(a, "--activation=gelu")) act = tg::Activation::kGeLU;
    else if (!std::strcmp(a, "--activation=silu")) act = tg::Activation::kSiLU;
    else if (!std::strcmp(a, "--bias")) with_bias = true;
    else ok = false;
    if (!ok) {
      std::fprintf(stderr, "front_door_bench: bad option %s: use --shapes=MxNxK[:f16],... --rounds=3..1000 --calls=1..1000 --activation=relu|gelu|silu --bias\n", a);
      return 2;
    }
  }
  tessel::arch::DeviceArch dev;
  if (int rc = tessel::bench::require_cuda_device("front_door_bench", "it times tessel::gemm::gemm on a Hopper GPU", dev)) return rc;
  int l2 = 0, sms = 0;
  cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("front_door_bench: %s, %d SMs, L2 %d MB; D = x @ W.t(), tessel::gemm::gemm against cuBLASLt (best of both "
              "orientations, 32 MiB workspace); %d rounds of %d calls, medians\n\n",
              prop.name, sms, l2 >> 20, rounds, calls);
  if (act != tg::Activation::kIdentity || with_bias)
    std::printf("tessel fuses%s%s into its epilogue; cuBLASLt runs the plain GEMM\n\n", with_bias ? " a bias" : "",
                act == tg::Activation::kReLU ? " and ReLU" : act == tg::Activation::kGeLU ? " and GELU (erf)" : act == tg::Activation::kSiLU ? " and SiLU" : "");
  std::printf("| shape (tokens x N x K) | dtype | cuBLASLt TFLOP/s | tessel TFLOP/s | tessel/cuBLASLt | host us/call tessel, cuBLASLt | tessel kernel | check (rel. error vs f64) |\n");
  std::printf("|---|---|---:|---:|---:|---|---|---|\n");

  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  cublasLtHandle_t lt;
  cublasLtCreate(&lt);
  std::size_t const lt_ws_bytes = 32u << 20;
  void* lt_ws = nullptr;
  CHECK_CUDA(cudaMalloc(&lt_ws, lt_ws_bytes));
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  long long const hold_cycles = 6000000;  // ~3 ms at 2 GHz: longer than enqueuing a round
  bool failed = false;
  std::vector<double> ratios;

  for (Shape const& s : shapes) {
    std::size_t const xs = std::size_t(s.m) * s.k, ws = std::size_t(s.n) * s.k, ds = std::size_t(s.m) * s.n;
    std::size_t const set_bytes = 2 * (xs + ws + ds);
    int const sets = int(std::min<std::size_t>(32, std::max<std::size_t>(2, (4 * std::size_t(l2) + set_bytes - 1) / set_bytes)));
    std::vector<std::uint16_t> hx(xs), hw(ws);
    std::mt19937 rng(1234 + s.m + s.n + s.k);
    std::uniform_real_distribution<float> uni(-1.f, 1.f);
    for (auto& v : hx) v = from_float(uni(rng), s.f16);
    for (auto& v : hw) v = from_float(uni(rng), s.f16);
    std::vector<std::uint16_t> hbias(with_bias ? s.n : 0);
    for (auto& v : hbias) v = from_float(uni(rng), s.f16);
    void* bias = nullptr;
    if (with_bias) {
      CHECK_CUDA(cudaMalloc(&bias, 2 * std::size_t(s.n)));
      CHECK_CUDA(cudaMemcpy(bias, hbias.data(), 2 * std::size_t(s.n), cudaMemcpyHostToDevice));
    }
    std::vector<void*> X(sets), W(sets), D(sets);
    for (int i = 0; i < sets; ++i) {
      CHECK_CUDA(cudaMalloc(&X[i], 2 * xs));
      CHECK_CUDA(cudaMalloc(&W[i], 2 * ws));
      CHECK_CUDA(cudaMalloc(&D[i], 2 * ds));
      CHECK_CUDA(cudaMemcpy(X[i], hx.data(), 2 * xs, cudaMemcpyHostToDevice));  // same values, other addresses
      CHECK_CUDA(cudaMemcpy(W[i], hw.data(), 2 * ws, cudaMemcpyHostToDevice));
    }
    auto args_for = [&](int i) {
      tg::GemmArguments a;
      a.m = s.m, a.n = s.n, a.k = s.k;
      tg::DataType const t = s.f16 ? tg::DataType::kF16 : tg::DataType::kBF16;
      a.A = {X[i], t, tg::MatrixLayout::kRowMajor, s.k};
      a.B = {W[i], t, tg::MatrixLayout::kColumnMajor, s.k};
      a.D = {D[i], t, tg::MatrixLayout::kRowMajor, s.n};
      if (bias) a.C = {bias, t, tg::MatrixLayout::kRowMajor, 0}, a.beta = 1.f;  // a row repeated over M
      a.activation = act;
      return a;
    };
    std::size_t ws_bytes = 0;
    tg::GemmChoice choice;
    if (auto st = tg::gemm_workspace_size(args_for(0), ws_bytes); !st.ok()) {
      std::printf("| %dx%dx%d | %s | - | - | - | - | refused: %s | - |\n", s.m, s.n, s.k, s.f16 ? "f16" : "bf16", st.what().c_str());
      failed = true;
      continue;
    }
    (void)tg::gemm_choice(args_for(0), choice, ws_bytes);
    void* tws = nullptr;
    if (ws_bytes) CHECK_CUDA(cudaMalloc(&tws, ws_bytes));

    using Lt = tessel::verify::CublasLtGemm;
    Lt::Problem lp;
    lp.m = s.m, lp.n = s.n, lp.k = s.k;
    cudaDataType_t const ct = s.f16 ? CUDA_R_16F : CUDA_R_16BF;
    lp.a = {ct, true, s.k, 0};
    lp.b = {ct, false, s.k, 0};  // W.t(): K x N column-major
    lp.d = {ct, true, s.n, 0};
    Lt cublas(lt, lp, lt_ws, lt_ws_bytes);
    cublas.tune(X[0], W[0], stream);

    auto run_tessel = [&](int i) { return tg::gemm(args_for(i), stream, tws, ws_bytes).ok(); };
    auto run_lt = [&](int i) { return cublas.run(X[i], W[i], D[i], 1.f, 0.f, stream) == CUBLAS_STATUS_SUCCESS; };

    // Correctness first, each provider on a poisoned D.
    std::string checks;
    for (int p = 0; p < 2; ++p) {
      CHECK_CUDA(cudaMemset(D[0], 0xff, 2 * ds));
      bool const ran = p == 0 ? run_tessel(0) : run_lt(0);
      CHECK_CUDA(cudaStreamSynchronize(stream));
      std::vector<std::uint16_t> hd(ds);
      CHECK_CUDA(cudaMemcpy(hd.data(), D[0], 2 * ds, cudaMemcpyDeviceToHost));
      Check const c = p == 0 ? check(hd, hx, hw, s, hbias, act) : check(hd, hx, hw, s, {}, tg::Activation::kIdentity);
      bool const good = ran && c.all_written && c.rel < 1e-2;
      failed = failed || !good;
      checks += std::string(p == 0 ? "tessel " : ", cuBLASLt ") + (good ? fmt("%.1e", c.rel) : "FAILED");
    }

    // Then time, in turns.
    std::vector<float> t_tessel, t_lt;
    double host_tessel = 0, host_lt = 0;
    int turn = 0;
    for (int r = 0; r < rounds + 1; ++r) {  // round 0 warms up
      for (int p = 0; p < 2; ++p) {
        tessel::bench::hold_gpu(stream, hold_cycles);
        CHECK_CUDA(cudaEventRecord(e0, stream));
        auto const h0 = std::chrono::steady_clock::now();
        for (int c = 0; c < calls; ++c) {
          int const i = turn++ % sets;
          if (!(p == 0 ? run_tessel(i) : run_lt(i))) failed = true;
        }
        double const host_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - h0).count() / calls;
        CHECK_CUDA(cudaEventRecord(e1, stream));
        CHECK_CUDA(cudaEventSynchronize(e1));
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        if (r == 0) continue;
        (p == 0 ? t_tessel : t_lt).push_back(ms / calls);
        (p == 0 ? host_tessel : host_lt) += host_us / rounds;
      }
    }
    double const flop = 2.0 * s.m * s.n * s.k;
    double const tt = flop / (median(t_tessel) * 1e-3) / 1e12, tl = flop / (median(t_lt) * 1e-3) / 1e12;
    ratios.push_back(tt / tl);
    std::printf("| %dx%dx%d | %s | %.1f | %.1f | **%.3f** | %.1f, %.1f | %s | %s |\n", s.m, s.n, s.k, s.f16 ? "f16" : "bf16", tl, tt, tt / tl,
                host_tessel, host_lt, choice.kernel.c_str(), checks.c_str());
    std::fflush(stdout);
    for (int i = 0; i < sets; ++i) cudaFree(X[i]), cudaFree(W[i]), cudaFree(D[i]);
    if (tws) cudaFree(tws);
    if (bias) cudaFree(bias);
  }
  double lg = 0;
  for (double r : ratios) lg += std::log(r);
  if (!ratios.empty()) std::printf("\ngeomean tessel/cuBLASLt over %zu shapes: %.3f\n", ratios.size(), std::exp(lg / ratios.size()));
  cudaFree(lt_ws);
  cublasLtDestroy(lt);
  return failed ? 1 : 0;
}
