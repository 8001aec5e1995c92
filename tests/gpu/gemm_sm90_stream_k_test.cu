// Split-K and stream-K in the Hopper kernel: every decomposition against the double reference,
// the same bits on every run (the fixup sums in a fixed order whoever arrives last), and a launch
// of twice as many CTAs as can be resident, which must finish: no CTA ever waits for another.

#include <cstdint>
#include <cstring>
#include <vector>

#include "sm90_test_support.hpp"
#include "tessel/gemm/device/gemm_universal_sm90.hpp"
#include "tessel/verify/compare.hpp"
#include "tessel/verify/device_buffer.cuh"
#include "tessel/verify/host_reference.hpp"
#include "tessel/verify/poison.hpp"
#include "tessel/verify/random.hpp"
#include "tessel/verify/tolerance.hpp"

using namespace tessel;
using namespace tessel::gemm;
using kernel::DecompositionMode;

namespace {

template <int BN, class Scheduler = StreamKScheduler>
using StreamK = test::Sm90Gemm<bfloat16_t, RowMajor, ColumnMajor, float, 128, BN, 1, kernel::KernelTmaWarpSpecializedCooperative,
                               collective::EpilogueScheduleAuto, epilogue::LinearCombination<float, float>, Scheduler>;

struct Problem {
  int m, n, k;
  std::vector<bfloat16_t> a, b;
  std::vector<float> c;
  verify::DeviceBuffer<bfloat16_t> da, db;
  verify::DeviceBuffer<float> dc, dd;
  Problem(int m_, int n_, int k_, std::uint64_t seed) : m(m_), n(n_), k(k_), a(std::size_t(m) * k), b(std::size_t(n) * k), c(std::size_t(m) * n) {
    verify::fill_random(a.data(), a.size(), seed, verify::Distribution::uniform(-1, 1));
    verify::fill_random(b.data(), b.size(), seed + 1, verify::Distribution::uniform(-1, 1));
    verify::fill_random(c.data(), c.size(), seed + 2, verify::Distribution::uniform(-1, 1));
    da = verify::DeviceBuffer<bfloat16_t>(a);
    db = verify::DeviceBuffer<bfloat16_t>(b);
    dc = verify::DeviceBuffer<float>(c);
    std::vector<float> d(c.size());
    verify::poison(d.data(), d.size());
    dd = verify::DeviceBuffer<float>(d);
  }
};

/// Runs the problem `runs` times with the given decomposition and CTA count; returns D of the last
/// run and fails the test if any run's bits differ from the first's.
template <class G>
std::vector<float> run(Problem& p, DecompositionMode mode, int splits, int sm_count, int runs, std::string* report = nullptr,
                       kernel::ReductionMode reduction = kernel::ReductionMode::kDeterministic) {
  typename G::Arguments args;
  args.problem_shape = {p.m, p.n, p.k, 1};
  args.mainloop = {p.da.data(), make_packed_stride(typename G::StrideA{}, p.m, p.k), p.db.data(),
                   make_packed_stride(typename G::StrideB{}, p.n, p.k)};
  args.epilogue.thread.alpha = 1.f;
  args.epilogue.thread.beta = 0.5f;
  args.epilogue.ptr_C = p.dc.data();
  args.epilogue.dC = make_packed_stride(typename G::StrideC{}, p.m, p.n);
  args.epilogue.ptr_D = p.dd.data();
  args.epilogue.dD = make_packed_stride(typename G::StrideD{}, p.m, p.n);
  args.hw_info.sm_count = sm_count;
  args.scheduler.decomposition_mode = mode;
  args.scheduler.splits = splits;
  args.scheduler.reduction = reduction;
  if (report) *report = G::decomposition_report(args);
  std::size_t bytes = G::get_workspace_size(args);
  void* ws = nullptr;
  if (bytes) EXPECT_EQ(cudaMalloc(&ws, bytes), cudaSuccess);
  G gemm;
  std::vector<float> first, d;
  for (int r = 0; r < runs; ++r) {
    std::vector<float> poison(p.c.size());
    verify::poison(poison.data(), poison.size());
    p.dd = verify::DeviceBuffer<float>(poison);
    args.epilogue.ptr_D = p.dd.data();
    auto s = gemm(args, ws);
    EXPECT_TRUE(s.ok()) << G::name() << ": " << s.what();
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    d = p.dd.download();
    if (r == 0) first = d;
    else if (reduction == kernel::ReductionMode::kDeterministic) EXPECT_EQ(std::memcmp(first.data(), d.data(), d.size() * sizeof(float)), 0) << "run " << r << " differs from run 0";
  }
  cudaFree(ws);
  return d;
}

void check(Problem const& p, std::vector<float> const& d, char const* what) {
  auto ref = verify::host_reference_gemm<bfloat16_t, bfloat16_t, float>(
      1.f, verify::make_view<const bfloat16_t>(p.a.data(), p.m, p.k, verify::Order::kRowMajor, p.k),
      verify::make_view<const bfloat16_t>(p.b.data(), p.k, p.n, verify::Order::kColumnMajor, p.k), 0.5f,
      verify::make_view<const float>(p.c.data(), p.m, p.n, verify::Order::kRowMajor, p.n));
  auto report = verify::compare(verify::make_view<const float>(d.data(), p.m, p.n, verify::Order::kRowMajor, p.n), ref,
                                verify::make_tolerance<float, float>());
  EXPECT_TRUE(report.passed()) << what << " " << p.m << "x" << p.n << "x" << p.k << "\n" << report.details();
}

}  // namespace

TEST(GemmSm90StreamK, EveryDecompositionIsCorrectAndDeterministic) {
  TESSEL_SKIP_WITHOUT_SM90();
  using G = StreamK<128>;
  Problem p(264, 200, 2056, 1);  // 3 x 2 tiles of 33 k-tiles (the last one ragged)
  std::string why;
  check(p, run<G>(p, DecompositionMode::DataParallel, 0, 0, 2), "data-parallel");
  check(p, run<G>(p, DecompositionMode::SplitK, 3, 0, 3), "split-K x3");
  check(p, run<G>(p, DecompositionMode::SplitK, 7, 10, 3), "split-K x7 on 10 CTAs");
  check(p, run<G>(p, DecompositionMode::StreamK, 0, 0, 3, &why), "stream-K");
  EXPECT_NE(why.find("stream-K"), std::string::npos) << why;
  check(p, run<G>(p, DecompositionMode::StreamK, 0, 4, 3), "stream-K on 4 CTAs (hybrid)");
  check(p, run<G>(p, DecompositionMode::StreamK, 0, 5, 3), "stream-K on 5 CTAs");
  check(p, run<G>(p, DecompositionMode::Heuristic, 0, 0, 2, &why), "heuristic");
  EXPECT_NE(why.rfind("data-parallel", 0), 0u) << "6 tiles on a full GPU should not stay data-parallel: " << why;
}

TEST(GemmSm90StreamK, NarrowTile) {
  TESSEL_SKIP_WITHOUT_SM90();
  Problem p(256, 200, 4096, 2);
  check(p, run<StreamK<64>>(p, DecompositionMode::SplitK, 4, 0, 2), "split-K x4, 128x64 tiles");
  check(p, run<StreamK<64>>(p, DecompositionMode::StreamK, 0, 0, 2), "stream-K, 128x64 tiles");
}

// 128 accumulators per thread: the fixup reads every partial back in slices (sum_slices_in_order).
TEST(GemmSm90StreamK, WideTile) {
  TESSEL_SKIP_WITHOUT_SM90();
  Problem p(392, 520, 3000, 5);  // 4 x 3 tiles of 128x256 (ragged in M and N), 47 k-tiles (the last ragged)
  check(p, run<StreamK<256>>(p, DecompositionMode::SplitK, 3, 0, 3), "split-K x3, 128x256 tiles");
  check(p, run<StreamK<256>>(p, DecompositionMode::StreamK, 0, 0, 3), "stream-K, 128x256 tiles");
  check(p, run<StreamK<256>>(p, DecompositionMode::StreamK, 0, 7, 3), "stream-K on 7 CTAs (hybrid), 128x256 tiles");
}

// BN = 192 (96 accumulators per thread, wgmma m64n192k16, three 64-column TMA boxes of B).
TEST(GemmSm90StreamK, Tile192) {
  TESSEL_SKIP_WITHOUT_SM90();
  Problem p(392, 520, 3000, 6);  // 4 x 3 tiles of 128x192 (ragged in M and N)
  check(p, run<StreamK<192, PersistentScheduler>>(p, DecompositionMode::Heuristic, 0, 0, 2), "persistent, 128x192 tiles");
  check(p, run<StreamK<192>>(p, DecompositionMode::SplitK, 3, 0, 3), "split-K x3, 128x192 tiles");
  check(p, run<StreamK<192>>(p, DecompositionMode::StreamK, 0, 5, 3), "stream-K on 5 CTAs, 128x192 tiles");
}

// The atomic reduction: correct on every run (its bits may differ between runs, so only the
// reference is checked), with the shared sums left at zero for the next launch (runs 2 and 3
// would add onto run 1's sums otherwise).
TEST(GemmSm90StreamK, NondeterministicReduction) {
  TESSEL_SKIP_WITHOUT_SM90();
  constexpr auto kAtomic = kernel::ReductionMode::kNondeterministic;
  Problem p(392, 520, 3000, 7);
  std::string why;
  check(p, run<StreamK<256>>(p, DecompositionMode::SplitK, 3, 0, 3, &why, kAtomic), "split-K x3, atomic reduction");
  EXPECT_NE(why.find("non-deterministic"), std::string::npos) << why;
  check(p, run<StreamK<128>>(p, DecompositionMode::StreamK, 0, 5, 3, nullptr, kAtomic), "stream-K on 5 CTAs, atomic reduction");
  check(p, run<StreamK<128>>(p, DecompositionMode::SplitK, 16, 264, 2, nullptr, kAtomic), "split-K x16, 2x resident CTAs, atomic");
}

// Twice as many CTAs as the GPU holds at once (one per SM): the ones launched late find the
// others finished or still running, and nobody waits for them. A protocol with a spin-wait on
// another unit would hang here.
TEST(GemmSm90StreamK, MoreCtasThanResidentFinishes) {
  TESSEL_SKIP_WITHOUT_SM90();
  int dev = 0, sms = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  Problem p(512, 512, 8192, 3);  // 16 tiles of 128 k-tiles: stream-K over 2 * SMs CTAs
  check(p, run<StreamK<128>>(p, DecompositionMode::StreamK, 0, 2 * sms, 2), "stream-K, 2x resident CTAs");
  check(p, run<StreamK<128>>(p, DecompositionMode::SplitK, 16, 2 * sms, 2), "split-K x16, 2x resident CTAs");
}

TEST(GemmSm90StreamK, RefusesWithoutWorkspaceAndWithoutTheScheduler) {
  TESSEL_SKIP_WITHOUT_SM90();
  Problem p(256, 256, 4096, 4);
  using G = StreamK<128>;
  typename G::Arguments args;
  args.problem_shape = {p.m, p.n, p.k, 1};
  args.mainloop = {p.da.data(), make_packed_stride(G::StrideA{}, p.m, p.k), p.db.data(), make_packed_stride(G::StrideB{}, p.n, p.k)};
  args.epilogue.ptr_D = p.dd.data();
  args.epilogue.dD = make_packed_stride(G::StrideD{}, p.m, p.n);
  args.scheduler.decomposition_mode = DecompositionMode::SplitK;
  args.scheduler.splits = 4;
  ASSERT_GT(G::get_workspace_size(args), 0u);
  G gemm;
  auto s = gemm.initialize(args, nullptr);
  EXPECT_EQ(s.status, Status::kErrorWorkspaceNull) << s.what();
  EXPECT_NE(s.message.find("needs a workspace of"), std::string::npos) << s.message;

  using Plain = StreamK<128, PersistentScheduler>;
  typename Plain::Arguments plain;
  plain.problem_shape = args.problem_shape;
  plain.mainloop = {p.da.data(), args.mainloop.dA, p.db.data(), args.mainloop.dB};
  plain.epilogue.ptr_D = p.dd.data();
  plain.epilogue.dD = args.epilogue.dD;
  plain.scheduler.decomposition_mode = DecompositionMode::StreamK;
  auto r = Plain::can_implement(plain);
  EXPECT_EQ(r.status, Status::kErrorNotSupported) << r.what();
  EXPECT_EQ(Plain::get_workspace_size(plain), 0u);
}
