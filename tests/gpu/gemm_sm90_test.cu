// The Hopper TMA + wgmma kernel against the double-precision host reference: square, ragged and
// beta != 0 problems, bf16 and f32 output.

#include <cstdint>
#include <vector>

#include "gpu_test_util.hpp"
#include "tessel/gemm/device/gemm_sm90.hpp"
#include "tessel/verify/compare.hpp"
#include "tessel/verify/device_buffer.cuh"
#include "tessel/verify/host_reference.hpp"
#include "tessel/verify/poison.hpp"
#include "tessel/verify/random.hpp"
#include "tessel/verify/tolerance.hpp"

using namespace tessel;
using namespace tessel::gemm;

namespace {

bool have_sm90() {
  int dev = 0, major = 0;
  return cudaGetDevice(&dev) == cudaSuccess && cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess &&
         major == 9;
}

template <class Gemm>
void run_and_check(int m, int n, int k, float alpha, float beta, std::uint64_t seed) {
  using TD = typename Gemm::ElementD;
  std::vector<bfloat16_t> a(std::size_t(m) * k), b(std::size_t(k) * n);
  std::vector<TD> c(std::size_t(m) * n), d(std::size_t(m) * n);
  verify::fill_random(a.data(), a.size(), seed, verify::Distribution::uniform(-1, 1));
  verify::fill_random(b.data(), b.size(), seed + 1, verify::Distribution::uniform(-1, 1));
  verify::fill_random(c.data(), c.size(), seed + 2, verify::Distribution::uniform(-1, 1));
  verify::poison(d.data(), d.size());
  verify::DeviceBuffer<bfloat16_t> da(a), db(b);
  verify::DeviceBuffer<TD> dc(c), dd(d);
  typename Gemm::Arguments args{{m, n, k}, {da.data(), k}, {db.data(), k}, {dc.data(), n}, {dd.data(), n}, {alpha, beta}};
  Gemm gemm;
  auto s = gemm(args);
  ASSERT_TRUE(s.ok()) << Gemm::name() << ": " << s.what();
  TESSEL_CUDA_CHECK(cudaDeviceSynchronize());
  d = dd.download();
  auto ref = verify::host_reference_gemm<bfloat16_t, bfloat16_t, TD>(
      alpha, verify::make_view<const bfloat16_t>(a.data(), m, k, verify::Order::kRowMajor, k),
      verify::make_view<const bfloat16_t>(b.data(), k, n, verify::Order::kColumnMajor, k), beta,
      verify::make_view<const TD>(c.data(), m, n, verify::Order::kRowMajor, n));
  auto report = verify::compare(verify::make_view<const TD>(d.data(), m, n, verify::Order::kRowMajor, n), ref,
                                verify::make_tolerance<float, TD>());
  EXPECT_TRUE(report.passed()) << Gemm::name() << " " << m << "x" << n << "x" << k << "\n" << report.details();
}

}  // namespace

TEST(GemmSm90, Bf16OutSquareAndRagged) {
  TESSEL_SKIP_WITHOUT_GPU();
  if (!have_sm90()) GTEST_SKIP() << "needs a compute capability 9.0 GPU (sm_90a kernel)";
  using G = device::GemmSm90<bfloat16_t>;
  run_and_check<G>(256, 512, 256, 1.f, 0.f, 1);
  run_and_check<G>(384, 768, 1024, 1.f, 0.f, 2);
  run_and_check<G>(300, 200, 136, 1.5f, -0.5f, 3);
}

TEST(GemmSm90, F32OutAndNarrowTile) {
  TESSEL_SKIP_WITHOUT_GPU();
  if (!have_sm90()) GTEST_SKIP() << "needs a compute capability 9.0 GPU (sm_90a kernel)";
  run_and_check<device::GemmSm90<float>>(256, 256, 512, 1.f, 0.f, 4);
  run_and_check<device::GemmSm90<float, 128, 128, 64, 5>>(130, 136, 200, 2.f, 1.f, 5);
}

TEST(GemmSm90, RejectsMisalignedLeadingDimension) {
  using G = device::GemmSm90<bfloat16_t>;
  G::Arguments args{{128, 128, 100}, {reinterpret_cast<bfloat16_t const*>(256), 100}, {reinterpret_cast<bfloat16_t const*>(256), 100},
                    {nullptr, 0}, {reinterpret_cast<bfloat16_t*>(256), 128}, {1.f, 0.f}};
  auto s = G::can_implement(args);
  EXPECT_EQ(s.status, Status::kErrorMisalignedOperand);
  EXPECT_NE(s.message.find("leading dimension of A is 100, not a multiple of the 8 elements"), std::string::npos) << s.message;
}
