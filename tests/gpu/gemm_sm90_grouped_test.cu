// Grouped GEMM on the Hopper kernel (GroupedScheduler): ragged groups in the contiguous layout
// (torch._grouped_mm's offs) and in the masked layout (a padded block per group, counts on the
// device), each group against a double reference, D pre-poisoned, and every row that belongs to
// no group checked still poisoned: a tile that straddles two groups must not write the other's rows.
// With a bias per group (the fusion's C with ldc 0 and a batch stride of N): the epilogue indexes
// the fusion by the group, so each group's rows get their own row.

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "sm90_test_support.hpp"
#include "tessel/verify/device_buffer.cuh"
#include "tessel/verify/poison.hpp"
#include "tessel/verify/random.hpp"

using namespace tessel;
using namespace tessel::gemm;

namespace {

template <class LayoutB>
using Grouped = test::Sm90Gemm<bfloat16_t, RowMajor, LayoutB, bfloat16_t, 128, 128, 1, kernel::KernelTmaWarpSpecializedCooperative,
                               collective::EpilogueScheduleAuto, epilogue::LinearCombination<bfloat16_t, bfloat16_t>,
                               GroupedScheduler>;

/// One grouped problem: A (rows, K) or (G, rows, K), B (G, N, K) K-major or (G, K, N) N-major, D
/// like A with N columns; `group_m` as the kernel reads it.
struct GroupedProblem {
  kernel::GroupedLayout layout;
  int rows, n, k, groups;
  bool b_k_major;
  std::vector<int> group_m;
  std::vector<float> a, b;  // what the bf16 operands hold
  std::vector<float> bias;  // (G, N) where given: D_g = A_g B_g + bias[g]
  std::vector<bfloat16_t> ha, hb;
  verify::DeviceBuffer<bfloat16_t> da, db, dd, dbias;
  verify::DeviceBuffer<int> dg;

  GroupedProblem(kernel::GroupedLayout l, int rows_, int n_, int k_, std::vector<int> gm, bool b_k_major_, std::uint64_t seed)
      : layout(l), rows(rows_), n(n_), k(k_), groups(int(gm.size())), b_k_major(b_k_major_), group_m(std::move(gm)) {
    std::size_t const a_count = std::size_t(rows) * k * (masked() ? groups : 1);
    ha = test::random_values<bfloat16_t>(a_count, seed, verify::Distribution::uniform(-1, 1), a);
    hb = test::random_values<bfloat16_t>(std::size_t(groups) * n * k, seed + 1, verify::Distribution::uniform(-1, 1), b);
    da = verify::DeviceBuffer<bfloat16_t>(ha);
    db = verify::DeviceBuffer<bfloat16_t>(hb);
    dg = verify::DeviceBuffer<int>(group_m);
    std::vector<bfloat16_t> d(std::size_t(rows) * n * (masked() ? groups : 1));
    verify::poison(d.data(), d.size());
    dd = verify::DeviceBuffer<bfloat16_t>(d);
  }
  bool masked() const { return layout == kernel::GroupedLayout::kMasked; }
  void add_bias(std::uint64_t seed) {
    std::vector<bfloat16_t> hbias = test::random_values<bfloat16_t>(std::size_t(groups) * n, seed, verify::Distribution::uniform(-4, 4), bias);
    dbias = verify::DeviceBuffer<bfloat16_t>(hbias);
  }
  float b_at(int g, int col, int kk) const {
    std::size_t const plane = std::size_t(g) * n * k;
    return b[plane + (b_k_major ? std::size_t(col) * k + kk : std::size_t(kk) * n + col)];
  }
  /// Rows [begin, end) of group g in its block, as the kernel must clamp them.
  void rows_of(int g, int& begin, int& end) const {
    if (masked()) {
      begin = 0;
      end = std::min(std::max(group_m[g], 0), rows);
      return;
    }
    int prev = 0;
    for (int i = 0; i <= g; ++i) {
      begin = prev;
      end = std::min(std::max(group_m[i], begin), rows);
      prev = end;
    }
  }
};

template <class LayoutB>
StatusInfo run(GroupedProblem& p) {
  using G = Grouped<LayoutB>;
  typename G::Arguments args;
  args.mode = GemmUniversalMode::kGrouped;
  args.problem_shape = {p.rows, p.n, p.k, p.groups};
  auto da = make_packed_stride(typename G::StrideA{}, p.rows, p.k);
  auto db = make_packed_stride(typename G::StrideB{}, p.n, p.k);
  auto dd = make_packed_stride(typename G::StrideD{}, p.rows, p.n);
  args.mainloop = {p.da.data(), da, p.db.data(), db};
  args.epilogue.thread.alpha = 1.f;
  args.epilogue.thread.beta = 0.f;
  if (!p.bias.empty()) {  // one row of N per group: C with ldc 0, the next group's row N on
    args.epilogue.thread.beta = 1.f;
    args.epilogue.thread.ptr_C = p.dbias.data();
    args.epilogue.thread.ldc = 0;
    args.epilogue.thread.batch_stride_C = p.n;
  }
  args.epilogue.ptr_D = p.dd.data();
  args.epilogue.dD = dd;
  args.grouped = {p.layout, p.dg.data()};
  G gemm;
  StatusInfo s = gemm(args);
  if (s.ok()) EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  return s;
}

/// Every group's rows against the double reference (bf16 output: 2^-8 relative plus an absolute
/// budget for K terms of size ~1), every other row still poisoned. The first mismatches printed.
void check(GroupedProblem const& p, std::string const& what) {
  std::vector<bfloat16_t> d = p.dd.download();
  std::vector<char> owned(d.size() / p.n, 0);
  int bad = 0;
  for (int g = 0; g < p.groups; ++g) {
    int begin = 0, end = 0;
    p.rows_of(g, begin, end);
    std::size_t const a_block = p.masked() ? std::size_t(g) * p.rows : 0;
    for (int r = begin; r < end; ++r) {
      owned[a_block + r] = 1;
      for (int c = 0; c < p.n; ++c) {
        double ref = p.bias.empty() ? 0.0 : double(p.bias[std::size_t(g) * p.n + c]);
        for (int kk = 0; kk < p.k; ++kk) ref += double(p.a[(a_block + r) * p.k + kk]) * double(p.b_at(g, c, kk));
        double const got = double(float(d[(a_block + r) * p.n + c]));
        if (std::abs(got - ref) > 1e-2 * std::abs(ref) + 2e-3 * std::sqrt(double(p.k)) || got != got) {
          if (bad++ < 5) ADD_FAILURE() << what << ": group " << g << " D(" << r << "," << c << ") = " << got << ", reference " << ref;
        }
      }
    }
  }
  for (std::size_t row = 0; row < owned.size(); ++row)
    for (int c = 0; !owned[row] && c < p.n; ++c)
      if (!verify::is_poison(d[row * p.n + c]) && bad++ < 10)
        ADD_FAILURE() << what << ": row " << row << " belongs to no group but column " << c << " was written";
  EXPECT_EQ(bad, 0) << what;
}

/// Runs the problem and checks it, failing the test on a refused launch.
template <class LayoutB>
void run_and_check(GroupedProblem& p, std::string const& what) {
  StatusInfo s = run<LayoutB>(p);
  ASSERT_TRUE(s.ok()) << what << ": " << s.what();
  check(p, Grouped<LayoutB>::name() + " " + what);
}

}  // namespace

TEST(GemmSm90Grouped, ContiguousRaggedGroups) {
  TESSEL_SKIP_WITHOUT_SM90();
  // Sizes 0, 1, 200, 130, 77 (ends not multiples of the 128-row tile, an empty group first),
  // then 11 rows that belong to no group; N ragged against the 128-column tile.
  GroupedProblem p(kernel::GroupedLayout::kContiguous, 419, 200, 320, {0, 1, 201, 331, 408}, /*b_k_major=*/true, 7);
  run_and_check<ColumnMajor>(p, "contiguous");
}

TEST(GemmSm90Grouped, ContiguousNMajorWeights) {
  TESSEL_SKIP_WITHOUT_SM90();
  GroupedProblem p(kernel::GroupedLayout::kContiguous, 384, 256, 192, {64, 64, 300, 384}, /*b_k_major=*/false, 11);
  run_and_check<RowMajor>(p, "contiguous, N-major B");
}

TEST(GemmSm90Grouped, MaskedCountsOnTheDevice) {
  TESSEL_SKIP_WITHOUT_SM90();
  // Blocks of 160 rows; counts 0, 160, 5, 129, and 500 (past the block: clamped to 160).
  GroupedProblem p(kernel::GroupedLayout::kMasked, 160, 136, 256, {0, 160, 5, 129, 500}, /*b_k_major=*/true, 13);
  run_and_check<ColumnMajor>(p, "masked");
}

TEST(GemmSm90Grouped, BiasPerGroup) {
  TESSEL_SKIP_WITHOUT_SM90();
  GroupedProblem c(kernel::GroupedLayout::kContiguous, 419, 200, 320, {0, 1, 201, 331, 408}, /*b_k_major=*/true, 23);
  c.add_bias(29);
  run_and_check<ColumnMajor>(c, "contiguous, bias per group");
  GroupedProblem m(kernel::GroupedLayout::kMasked, 160, 136, 256, {0, 160, 5, 129, 500}, /*b_k_major=*/true, 31);
  m.add_bias(37);
  run_and_check<ColumnMajor>(m, "masked, bias per group");
}

TEST(GemmSm90Grouped, OffsetsThatRunBackwardsGiveEmptyGroups) {
  TESSEL_SKIP_WITHOUT_SM90();
  // Ends 300, 100 (before the previous end: empty), 350, -4 (empty), 9999 (clamped to 400).
  GroupedProblem p(kernel::GroupedLayout::kContiguous, 400, 128, 128, {300, 100, 350, -4, 9999}, /*b_k_major=*/true, 17);
  run_and_check<ColumnMajor>(p, "backward offsets");
}

TEST(GemmSm90Grouped, ManyGroupsMostlyEmpty) {
  TESSEL_SKIP_WITHOUT_SM90();
  // 256 experts, a few tokens each where any: the decode pattern of a large mixture of experts.
  std::vector<int> ends(256);
  int rows = 0;
  for (int g = 0; g < 256; ++g) ends[g] = rows += (g % 7 == 0) ? 1 + g % 13 : 0;
  GroupedProblem p(kernel::GroupedLayout::kContiguous, rows, 192, 128, ends, /*b_k_major=*/true, 19);
  run_and_check<ColumnMajor>(p, "256 groups");
}
