// The verification helpers every GEMM test relies on: the host reference, the K-scaled error
// budget, the comparison and its report, fills, poisoning, and the fragment-layout model.

#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <set>
#include <vector>

#include "tessel/numeric.hpp"
#include "tessel/verify/compare.hpp"
#include "tessel/verify/host_reference.hpp"
#include "tessel/verify/mma_fragments.hpp"
#include "tessel/verify/poison.hpp"
#include "tessel/verify/random.hpp"
#include "tessel/verify/tolerance.hpp"

namespace {

using namespace tessel::verify;

// Store a logical rows x cols matrix (given row by row) in `order` with leading dimension `ld`.
template <class T>
std::vector<T> store(const std::vector<double>& logical, std::int64_t rows, std::int64_t cols,
                     Order order, std::int64_t ld) {
  std::vector<T> out(static_cast<std::size_t>(required_elements(rows, cols, order, ld)), T(-999));
  auto v = make_view(out.data(), rows, cols, order, ld);
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < cols; ++c) v(r, c) = T(logical[static_cast<std::size_t>(r * cols + c)]);
  }
  return out;
}

TEST(HostReference, TinyGemmByHandInEveryLayout) {
  // A = [1 2 3; 4 5 6], B = [7 8; 9 10; 11 12], C = [1 -1; 2 -2], alpha = 2, beta = 0.5.
  // A B = [58 64; 139 154]  =>  D = [116.5 127.5; 279 307].
  const std::vector<double> a = {1, 2, 3, 4, 5, 6}, b = {7, 8, 9, 10, 11, 12}, c = {1, -1, 2, -2};
  const double want[] = {116.5, 127.5, 279, 307};
  const double want_ab[] = {116, 128, 278, 308};
  const double want_c[] = {0.5, 0.5, 1, 1};
  for (Order oa : {Order::kRowMajor, Order::kColumnMajor}) {
    for (Order ob : {Order::kRowMajor, Order::kColumnMajor}) {
      for (Order oc : {Order::kRowMajor, Order::kColumnMajor}) {
        // Leading dimensions larger than the extent, so that padding is skipped correctly.
        const auto sa = store<float>(a, 2, 3, oa, 5);
        const auto sb = store<float>(b, 3, 2, ob, 4);
        const auto sc = store<float>(c, 2, 2, oc, 3);
        const auto ref = host_reference_gemm<float, float, float>(
            2.0, make_view(sa.data(), 2, 3, oa, 5), make_view(sb.data(), 3, 2, ob, 4), 0.5,
            make_view(sc.data(), 2, 2, oc, 3));
        ASSERT_EQ(ref.m, 2);
        ASSERT_EQ(ref.n, 2);
        ASSERT_EQ(ref.k, 3);
        for (int e = 0; e < 4; ++e) {
          EXPECT_EQ(ref.value[e], want[e]) << to_string(oa) << " " << to_string(ob) << " " << e;
          EXPECT_EQ(ref.ab_magnitude[e], want_ab[e]);
          EXPECT_EQ(ref.c_magnitude[e], want_c[e]);
        }
      }
    }
  }
}

TEST(HostReference, MagnitudeUsesAbsoluteValues) {
  // [1 -1] . [1; 1] = 0, but |1||1| + |-1||1| = 2: the budget must see the cancellation.
  const std::vector<float> a = {1, -1}, b = {1, 1};
  const auto ref = host_reference_gemm<float, float, float>(
      -3.0, make_view(a.data(), 1, 2, Order::kRowMajor, 2),
      make_view(b.data(), 2, 1, Order::kColumnMajor, 2), 0.0, MatrixView<const float>{});
  EXPECT_EQ(ref.value[0], 0.0);
  EXPECT_EQ(ref.ab_magnitude[0], 6.0);
}

TEST(HostReference, BetaZeroDoesNotReadC) {
  const std::vector<float> a = {2}, b = {3};
  const float nan = std::nanf("");
  const auto ref = host_reference_gemm<float, float, float>(
      1.0, make_view(a.data(), 1, 1, Order::kRowMajor, 1),
      make_view(b.data(), 1, 1, Order::kRowMajor, 1), 0.0, make_view(&nan, 1, 1, Order::kRowMajor, 1));
  EXPECT_EQ(ref.value[0], 6.0);
}

TEST(HostReference, MismatchedShapesThrow) {
  const std::vector<float> a(6), b(6);
  EXPECT_THROW((host_reference_gemm<float, float, float>(
                   1.0, make_view(a.data(), 2, 3, Order::kRowMajor, 3),
                   make_view(b.data(), 2, 3, Order::kRowMajor, 3), 0.0, MatrixView<const float>{})),
               std::invalid_argument);
}

TEST(Tolerance, ScalesWithSqrtKAndWithTheElementsMagnitude) {
  const Tolerance t = make_tolerance<float, float>();
  EXPECT_EQ(t.accumulate_eps, std::ldexp(1.0, -23));
  EXPECT_EQ(t.output_u, std::ldexp(1.0, -24));
  // Accumulation dominates: quadrupling K doubles the budget (up to the smaller terms).
  const double b1 = t.budget(1024, 100.0, 0.0, 0.0);
  const double b4 = t.budget(4096, 100.0, 0.0, 0.0);
  EXPECT_NEAR(b4 / b1, 2.0, 0.02);
  // Proportional to sum |a||b| of that element.
  EXPECT_NEAR(t.budget(1024, 200.0, 0.0, 0.0) / b1, 2.0, 1e-6);
  // The worst-case mode grows linearly.
  const Tolerance lin = make_tolerance<float, float>(KScaling::kLinearK);
  EXPECT_NEAR(lin.budget(4096, 100.0, 0, 0) / lin.budget(1024, 100.0, 0, 0), 4.0, 0.05);
#if TESSEL_HAS_CUDA_FP16
  // Writing f16 adds half an f16 ulp of the result.
  const Tolerance h = make_tolerance<float, tessel::half_t>();
  EXPECT_NEAR(h.budget(16, 0.0, 0.0, 1.0) - h.absolute_floor, std::ldexp(1.0, -11), 1e-15);
#endif
}

// A deterministic f32 GEMM on the host: what a kernel accumulating in f32 in ascending k does.
std::vector<float> f32_gemm(const std::vector<float>& a, const std::vector<float>& b, int m, int n,
                            int k, int skip_i = -1, int skip_j = -1, int skip_k = -1) {
  std::vector<float> d(static_cast<std::size_t>(m * n));
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      float acc = 0;
      for (int kk = 0; kk < k; ++kk) {
        if (i == skip_i && j == skip_j && kk == skip_k) continue;
        acc += a[static_cast<std::size_t>(i * k + kk)] * b[static_cast<std::size_t>(kk * n + j)];
      }
      d[static_cast<std::size_t>(i * n + j)] = acc;
    }
  }
  return d;
}

struct RandomProblem {
  int m, n, k;
  std::vector<float> a, b;
  GemmReference ref;
};

RandomProblem random_problem(int m, int n, int k, std::uint64_t seed) {
  RandomProblem p{m, n, k, std::vector<float>(static_cast<std::size_t>(m * k)),
                  std::vector<float>(static_cast<std::size_t>(k * n)), {}};
  fill_random(p.a.data(), p.a.size(), seed, Distribution::uniform(-1, 1));
  fill_random(p.b.data(), p.b.size(), seed + 1, Distribution::uniform(-1, 1));
  p.ref = host_reference_gemm<float, float, float>(
      1.0, make_view<const float>(p.a.data(), m, k, Order::kRowMajor, k),
      make_view<const float>(p.b.data(), k, n, Order::kRowMajor, n), 0.0, MatrixView<const float>{});
  return p;
}

TEST(Compare, RealF32AccumulationPassesWithRoomToSpare) {
  const RandomProblem p = random_problem(24, 20, 4096, 7);
  const auto d = f32_gemm(p.a, p.b, p.m, p.n, p.k);
  const auto report = compare(make_view<const float>(d.data(), p.m, p.n, Order::kRowMajor, p.n),
                              p.ref, make_tolerance<float, float>());
  EXPECT_TRUE(report.passed()) << report.details();
  EXPECT_EQ(report.checked, p.m * p.n);
  EXPECT_LT(report.worst.ratio, 0.5) << report.summary();
  EXPECT_GT(report.worst.ratio, 0.0) << "f32 accumulation is not exact; a zero ratio means the "
                                        "comparison is not looking";
}

TEST(Compare, TruncatingF32AccumulationPasses) {
  // Tensor-core adders truncate instead of rounding to nearest; the budget must cover that.
  const RandomProblem p = random_problem(16, 16, 4096, 11);
  const int saved = std::fegetround();
  std::fesetround(FE_TOWARDZERO);
  const auto d = f32_gemm(p.a, p.b, p.m, p.n, p.k);
  std::fesetround(saved);
  const auto report = compare(make_view<const float>(d.data(), p.m, p.n, Order::kRowMajor, p.n),
                              p.ref, make_tolerance<float, float>());
  EXPECT_TRUE(report.passed()) << report.details();
}

TEST(Compare, OneMissingProductFails) {
  // A kernel that drops a single product (k = kk) of one element out of 4096 must be caught.
  const int m = 8, n = 8, k = 4096;
  const RandomProblem p = random_problem(m, n, k, 3);
  // The product of element (5, 6) with the largest magnitude, so that the test is deterministic.
  int worst_k = 0;
  for (int kk = 1; kk < k; ++kk) {
    if (std::fabs(p.a[5 * k + kk] * p.b[kk * n + 6]) >
        std::fabs(p.a[5 * k + worst_k] * p.b[worst_k * n + 6])) {
      worst_k = kk;
    }
  }
  const auto d = f32_gemm(p.a, p.b, m, n, k, 5, 6, worst_k);
  const auto report = compare(make_view<const float>(d.data(), m, n, Order::kRowMajor, n), p.ref,
                              make_tolerance<float, float>());
  EXPECT_FALSE(report.passed());
  EXPECT_EQ(report.failed, 1);
  ASSERT_EQ(report.first.size(), 1u);
  EXPECT_EQ(report.first[0].row, 5);
  EXPECT_EQ(report.first[0].col, 6);
  EXPECT_EQ(report.worst.row, 5);
  EXPECT_GT(report.worst.ratio, 1.0);
}

TEST(Compare, PerturbedNaNAndUnwrittenElementsFailAndAreReportedInOrder) {
  const RandomProblem p = random_problem(6, 5, 64, 5);
  std::vector<float> d(p.ref.value.begin(), p.ref.value.end());
  auto view = make_view<const float>(d.data(), 6, 5, Order::kRowMajor, 5);
  const Tolerance tol = make_tolerance<float, float>();
  ASSERT_TRUE(compare(view, p.ref, tol).passed());

  d[2 * 5 + 3] += 1e-3f;          // perturbed
  d[4 * 5 + 0] = std::nanf("");   // NaN
  poison(&d[1 * 5 + 1], 1);       // never written
  const auto report = compare(view, p.ref, tol);
  EXPECT_FALSE(report.passed());
  EXPECT_EQ(report.failed, 3);
  EXPECT_EQ(report.unwritten, 1);
  EXPECT_EQ(report.nonfinite, 1);
  ASSERT_EQ(report.first.size(), 3u);
  EXPECT_EQ(report.first[0].row, 1);  // row-major order
  EXPECT_EQ(report.first[0].verdict, Verdict::kUnwritten);
  EXPECT_EQ(report.first[1].row, 2);
  EXPECT_EQ(report.first[1].verdict, Verdict::kOutOfBudget);
  EXPECT_EQ(report.first[2].row, 4);
  EXPECT_EQ(report.first[2].verdict, Verdict::kNonFinite);
  const std::string text = report.details();
  EXPECT_NE(text.find("FAIL: 3 of 30 elements outside budget (1 never written, 1 NaN or infinite)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("(1, 1): never written"), std::string::npos) << text;
  EXPECT_NE(text.find("(2, 3): got"), std::string::npos) << text;
  EXPECT_NE(text.find("of its budget"), std::string::npos) << text;

  // The reported count is capped, the counters are not.
  EXPECT_EQ(compare(view, p.ref, tol, 1).first.size(), 1u);
  EXPECT_EQ(compare(view, p.ref, tol, 1).failed, 3);
}

TEST(Compare, ShapeMismatchThrows) {
  const RandomProblem p = random_problem(4, 4, 8, 1);
  std::vector<float> d(12);
  EXPECT_THROW(compare(make_view<const float>(d.data(), 3, 4, Order::kRowMajor, 4), p.ref,
                       make_tolerance<float, float>()),
               std::invalid_argument);
}

TEST(Poison, PatternIsNaNAndDetectable) {
  std::vector<float> f(3, 1.0f);
  std::vector<double> g(2, 1.0);
  poison(f.data(), 2);
  poison(g.data(), 1);
  EXPECT_TRUE(std::isnan(f[0]) && is_poison(f[0]) && is_poison(f[1]));
  EXPECT_FALSE(is_poison(f[2]));
  EXPECT_TRUE(std::isnan(g[0]) && is_poison(g[0]) && !is_poison(g[1]));
  EXPECT_FALSE(is_poison(std::nanf("")));  // an ordinary NaN is not "never written"
}

TEST(RandomFill, DeterministicNeverZeroAndInRange) {
  std::vector<float> x(5000), y(5000), z(5000);
  fill_random(x.data(), x.size(), 42, Distribution::uniform(-1, 1));
  fill_random(y.data(), y.size(), 42, Distribution::uniform(-1, 1));
  fill_random(z.data(), z.size(), 43, Distribution::uniform(-1, 1));
  EXPECT_EQ(x, y);
  EXPECT_NE(x, z);
  double sum = 0;
  for (float v : x) {
    EXPECT_NE(v, 0.0f);
    EXPECT_GE(v, -1.0f);
    EXPECT_LT(v, 1.0f);
    sum += v;
  }
  EXPECT_LT(std::fabs(sum / x.size()), 0.05);  // mean-zero data, as the sqrt(K) budget assumes

  std::vector<double> ints(2000);
  fill_random(ints.data(), ints.size(), 9, Distribution::integers(-2, 2));
  std::set<double> seen(ints.begin(), ints.end());
  EXPECT_EQ(seen, (std::set<double>{-2, -1, 1, 2}));  // every nonzero value, and no zero

  EXPECT_THROW(fill_random(x.data(), 1, 0, Distribution::uniform(1, 1)), std::invalid_argument);
  EXPECT_THROW(fill_random(x.data(), 1, 0, Distribution::integers(0, 0)), std::invalid_argument);
  EXPECT_THROW(fill_random(x.data(), 1, 0, Distribution::integers(0.5, 3)), std::invalid_argument);
}

#if TESSEL_HAS_CUDA_FP16
TEST(RandomFill, HalfAndBfloat16) {
  std::vector<tessel::half_t> h(1000);
  std::vector<tessel::bfloat16_t> bf(1000);
  fill_random(h.data(), h.size(), 1, Distribution::uniform(-1, 1));
  fill_random(bf.data(), bf.size(), 1, Distribution::uniform(-1, 1));
  int distinct_from_float = 0;
  for (std::size_t i = 0; i < h.size(); ++i) {
    const double hv = tessel::to_double(h[i]);
    ASSERT_NE(hv, 0.0);
    ASSERT_LE(std::fabs(hv), 1.0);
    // Same draw, rounded to fewer bits: close to the f16 value but usually not equal.
    const double bv = tessel::to_double(bf[i]);
    EXPECT_NEAR(hv, bv, std::ldexp(std::fabs(hv), -7));
    distinct_from_float += hv != bv;
  }
  EXPECT_GT(distinct_from_float, 500);
}

TEST(HostReference, ReadsHalfInputs) {
  const std::vector<tessel::half_t> a = {tessel::half_t(0.5f), tessel::half_t(-1.5f)};
  const std::vector<tessel::bfloat16_t> b = {tessel::bfloat16_t(4.0f), tessel::bfloat16_t(2.0f)};
  const auto ref = host_reference_gemm<tessel::half_t, tessel::bfloat16_t, float>(
      1.0, make_view(a.data(), 1, 2, Order::kRowMajor, 2),
      make_view(b.data(), 2, 1, Order::kRowMajor, 1), 0.0, MatrixView<const float>{});
  EXPECT_EQ(ref.value[0], -1.0);
  EXPECT_EQ(ref.ab_magnitude[0], 5.0);
}
#endif

// ---- The fragment model ------------------------------------------------------------------
// Each layout must cover its matrix exactly once over (lane, element): a model that sends two
// elements to the same place, or misses one, cannot be the documented layout.
template <class F>
void expect_bijection(F map, int values, int rows, int cols) {
  std::set<std::pair<int, int>> seen;
  for (int lane = 0; lane < 32; ++lane) {
    for (int i = 0; i < values; ++i) {
      const FragmentCoord c = map(lane, i);
      ASSERT_GE(c.row, 0);
      ASSERT_LT(c.row, rows);
      ASSERT_GE(c.col, 0);
      ASSERT_LT(c.col, cols);
      EXPECT_TRUE(seen.insert({c.row, c.col}).second) << "lane " << lane << " element " << i;
    }
  }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(rows * cols));
}

TEST(MmaFragments, EveryLayoutCoversItsMatrixOnce) {
  expect_bijection(mma_m16n8k8_a, 4, 16, 8);
  expect_bijection(mma_m16n8k8_b, 2, 8, 8);
  expect_bijection(mma_m16n8k8_c, 4, 16, 8);
  expect_bijection(mma_m16n8k16_a, 8, 16, 16);
  expect_bijection(mma_m16n8k16_b, 4, 16, 8);
  expect_bijection(mma_m16n8k16_c, 4, 16, 8);
  expect_bijection([](int l, int i) { return ldmatrix_m8n8(l, i, false); }, 2, 8, 8);
  expect_bijection([](int l, int i) { return ldmatrix_m8n8(l, i, true); }, 2, 8, 8);
}

TEST(MmaFragments, PairsShareARegisterAlongTheContiguousDimension) {
  // Two 16-bit elements of one register are neighbours in k for A (row-major) and for B
  // (column-major): what lets one 32-bit load or one ldmatrix row fill the register.
  for (int lane = 0; lane < 32; ++lane) {
    for (int r = 0; r < 4; ++r) {
      const auto lo = mma_m16n8k16_a(lane, 2 * r), hi = mma_m16n8k16_a(lane, 2 * r + 1);
      EXPECT_EQ(lo.row, hi.row);
      EXPECT_EQ(hi.col, lo.col + 1);
    }
    for (int r = 0; r < 2; ++r) {
      const auto lo = mma_m16n8k16_b(lane, 2 * r), hi = mma_m16n8k16_b(lane, 2 * r + 1);
      EXPECT_EQ(lo.col, hi.col);
      EXPECT_EQ(hi.row, lo.row + 1);
    }
  }
  // ldmatrix without .trans delivers exactly what mma.m16n8k8 wants for B when B is stored
  // n-major (each 8-element row of the stored matrix is one column of B).
  for (int lane = 0; lane < 32; ++lane) {
    for (int i = 0; i < 2; ++i) {
      const auto l = ldmatrix_m8n8(lane, i, false);
      const auto b = mma_m16n8k8_b(lane, i);
      EXPECT_EQ(l.row, b.col);
      EXPECT_EQ(l.col, b.row);
    }
  }
}

}  // namespace
