// Bad arguments to the Sm75/Sm80 GEMM, tried the way a new user would, without a GPU: every
// argument check in can_implement comes before the one step that asks the device (the arch
// gate), so each refusal here is decided on the host. The pointers are never dereferenced;
// they are arbitrary 16-byte aligned addresses unless a test says otherwise.
//
// Each case asserts the Status and the sentence, which must say what is wrong and what to do.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "../gpu/gemm_test_support.hpp"
#include "tessel/arch/runtime.hpp"
#include "tessel/gemm/device/gemm.hpp"
#include "tessel/gemm/device/gemm_grouped.hpp"

namespace {

using namespace tessel;
using namespace tessel::gemm;

using Sm80TN = device::Gemm<half_t, RowMajor, half_t, ColumnMajor, float, RowMajor, float, OpClassTensorOp, arch::Sm80,
                            GemmShape<128, 128, 32>, GemmShape<64, 64, 32>, GemmShape<16, 8, 16>,
                            epilogue::LinearCombination<float>, 3>;
using Sm80Bf16NT = device::Gemm<bfloat16_t, ColumnMajor, bfloat16_t, RowMajor, bfloat16_t, ColumnMajor, float, OpClassTensorOp,
                                arch::Sm80, GemmShape<128, 128, 32>, GemmShape<64, 64, 32>, GemmShape<16, 8, 16>,
                                epilogue::LinearCombination<bfloat16_t>, 3>;
using Sm80NN = device::Gemm<half_t, ColumnMajor, half_t, ColumnMajor, half_t, ColumnMajor, float, OpClassTensorOp, arch::Sm80,
                            GemmShape<128, 128, 32>, GemmShape<64, 64, 32>, GemmShape<16, 8, 16>,
                            epilogue::LinearCombination<half_t>, 3>;
using Sm75TT = device::Gemm<half_t, RowMajor, half_t, RowMajor, float, ColumnMajor, float, OpClassTensorOp, arch::Sm75,
                            GemmShape<128, 128, 32>, GemmShape<64, 64, 32>, GemmShape<16, 8, 8>,
                            epilogue::LinearCombination<float>, 2>;
using Sm75TN = device::Gemm<half_t, RowMajor, half_t, ColumnMajor, float, RowMajor, float, OpClassTensorOp, arch::Sm75,
                            GemmShape<128, 128, 32>, GemmShape<64, 64, 32>, GemmShape<16, 8, 8>,
                            epilogue::LinearCombination<float>, 2>;

template <class T>
T* fake(std::uintptr_t address) {
  return reinterpret_cast<T*>(address);
}

// A valid TN problem: A (M,K) row-major, B (K,N) column-major, C and D (M,N) row-major.
template <class Gemm>
typename Gemm::Arguments valid(int m = 64, int n = 64, int k = 64) {
  using TA = typename Gemm::ElementA;
  using TC = typename Gemm::ElementC;
  return {{m, n, k},
          {fake<TA const>(0x100000), k},
          {fake<TA const>(0x200000), k},
          {fake<TC const>(0x300000), n},
          {fake<TC>(0x400000), n},
          {1.f, 0.5f},
          1};
}

// The status the arch gate gives on this machine: what a fully valid argument set must get.
template <class Gemm>
StatusInfo device_gate() {
  return arch::check_kernel_arch<typename Gemm::ArchTag>(reinterpret_cast<void const*>(&kernel::gemm_kernel<typename Gemm::Config>));
}

void expect_refused(const StatusInfo& s, Status status, const std::string& message) {
  EXPECT_EQ(s.status, status) << s.what();
  EXPECT_EQ(s.message, message);
}

TEST(GemmCanImplement, ValidArgumentsReachTheDeviceGate) {
  // Nothing about the arguments is wrong, so the answer is the device's: kSuccess on a GPU that
  // runs the kernel, the gate's own status (no device, no driver) elsewhere.
  EXPECT_EQ(Sm80TN::can_implement(valid<Sm80TN>()).status, device_gate<Sm80TN>().status);
  EXPECT_EQ(Sm75TN::can_implement(valid<Sm75TN>()).status, device_gate<Sm75TN>().status);
  EXPECT_EQ(Sm80TN::get_workspace_size(valid<Sm80TN>()), 0u);
}

TEST(GemmCanImplement, MisalignedLeadingDimensionOfA) {
  auto args = valid<Sm80TN>(128, 128, 4000);
  args.ref_A.ld = 4095;
  const StatusInfo s = Sm80TN::can_implement(args);
  expect_refused(s, Status::kErrorMisalignedOperand,
                 "leading dimension of A is 4095, not a multiple of the 8 elements (16 bytes) the vector loads need: "
                 "pad it to 4096, or use a lower alignment");
  EXPECT_EQ(s.what(),
            "Error Misaligned Operand: leading dimension of A is 4095, not a multiple of the 8 elements (16 bytes) "
            "the vector loads need: pad it to 4096, or use a lower alignment");
  // The same rule, the same sentence, on the Turing kernel.
  auto args75 = valid<Sm75TN>(128, 128, 4000);
  args75.ref_A.ld = 4095;
  EXPECT_EQ(Sm75TN::can_implement(args75).message, s.message);
}

TEST(GemmCanImplement, MisalignedLeadingDimensionOfB) {
  auto args = valid<Sm80TN>(128, 128, 4000);
  args.ref_B.ld = 4001;
  expect_refused(Sm80TN::can_implement(args), Status::kErrorMisalignedOperand,
                 "leading dimension of B is 4001, not a multiple of the 8 elements (16 bytes) the vector loads need: "
                 "pad it to 4008, or use a lower alignment");
}

TEST(GemmCanImplement, ContiguousExtentNotAMultipleOfTheVector) {
  // TN: K is contiguous in both A and B.
  auto tn = valid<Sm80TN>(64, 64, 20);
  tn.ref_A.ld = tn.ref_B.ld = 24;
  expect_refused(Sm80TN::can_implement(tn), Status::kErrorMisalignedOperand,
                 "K is 20, not a multiple of the 8 elements (16 bytes) the vector loads need: pad it to 24, or use a "
                 "lower alignment");
  // NT: M is contiguous in A, N in B; K is free.
  auto nt = valid<Sm80Bf16NT>(100, 64, 20);
  nt.ref_A.ld = 104;  // A (M,K) column-major
  nt.ref_B.ld = 64;   // B (K,N) row-major
  nt.ref_C.ld = nt.ref_D.ld = 100;
  expect_refused(Sm80Bf16NT::can_implement(nt), Status::kErrorMisalignedOperand,
                 "M is 100, not a multiple of the 8 elements (16 bytes) the vector loads need: pad it to 104, or use a "
                 "lower alignment");
  nt.problem_size = {96, 30, 20};
  nt.ref_A.ld = 96;
  nt.ref_B.ld = 32;
  nt.ref_C.ld = nt.ref_D.ld = 96;
  expect_refused(Sm80Bf16NT::can_implement(nt), Status::kErrorMisalignedOperand,
                 "N is 30, not a multiple of the 8 elements (16 bytes) the vector loads need: pad it to 32, or use a "
                 "lower alignment");
  // K = 20 is fine where K is contiguous in neither operand.
  nt.problem_size = {96, 32, 20};
  EXPECT_EQ(Sm80Bf16NT::can_implement(nt).status, device_gate<Sm80Bf16NT>().status);
}

TEST(GemmCanImplement, MisalignedBaseAddress) {
  auto args = valid<Sm80TN>();
  args.ref_A.data = fake<half_t const>(0x100002);
  expect_refused(Sm80TN::can_implement(args), Status::kErrorMisalignedOperand,
                 "base address of A is 0x100002, not aligned to the 16 bytes the vector loads need: allocate it with "
                 "cudaMalloc (256-byte aligned) or offset it by a multiple of 16 bytes, or use a lower alignment");
  args = valid<Sm80TN>();
  args.ref_B.data = fake<half_t const>(0x200008);
  const StatusInfo s = Sm80TN::can_implement(args);
  EXPECT_EQ(s.status, Status::kErrorMisalignedOperand);
  EXPECT_EQ(s.message.rfind("base address of B is 0x200008, not aligned to the 16 bytes", 0), 0u) << s.what();
}

TEST(GemmCanImplement, EmptyProblem) {
  for (GemmCoord p : {GemmCoord{0, 64, 64}, GemmCoord{64, 0, 64}, GemmCoord{64, 64, 0}, GemmCoord{0, 0, 0}}) {
    auto args = valid<Sm80TN>();
    args.problem_size = p;
    const std::string dims = std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
    expect_refused(Sm80TN::can_implement(args), Status::kErrorInvalidProblem,
                   "problem size " + dims + " is empty: M, N and K must all be positive");
  }
}

TEST(GemmCanImplement, NegativeSizes) {
  for (GemmCoord p : {GemmCoord{-1, 64, 64}, GemmCoord{64, -8, 64}, GemmCoord{64, 64, -64}}) {
    auto args = valid<Sm80TN>();
    args.problem_size = p;
    const std::string dims = std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
    expect_refused(Sm80TN::can_implement(args), Status::kErrorInvalidProblem,
                   "problem size " + dims + " has a negative extent");
  }
}

TEST(GemmCanImplement, NullPointers) {
  auto args = valid<Sm80TN>();
  args.ref_A.data = nullptr;
  expect_refused(Sm80TN::can_implement(args), Status::kErrorInvalidProblem,
                 "a null pointer for A: pass device pointers to the matrices");
  args = valid<Sm80TN>();
  args.ref_B.data = nullptr;
  expect_refused(Sm80TN::can_implement(args), Status::kErrorInvalidProblem,
                 "a null pointer for B: pass device pointers to the matrices");
  args = valid<Sm80TN>();
  args.ref_D.data = nullptr;
  expect_refused(Sm80TN::can_implement(args), Status::kErrorInvalidProblem,
                 "a null pointer for D: pass device pointers to the matrices");
}

TEST(GemmCanImplement, NullCNeedsBetaZero) {
  auto args = valid<Sm80TN>();
  args.ref_C.data = nullptr;
  expect_refused(Sm80TN::can_implement(args), Status::kErrorInvalidProblem,
                 "beta is nonzero but C is null: pass C, or set beta to 0");
  // With beta = 0 C is never read: a null C (with any leading dimension) is fine.
  args.epilogue.beta = 0.f;
  args.ref_C.ld = 0;
  EXPECT_EQ(Sm80TN::can_implement(args).status, device_gate<Sm80TN>().status);
}

TEST(GemmCanImplement, SplitKIsNotSupported) {
  for (int slices : {2, 0, -1}) {
    auto args = valid<Sm80TN>();
    args.split_k_slices = slices;
    expect_refused(Sm80TN::can_implement(args), Status::kErrorNotSupported,
                   "split_k_slices = " + std::to_string(slices) + ": this kernel computes K in one slice; pass 1");
  }
}

TEST(GemmCanImplement, LeadingDimensionSmallerThanTheExtent) {
  auto args = valid<Sm80TN>(64, 64, 64);
  args.ref_A.ld = 32;
  expect_refused(Sm80TN::can_implement(args), Status::kErrorInvalidProblem,
                 "leading dimension of A is 32, smaller than K = 64: rows would overlap");
  args = valid<Sm80TN>(64, 64, 64);
  args.ref_B.ld = 56;
  expect_refused(Sm80TN::can_implement(args), Status::kErrorInvalidProblem,
                 "leading dimension of B is 56, smaller than K = 64: rows would overlap");
  args = valid<Sm80TN>(64, 72, 64);
  args.ref_D.ld = 64;
  expect_refused(Sm80TN::can_implement(args), Status::kErrorInvalidProblem,
                 "leading dimension of D is 64, smaller than N = 72: rows would overlap");
  args = valid<Sm80TN>(64, 72, 64);
  args.ref_C.ld = 70;
  expect_refused(Sm80TN::can_implement(args), Status::kErrorInvalidProblem,
                 "leading dimension of C is 70, smaller than N = 72: rows would overlap");
  // Column-major operands are measured against the other extent.
  auto nt = valid<Sm80Bf16NT>(96, 64, 64);
  nt.ref_A.ld = 88;
  nt.ref_C.ld = nt.ref_D.ld = 96;
  expect_refused(Sm80Bf16NT::can_implement(nt), Status::kErrorInvalidProblem,
                 "leading dimension of A is 88, smaller than M = 96: rows would overlap");
  nt.ref_A.ld = 96;
  nt.ref_D.ld = 64;
  expect_refused(Sm80Bf16NT::can_implement(nt), Status::kErrorInvalidProblem,
                 "leading dimension of D is 64, smaller than M = 96: rows would overlap");
}

TEST(GemmCanImplement, MoreTilesThanAGridHolds) {
  const int big = 1 << 30;
  auto args = valid<Sm80TN>(big, big, 64);
  args.ref_C.ld = args.ref_D.ld = big;
  expect_refused(Sm80TN::can_implement(args), Status::kErrorInvalidProblem,
                 "problem size 1073741824x1073741824x64 needs more thread blocks than a grid holds");
}

// The GPU tests (tests/gpu/gemm_test_support.hpp) decide from the shape and the layouts alone
// which cases the kernel must refuse as misaligned, and expect every other case to run. Here
// that decision is held against can_implement itself, for all four A/B layout pairs, so that on
// the device a refusal or an acceptance is never the harness's mistake.
template <class Gemm>
void expect_harness_agrees_with_can_implement() {
  using TA = typename Gemm::ElementA;
  using TC = typename Gemm::ElementC;
  int admitted = 0, refused = 0;
  for (const test::GemmCase& c : test::gemm_cases()) {
    const test::LeadingDims ld = test::leading_dims<Gemm>(c);
    typename Gemm::Arguments args{{c.m, c.n, c.k},
                                  {fake<TA const>(0x100000), ld.a},
                                  {fake<TA const>(0x200000), ld.b},
                                  {c.source == test::Source::kNone ? nullptr : fake<TC const>(0x300000), ld.d},
                                  {fake<TC>(0x400000), ld.d},
                                  {c.alpha, c.beta},
                                  1};
    const StatusInfo s = Gemm::can_implement(args);
    if (test::alignment_admits<Gemm>(c)) {
      ++admitted;
      EXPECT_EQ(s.status, device_gate<Gemm>().status) << Gemm::name() << " on " << c.name << ": " << s.what();
    } else {
      ++refused;
      EXPECT_EQ(s.status, Status::kErrorMisalignedOperand) << Gemm::name() << " on " << c.name << ": " << s.what();
    }
  }
  // Every layout pair both runs most shapes and refuses some: the sweep covers both sides.
  EXPECT_GE(admitted, 10) << Gemm::name();
  EXPECT_GE(refused, 1) << Gemm::name();
}

TEST(GemmTestHarness, MisalignmentDecisionMatchesCanImplement) {
  expect_harness_agrees_with_can_implement<Sm80TN>();
  expect_harness_agrees_with_can_implement<Sm80Bf16NT>();
  expect_harness_agrees_with_can_implement<Sm80NN>();
  expect_harness_agrees_with_can_implement<Sm75TT>();
}

TEST(GemmHandle, RunBeforeInitializeIsRefused) {
  Sm80TN gemm;
  expect_refused(gemm.run(), Status::kErrorInternal, "run() before a successful initialize(): call initialize(args) first");
}

TEST(GemmHandle, InitializeReportsWhatCanImplementReports) {
  auto args = valid<Sm80TN>(128, 128, 4000);
  args.ref_A.ld = 4095;
  Sm80TN gemm;
  const StatusInfo s = gemm.initialize(args);
  const StatusInfo expected = Sm80TN::can_implement(args);
  EXPECT_EQ(s.status, expected.status);
  EXPECT_EQ(s.message, expected.message);
  // The refused arguments did not make the handle runnable, and neither did operator().
  EXPECT_EQ(gemm.run().status, Status::kErrorInternal);
  EXPECT_EQ(gemm(args).status, Status::kErrorMisalignedOperand);
  EXPECT_EQ(gemm().status, Status::kErrorInternal);
}

}  // namespace

// ---- device::GemmGrouped (the Sm80 grouped walk): the dense rules on one group, and the groups' ----

namespace {
using Grouped = device::GemmGrouped<bfloat16_t, ColumnMajor, bfloat16_t>;

Grouped::Arguments valid_grouped() {
  Grouped::Arguments a;
  a.layout = kernel::GroupedLayout::kContiguous;
  a.group_m = fake<int const>(0x500000);
  a.groups = 4;
  a.problem_size = {300, 256, 128};
  a.ref_A = {fake<bfloat16_t const>(0x100000), 128};
  a.ref_B = {fake<bfloat16_t const>(0x200000), 128};
  a.ref_D = {fake<bfloat16_t>(0x400000), 256};
  a.batch_b = 256 * 128;
  a.epilogue = {1.f, 0.f};
  return a;
}
}  // namespace

TEST(GemmGroupedCanImplement, ValidArgumentsReachTheDeviceGate) {
  auto const gate = arch::check_kernel_arch<arch::Sm80>(reinterpret_cast<void const*>(&kernel::gemm_grouped_kernel<Grouped::Config>));
  EXPECT_EQ(Grouped::can_implement(valid_grouped()).status, gate.status);
  EXPECT_EQ(Grouped::name(), Grouped::Dense::name() + "_grouped");
}

TEST(GemmGroupedCanImplement, TheGroupsRules) {
  auto a = valid_grouped();
  a.groups = 0;
  expect_refused(Grouped::can_implement(a), Status::kErrorInvalidProblem, "0 groups: give 1 to 65535");
  a = valid_grouped();
  a.group_m = nullptr;
  EXPECT_EQ(Grouped::can_implement(a).status, Status::kErrorInvalidProblem);
  a = valid_grouped();
  a.batch_b = 100;
  expect_refused(Grouped::can_implement(a), Status::kErrorMisalignedOperand,
                 "batch_b (100 elements) is not a multiple of 16 bytes: pad each group's matrix");
  a = valid_grouped();
  a.batch_c = -1;
  expect_refused(Grouped::can_implement(a), Status::kErrorInvalidProblem, "batch_c is negative: give an element stride >= 0");
  a = valid_grouped();
  a.layout = kernel::GroupedLayout::kMasked;
  a.batch_a = 300 * 128;
  a.batch_d = 100 * 256;  // 100 rows: less than the block of 300
  expect_refused(Grouped::can_implement(a), Status::kErrorInvalidProblem,
                 "batch_d (25600) is smaller than one block of 300 rows of D: the groups' blocks would overlap");
  // The dense handle's rules, on one group's matrices.
  a = valid_grouped();
  a.ref_A.ld = 100;
  expect_refused(Grouped::can_implement(a), Status::kErrorInvalidProblem,
                 "leading dimension of A is 100, smaller than K = 128: rows would overlap");
  a = valid_grouped();
  a.epilogue.beta = 1.f;  // a bias without C
  EXPECT_EQ(Grouped::can_implement(a).status, Status::kErrorInvalidProblem);
  Grouped handle;
  EXPECT_EQ(handle.run().status, Status::kErrorInternal);
}
