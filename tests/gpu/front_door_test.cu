// tessel::gemm::gemm, the compiled front door (include/tessel/gemm/front_door.hpp): its results on
// ragged shapes in both D layouts, with and without C and a workspace, checked element by
// element against the host reference on a poisoned D; the kernel it names; and its refusals.
// Also tessel::gemm::grouped_gemm: ragged and empty groups in both layouts, rows of no group left
// poisoned.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "gpu_test_util.hpp"
#include "sm90_test_support.hpp"
#include "tessel/gemm/front_door.hpp"
#include "tessel/verify/activation_reference.hpp"
#include "tessel/verify/compare.hpp"
#include "tessel/verify/device_buffer.cuh"
#include "tessel/verify/host_reference.hpp"
#include "tessel/verify/poison.hpp"
#include "tessel/verify/random.hpp"
#include "tessel/verify/tolerance.hpp"

namespace {

using namespace tessel;
using gemm::DataType;
using gemm::GemmArguments;
using gemm::GemmChoice;
using gemm::MatrixLayout;

struct Case {
  int m, n, k;
  bool d_column_major, with_c, with_workspace;
  char const* kernel_part;  // a piece of the name the choice must have ("" for any)
  gemm::Activation act = gemm::Activation::kIdentity;
  bool bias = false;  // C a bias row (ld 0) instead of a full matrix (with_c)
  // A's and B's rows padded past K (elements). The default puts B's rows (and with K = 8 mod 16,
  // A's instead) off 32-byte sectors, where the tiles run their cluster twins (128x64: 1x2).
  int pad_a = 8, pad_b = 16;
};

template <class T>
void run_case(Case const& c, DataType type) {
  std::int64_t const lda = c.k + c.pad_a, ldb = c.k + c.pad_b;                       // padded on purpose
  std::int64_t const ldd = (c.d_column_major ? c.m : c.n) + 8;                       // padding stays poisoned
  std::size_t const d_elems = std::size_t(ldd) * (c.d_column_major ? c.n : c.m);
  std::vector<T> a(std::size_t(c.m) * lda), b(std::size_t(c.n) * ldb), cm(d_elems), d(d_elems);
  verify::fill_random(a.data(), a.size(), 11, verify::Distribution::uniform(-1, 1));
  verify::fill_random(b.data(), b.size(), 12, verify::Distribution::uniform(-1, 1));
  verify::fill_random(cm.data(), cm.size(), 13, verify::Distribution::uniform(-1, 1));
  verify::poison(d.data(), d.size());
  verify::DeviceBuffer<T> da(a), db(b), dc(cm), dd(d);

  GemmArguments args;
  args.m = c.m, args.n = c.n, args.k = c.k;
  args.A = {da.data(), type, MatrixLayout::kRowMajor, lda};
  args.B = {db.data(), type, MatrixLayout::kColumnMajor, ldb};
  args.D = {dd.data(), type, c.d_column_major ? MatrixLayout::kColumnMajor : MatrixLayout::kRowMajor, ldd};
  args.alpha = 1.5f;
  if (c.with_c) args.C = {dc.data(), type, args.D.layout, ldd}, args.beta = -0.5f;
  if (c.bias) args.C = {dc.data(), type, MatrixLayout::kRowMajor, 0}, args.beta = 1.f;
  args.activation = c.act;

  std::size_t bytes = 0;
  ASSERT_TRUE(gemm::gemm_workspace_size(args, bytes).ok());
  verify::DeviceBuffer<unsigned char> ws(std::vector<unsigned char>(bytes ? bytes : 1));
  GemmChoice choice;
  ASSERT_TRUE(gemm::gemm_choice(args, choice, c.with_workspace ? bytes : 0).ok());
  EXPECT_FALSE(choice.reason.empty());
  if (!c.with_workspace) EXPECT_EQ(choice.workspace_bytes, 0u) << choice.kernel;
  EXPECT_NE(choice.kernel.find(c.kernel_part), std::string::npos) << choice.kernel << ": " << choice.reason;
  // Decode (fewer tokens than the narrowest tile's 64 rows) without C runs on D^T's problem (the
  // reason says so); a C keeps the problem as given. (64-127 tokens may take either: not asserted.)
  bool const decode = c.m < 64 && c.n >= 128, either = c.m >= 64 && c.m < 128 && c.n >= 128;
  if (!either) EXPECT_EQ(choice.reason.rfind("D^T = B^T A^T", 0) == 0, decode && !c.with_c && !c.bias) << choice.reason;
  std::printf("  %dx%dx%d -> %s\n", c.m, c.n, c.k, choice.kernel.c_str());  // which case a hang would be in
  std::fflush(stdout);
  auto s = gemm::gemm(args, nullptr, c.with_workspace ? ws.data() : nullptr, c.with_workspace ? bytes : 0);
  ASSERT_TRUE(s.ok()) << s.what();
  TESSEL_CUDA_CHECK(cudaDeviceSynchronize());
  d = dd.download();

  verify::Order const dord = c.d_column_major ? verify::Order::kColumnMajor : verify::Order::kRowMajor;
  auto ref = verify::host_reference_gemm<T, T, T>(1.5f, verify::make_view<const T>(a.data(), c.m, c.k, verify::Order::kRowMajor, lda),
                                                  verify::make_view<const T>(b.data(), c.k, c.n, verify::Order::kColumnMajor, ldb),
                                                  c.with_c ? -0.5f : c.bias ? 1.f : 0.f,
                                                  verify::make_view<const T>(cm.data(), c.m, c.n, dord, c.bias ? 0 : ldd));
  for (double& v : ref.value) v = verify::reference_activation(c.act, v);
  auto report = verify::compare(verify::make_view<const T>(d.data(), c.m, c.n, dord, ldd), ref, verify::make_tolerance<float, T>());
  EXPECT_TRUE(report.passed()) << choice.kernel << " " << c.m << "x" << c.n << "x" << c.k << "\n" << report.details();
  // The leading dimension's padding is not written.
  std::size_t const rows = c.d_column_major ? c.n : c.m, cols = c.d_column_major ? c.m : c.n;
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = cols; j < std::size_t(ldd); ++j)
      ASSERT_TRUE(verify::is_poison(d[r * ldd + j])) << "padding at " << r << "," << j << " written by " << choice.kernel;
}

TEST(FrontDoor, ComputesAndNamesItsKernel) {
  TESSEL_SKIP_WITHOUT_SM90();
  Case const bf16_cases[] = {
      {1000, 1000, 1000, false, false, false, "128x64x64"},      // few tiles: the narrow tile (RESULTS, front door)
      {1536, 2816, 512, false, true, false, "128x256x64"},       // one even wave of the widest tile, with C
      {16, 4096, 1024, false, false, false, "small_n_tma_bf16_n16_4box"},        // decode: the small-N TMA ring
      {8, 8192, 8192, false, false, false, "small_n_tma_bf16_n8_8box_3stage"},  // its long-K ring
      {16, 6144, 1040, false, false, false, "small_n_tma_bf16_n16_8box_16row"},  // 16-row blocks: 384 fill 132 SMs' rounds
      {32, 4096, 1024, false, false, true, "_streamk"},          // D^T's problem with a workspace: K divided among CTAs
      {32, 4096, 1024, false, false, false, "_tn_tmastore"},     // the same without one: data-parallel
      {64, 8192, 512, false, false, true, "64x64x64"},           // 64 tokens fill a 64-row tile: 128 tiles as given
      {40, 1000, 264, false, true, false, ""},                   // a C keeps the problem as given
      {200, 328, 136, true, true, false, ""},                    // ragged, D and C column-major (D^T's problem)
      {1536, 1000, 264, true, false, false, ""},
      // Fused: bias and activation in the epilogue, on the persistent tiles.
      {1536, 2816, 512, false, false, false, "128x256x64_c2x1", gemm::Activation::kReLU, true},
      {520, 1000, 264, false, false, false, "", gemm::Activation::kGeLU, true},
      {300, 2048, 512, false, true, false, "", gemm::Activation::kSiLU},
      {16, 4096, 1024, false, false, true, "128x64x64", gemm::Activation::kSiLU},  // decode, fused: D^T on the narrow tile
      // B's rows 1072 bytes apart, off 32-byte sectors: the wide tile's 2x1-cluster twin (fused
      // too: the ReLU case above, A's rows 1040 bytes apart); with A's and B's rows on sectors
      // (1056 and 1088 bytes), the plain tile.
      {1536, 2816, 520, false, false, false, "128x256x64_c2x1"},
      {1536, 2816, 520, false, false, false, "128x256x64_c1x1", gemm::Activation::kIdentity, false, 8, 24},
      {1536, 2816, 520, false, false, false, "128x256x64_c1x1_4stage_coop_tn_tmastore_lincomb_silu", gemm::Activation::kSiLU,
       true, 8, 24},
  };
  for (Case const& c : bf16_cases) run_case<bfloat16_t>(c, DataType::kBF16);
  Case const f16_cases[] = {
      {1536, 2816, 512, false, true, false, "128x256x64"},
      {16, 4096, 1024, false, false, true, "small_n_tma_f16_n16_4box"},     // decode: f16's own ring
      {1, 8192, 8192, false, false, false, "small_n_tma_f16_n8_8box_3stage"},  // its long-K ring
      {7, 2008, 528, false, false, false, "small_n_tma_f16_n8_8box_16row"},    // 16-row blocks, the last one partial
      {32, 4096, 1024, false, false, true, "128x64x64"},  // past the ring's 16 tokens: D^T's problem on the narrow tile
      {200, 328, 136, true, true, false, ""},
      {520, 1000, 264, false, false, false, "", gemm::Activation::kGeLU, true},
  };
  for (Case const& c : f16_cases) run_case<half_t>(c, DataType::kF16);
}

struct GroupedCase {
  gemm::GroupLayout layout;
  int rows, n, k;
  std::vector<int> group_m;  // ends (contiguous) or counts (masked), as the kernel reads them
  bool b_k_major;
  char const* kernel_part;
  int row_step = 1;  // check every row_step-th row of each group (large cases)
  bool bias = false;  // a bias row per group (D's type, N values, the next N + 8 elements on)
};

template <class T>
void run_grouped_case(GroupedCase const& c, DataType type) {
  bool const masked = c.layout == gemm::GroupLayout::kMasked;
  int const g = int(c.group_m.size()), blocks = masked ? g : 1;
  std::int64_t const lda = c.k + 8, ldd = c.n + 8, ldb = c.b_k_major ? c.k + 16 : c.n + 16;  // padded on purpose
  std::int64_t const batch_a = std::int64_t(c.rows) * lda, batch_d = std::int64_t(c.rows) * ldd;
  std::int64_t const batch_b = ldb * (c.b_k_major ? c.n : c.k) + 64;
  std::vector<T> a(std::size_t(batch_a) * blocks), b(std::size_t(batch_b) * g), d(std::size_t(batch_d) * blocks);
  verify::fill_random(a.data(), a.size(), 21, verify::Distribution::uniform(-1, 1));
  verify::fill_random(b.data(), b.size(), 22, verify::Distribution::uniform(-1, 1));
  verify::poison(d.data(), d.size());
  std::int64_t const bias_stride = c.n + 8;
  std::vector<T> bias(c.bias ? std::size_t(bias_stride) * g : 1);
  verify::fill_random(bias.data(), bias.size(), 23, verify::Distribution::uniform(-4, 4));
  verify::DeviceBuffer<T> da(a), db(b), dd(d), dbias(bias);
  verify::DeviceBuffer<int> dg(c.group_m);

  gemm::GroupedGemmArguments args;
  args.groups = g, args.layout = c.layout, args.group_m = dg.data(), args.rows = c.rows, args.n = c.n, args.k = c.k;
  args.A = {da.data(), type, MatrixLayout::kRowMajor, lda};
  args.B = {db.data(), type, c.b_k_major ? MatrixLayout::kColumnMajor : MatrixLayout::kRowMajor, ldb};
  args.D = {dd.data(), type, MatrixLayout::kRowMajor, ldd};
  args.batch_a = masked ? batch_a : 0, args.batch_b = batch_b, args.batch_d = masked ? batch_d : 0;
  args.alpha = 0.75f;
  if (c.bias) args.bias = dbias.data(), args.bias_stride = bias_stride;
  GemmChoice choice;
  ASSERT_TRUE(gemm::grouped_gemm_choice(args, choice).ok()) << gemm::grouped_gemm_choice(args, choice).what();
  EXPECT_NE(choice.kernel.find(c.kernel_part), std::string::npos) << choice.kernel << ": " << choice.reason;
  EXPECT_NE(choice.kernel.find("_grouped"), std::string::npos) << choice.kernel;
  auto s = gemm::grouped_gemm(args);
  ASSERT_TRUE(s.ok()) << s.what();
  TESSEL_CUDA_CHECK(cudaDeviceSynchronize());
  d = dd.download();

  auto b_at = [&](int grp, int kk, int col) {
    return double(float(b[std::size_t(grp) * batch_b + (c.b_k_major ? std::size_t(col) * ldb + kk : std::size_t(kk) * ldb + col)]));
  };
  // The group that owns each row of each block (-1: none), clamped as the kernel clamps the sizes.
  std::vector<int> owner(std::size_t(blocks) * c.rows, -1), first(std::size_t(blocks) * c.rows, 0);
  for (int grp = 0, end = 0; grp < g; ++grp) {
    int const begin = masked ? 0 : end;
    end = std::clamp(c.group_m[grp], begin, c.rows);
    for (int r = begin; r < end; ++r) owner[std::size_t(masked ? grp : 0) * c.rows + r] = grp, first[std::size_t(masked ? grp : 0) * c.rows + r] = begin;
  }
  int failures = 0;
  for (int blk = 0; blk < blocks; ++blk) {
    for (int r = 0; r < c.rows && failures < 8; ++r) {
      int const grp = owner[std::size_t(blk) * c.rows + r];
      bool const sampled = grp >= 0 && (r - first[std::size_t(blk) * c.rows + r]) % c.row_step == 0;
      for (int col = 0; col < ldd && failures < 8; ++col) {
        T const got = d[std::size_t(blk) * batch_d + std::size_t(r) * ldd + col];
        if (grp < 0 || col >= c.n) {
          if (!verify::is_poison(got)) ++failures, ADD_FAILURE() << "block " << blk << " row " << r << " col " << col << " (of no group) was written";
          continue;
        }
        if (!sampled) continue;
        double ref = 0;
        for (int kk = 0; kk < c.k; ++kk) ref += double(float(a[std::size_t(blk) * batch_a + std::size_t(r) * lda + kk])) * b_at(grp, kk, col);
        ref *= 0.75;
        if (c.bias) ref += double(float(bias[std::size_t(grp) * bias_stride + col]));
        double const budget = std::abs(ref) * (type == DataType::kBF16 ? 1.0 / 128 : 1.0 / 1024) + 1e-3 * std::sqrt(double(c.k));
        if (!(std::abs(double(float(got)) - ref) <= budget))
          ++failures, ADD_FAILURE() << choice.kernel << " group " << grp << " row " << r << " col " << col << ": " << float(got) << " vs " << ref;
      }
    }
  }
}

TEST(FrontDoor, GroupedComputesEveryGroupAndNoOtherRow) {
  TESSEL_SKIP_WITHOUT_SM90();
  using L = gemm::GroupLayout;
  GroupedCase const cases[] = {
      {L::kContiguous, 420, 264, 136, {0, 1, 201, 332, 409}, true, "128x128x64"},  // ragged, empty, 11 rows past the last
      {L::kContiguous, 420, 264, 136, {50, 40, 300, 9000}, false, "128x128x64"},   // out of order, past rows: clipped
      {L::kMasked, 150, 136, 64, {0, 150, 7, 500}, true, "128x128x64"},            // counts past the block count as 150
      {L::kContiguous, 4096, 4096, 128, {1000, 1000, 4000}, true, "128x256x64", 61},  // tiles enough for the wide tile
  };
  for (auto const& c : cases) run_grouped_case<bfloat16_t>(c, DataType::kBF16);
  run_grouped_case<half_t>(cases[2], DataType::kF16);
  // A bias row per group, added after alpha in the epilogue (the fusion indexed by the group).
  GroupedCase const with_bias[] = {
      {L::kContiguous, 420, 264, 136, {0, 1, 201, 332, 409}, true, "128x128x64", 1, true},
      {L::kMasked, 150, 136, 64, {0, 150, 7, 500}, true, "128x128x64", 1, true},
  };
  for (auto const& c : with_bias) run_grouped_case<bfloat16_t>(c, DataType::kBF16);
  run_grouped_case<half_t>(with_bias[1], DataType::kF16);
}

TEST(FrontDoor, RefusesWhatItCannotComputeWithASentence) {
  TESSEL_SKIP_WITHOUT_SM90();
  verify::DeviceBuffer<bfloat16_t> buf(std::vector<bfloat16_t>(1 << 16));
  GemmArguments args;
  args.m = args.n = args.k = 64;
  args.A = {buf.data(), DataType::kBF16, MatrixLayout::kRowMajor, 64};
  args.B = {buf.data(), DataType::kBF16, MatrixLayout::kColumnMajor, 64};
  args.D = {buf.data() + 8192, DataType::kBF16, MatrixLayout::kRowMajor, 64};
  ASSERT_TRUE(gemm::gemm_can_implement(args).ok()) << gemm::gemm_can_implement(args).what();
  auto bad = args;
  bad.A.ptr = buf.data() + 1;  // 2 bytes off
  auto s = gemm::gemm(bad);
  EXPECT_EQ(s.status, Status::kErrorMisalignedOperand);
  EXPECT_NE(s.message.find("A's address"), std::string::npos) << s.message;
  bad = args;
  bad.B.layout = MatrixLayout::kRowMajor;
  EXPECT_EQ(gemm::gemm(bad).status, Status::kErrorInvalidLayout);
  bad = args;
  bad.beta = 1.f;
  EXPECT_EQ(gemm::gemm(bad).status, Status::kErrorInvalidProblem);
}

}  // namespace
