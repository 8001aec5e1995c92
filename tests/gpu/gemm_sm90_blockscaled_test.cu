// FP8 with per-block scales on the GPU (the DeepSeek-V3 recipe): bf16 activations quantized by
// quant::quantize_fp8_1x128 (checked bit-exact against the same rule on the host), weights
// quantized per 128 x 128 block on the host, then the block-scaled Hopper kernel, dense and
// grouped, against a double reference over the dequantized operands. The operands' magnitudes
// change by up to 2^12 from block to block, so a scale applied to the wrong rows, columns or K
// block errs by far more than the bound. D is pre-poisoned; the error against the exact product of
// the unquantized operands (the FP8 budget) is printed and bounded too.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "sm90_test_support.hpp"
#include "tessel/quant/fp8_quantize.hpp"
#include "tessel/verify/device_buffer.cuh"
#include "tessel/verify/poison.hpp"
#include "tessel/verify/random.hpp"

using namespace tessel;
using namespace tessel::gemm;

namespace {

using e4m3 = float_e4m3_t;
constexpr int kBlk = kernel::kBlockScaleK;

template <class Scheduler = PersistentScheduler, int BN = 128>
using BlockScaled = test::Sm90Gemm<e4m3, RowMajor, ColumnMajor, bfloat16_t, 128, BN, 1,
                                   kernel::KernelTmaWarpSpecializedCooperativeFP8BlockScaled, collective::EpilogueScheduleAuto,
                                   epilogue::LinearCombination<bfloat16_t, bfloat16_t>, Scheduler>;

int blocks(int x, int b) { return (x + b - 1) / b; }

/// rows x k values, uniform in [-1, 1) times 2^e with e in [-6, 6] drawn per block of
/// (block_rows x 128): the data whose ranges per-block scales exist for.
std::vector<float> blocky_values(int rows, int k, int block_rows, std::uint64_t seed) {
  std::vector<float> v(std::size_t(rows) * k), e(std::size_t(blocks(rows, block_rows)) * blocks(k, kBlk));
  verify::fill_random(v.data(), v.size(), seed, verify::Distribution::uniform(-1, 1));
  verify::fill_random(e.data(), e.size(), seed + 7, verify::Distribution::uniform(-6, 6));
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < k; ++c)
      v[std::size_t(r) * k + c] *= std::ldexp(1.f, int(std::lround(e[std::size_t(r / block_rows) * blocks(k, kBlk) + c / kBlk])));
  return v;
}

/// The quantization rule of quant/fp8_quantize.hpp on the host, blocks of block_rows x 128: Q and
/// the scales at scale[rb * srow + kb * sk].
void quantize_host(std::vector<float> const& x, int rows, int k, int block_rows, std::vector<e4m3>& q, std::vector<float>& scale,
                   std::int64_t srow, std::int64_t sk) {
  q.assign(x.size(), e4m3{});
  for (int rb = 0; rb < blocks(rows, block_rows); ++rb)
    for (int kb = 0; kb < blocks(k, kBlk); ++kb) {
      int const r1 = std::min(rows, (rb + 1) * block_rows), c1 = std::min(k, (kb + 1) * kBlk);
      float amax = 0;
      for (int r = rb * block_rows; r < r1; ++r)
        for (int c = kb * kBlk; c < c1; ++c) amax = std::max(amax, std::fabs(x[std::size_t(r) * k + c]));
      float const inv = quant::block_inverse_scale<e4m3>(amax);
      scale[rb * srow + kb * sk] = quant::block_scale<e4m3>(amax);
      for (int r = rb * block_rows; r < r1; ++r)
        for (int c = kb * kBlk; c < c1; ++c) q[std::size_t(r) * k + c] = numeric_cast<e4m3>(x[std::size_t(r) * k + c] * inv);
    }
}

/// A (rows x K bf16 -> e4m3 on the device), B (G x N x K, quantized on the host), scales in
/// torch._scaled_mm's layouts, D poisoned.
struct Problem {
  int rows, n, k, groups;
  std::vector<float> x, w;  // what the bf16 activations and the f32 weights hold
  std::vector<e4m3> qw;
  std::vector<float> sfb;
  StrideBlockScale dsfa, dsfb;
  verify::DeviceBuffer<bfloat16_t> dx;
  verify::DeviceBuffer<e4m3> dqa, dqb;
  verify::DeviceBuffer<float> dsfa_buf, dsfb_buf;
  verify::DeviceBuffer<bfloat16_t> dd;

  /// k_major_sfa: A's scales row by row (strides (kb, 1)) instead of torch's (1, M), which the
  /// kernel copies with its scale warp instead of TMA.
  Problem(int rows_, int n_, int k_, int groups_, std::uint64_t seed, bool k_major_sfa = false)
      : rows(rows_), n(n_), k(k_), groups(groups_) {
    x = blocky_values(rows, k, 1, seed);
    std::vector<bfloat16_t> hx(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      hx[i] = numeric_cast<bfloat16_t>(x[i]);
      x[i] = float(hx[i]);
    }
    w = blocky_values(groups * n, k, kBlk, seed + 1);  // groups' N-blocks are whole: n % 128 == 0 or one group
    dsfa = k_major_sfa ? StrideBlockScale{blocks(k, kBlk), 1, std::int64_t(rows) * blocks(k, kBlk)} : make_block_scale_stride_A(rows, k);
    dsfb = make_block_scale_stride_B(n, k);
    sfb.assign(std::size_t(groups) * get<2>(dsfb), 0.f);
    qw.assign(w.size(), e4m3{});
    for (int g = 0; g < groups; ++g) {
      std::vector<float> wg(w.begin() + std::size_t(g) * n * k, w.begin() + std::size_t(g + 1) * n * k), s(get<2>(dsfb));
      std::vector<e4m3> q;
      quantize_host(wg, n, k, kBlk, q, s, get<0>(dsfb), get<1>(dsfb));
      std::copy(q.begin(), q.end(), qw.begin() + std::size_t(g) * n * k);
      std::copy(s.begin(), s.end(), sfb.begin() + std::size_t(g) * get<2>(dsfb));
    }
    dx = verify::DeviceBuffer<bfloat16_t>(hx);
    std::vector<e4m3> qa(x.size());
    verify::poison(qa.data(), qa.size());
    dqa = verify::DeviceBuffer<e4m3>(qa);
    std::vector<float> sfa(std::size_t(rows) * blocks(k, kBlk));
    verify::poison(sfa.data(), sfa.size());
    dsfa_buf = verify::DeviceBuffer<float>(sfa);
    dqb = verify::DeviceBuffer<e4m3>(qw);
    dsfb_buf = verify::DeviceBuffer<float>(sfb);
    std::vector<bfloat16_t> d(std::size_t(rows) * n);
    verify::poison(d.data(), d.size());
    dd = verify::DeviceBuffer<bfloat16_t>(d);
  }

  /// Quantizes A on the device and checks Q and the scales bit-exact against the host rule.
  void quantize_a_and_check() {
    auto s = quant::quantize_fp8_1x128(dx.data(), k, rows, k, dqa.data(), k, dsfa_buf.data(), dsfa);
    ASSERT_TRUE(s.ok()) << s.what();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<e4m3> q_ref;
    std::vector<float> s_ref(std::size_t(rows) * blocks(k, kBlk));
    quantize_host(x, rows, k, 1, q_ref, s_ref, get<0>(dsfa), get<1>(dsfa));
    auto q = dqa.download();
    auto sc = dsfa_buf.download();
    int bad = 0;
    for (std::size_t i = 0; i < q.size(); ++i)
      if (q[i].__x != q_ref[i].__x && ++bad <= 5)
        ADD_FAILURE() << "Q[" << i / k << "][" << i % k << "] = 0x" << std::hex << int(q[i].__x) << ", expected 0x"
                      << int(q_ref[i].__x) << std::dec;
    for (std::size_t i = 0; i < sc.size(); ++i)
      if (sc[i] != s_ref[i] && ++bad <= 10) ADD_FAILURE() << "scale[" << i << "] = " << sc[i] << ", expected " << s_ref[i];
    EXPECT_EQ(bad, 0) << "quantize_fp8_1x128 differs from the rule on the host";
    qa_host = q;
    sfa_host = sc;
  }
  std::vector<e4m3> qa_host;
  std::vector<float> sfa_host;

  float sa(int r, int kb) const { return sfa_host[r * get<0>(dsfa) + kb * get<1>(dsfa)]; }
  float sb(int g, int c, int kb) const { return sfb[std::size_t(g) * get<2>(dsfb) + (c / kBlk) * get<0>(dsfb) + kb * get<1>(dsfb)]; }

  /// Row r of group g against the double references: the dequantized operands (what the kernel
  /// must compute) and the unquantized ones (the FP8 budget). Adds the squared errors and norms.
  void check_row(int r, int g, std::vector<bfloat16_t> const& d, int& bad, double& err2, double& ref2, double& exact_err2,
                 double& exact2) const {
    for (int c = 0; c < n; ++c) {
      double deq = 0, exact = 0;
      std::size_t const wrow = (std::size_t(g) * n + c) * k, arow = std::size_t(r) * k;
      for (int kb = 0; kb < blocks(k, kBlk); ++kb) {
        double part = 0;
        for (int i = kb * kBlk; i < std::min(k, (kb + 1) * kBlk); ++i) {
          part += double(float(qa_host[arow + i])) * double(float(qw[wrow + i]));
          exact += double(x[arow + i]) * double(w[wrow + i]);
        }
        deq += part * double(sa(r, kb)) * double(sb(g, c, kb));
      }
      double const got = double(float(d[std::size_t(r) * n + c]));
      double const e = std::fabs(got - deq);
      // bf16 rounding of D, and the tensor core's accumulation within one 128-long block.
      if (!(e <= std::ldexp(std::fabs(deq), -8) + 1e-3 * row_scale(r)) && ++bad <= 5)
        ADD_FAILURE() << "D[" << r << "][" << c << "] = " << got << ", expected " << deq;
      err2 += e * e;
      ref2 += deq * deq;
      exact_err2 += (got - exact) * (got - exact);
      exact2 += exact * exact;
    }
  }
  /// The size of row r's sums: its largest block scale times the weights' largest, times sqrt(K).
  double row_scale(int r) const {
    double s = 0;
    for (int kb = 0; kb < blocks(k, kBlk); ++kb) s = std::max(s, double(sa(r, kb)));
    double t = 0;
    for (float v : sfb) t = std::max(t, double(v));
    return s * t * 448.0 * 448.0 * std::sqrt(double(k)) / 3;
  }
};

void report(char const* what, Problem const& p, double err2, double ref2, double exact_err2, double exact2) {
  double const rel = std::sqrt(err2 / ref2), budget = std::sqrt(exact_err2 / exact2);
  std::printf("%s %dx%dx%d (G = %d): |D - dequantized|/|ref| %.2e, |D - exact|/|exact| %.2e\n", what, p.rows, p.n, p.k, p.groups, rel,
              budget);
  EXPECT_LT(rel, 2e-3) << what;
  // e4m3 keeps 3 mantissa bits: each operand errs by up to 2^-4 relative, about 2.7% rms; a
  // product by about 3.8%. Past 5% the scales are not doing their job.
  EXPECT_LT(budget, 0.05) << what;
}

TEST(GemmSm90BlockScaled, RefusesMissingOrUnwantedScales) {
  using G = BlockScaled<>;
  typename G::Arguments args;
  args.problem_shape = {256, 256, 512, 1};
  auto* fake = reinterpret_cast<e4m3*>(std::uintptr_t(256));
  args.mainloop = {fake, make_packed_stride(typename G::StrideA{}, 256, 512), fake, make_packed_stride(typename G::StrideB{}, 256, 512)};
  args.epilogue.ptr_D = reinterpret_cast<bfloat16_t*>(std::uintptr_t(256));
  args.epilogue.dD = make_packed_stride(typename G::StrideD{}, 256, 256);
  auto s = G::can_implement(args);
  EXPECT_EQ(s.status, Status::kErrorInvalidProblem);
  EXPECT_NE(s.what().find("ptr_SFA"), std::string::npos) << s.what();

  using PerTensor = test::Sm90Gemm<e4m3, RowMajor, ColumnMajor, bfloat16_t, 128, 128, 1,
                                   kernel::KernelTmaWarpSpecializedCooperativeFP8Promoted>;
  typename PerTensor::Arguments pt;
  pt.problem_shape = args.problem_shape;
  pt.mainloop = {fake, args.mainloop.dA, fake, args.mainloop.dB, reinterpret_cast<float const*>(std::uintptr_t(256))};
  pt.epilogue.ptr_D = args.epilogue.ptr_D;
  pt.epilogue.dD = args.epilogue.dD;
  auto const unwanted = PerTensor::can_implement(pt);
  EXPECT_EQ(unwanted.status, Status::kErrorNotSupported);
  EXPECT_NE(unwanted.what().find("FP8BlockScaled"), std::string::npos) << unwanted.what();

  // Which scales TMA carries: torch's layouts from 16-byte-aligned bases (200 rows, 32 K blocks),
  // with M (A's K stride) and a batch stride multiples of 4; not A's scales row by row, nor a base
  // 4 bytes off, nor M = 201, nor K or batch strides that overlap the rows (0 among them).
  auto const* base = reinterpret_cast<float const*>(std::uintptr_t(1024));
  kernel::BlockScaleTensor const ta{base, 1, 200, 6400}, tb{base, 32, 1, 0}, ta_rows{base, 32, 1, 0};
  auto fits = [&](kernel::BlockScaleTensor const& a, int batches, std::int64_t extent_b = 64) {
    return kernel::block_scales_fit_tma(a, 200, 32, batches, tb, extent_b);
  };
  EXPECT_TRUE(fits(ta, 1));
  EXPECT_TRUE(fits(ta, 3));
  EXPECT_FALSE(fits(ta_rows, 1));
  EXPECT_FALSE(fits(kernel::BlockScaleTensor{base + 1, 1, 200, 0}, 1));
  EXPECT_FALSE(fits(kernel::BlockScaleTensor{base, 1, 201, 0}, 1));
  EXPECT_FALSE(fits(kernel::BlockScaleTensor{base, 1, 200, 6402}, 3));
  EXPECT_FALSE(fits(kernel::BlockScaleTensor{base, 1, 0, 0}, 1));
  EXPECT_FALSE(fits(kernel::BlockScaleTensor{base, 1, 100, 0}, 1));
  EXPECT_FALSE(fits(kernel::BlockScaleTensor{base, 1, 200, 0}, 3));
  EXPECT_FALSE(fits(ta, 1, std::int64_t(1) << 31));

  auto q = quant::quantize_fp8_1x128(reinterpret_cast<bfloat16_t const*>(std::uintptr_t(2)), 512, 4, 512, fake, 512,
                                     reinterpret_cast<float*>(std::uintptr_t(256)), make_block_scale_stride_A(4, 512));
  EXPECT_EQ(q.status, Status::kErrorMisalignedOperand) << q.what();
}

/// Runs G on p (D = A B^T with p's scales; grouped: the contiguous layout with the groups' end
/// rows `ends`) and checks every row of every group against the references.
template <class G>
void run_and_check(char const* what, Problem& p, std::vector<int> const& ends = {}) {
  p.quantize_a_and_check();
  typename G::Arguments args;
  args.problem_shape = {p.rows, p.n, p.k, p.groups};
  args.mainloop = {p.dqa.data(), make_packed_stride(typename G::StrideA{}, p.rows, p.k), p.dqb.data(),
                   make_packed_stride(typename G::StrideB{}, p.n, p.k), p.dsfa_buf.data(), p.dsfa, p.dsfb_buf.data(), p.dsfb};
  args.epilogue.ptr_D = p.dd.data();
  args.epilogue.dD = make_packed_stride(typename G::StrideD{}, p.rows, p.n);
  verify::DeviceBuffer<int> dg(ends.empty() ? std::vector<int>{p.rows} : ends);
  if (!ends.empty()) {
    args.mode = GemmUniversalMode::kGrouped;
    args.grouped = {kernel::GroupedLayout::kContiguous, dg.data()};
  }
  G gemm;
  auto s = gemm(args);
  ASSERT_TRUE(s.ok()) << G::name() << ": " << s.what();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  auto d = p.dd.download();
  int bad = 0;
  double err2 = 0, ref2 = 0, exact_err2 = 0, exact2 = 0;
  int begin = 0;
  for (int g = 0; g < p.groups; ++g) {
    int const end = ends.empty() ? p.rows : ends[g];
    for (int r = begin; r < end; ++r) p.check_row(r, g, d, bad, err2, ref2, exact_err2, exact2);
    begin = end;
  }
  EXPECT_EQ(bad, 0) << G::name();
  for (int r = begin; r < p.rows; ++r)
    for (int c = 0; c < p.n; ++c)
      if (!verify::is_poison(d[std::size_t(r) * p.n + c]) && ++bad <= 5)
        ADD_FAILURE() << "row " << r << " belongs to no group but was written";
  EXPECT_EQ(bad, 0);
  report(what, p, err2, ref2, exact_err2, exact2);
}

// Dense: ragged M and N (edge tiles, rows past M whose scales must not be read), K from 4096 to
// 16384 (the long K the recipe is for), the last K block partial and the last scale group short
// (33 K tiles) in some. torch's scale layouts (the TMA path), then M = 203 in torch's layout and
// A's scales row by row (the scale warp's path).
TEST(GemmSm90BlockScaled, DenseMatchesDequantizedReference) {
  TESSEL_SKIP_WITHOUT_SM90();
  using G = BlockScaled<>;
  struct Shape {
    int m, n, k;
    bool k_major_sfa;
  };
  for (Shape sh : {Shape{200, 320, 4096, false}, Shape{136, 256, 8192, false}, Shape{128, 128, 16384, false},
                   Shape{72, 192, 4160, false}, Shape{203, 128, 4160, false}, Shape{200, 320, 4096, true},
                   Shape{77, 128, 4160, true}}) {
    Problem p(sh.m, sh.n, sh.k, 1, 1000 + sh.k, sh.k_major_sfa);
    run_and_check<G>(sh.k_major_sfa ? "dense, K-major A scales" : "dense", p);
  }
  EXPECT_NE(G::name().find("coop_blockscaled"), std::string::npos) << G::name();
}

// The 128 x 192 tile, whose columns span two blocks of B's scales: tiles starting on a block
// (n0 = 0, 384) and half-way into one (n0 = 192), a second block past N (n0 = 384 with N = 448:
// block 4 of 4), through TMA and the scale warp, dense and grouped.
TEST(GemmSm90BlockScaled, WideTileSpansTwoBlocksOfB) {
  TESSEL_SKIP_WITHOUT_SM90();
  using G = BlockScaled<PersistentScheduler, 192>;
  for (auto [m, n, k, k_major] : {std::tuple{200, 448, 4160, false}, std::tuple{136, 320, 8192, false}, std::tuple{77, 448, 4096, true}}) {
    Problem p(m, n, k, 1, 2000 + k, k_major);
    run_and_check<G>(k_major ? "dense 128x192, K-major A scales" : "dense 128x192", p);
  }
  EXPECT_NE(G::name().find("128x192x128"), std::string::npos) << G::name();
  Problem p(300, 448, 4096, 3, 78);
  run_and_check<BlockScaled<GroupedScheduler, 192>>("grouped 128x192", p, {0, 200, 277});
}

// Grouped, contiguous layout (torch._grouped_mm's offs): groups of 0, 200 and 77 rows, each with
// its own weights and weight scales (the scales' batch stride), the activations' scales indexed by
// the row in the shared A. Rows past the last group stay poisoned.
TEST(GemmSm90BlockScaled, GroupedMatchesDequantizedReference) {
  TESSEL_SKIP_WITHOUT_SM90();
  Problem p(300, 256, 4096, 3, 77);
  run_and_check<BlockScaled<GroupedScheduler>>("grouped", p, {0, 200, 277});
}

}  // namespace
