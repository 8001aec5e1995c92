// The Hopper TMA + wgmma kernels against the double-precision host reference: every layout (TN,
// NT, NN, TT), f16 and bf16 in, f16 / bf16 / f32 out, both schedules, 2x1 clusters, batches,
// ragged sizes, beta != 0, and persistence (fewer CTAs than tiles, forced through hw_info).

#include <cstdint>
#include <vector>

#include "sm90_test_support.hpp"
#include "tessel/gemm/device/gemm_sm90.hpp"
#include "tessel/gemm/device/gemm_universal_sm90.hpp"
#include "tessel/verify/compare.hpp"
#include "tessel/verify/device_buffer.cuh"
#include "tessel/verify/host_reference.hpp"
#include "tessel/verify/poison.hpp"
#include "tessel/verify/random.hpp"
#include "tessel/verify/tolerance.hpp"

using namespace tessel;
using namespace tessel::gemm;

namespace {

template <class E, class LA, class LB, class ED, int BM, int BN, int CM, class Sched = collective::KernelScheduleAuto,
          class EpiSched = collective::EpilogueScheduleAuto>
using Sm90 = test::Sm90Gemm<E, LA, LB, ED, BM, BN, CM, Sched, EpiSched>;
using Direct = collective::EpilogueNoSmemWarpSpecialized;

std::int64_t round8(std::int64_t x) { return (x + 7) / 8 * 8; }

struct Case {
  int m, n, k, l = 1;
  float alpha = 1.f, beta = 0.f;
  int sm_count = 0;  // > 0: fewer persistent CTAs than the device has SMs
  std::uint64_t seed = 1;
};

/// One problem through the adapter, every element of every batch against the host reference.
/// Leading dimensions are padded past the packed extent so that strides are really used.
template <class Gemm>
void run_case(Case const& c) {
  using EA = typename Gemm::ElementA;
  using EB = typename Gemm::ElementB;
  using ED = typename Gemm::ElementD;
  constexpr bool kAK = Gemm::Cfg::MajorA == arch::Major::K, kBK = Gemm::Cfg::MajorB == arch::Major::K;
  std::int64_t lda = round8(kAK ? c.k : c.m) + 8, ldb = round8(kBK ? c.k : c.n) + 8, ldd = round8(c.n) + 8;
  std::int64_t sa = lda * (kAK ? c.m : c.k) + 64, sb = ldb * (kBK ? c.n : c.k) + 64, sd = ldd * c.m + 64;
  std::vector<EA> a(std::size_t(sa) * c.l);
  std::vector<EB> b(std::size_t(sb) * c.l);
  std::vector<ED> cm(std::size_t(sd) * c.l), d(std::size_t(sd) * c.l);
  verify::fill_random(a.data(), a.size(), c.seed, verify::Distribution::uniform(-1, 1));
  verify::fill_random(b.data(), b.size(), c.seed + 1, verify::Distribution::uniform(-1, 1));
  verify::fill_random(cm.data(), cm.size(), c.seed + 2, verify::Distribution::uniform(-1, 1));
  verify::poison(d.data(), d.size());
  verify::DeviceBuffer<EA> da(a);
  verify::DeviceBuffer<EB> db(b);
  verify::DeviceBuffer<ED> dc(cm), dd(d);

  typename Gemm::Arguments args;
  args.mode = c.l > 1 ? GemmUniversalMode::kBatched : GemmUniversalMode::kGemm;
  args.problem_shape = {c.m, c.n, c.k, c.l};
  args.mainloop.ptr_A = da.data();
  args.mainloop.ptr_B = db.data();
  if constexpr (kAK) args.mainloop.dA = {lda, Int<1>{}, sa};
  else args.mainloop.dA = {Int<1>{}, lda, sa};
  if constexpr (kBK) args.mainloop.dB = {ldb, Int<1>{}, sb};
  else args.mainloop.dB = {Int<1>{}, ldb, sb};
  args.epilogue.thread.alpha = c.alpha;
  args.epilogue.thread.beta = c.beta;
  args.epilogue.ptr_C = dc.data();
  args.epilogue.dC = {ldd, Int<1>{}, sd};
  args.epilogue.ptr_D = dd.data();
  args.epilogue.dD = {ldd, Int<1>{}, sd};
  args.hw_info.sm_count = c.sm_count;
  Gemm gemm;
  auto s = gemm(args);
  ASSERT_TRUE(s.ok()) << Gemm::name() << ": " << s.what();
  TESSEL_CUDA_CHECK(cudaDeviceSynchronize());
  d = dd.download();
  for (int l = 0; l < c.l; ++l) {
    auto va = verify::make_view<const EA>(a.data() + l * sa, c.m, c.k, kAK ? verify::Order::kRowMajor : verify::Order::kColumnMajor, lda);
    auto vb = verify::make_view<const EB>(b.data() + l * sb, c.k, c.n, kBK ? verify::Order::kColumnMajor : verify::Order::kRowMajor, ldb);
    auto vc = verify::make_view<const ED>(cm.data() + l * sd, c.m, c.n, verify::Order::kRowMajor, ldd);
    auto ref = verify::host_reference_gemm<EA, EB, ED>(c.alpha, va, vb, c.beta, vc);
    auto report = verify::compare(verify::make_view<const ED>(d.data() + l * sd, c.m, c.n, verify::Order::kRowMajor, ldd), ref,
                                  verify::make_tolerance<float, ED>());
    EXPECT_TRUE(report.passed()) << Gemm::name() << " " << c.m << "x" << c.n << "x" << c.k << " batch " << l << " of " << c.l << "\n"
                                 << report.details();
  }
  // The padding between rows and batches is never written.
  for (int l = 0; l < c.l; ++l)
    for (int r = 0; r < c.m; ++r)
      for (std::int64_t col = c.n; col < ldd; ++col)
        ASSERT_TRUE(verify::is_poison(d[l * sd + r * ldd + col])) << Gemm::name() << " wrote outside D at row " << r << ", column " << col;
}

}  // namespace

TEST(GemmSm90, CooperativeAllLayoutsF16) {
  TESSEL_SKIP_WITHOUT_SM90();
  run_case<Sm90<half_t, RowMajor, ColumnMajor, half_t, 128, 128, 1>>({200, 264, 200, 1, 1.f, 0.f, 0, 11});     // TN
  run_case<Sm90<half_t, ColumnMajor, RowMajor, half_t, 128, 128, 1>>({200, 264, 200, 1, 1.f, 0.f, 0, 12});     // NT
  run_case<Sm90<half_t, ColumnMajor, ColumnMajor, half_t, 128, 128, 1>>({136, 320, 264, 1, 1.5f, -0.5f, 0, 13});  // NN
  run_case<Sm90<half_t, RowMajor, RowMajor, half_t, 128, 128, 1>>({264, 136, 72, 1, 1.f, 1.f, 0, 14});        // TT
}

// D straight from the registers (the epilogue without shared memory), beside the TMA-store one
// that the other cases use wherever D's rows end on 16 bytes (N = 500 or 100 in bf16 do not: the
// TMA-store kernels fall back to register stores there, and the padding check proves no byte
// past N is written).
TEST(GemmSm90, DirectStoreEpilogue) {
  TESSEL_SKIP_WITHOUT_SM90();
  using C = collective::KernelScheduleAuto;
  run_case<Sm90<half_t, RowMajor, ColumnMajor, half_t, 128, 256, 1, C, Direct>>({200, 264, 200, 1, 1.f, 0.5f, 0, 15});
  run_case<Sm90<bfloat16_t, ColumnMajor, RowMajor, float, 128, 128, 2, C, Direct>>({264, 200, 136, 2, 1.f, 0.f, 3, 16});
  run_case<Sm90<bfloat16_t, RowMajor, RowMajor, bfloat16_t, 128, 128, 1, kernel::KernelTmaWarpSpecializedPingpong, Direct>>(
      {300, 300, 128, 1, 1.f, 0.f, 2, 17});
}

TEST(GemmSm90, CooperativeBf16WideTile) {
  TESSEL_SKIP_WITHOUT_SM90();
  run_case<Sm90<bfloat16_t, RowMajor, ColumnMajor, bfloat16_t, 128, 256, 1>>({384, 768, 1024, 1, 1.f, 0.f, 0, 21});
  run_case<Sm90<bfloat16_t, ColumnMajor, RowMajor, float, 128, 256, 1>>({300, 200, 136, 1, 1.5f, -0.5f, 0, 22});
}

// Rows past M in the last row of tiles, on the boundary between the consumer warpgroups' rows:
// M = 192 and 448 end exactly on the first warpgroup's 64 rows, M = 193 leaves the second a single
// row; few CTAs make each walk several tiles, and the 2x1 cluster's CTAs share B's stages. (The
// grouped kernels skip the second warpgroup's wgmma on such tiles: gemm_sm90_grouped_test.)
TEST(GemmSm90, CooperativeTailOnTheWarpgroupBoundary) {
  TESSEL_SKIP_WITHOUT_SM90();
  run_case<Sm90<bfloat16_t, RowMajor, ColumnMajor, bfloat16_t, 128, 256, 1>>({192, 520, 1000, 1, 1.f, 0.f, 0, 81});
  run_case<Sm90<bfloat16_t, RowMajor, ColumnMajor, bfloat16_t, 128, 256, 1>>({193, 520, 1000, 1, 1.f, 0.f, 0, 82});
  run_case<Sm90<half_t, RowMajor, ColumnMajor, half_t, 128, 128, 1>>({448, 384, 648, 2, 1.f, 0.5f, 2, 83});
  run_case<Sm90<bfloat16_t, RowMajor, ColumnMajor, bfloat16_t, 128, 256, 2>>({448, 776, 520, 1, 1.f, 0.f, 4, 84});
}

TEST(GemmSm90, PingpongPersistent) {
  TESSEL_SKIP_WITHOUT_SM90();
  using PP = kernel::KernelTmaWarpSpecializedPingpong;
  // 3 CTAs for 12-16 tiles: each consumer warpgroup runs several tiles, in turns.
  run_case<Sm90<bfloat16_t, RowMajor, ColumnMajor, bfloat16_t, 128, 128, 1, PP>>({512, 500, 320, 1, 1.f, 0.f, 3, 31});
  run_case<Sm90<half_t, ColumnMajor, RowMajor, float, 64, 128, 1, PP>>({448, 384, 200, 1, 1.f, 0.5f, 3, 32});
  run_case<Sm90<bfloat16_t, RowMajor, ColumnMajor, bfloat16_t, 128, 128, 1, PP>>({100, 100, 64, 1, 1.f, 0.f, 0, 33});  // one tile
}

TEST(GemmSm90, Cluster2x1Multicast) {
  TESSEL_SKIP_WITHOUT_SM90();
  // Odd row-tile counts leave the last cluster's second CTA without rows: it still loads its
  // half of B for its peer.
  run_case<Sm90<half_t, RowMajor, ColumnMajor, half_t, 128, 128, 2>>({384, 256, 512, 1, 1.f, 0.f, 0, 41});
  run_case<Sm90<half_t, RowMajor, ColumnMajor, half_t, 128, 128, 2>>({300, 328, 200, 1, 1.f, 0.f, 2, 42});
  run_case<Sm90<bfloat16_t, ColumnMajor, RowMajor, bfloat16_t, 128, 256, 2>>({520, 520, 136, 1, 1.f, -1.f, 4, 43});
  run_case<Sm90<bfloat16_t, RowMajor, ColumnMajor, bfloat16_t, 128, 128, 2, kernel::KernelTmaWarpSpecializedPingpong>>(
      {640, 384, 256, 1, 1.f, 0.f, 4, 44});
}

// Clusters along N share A's loads (1x2), 2x2 ones A's and B's. Odd tile counts along M and N
// leave CTAs of the last clusters with no rows or no columns: they still load their share for
// their peers and store nothing.
template <class E, class LA, class LB, class ED, int BM, int BN, int CM, int CN, class Sched = collective::KernelScheduleAuto>
using Sm90Cluster = test::Sm90Gemm<E, LA, LB, ED, BM, BN, CM, Sched, collective::EpilogueScheduleAuto,
                                   epilogue::LinearCombination<ED, ED>, PersistentScheduler, CN>;

TEST(GemmSm90, ClustersAlongNAndBoth) {
  TESSEL_SKIP_WITHOUT_SM90();
  run_case<Sm90Cluster<bfloat16_t, RowMajor, ColumnMajor, bfloat16_t, 128, 64, 1, 2>>({1000, 1000, 1000, 1, 1.f, 0.f, 0, 61});
  run_case<Sm90Cluster<bfloat16_t, RowMajor, ColumnMajor, bfloat16_t, 128, 64, 2, 2>>({1000, 1000, 1000, 1, 1.f, 0.5f, 0, 62});
  run_case<Sm90Cluster<half_t, ColumnMajor, RowMajor, half_t, 128, 128, 1, 2>>({520, 328, 200, 2, 1.f, 0.f, 4, 63});
  run_case<Sm90Cluster<bfloat16_t, RowMajor, RowMajor, float, 128, 256, 2, 2>>({640, 776, 136, 1, 1.f, -1.f, 8, 64});
  run_case<Sm90Cluster<bfloat16_t, RowMajor, ColumnMajor, bfloat16_t, 128, 128, 1, 2, kernel::KernelTmaWarpSpecializedPingpong>>(
      {384, 648, 256, 1, 1.f, 0.f, 4, 65});
  EXPECT_NE((Sm90Cluster<bfloat16_t, RowMajor, ColumnMajor, bfloat16_t, 128, 64, 1, 2>::name().find("_c1x2_")), std::string::npos);
}

TEST(GemmSm90, Batched) {
  TESSEL_SKIP_WITHOUT_SM90();
  run_case<Sm90<bfloat16_t, RowMajor, ColumnMajor, float, 128, 128, 1>>({136, 200, 128, 3, 1.f, 0.5f, 5, 51});
  run_case<Sm90<half_t, ColumnMajor, ColumnMajor, half_t, 128, 128, 2>>({256, 128, 192, 4, 1.f, 0.f, 0, 52});
}

TEST(GemmSm90, LegacyHandleTN) {
  TESSEL_SKIP_WITHOUT_SM90();
  using G = device::GemmSm90<bfloat16_t, 128, 128, 64, 5>;
  int m = 130, n = 136, k = 200;
  std::vector<bfloat16_t> a(std::size_t(m) * k), b(std::size_t(k) * n), c(std::size_t(m) * n), d(std::size_t(m) * n);
  verify::fill_random(a.data(), a.size(), 61, verify::Distribution::uniform(-1, 1));
  verify::fill_random(b.data(), b.size(), 62, verify::Distribution::uniform(-1, 1));
  verify::fill_random(c.data(), c.size(), 63, verify::Distribution::uniform(-1, 1));
  verify::poison(d.data(), d.size());
  verify::DeviceBuffer<bfloat16_t> da(a), db(b), dc(c), dd(d);
  G::Arguments args{{m, n, k}, {da.data(), k}, {db.data(), k}, {dc.data(), n}, {dd.data(), n}, {2.f, 1.f}};
  G gemm;
  auto s = gemm(args);
  ASSERT_TRUE(s.ok()) << s.what();
  TESSEL_CUDA_CHECK(cudaDeviceSynchronize());
  d = dd.download();
  auto ref = verify::host_reference_gemm<bfloat16_t, bfloat16_t, bfloat16_t>(
      2.f, verify::make_view<const bfloat16_t>(a.data(), m, k, verify::Order::kRowMajor, k),
      verify::make_view<const bfloat16_t>(b.data(), k, n, verify::Order::kColumnMajor, k), 1.f,
      verify::make_view<const bfloat16_t>(c.data(), m, n, verify::Order::kRowMajor, n));
  auto report = verify::compare(verify::make_view<const bfloat16_t>(d.data(), m, n, verify::Order::kRowMajor, n), ref,
                                verify::make_tolerance<float, bfloat16_t>());
  EXPECT_TRUE(report.passed()) << report.details();
}

// can_implement's TMA rules run before any device query, so these hold without a GPU.
TEST(GemmSm90, CanImplementNamesTheBrokenRule) {
  using G = Sm90<half_t, ColumnMajor, RowMajor, half_t, 128, 128, 1>;
  auto* p = reinterpret_cast<half_t*>(std::uintptr_t(1) << 20);
  G::Arguments args;
  args.problem_shape = {256, 256, 128, 1};
  args.mainloop = {p, {Int<1>{}, 256, 0}, p, {Int<1>{}, 256, 0}};
  args.epilogue.ptr_D = p;
  args.epilogue.dD = {256, Int<1>{}, 0};

  auto bad = args;
  bad.mainloop.dA = {Int<1>{}, 260, 0};
  auto s1 = G::can_implement(bad);
  EXPECT_EQ(s1.status, Status::kErrorMisalignedOperand);
  EXPECT_NE(s1.message.find("leading dimension of A is 260, not a multiple of the 8 elements"), std::string::npos) << s1.message;

  bad = args;
  bad.mainloop.ptr_B = p + 4;
  auto s2 = G::can_implement(bad);
  EXPECT_EQ(s2.status, Status::kErrorMisalignedOperand);
  EXPECT_NE(s2.message.find("base address of B"), std::string::npos) << s2.message;

  bad = args;
  bad.mainloop.dA = {Int<1>{}, 128, 0};
  auto s3 = G::can_implement(bad);
  EXPECT_EQ(s3.status, Status::kErrorInvalidProblem);
  EXPECT_NE(s3.message.find("leading dimension of A (128) is smaller than its row count (256)"), std::string::npos) << s3.message;

  bad = args;
  bad.problem_shape.l = 2;
  auto s4 = G::can_implement(bad);
  EXPECT_EQ(s4.status, Status::kErrorInvalidProblem);
  EXPECT_NE(s4.message.find("use GemmUniversalMode::kBatched"), std::string::npos) << s4.message;

  bad.mode = GemmUniversalMode::kBatched;
  bad.mainloop.dB = {Int<1>{}, 256, 256 * 128 + 4};
  auto s5 = G::can_implement(bad);
  EXPECT_EQ(s5.status, Status::kErrorMisalignedOperand);
  EXPECT_NE(s5.message.find("batch stride of B"), std::string::npos) << s5.message;

  bad = args;
  bad.epilogue.thread.beta = 1.f;
  auto s6 = G::can_implement(bad);
  EXPECT_EQ(s6.status, Status::kErrorInvalidProblem);
  EXPECT_NE(s6.message.find("beta is nonzero but C is null"), std::string::npos) << s6.message;
}

TEST(GemmSm90, ColumnMajorDThroughSwappedOperands) {
  TESSEL_SKIP_WITHOUT_SM90();
  using G = device::GemmUniversalAdapter<kernel::GemmUniversal<
      ProblemShapeMNKL,
      collective::CollectiveBuilder<arch::Sm90, OpClassTensorOp, half_t, RowMajor, 8, half_t, ColumnMajor, 8, float,
                                    GemmShape<128, 128, 64>, GemmShape<2, 1, 1>, collective::StageCountAuto,
                                    collective::KernelScheduleAuto>::CollectiveOp,
      collective::EpilogueBuilder<arch::Sm90, OpClassTensorOp, GemmShape<128, 128, 64>, GemmShape<2, 1, 1>,
                                  collective::EpilogueTileAuto, float, float, half_t, ColumnMajor, 8, half_t, ColumnMajor, 8,
                                  collective::EpilogueScheduleAuto>::CollectiveOp>>;
  int m = 200, n = 328, k = 136;
  std::int64_t ldm = 208;  // D column-major: ldm >= M
  std::vector<half_t> a(std::size_t(m) * k), b(std::size_t(k) * n), c(std::size_t(ldm) * n), d(std::size_t(ldm) * n);
  verify::fill_random(a.data(), a.size(), 71, verify::Distribution::uniform(-1, 1));
  verify::fill_random(b.data(), b.size(), 72, verify::Distribution::uniform(-1, 1));
  verify::fill_random(c.data(), c.size(), 73, verify::Distribution::uniform(-1, 1));
  verify::poison(d.data(), d.size());
  verify::DeviceBuffer<half_t> da(a), db(b), dc(c), dd(d);
  G::Arguments args;
  args.problem_shape = {m, n, k, 1};
  args.mainloop = {da.data(), make_packed_stride(G::StrideA{}, m, k), db.data(), make_packed_stride(G::StrideB{}, n, k)};
  args.epilogue.thread.alpha = 1.f;
  args.epilogue.thread.beta = -1.f;
  args.epilogue.ptr_C = dc.data();
  args.epilogue.dC = {Int<1>{}, ldm, 0};
  args.epilogue.ptr_D = dd.data();
  args.epilogue.dD = {Int<1>{}, ldm, 0};
  G gemm;
  ASSERT_TRUE(G::can_implement(args).ok()) << G::can_implement(args).what();
  ASSERT_EQ(G::get_workspace_size(args), 0u);
  auto s = gemm.initialize(args, nullptr);
  ASSERT_TRUE(s.ok()) << s.what();
  auto r = gemm.run();
  ASSERT_TRUE(r.ok()) << r.what();
  TESSEL_CUDA_CHECK(cudaDeviceSynchronize());
  d = dd.download();
  auto ref = verify::host_reference_gemm<half_t, half_t, half_t>(
      1.f, verify::make_view<const half_t>(a.data(), m, k, verify::Order::kRowMajor, k),
      verify::make_view<const half_t>(b.data(), k, n, verify::Order::kColumnMajor, k), -1.f,
      verify::make_view<const half_t>(c.data(), m, n, verify::Order::kColumnMajor, ldm));
  auto report = verify::compare(verify::make_view<const half_t>(d.data(), m, n, verify::Order::kColumnMajor, ldm), ref,
                                verify::make_tolerance<float, half_t>());
  EXPECT_TRUE(report.passed()) << G::name() << "\n" << report.details();
  EXPECT_NE(G::name().find("_dcol"), std::string::npos) << G::name();
}
