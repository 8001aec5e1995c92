// Grouped GEMM on the Hopper kernel (GroupedScheduler): ragged groups in the contiguous layout
// (torch._grouped_mm's offs) and in the masked layout (a padded block per group, counts on the
// device), each group against a double reference, D pre-poisoned, and every row that belongs to
// no group checked still poisoned: a tile that straddles two groups must not write the other's rows.
// With a bias per group (the fusion's C with ldc 0 and a batch stride of N): the epilogue indexes
// the fusion by the group, so each group's rows get their own row.

#include <string>

#include "grouped_problem.hpp"
#include "sm90_test_support.hpp"

using namespace tessel;
using namespace tessel::gemm;
using test::GroupedProblem;

namespace {

template <class LayoutB>
using Grouped = test::Sm90Gemm<bfloat16_t, RowMajor, LayoutB, bfloat16_t, 128, 128, 1, kernel::KernelTmaWarpSpecializedCooperative,
                               collective::EpilogueScheduleAuto, epilogue::LinearCombination<bfloat16_t, bfloat16_t>,
                               GroupedScheduler>;

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

/// Runs the problem and checks it, failing the test on a refused launch.
template <class LayoutB>
void run_and_check(GroupedProblem& p, std::string const& what) {
  StatusInfo s = run<LayoutB>(p);
  ASSERT_TRUE(s.ok()) << what << ": " << s.what();
  test::check(p, Grouped<LayoutB>::name() + " " + what);
}

}  // namespace

TEST(GemmSm90Grouped, ContiguousRaggedGroups) {
  TESSEL_SKIP_WITHOUT_SM90();
  GroupedProblem p = test::ragged_contiguous(7);
  run_and_check<ColumnMajor>(p, "contiguous");
}

TEST(GemmSm90Grouped, ContiguousNMajorWeights) {
  TESSEL_SKIP_WITHOUT_SM90();
  GroupedProblem p = test::n_major_contiguous(11);
  run_and_check<RowMajor>(p, "contiguous, N-major B");
}

TEST(GemmSm90Grouped, MaskedCountsOnTheDevice) {
  TESSEL_SKIP_WITHOUT_SM90();
  GroupedProblem p = test::masked_counts(13);
  run_and_check<ColumnMajor>(p, "masked");
}

TEST(GemmSm90Grouped, BiasPerGroup) {
  TESSEL_SKIP_WITHOUT_SM90();
  test::run_bias_per_group_cases([](GroupedProblem& p, char const* what) { run_and_check<ColumnMajor>(p, what); });
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

TEST(GemmSm90Grouped, GroupTailsOnBothSidesOfTheSkipsKBound) {
  TESSEL_SKIP_WITHOUT_SM90();
  // Groups of 40, 160 and 100 rows: tiles whose second warpgroup's rows all lie past the group
  // (40, and 160's second tile) and one where they do not (100). Up to kGroupedSkipMaxKTiles K
  // tiles that warpgroup skips the wgmma; one K tile more and it multiplies rows it does not store.
  for (int k_tiles : {kernel::kGroupedSkipMaxKTiles, kernel::kGroupedSkipMaxKTiles + 1}) {
    GroupedProblem p(kernel::GroupedLayout::kContiguous, 300, 256, 64 * k_tiles, {40, 200, 300}, /*b_k_major=*/true, 41 + k_tiles);
    run_and_check<ColumnMajor>(p, "K tiles " + std::to_string(k_tiles));
  }
}
