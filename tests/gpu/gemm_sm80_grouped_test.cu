// Grouped GEMM on the Sm80 kernel through its handle, device::GemmGrouped: ragged groups in the
// contiguous layout, the masked layout, a bias row per group and both B layouts, each group
// against a double reference, D pre-poisoned, every row of no group checked still poisoned.

#include <string>

#include "gpu_test_util.hpp"
#include "grouped_problem.hpp"
#include "tessel/gemm/device/gemm_grouped.hpp"

using namespace tessel;
using namespace tessel::gemm;
using test::GroupedProblem;

namespace {

template <class LayoutB>
using Grouped = device::GemmGrouped<bfloat16_t, LayoutB, bfloat16_t>;

bool have_sm80() {
  int dev = 0, major = 0;
  return cudaGetDevice(&dev) == cudaSuccess && cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess &&
         major >= 8;
}

template <class LayoutB>
void run_and_check(GroupedProblem& p, std::string const& what) {
  using G = Grouped<LayoutB>;
  bool const masked = p.masked();
  typename G::Arguments args;
  args.layout = p.layout;
  args.group_m = p.dg.data();
  args.groups = p.groups;
  args.problem_size = {p.rows, p.n, p.k};
  args.ref_A = {p.da.data(), p.k};
  args.ref_B = {p.db.data(), p.b_k_major ? p.k : p.n};  // (K, N): column-major (ld K) or row-major (ld N)
  args.ref_D = {p.dd.data(), p.n};
  args.batch_a = masked ? std::int64_t(p.rows) * p.k : 0;
  args.batch_b = std::int64_t(p.n) * p.k;
  args.batch_d = masked ? std::int64_t(p.rows) * p.n : 0;
  args.epilogue = {1.f, 0.f};
  if (!p.bias.empty()) {  // one row of N per group: C with ldc 0, the next group's row N on
    args.ref_C = {p.dbias.data(), 0};
    args.batch_c = p.n;
    args.epilogue.beta = 1.f;
  }
  G grouped;
  StatusInfo s = grouped(args);
  ASSERT_TRUE(s.ok()) << what << ": " << s.what();
  TESSEL_CUDA_CHECK(cudaDeviceSynchronize());
  test::check(p, G::name() + " " + what);
}

}  // namespace

#define TESSEL_SKIP_WITHOUT_SM80()                                                       \
  do {                                                                                    \
    TESSEL_SKIP_WITHOUT_GPU();                                                            \
    if (!have_sm80()) GTEST_SKIP() << "needs a compute capability 8.0 or later GPU (mma.sync bf16)"; \
  } while (0)

TEST(GemmSm80Grouped, ContiguousRaggedGroups) {
  TESSEL_SKIP_WITHOUT_SM80();
  GroupedProblem p = test::ragged_contiguous(7);
  run_and_check<ColumnMajor>(p, "contiguous");
  GroupedProblem q = test::n_major_contiguous(11);
  run_and_check<RowMajor>(q, "contiguous, N-major B");
}

TEST(GemmSm80Grouped, MaskedCountsOnTheDevice) {
  TESSEL_SKIP_WITHOUT_SM80();
  GroupedProblem p = test::masked_counts(13);
  run_and_check<ColumnMajor>(p, "masked");
}

TEST(GemmSm80Grouped, BiasPerGroup) {
  TESSEL_SKIP_WITHOUT_SM80();
  test::run_bias_per_group_cases([](GroupedProblem& p, char const* what) { run_and_check<ColumnMajor>(p, what); });
}
