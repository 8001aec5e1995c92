// The small-N (decode) kernel against the double-precision host reference: N from 1 to 64,
// ragged M, several K, padded leading dimensions, beta != 0 in place, automatic and forced K
// splits, bf16 and f32 D; the same bits on every run; and the argument checks' refusals.

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gpu_test_util.hpp"
#include "sm90_test_support.hpp"
#include "tessel/gemm/device/gemm_small_n.hpp"
#include "tessel/verify/compare.hpp"
#include "tessel/verify/device_buffer.cuh"
#include "tessel/verify/host_reference.hpp"
#include "tessel/verify/poison.hpp"
#include "tessel/verify/random.hpp"
#include "tessel/verify/tolerance.hpp"

using namespace tessel;
using namespace tessel::gemm;

namespace {

struct Case {
  int m, n, k;
  float alpha = 1.f, beta = 0.f;
  int split_k = 0;  // 0: automatic
  int pad_ab = 0;   // extra elements in lda and ldb (a multiple of 8)
  int pad_d = 0;    // extra elements in ldd (any)
  int variant = -1; // kernel variant; -1: the plan's choice
};

std::string label(const Case& c) {
  return std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k) + " alpha " + std::to_string(c.alpha) +
         " beta " + std::to_string(c.beta) + " split_k " + std::to_string(c.split_k) + " pad " + std::to_string(c.pad_ab) +
         "/" + std::to_string(c.pad_d) + " variant " + std::to_string(c.variant);
}

// Arguments for planning and argument checks only: the pointers are 16-byte aligned stand-ins
// that nothing dereferences.
device::GemmSmallN<bfloat16_t>::Arguments plan_only_args(int m, int n, int k) {
  return {{m, n, k}, {reinterpret_cast<bfloat16_t const*>(256), k}, {reinterpret_cast<bfloat16_t const*>(512), k},
          {reinterpret_cast<bfloat16_t*>(1024), n}, {1.f, 0.f}};
}

// Runs `c` `runs` times from the same inputs (D re-poisoned, or reset to its start for beta != 0)
// and returns every run's D allocation (matrix, padding and a guard behind it).
template <class TD, class TAB = bfloat16_t>
void run_and_check(const Case& c, int runs = 1) {
  using G = device::GemmSmallN<TD, TAB>;
  const std::int64_t m = c.m, n = c.n, k = c.k;
  const std::int64_t lda = k + c.pad_ab, ldb = k + c.pad_ab, ldd = n + c.pad_d;
  const std::uint64_t seed = 7 + 3 * std::uint64_t(m) + 5 * std::uint64_t(n) + std::uint64_t(k);
  std::vector<TAB> a(std::size_t(m * lda)), b(std::size_t(n * ldb));
  verify::fill_random(a.data(), a.size(), seed, verify::Distribution::uniform(-1, 1));
  verify::fill_random(b.data(), b.size(), seed + 1, verify::Distribution::uniform(-1, 1));
  // D: the matrix and a guard of 64 rows, all poisoned; with beta != 0 the matrix starts as C.
  std::vector<TD> d0(std::size_t((m + 64) * ldd));
  verify::poison(d0.data(), d0.size());
  std::vector<TD> c_host;
  if (c.beta != 0.f) {
    c_host.resize(std::size_t(m * ldd));
    verify::fill_random(c_host.data(), c_host.size(), seed + 2, verify::Distribution::uniform(-1, 1));
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) d0[std::size_t(i * ldd + j)] = c_host[std::size_t(i * ldd + j)];
  }
  verify::DeviceBuffer<TAB> da(a), db(b);
  verify::DeviceBuffer<TD> dd(d0);

  typename G::Arguments args{{c.m, c.n, c.k}, {da.data(), lda}, {db.data(), ldb}, {dd.data(), ldd}, {c.alpha, c.beta}, c.split_k, c.variant};
  const std::size_t ws_bytes = G::get_workspace_size(args);
  verify::DeviceBuffer<unsigned char> ws(ws_bytes);
  G gemm;
  auto ref = verify::host_reference_gemm<TAB, TAB, TD>(
      c.alpha, verify::make_view<const TAB>(a.data(), m, k, verify::Order::kRowMajor, lda),
      verify::make_view<const TAB>(b.data(), k, n, verify::Order::kColumnMajor, ldb), c.beta,
      verify::make_view<const TD>(c_host.data(), m, n, verify::Order::kRowMajor, ldd));

  std::vector<TD> first;
  for (int r = 0; r < runs; ++r) {
    dd.upload(d0);
    auto s = gemm.initialize(args, ws.data());
    ASSERT_TRUE(s.ok()) << G::name() << " " << label(c) << ": " << s.what();
    // Every other run reuses the initialized handle: the counters the last launch left must be zero.
    for (int again = 0; again < (r % 2 ? 2 : 1); ++again) {
      if (again) dd.upload(d0);
      const StatusInfo launched = gemm.run();
      ASSERT_TRUE(launched.ok()) << G::name() << " " << label(c) << ": " << launched.what();
      TESSEL_CUDA_CHECK(cudaDeviceSynchronize());
    }
    const std::vector<TD> d = dd.download();
    if (r == 0) {
      auto report = verify::compare(verify::make_view<const TD>(d.data(), m, n, verify::Order::kRowMajor, ldd), ref,
                                    verify::make_tolerance<float, TD>());
      EXPECT_TRUE(report.passed()) << G::name() << " " << label(c) << " (" << gemm.describe() << ")\n" << report.details();
      // Nothing written outside the M x N matrix: the padding columns and the guard rows.
      std::int64_t stray = 0;
      for (std::int64_t e = 0; e < std::int64_t(d.size()); ++e) {
        const bool inside = e / ldd < m && e % ldd < n;
        if (!inside && !verify::is_poison(d[std::size_t(e)])) ++stray;
      }
      EXPECT_EQ(stray, 0) << G::name() << " " << label(c) << ": " << stray << " elements outside the output were written";
      first = d;
    } else {
      EXPECT_EQ(std::memcmp(first.data(), d.data(), d.size() * sizeof(TD)), 0)
          << G::name() << " " << label(c) << " (" << gemm.describe() << "): run " << r << " gave different bits from run 0";
    }
  }
}

}  // namespace

TEST(GemmSmallN, EveryNFrom1To64) {
  TESSEL_SKIP_WITHOUT_GPU();
  for (int n : {1, 8, 16, 17, 64}) {
    run_and_check<bfloat16_t>({129, n, 264});
    run_and_check<bfloat16_t>({1000, n, 1024});
  }
  run_and_check<bfloat16_t>({300, 24, 520});
  run_and_check<bfloat16_t>({77, 33, 136});
  run_and_check<bfloat16_t>({256, 40, 8});
}

TEST(GemmSmallN, RaggedMAndK) {
  TESSEL_SKIP_WITHOUT_GPU();
  run_and_check<bfloat16_t>({1, 16, 8});
  run_and_check<bfloat16_t>({1, 1, 4096});
  run_and_check<bfloat16_t>({100, 16, 40});
  run_and_check<bfloat16_t>({127, 16, 4104});
  run_and_check<bfloat16_t>({130, 7, 2000});
  run_and_check<bfloat16_t>({2000, 8, 2048});
}

TEST(GemmSmallN, DecodeShapes) {
  TESSEL_SKIP_WITHOUT_GPU();
  run_and_check<bfloat16_t>({4096, 16, 4096});
  run_and_check<bfloat16_t>({4096, 1, 4096});
  run_and_check<bfloat16_t>({512, 64, 8192});
}

TEST(GemmSmallN, F32OutPaddedLeadingDimensionsAndBeta) {
  TESSEL_SKIP_WITHOUT_GPU();
  run_and_check<float>({1000, 16, 1000, 1.f, 0.f, 0, 8, 3});
  run_and_check<float>({333, 64, 776, 1.5f, -0.5f, 0, 16, 5});
  run_and_check<bfloat16_t>({520, 17, 4096, 0.75f, 2.f, 0, 8, 1});
  run_and_check<bfloat16_t>({96, 1, 64, -1.f, 1.f, 0, 0, 0});
}

TEST(GemmSmallN, ForcedSplitsIncludingUnevenOnes) {
  TESSEL_SKIP_WITHOUT_GPU();
  // 4096 deep = 16 chunks of 256: 1, 3 (6/5/5), 7 (uneven), 16 (one chunk each), 40 (clamped).
  for (int s : {1, 3, 7, 16, 40}) run_and_check<bfloat16_t>({1000, 16, 4096, 1.f, 0.f, s});
  run_and_check<float>({300, 64, 2048, 1.f, 0.5f, 5});
}

TEST(GemmSmallN, SameBitsOnEveryRun) {
  TESSEL_SKIP_WITHOUT_GPU();
  // Split K, so that which slice arrives last changes from run to run; D must not.
  run_and_check<bfloat16_t>({4096, 16, 4096}, 4);
  run_and_check<float>({4096, 16, 4096}, 4);
  run_and_check<float>({1000, 64, 8192, 1.f, 0.f, 13}, 4);
  run_and_check<float>({128, 1, 8192, 1.f, 0.f, 32}, 4);
}

// Every kernel variant (GemmSmallN::variant_name; bench/NOTES.md "Small-N kernel variants") on
// ragged shapes, N from 1 to 64 (the streaming variants take N <= 16, above they run the chunked
// kernel), forced splits across CTAs through the fixup, beta != 0, f32 D, and the same bits
// on every run. Variants 10 (the Hopper kernel) and 11 (the TMA ring) run on a compute
// capability 9.0 GPU only.
TEST(GemmSmallN, EveryVariant) {
  TESSEL_SKIP_WITHOUT_GPU();
  using G = device::GemmSmallN<bfloat16_t>;
  const StatusInfo hopper = G::hopper_variants_available();
  for (int v = 0; v < G::kVariants; ++v) {
    SCOPED_TRACE(G::variant_name(v));
    if ((v == G::kHopperVariant || v == G::kTmaVariant) && !hopper.ok()) continue;  // reported below
    for (int n : {1, 7, 16, 17}) run_and_check<bfloat16_t>({1000, n, 1000, 1.f, 0.f, 0, 0, 0, v});
    run_and_check<bfloat16_t>({129, 16, 264, 1.f, 0.f, 0, 0, 0, v});
    run_and_check<bfloat16_t>({1, 8, 8, 1.f, 0.f, 0, 0, 0, v});
    run_and_check<bfloat16_t>({127, 16, 4104, 1.f, 0.f, 0, 0, 0, v});
    run_and_check<bfloat16_t>({4096, 16, 4096, 1.f, 0.f, 0, 0, 0, v}, 3);
    run_and_check<bfloat16_t>({4096, 1, 4096, 1.f, 0.f, 0, 0, 0, v});
    for (int s : {1, 2, 3, 7}) run_and_check<bfloat16_t>({1000, 16, 4096, 1.f, 0.f, s, 0, 0, v});
    run_and_check<float>({1000, 16, 2048, 1.f, 0.f, 5, 0, 0, v}, 3);
    run_and_check<float>({333, 9, 776, 1.5f, -0.5f, 0, 16, 5, v});
    run_and_check<bfloat16_t>({520, 13, 4096, 0.75f, 2.f, 3, 8, 1, v});
    run_and_check<bfloat16_t>({300, 64, 520, 1.f, 0.f, 0, 0, 0, v});
  }
  if (!hopper.ok()) GTEST_SKIP() << "variants 0-9 passed; variants 10 and 11 not run: " << hopper.what();
}

// The TMA ring (variant 11) with several row blocks per CTA (and fewer for some CTAs than for
// others), ragged K within a 256-k stage and within a 64-k box, and the plan's choice of it.
TEST(GemmSmallN, TmaRingSeveralRowBlocksPerCta) {
  TESSEL_SKIP_WITHOUT_GPU();
  using G = device::GemmSmallN<bfloat16_t>;
  if (auto s = G::hopper_variants_available(); !s.ok()) GTEST_SKIP() << "variant 11 cannot run here: " << s.what();
  const int v = G::kTmaVariant;
  run_and_check<bfloat16_t>({9000, 16, 1000, 1.f, 0.f, 0, 0, 0, v}, 3);
  run_and_check<bfloat16_t>({20000, 5, 264, 1.f, 0.f, 0, 0, 0, v});
  run_and_check<float>({6000, 12, 4136, 0.5f, 1.5f, 0, 8, 3, v}, 2);
  run_and_check<bfloat16_t>({4300, 16, 40, 1.f, 0.f, 0, 0, 0, v});
  run_and_check<float>({28672, 16, 1024, 1.f, 0.f, 0, 0, 0, v}, 2);
  // From K = 8192 on, the ring of 512-k stages: ragged K within a stage and a box, beta in place.
  run_and_check<bfloat16_t>({5000, 16, 8200, 1.f, 0.f, 0, 0, 0, v}, 2);
  run_and_check<float>({300, 3, 9000, 0.5f, 1.f, 0, 8, 1, v});
  G::Arguments args = plan_only_args(4096, 16, 4096);
  G::Plan plan;
  ASSERT_TRUE(G::make_plan(args, plan).ok());
  EXPECT_EQ(plan.variant, G::kTmaVariant) << plan.reason;
  EXPECT_EQ(plan.chunk_k, 256) << plan.reason;
  EXPECT_EQ(plan.rows, 32) << plan.reason;
  args.problem_size.k = args.ref_A.ld = args.ref_B.ld = 8192;
  ASSERT_TRUE(G::make_plan(args, plan).ok());
  EXPECT_EQ(plan.chunk_k, 512) << plan.reason;
  // Where 32-row blocks leave SMs idle in the CTAs' last round, 16-row ones (kernel::small_n_tma_rows;
  // several of the cases above take them too: 9000, 6000, 4300 and 5000 rows on 132 SMs).
  args.problem_size.m = 14336;
  args.problem_size.k = args.ref_A.ld = args.ref_B.ld = 4096;
  ASSERT_TRUE(G::make_plan(args, plan).ok());
  EXPECT_EQ(plan.rows, kernel::small_n_tma_rows(14336, plan.sms)) << plan.reason;
  EXPECT_EQ(plan.row_blocks, (14336 + plan.rows - 1) / plan.rows) << plan.reason;
  args.problem_size.k = args.ref_A.ld = args.ref_B.ld = 8192;
  args.problem_size.m = 512;  // 16 row blocks: too few for a ring that does not split K
  ASSERT_TRUE(G::make_plan(args, plan).ok());
  EXPECT_NE(plan.variant, G::kTmaVariant) << plan.reason;
}

// f16 has the TMA ring only: the same ragged cases in f16 in and out, and the plan's choice.
TEST(GemmSmallN, F16TmaRing) {
  TESSEL_SKIP_WITHOUT_GPU();
  using G = device::GemmSmallN<half_t, half_t>;
  if (auto s = G::hopper_variants_available(); !s.ok()) GTEST_SKIP() << "the f16 ring cannot run here: " << s.what();
  run_and_check<half_t, half_t>({9000, 16, 1000, 1.f, 0.f, 0, 0, 0, -1}, 3);
  run_and_check<half_t, half_t>({20000, 5, 264, 1.f, 0.f, 0, 0, 0, G::kTmaVariant});
  run_and_check<half_t, half_t>({6000, 12, 4136, 0.5f, 1.5f, 0, 8, 3, -1}, 2);
  run_and_check<half_t, half_t>({5000, 16, 8200, 1.f, 0.f, 0, 0, 0, -1}, 2);
  run_and_check<half_t, half_t>({300, 3, 9000, 0.5f, 1.f, 0, 8, 1, -1});
  run_and_check<half_t, half_t>({4100, 40, 4096, 1.f, 0.f, 0, 0, 0, -1});
}

// The wider rings (17-64 columns: 32- and 64-column blocks, always 256-k stages), asked for by
// variant: ragged M, N and K, beta in place, an f32 D, long K, and the same bits on every run.
TEST(GemmSmallN, TmaRingUpTo64Columns) {
  TESSEL_SKIP_WITHOUT_GPU();
  using G = device::GemmSmallN<bfloat16_t>;
  if (auto s = G::hopper_variants_available(); !s.ok()) GTEST_SKIP() << "variant 11 cannot run here: " << s.what();
  const int v = G::kTmaVariant;
  for (int n : {17, 24, 32, 33, 48, 64}) run_and_check<bfloat16_t>({4136, n, 1000, 1.f, 0.f, 0, 0, 0, v});
  run_and_check<bfloat16_t>({8192, 64, 8192, 1.f, 0.f, 0, 0, 0, v}, 3);
  run_and_check<float>({6000, 32, 4136, 0.5f, 1.5f, 0, 8, 3, v}, 2);
  run_and_check<bfloat16_t>({300, 64, 9000, 0.5f, 1.f, 0, 8, 1, v});
  run_and_check<bfloat16_t>({14336, 32, 4096, 1.f, 0.f, 0, 0, 0, v});
  G::Arguments args = plan_only_args(14336, 32, 4096);
  G::Plan plan;
  ASSERT_TRUE(G::make_plan(args, plan).ok());
  EXPECT_NE(plan.variant, G::kTmaVariant) << "the plan takes the wider rings only when asked: " << plan.reason;
}

TEST(GemmSmallN, PlanSplitsKForTheDecodeShape) {
  TESSEL_SKIP_WITHOUT_GPU();
  using G = device::GemmSmallN<bfloat16_t>;
  G::Arguments args = plan_only_args(4096, 16, 4096);
  G::Plan plan;
  ASSERT_TRUE(G::make_plan(args, plan).ok());
  // 32 row blocks of 128 cannot fill the GPU alone: the chunked kernel splits K across CTAs.
  args.variant = 0;
  ASSERT_TRUE(G::make_plan(args, plan).ok());
  EXPECT_GT(plan.splits, 1) << plan.reason;
  EXPECT_GT(G::get_workspace_size(args), 0u) << plan.reason;
  std::printf("4096x16x4096, chunked: %s\n", plan.reason.c_str());
  args.variant = -1;
  ASSERT_TRUE(G::make_plan(args, plan).ok());
  std::printf("4096x16x4096, default: %s\n", plan.reason.c_str());
  args.variant = 0;
  G gemm;
  auto s = gemm.initialize(args, nullptr);
  EXPECT_EQ(s.status, Status::kErrorWorkspaceNull) << s.what();
  EXPECT_NE(s.message.find("get_workspace_size"), std::string::npos) << s.message;
}

// On a compute capability 9.0 GPU the plan hands N > 16 to the Hopper kernel (variant 10) and
// keeps N <= 16 on the small-N kernels; elsewhere variant 10 is refused with a Status.
TEST(GemmSmallN, HopperKernelAboveN16) {
  TESSEL_SKIP_WITHOUT_GPU();
  using G = device::GemmSmallN<bfloat16_t>;
  // On a compute capability 9.0 GPU, from a binary with sm_90a code, N > 16 goes to the Hopper
  // kernel; anywhere else the plan must not pick it, and asking for it is refused.
  const StatusInfo hopper = G::hopper_variants_available();
  G::Arguments args = plan_only_args(8192, 64, 8192);
  G::Plan plan;
  ASSERT_TRUE(G::make_plan(args, plan).ok());
  if (hopper.ok()) EXPECT_EQ(plan.variant, G::kHopperVariant) << plan.reason;
  else EXPECT_NE(plan.variant, G::kHopperVariant) << plan.reason << " (" << hopper.what() << ")";
  std::printf("8192x64x8192, default: %s\n", plan.reason.c_str());
  args.problem_size.n = 16;
  args.ref_D.ld = 16;
  ASSERT_TRUE(G::make_plan(args, plan).ok());
  EXPECT_NE(plan.variant, G::kHopperVariant) << plan.reason;
  if (!hopper.ok()) {
    args.variant = G::kHopperVariant;
    const StatusInfo s = G::make_plan(args, plan);
    EXPECT_FALSE(s.ok()) << "variant 10 planned where it cannot run: " << hopper.what();
  }
}

// ---- Refusals: no GPU needed, every rule is checked before the device is asked ----------------

namespace {
using G16 = device::GemmSmallN<bfloat16_t>;
G16::Arguments valid_args() {
  return plan_only_args(4096, 16, 4096);
}
void expect_refused(const G16::Arguments& a, Status status, const std::string& words) {
  const StatusInfo s = G16::can_implement(a);
  EXPECT_EQ(s.status, status) << s.what();
  EXPECT_NE(s.message.find(words), std::string::npos) << s.what();
}
}  // namespace

TEST(GemmSmallNRefusals, NAbove64GoesToTheTiledGemm) {
  auto a = valid_args();
  a.problem_size.n = 65;
  expect_refused(a, Status::kErrorNotSupported, "N = 65 is above the 64 columns");
  expect_refused(a, Status::kErrorNotSupported, "use the tiled GEMM");
}

TEST(GemmSmallNRefusals, Misaligned) {
  auto a = valid_args();
  a.ref_A.ld = 4100;
  expect_refused(a, Status::kErrorMisalignedOperand, "leading dimension of A is 4100, not a multiple of the 8 elements (16 bytes)");
  a = valid_args();
  a.ref_B.ld = 4097;
  expect_refused(a, Status::kErrorMisalignedOperand, "leading dimension of B is 4097");
  a = valid_args();
  a.problem_size.k = 100;
  a.ref_A.ld = a.ref_B.ld = 104;
  expect_refused(a, Status::kErrorMisalignedOperand, "K is 100, not a multiple of the 8 elements");
  a = valid_args();
  a.ref_A.data = reinterpret_cast<bfloat16_t const*>(258);
  expect_refused(a, Status::kErrorMisalignedOperand, "base address of A is 0x102, not aligned to the 16 bytes");
}

TEST(GemmSmallNRefusals, F16IsTheRingOnly) {
  using G = device::GemmSmallN<half_t, half_t>;
  G::Arguments a{{4096, 16, 4096}, {reinterpret_cast<half_t const*>(256), 4096}, {reinterpret_cast<half_t const*>(512), 4096},
                 {reinterpret_cast<half_t*>(1024), 16}, {1.f, 0.f}};
  a.variant = 0;
  StatusInfo s = G::can_implement(a);
  EXPECT_EQ(s.status, Status::kErrorNotSupported) << s.what();
  EXPECT_NE(s.message.find("f16 runs on the small-N TMA ring only"), std::string::npos) << s.what();
  a.variant = G::kHopperVariant;
  s = G::can_implement(a);
  EXPECT_EQ(s.status, Status::kErrorNotSupported) << s.what();
  EXPECT_NE(s.message.find("variant 10 is bf16"), std::string::npos) << s.what();
  a.variant = -1;
  a.problem_size.n = 64;
  a.ref_D.ld = 64;
  s = G::can_implement(a);
  EXPECT_NE(s.status, Status::kErrorNotSupported) << "N = 64 is the ring's: " << s.what();
}

TEST(GemmSmallNRefusals, InvalidProblems) {
  auto a = valid_args();
  a.problem_size.m = 0;
  expect_refused(a, Status::kErrorInvalidProblem, "M, N and K must all be positive");
  a = valid_args();
  a.ref_D.ld = 8;
  expect_refused(a, Status::kErrorInvalidProblem, "leading dimension of D is 8, smaller than N = 16");
  a = valid_args();
  a.ref_A.ld = 2048;
  expect_refused(a, Status::kErrorInvalidProblem, "leading dimension of A is 2048, smaller than K = 4096");
  a = valid_args();
  a.ref_B.data = nullptr;
  expect_refused(a, Status::kErrorInvalidProblem, "a null pointer for B");
  a = valid_args();
  a.split_k = -1;
  expect_refused(a, Status::kErrorInvalidProblem, "split_k = -1");
  a = valid_args();
  a.variant = G16::kVariants;
  expect_refused(a, Status::kErrorInvalidProblem, "variant = ");
}
