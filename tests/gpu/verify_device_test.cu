// The device halves of the verification helpers against their host halves: fills, the
// reference GEMM, the comparison; and the whole recipe a GEMM test follows, on a simple SIMT
// kernel standing in for the kernel under test.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "gpu_skip.hpp"
#include "tessel/numeric.hpp"
#include "tessel/verify/compare.hpp"
#include "tessel/verify/device_buffer.cuh"
#include "tessel/verify/device_compare.cuh"
#include "tessel/verify/device_fill.cuh"
#include "tessel/verify/device_reference.cuh"
#include "tessel/verify/host_reference.hpp"
#include "tessel/verify/random.hpp"

namespace {

using namespace tessel;
using namespace tessel::verify;

template <class T>
void expect_device_fill_matches_host(std::size_t count, Distribution d) {
  std::vector<T> host(count);
  fill_random(host.data(), count, 1234, d);
  DeviceBuffer<T> dev(count);
  fill_random_device(dev.data(), count, 1234, d);
  check_cuda(cudaDeviceSynchronize(), "fill_random_kernel");
  const std::vector<T> back = dev.download();
  ASSERT_EQ(std::memcmp(host.data(), back.data(), count * sizeof(T)), 0)
      << "device and host fills differ for a " << sizeof(T) << "-byte type";
}

TEST(DeviceFill, SameValuesAsTheHostFill) {
  TESSEL_SKIP_WITHOUT_DEVICE();
  expect_device_fill_matches_host<float>(100003, Distribution::uniform(-1, 1));
  expect_device_fill_matches_host<double>(10007, Distribution::uniform(-3, 5));
  expect_device_fill_matches_host<half_t>(100003, Distribution::uniform(-1, 1));
  expect_device_fill_matches_host<bfloat16_t>(100003, Distribution::uniform(-1, 1));
  expect_device_fill_matches_host<float>(4099, Distribution::integers(-4, 4));
}

TEST(DevicePoison, MarksEveryElement) {
  TESSEL_SKIP_WITHOUT_DEVICE();
  DeviceBuffer<half_t> buf(1000);
  poison_device(buf.data(), buf.size());
  check_cuda(cudaDeviceSynchronize(), "poison_device");
  for (const half_t& h : buf.download()) ASSERT_TRUE(is_poison(h));
}

// Operands on the host and the device, in given layouts.
struct Problem {
  std::int64_t m, n, k;
  Order oa, ob, oc;
  std::vector<half_t> a;
  std::vector<bfloat16_t> b;  // deliberately another type than A
  std::vector<float> c;
  DeviceBuffer<half_t> da;
  DeviceBuffer<bfloat16_t> db;
  DeviceBuffer<float> dc;

  std::int64_t lda() const { return (oa == Order::kRowMajor ? k : m) + 3; }
  std::int64_t ldb() const { return (ob == Order::kRowMajor ? n : k) + 5; }
  std::int64_t ldc() const { return oc == Order::kRowMajor ? n : m; }
  template <class T> MatrixView<const T> va(const T* p) const { return make_view(p, m, k, oa, lda()); }
  template <class T> MatrixView<const T> vb(const T* p) const { return make_view(p, k, n, ob, ldb()); }
  template <class T> MatrixView<const T> vc(const T* p) const { return make_view(p, m, n, oc, ldc()); }
};

Problem make_problem(std::int64_t m, std::int64_t n, std::int64_t k, Order oa, Order ob, Order oc,
                     std::uint64_t seed) {
  Problem p{m, n, k, oa, ob, oc, {}, {}, {}, {}, {}, {}};
  p.a.resize(static_cast<std::size_t>(required_elements(m, k, oa, p.lda())));
  p.b.resize(static_cast<std::size_t>(required_elements(k, n, ob, p.ldb())));
  p.c.resize(static_cast<std::size_t>(required_elements(m, n, oc, p.ldc())));
  fill_random(p.a.data(), p.a.size(), seed, Distribution::uniform(-1, 1));
  fill_random(p.b.data(), p.b.size(), seed + 1, Distribution::uniform(-1, 1));
  fill_random(p.c.data(), p.c.size(), seed + 2, Distribution::uniform(-1, 1));
  p.da = DeviceBuffer<half_t>(p.a);
  p.db = DeviceBuffer<bfloat16_t>(p.b);
  p.dc = DeviceBuffer<float>(p.c);
  return p;
}

TEST(DeviceReference, EqualsTheHostReferenceInEveryLayout) {
  TESSEL_SKIP_WITHOUT_DEVICE();
  for (Order oa : {Order::kRowMajor, Order::kColumnMajor}) {
    for (Order ob : {Order::kRowMajor, Order::kColumnMajor}) {
      const Order oc = oa;
      Problem p = make_problem(37, 29, 131, oa, ob, oc, 77);
      const GemmReference host = host_reference_gemm<half_t, bfloat16_t, float>(
          1.5, p.va(p.a.data()), p.vb(p.b.data()), -0.75, p.vc(p.c.data()));
      const GemmReference dev = device_reference_gemm<half_t, bfloat16_t, float>(
          1.5, p.va(p.da.data()), p.vb(p.db.data()), -0.75, p.vc(p.dc.data()))
                                    .to_host();
      ASSERT_EQ(dev.m, host.m);
      ASSERT_EQ(dev.n, host.n);
      ASSERT_EQ(dev.k, host.k);
      // Same operations in the same order, each correctly rounded: the same doubles.
      EXPECT_EQ(dev.value, host.value) << to_string(oa) << " A, " << to_string(ob) << " B";
      EXPECT_EQ(dev.ab_magnitude, host.ab_magnitude);
      EXPECT_EQ(dev.c_magnitude, host.c_magnitude);
    }
  }
}

// The kernel under test in the recipe below: f32 accumulation, one thread per output. With
// `skip_k` >= 0 it leaves out that product for one element, the kind of bug the budget must catch.
__global__ void simt_gemm(MatrixView<const half_t> a, MatrixView<const bfloat16_t> b,
                          MatrixView<float> d, std::int64_t skip_i, std::int64_t skip_k) {
  const std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.y) * blockDim.y + threadIdx.y;
  if (i >= d.rows || j >= d.cols) return;
  float acc = 0;
  for (std::int64_t k = 0; k < a.cols; ++k) {
    if (i == skip_i && j == 0 && k == skip_k) continue;
    acc += static_cast<float>(a(i, k)) * static_cast<float>(b(k, j));
  }
  d(i, j) = acc;
}

TEST(DeviceCompare, RecipeOnALargeProblem) {
  TESSEL_SKIP_WITHOUT_DEVICE();
  const std::int64_t m = 512, n = 384, k = 2048;
  Problem p = make_problem(m, n, k, Order::kRowMajor, Order::kColumnMajor, Order::kRowMajor, 5);
  DeviceBuffer<float> dd(static_cast<std::size_t>(m * n));
  const auto d_view = make_view(dd.data(), m, n, Order::kRowMajor, n);
  const DeviceReference ref = device_reference_gemm<half_t, bfloat16_t, float>(
      1.0, p.va(p.da.data()), p.vb(p.db.data()), 0.0, MatrixView<const float>{});
  const Tolerance tol = make_tolerance<float, float>();
  const dim3 block(32, 8), grid(static_cast<unsigned>(n / 32), static_cast<unsigned>(m / 8));

  // Correct kernel: passes, with a worst element that used some but not all of its budget.
  poison_device(dd.data(), dd.size());
  simt_gemm<<<grid, block>>>(p.va(p.da.data()), p.vb(p.db.data()), d_view, -1, -1);
  check_cuda(cudaDeviceSynchronize(), "simt_gemm");
  const CompareReport pass = device_compare(MatrixView<const float>(d_view), ref, tol);
  EXPECT_TRUE(pass.passed()) << pass.details();
  EXPECT_EQ(pass.checked, m * n);
  EXPECT_GT(pass.worst.ratio, 0.0);
  EXPECT_LT(pass.worst.ratio, 0.5) << pass.summary();

  // One product of element (100, 0) dropped: caught, located. The largest such product is
  // dropped, so that whether it exceeds the budget does not depend on the draw.
  std::int64_t drop_k = 0;
  double largest = 0;
  for (std::int64_t kk = 0; kk < k; ++kk) {
    const double prod = std::fabs(to_double(p.va(p.a.data())(100, kk)) *
                                  to_double(p.vb(p.b.data())(kk, 0)));
    if (prod > largest) {
      largest = prod;
      drop_k = kk;
    }
  }
  poison_device(dd.data(), dd.size());
  simt_gemm<<<grid, block>>>(p.va(p.da.data()), p.vb(p.db.data()), d_view, 100, drop_k);
  check_cuda(cudaDeviceSynchronize(), "simt_gemm");
  const CompareReport dropped = device_compare(MatrixView<const float>(d_view), ref, tol);
  EXPECT_FALSE(dropped.passed());
  EXPECT_EQ(dropped.failed, 1) << dropped.details();
  EXPECT_EQ(dropped.worst.row, 100);
  EXPECT_EQ(dropped.worst.col, 0);

  // Never launched: every element reported as never written.
  poison_device(dd.data(), dd.size());
  check_cuda(cudaDeviceSynchronize(), "poison_device");
  const CompareReport unwritten = device_compare(MatrixView<const float>(d_view), ref, tol, 3);
  EXPECT_EQ(unwritten.unwritten, m * n);
  ASSERT_EQ(unwritten.first.size(), 3u);
  EXPECT_EQ(unwritten.first[2].col, 2);
}

TEST(DeviceCompare, AgreesWithTheHostCompare) {
  TESSEL_SKIP_WITHOUT_DEVICE();
  const std::int64_t m = 45, n = 33, k = 300;
  Problem p = make_problem(m, n, k, Order::kColumnMajor, Order::kRowMajor, Order::kColumnMajor, 9);
  const GemmReference host_ref = host_reference_gemm<half_t, bfloat16_t, float>(
      2.0, p.va(p.a.data()), p.vb(p.b.data()), 0.5, p.vc(p.c.data()));
  const DeviceReference dev_ref = device_reference_gemm<half_t, bfloat16_t, float>(
      2.0, p.va(p.da.data()), p.vb(p.db.data()), 0.5, p.vc(p.dc.data()));
  // D in f16, column-major: the reference rounded, then damaged in three ways.
  std::vector<half_t> d(static_cast<std::size_t>(m * n));
  const auto hv = make_view(d.data(), m, n, Order::kColumnMajor, m);
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) hv(i, j) = half_t(static_cast<float>(host_ref.value[i * n + j]));
  }
  hv(3, 4) = half_t(static_cast<float>(host_ref.value[3 * n + 4]) + 0.25f);
  hv(10, 0) = half_t(__builtin_nanf(""));
  poison(&hv(20, 7), 1);
  DeviceBuffer<half_t> dd(d);
  const Tolerance tol = make_tolerance<float, half_t>();
  const CompareReport h = compare(MatrixView<const half_t>(hv), host_ref, tol);
  const CompareReport g = device_compare(
      MatrixView<const half_t>(make_view(dd.data(), m, n, Order::kColumnMajor, m)), dev_ref, tol);
  EXPECT_EQ(h.failed, 3);
  EXPECT_EQ(g.failed, h.failed);
  EXPECT_EQ(g.unwritten, h.unwritten);
  EXPECT_EQ(g.nonfinite, h.nonfinite);
  EXPECT_EQ(g.checked, h.checked);
  ASSERT_EQ(g.first.size(), h.first.size());
  for (std::size_t i = 0; i < h.first.size(); ++i) {
    EXPECT_EQ(g.first[i].row, h.first[i].row);
    EXPECT_EQ(g.first[i].col, h.first[i].col);
    EXPECT_EQ(g.first[i].verdict, h.first[i].verdict);
  }
  EXPECT_EQ(g.details(), h.details());
}

}  // namespace
