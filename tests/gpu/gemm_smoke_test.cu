// First light for the Sm75 and Sm80 GEMM paths: one configuration of each, a square and a ragged
// problem, checked element by element against the double-precision host reference.

#include <cstdint>
#include <vector>

#include "gpu_test_util.hpp"
#include "tessel/gemm/device/gemm.hpp"
#include "tessel/verify/compare.hpp"
#include "tessel/verify/device_buffer.cuh"
#include "tessel/verify/host_reference.hpp"
#include "tessel/verify/poison.hpp"
#include "tessel/verify/random.hpp"
#include "tessel/verify/tolerance.hpp"

using namespace tessel;
using namespace tessel::gemm;

namespace {

template <class Gemm>
void run_and_check(int m, int n, int k, float alpha, float beta, std::uint64_t seed) {
  using TA = typename Gemm::ElementA;
  using TC = typename Gemm::ElementC;
  bool a_row = std::is_same_v<typename Gemm::LayoutA, RowMajor>;
  bool b_row = std::is_same_v<typename Gemm::LayoutB, RowMajor>;
  bool c_row = std::is_same_v<typename Gemm::LayoutC, RowMajor>;
  std::int64_t lda = a_row ? k : m, ldb = b_row ? n : k, ldc = c_row ? n : m;
  std::vector<TA> a(std::size_t(m) * k), b(std::size_t(k) * n);
  std::vector<TC> c(std::size_t(m) * n), d(std::size_t(m) * n);
  verify::fill_random(a.data(), a.size(), seed, verify::Distribution::uniform(-1, 1));
  verify::fill_random(b.data(), b.size(), seed + 1, verify::Distribution::uniform(-1, 1));
  verify::fill_random(c.data(), c.size(), seed + 2, verify::Distribution::uniform(-1, 1));
  verify::poison(d.data(), d.size());
  verify::DeviceBuffer<TA> da(a), db(b);
  verify::DeviceBuffer<TC> dc(c), dd(d);

  typename Gemm::Arguments args{{m, n, k}, {da.data(), lda}, {db.data(), ldb}, {dc.data(), ldc}, {dd.data(), ldc}, {alpha, beta}, 1};
  Gemm gemm;
  auto s = gemm(args);
  ASSERT_TRUE(s.ok()) << Gemm::name() << ": " << s.what();
  TESSEL_CUDA_CHECK(cudaDeviceSynchronize());
  d = dd.download();

  auto order = [](bool row) { return row ? verify::Order::kRowMajor : verify::Order::kColumnMajor; };
  auto ref = verify::host_reference_gemm<TA, TA, TC>(
      alpha, verify::make_view<const TA>(a.data(), m, k, order(a_row), lda),
      verify::make_view<const TA>(b.data(), k, n, order(b_row), ldb), beta,
      verify::make_view<const TC>(c.data(), m, n, order(c_row), ldc));
  auto report = verify::compare(verify::make_view<const TC>(d.data(), m, n, order(c_row), ldc), ref,
                                verify::make_tolerance<float, TC>());
  EXPECT_TRUE(report.passed()) << Gemm::name() << " " << m << "x" << n << "x" << k << "\n" << report.details();
}

using Sm80TN = device::Gemm<half_t, RowMajor, half_t, ColumnMajor, float, RowMajor, float, OpClassTensorOp, arch::Sm80,
                            GemmShape<128, 128, 32>, GemmShape<64, 64, 32>, GemmShape<16, 8, 16>,
                            epilogue::LinearCombination<float>, 3>;
using Sm75TN = device::Gemm<half_t, RowMajor, half_t, ColumnMajor, float, RowMajor, float, OpClassTensorOp, arch::Sm75,
                            GemmShape<128, 128, 32>, GemmShape<64, 64, 32>, GemmShape<16, 8, 8>,
                            epilogue::LinearCombination<float>, 2>;
using Sm80NT = device::Gemm<bfloat16_t, ColumnMajor, bfloat16_t, RowMajor, bfloat16_t, ColumnMajor, float, OpClassTensorOp,
                            arch::Sm80, GemmShape<128, 128, 64>, GemmShape<64, 64, 64>, GemmShape<16, 8, 16>,
                            epilogue::LinearCombination<bfloat16_t>, 4>;

}  // namespace

TEST(GemmSmoke, Sm80F16TN) {
  TESSEL_SKIP_WITHOUT_GPU();
  run_and_check<Sm80TN>(256, 256, 256, 1.f, 0.f, 11);
  run_and_check<Sm80TN>(200, 136, 72, 1.5f, -0.5f, 12);
}
TEST(GemmSmoke, Sm75F16TN) {
  TESSEL_SKIP_WITHOUT_GPU();
  run_and_check<Sm75TN>(256, 256, 256, 1.f, 0.f, 21);
  run_and_check<Sm75TN>(200, 136, 72, 1.5f, -0.5f, 22);
}
TEST(GemmSmoke, Sm80Bf16NT) {
  TESSEL_SKIP_WITHOUT_GPU();
  run_and_check<Sm80NT>(256, 256, 256, 1.f, 0.f, 31);
  run_and_check<Sm80NT>(200, 136, 136, 1.f, 0.5f, 32);
}
