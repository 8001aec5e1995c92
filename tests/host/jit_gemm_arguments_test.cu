// tessel::jit::check_gemm_arguments (used where a kernel runs without the device::Gemm handle:
// the Python package's launcher) against device::Gemm::can_implement: the same decision and the
// same sentence for every argument set, over layouts, element types and each way to be wrong.
// Without a GPU: every argument check precedes the handle's one device query.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tessel/arch/runtime.hpp"
#include "tessel/gemm/device/gemm.hpp"
#include "tessel/jit/gemm_arguments.hpp"

namespace {

using namespace tessel;
using namespace tessel::gemm;

template <class T, class LA, class LB, class TC, class LC>
using Sm80 = device::Gemm<T, LA, T, LB, TC, LC, float, OpClassTensorOp, arch::Sm80, GemmShape<128, 128, 32>, GemmShape<64, 64, 32>,
                          GemmShape<16, 8, 16>, epilogue::LinearCombination<TC>, 3>;

// One argument set, in the handle's terms; `mutate` makes it wrong in one way.
struct Case {
  std::string what;
  std::function<void(int& m, int& n, int& k, std::int64_t& lda, std::int64_t& ldb, std::int64_t& ldc, std::int64_t& ldd,
                     std::uintptr_t& a, std::uintptr_t& b, std::uintptr_t& c, float& beta, int& split_k)>
      mutate;
};

std::vector<Case> cases() {
  using I = std::int64_t;
  using P = std::uintptr_t;
  return {
      {"valid", [](int&, int&, int&, I&, I&, I&, I&, P&, P&, P&, float&, int&) {}},
      {"negative M", [](int& m, int&, int&, I&, I&, I&, I&, P&, P&, P&, float&, int&) { m = -3; }},
      {"empty K", [](int&, int&, int& k, I&, I&, I&, I&, P&, P&, P&, float&, int&) { k = 0; }},
      {"split K", [](int&, int&, int&, I&, I&, I&, I&, P&, P&, P&, float&, int& s) { s = 2; }},
      {"null A", [](int&, int&, int&, I&, I&, I&, I&, P& a, P&, P&, float&, int&) { a = 0; }},
      {"null B", [](int&, int&, int&, I&, I&, I&, I&, P&, P& b, P&, float&, int&) { b = 0; }},
      {"beta without C", [](int&, int&, int&, I&, I&, I&, I&, P&, P&, P& c, float& beta, int&) { c = 0, beta = 1.f; }},
      {"lda too small", [](int&, int&, int&, I& lda, I&, I&, I&, P&, P&, P&, float&, int&) { lda -= 8; }},
      {"lda misaligned", [](int&, int&, int&, I& lda, I&, I&, I&, P&, P&, P&, float&, int&) { lda += 4; }},
      {"ldb too small", [](int&, int&, int&, I&, I& ldb, I&, I&, P&, P&, P&, float&, int&) { ldb -= 8; }},
      {"ldb misaligned", [](int&, int&, int&, I&, I& ldb, I&, I&, P&, P&, P&, float&, int&) { ldb += 2; }},
      {"ldd too small", [](int&, int&, int&, I&, I&, I&, I& ldd, P&, P&, P&, float&, int&) { ldd -= 1; }},
      {"ldc too small", [](int&, int&, int&, I&, I&, I& ldc, I&, P&, P&, P&, float& beta, int&) { ldc -= 1, beta = 1.f; }},
      {"ldc 0 repeats one row of C (a bias)", [](int&, int&, int&, I&, I&, I& ldc, I&, P&, P&, P&, float& beta, int&) { ldc = 0, beta = 1.f; }},
      {"ldc ignored without beta", [](int&, int&, int&, I&, I&, I& ldc, I&, P&, P&, P&, float&, int&) { ldc = 1; }},
      {"M misaligned", [](int& m, int&, int&, I&, I&, I&, I&, P&, P&, P&, float&, int&) { m = 250; }},
      {"N misaligned", [](int&, int& n, int&, I&, I&, I&, I&, P&, P&, P&, float&, int&) { n = 130; }},
      {"K misaligned", [](int&, int&, int& k, I&, I&, I&, I&, P&, P&, P&, float&, int&) { k = 60; }},
      {"A address", [](int&, int&, int&, I&, I&, I&, I&, P& a, P&, P&, float&, int&) { a += 8; }},
      {"B address", [](int&, int&, int&, I&, I&, I&, I&, P&, P& b, P&, float&, int&) { b += 2; }},
      {"ragged M and N", [](int& m, int& n, int&, I&, I&, I&, I&, P&, P&, P&, float&, int&) { m = 200, n = 136; }},
  };
}

template <class Gemm>
void compare_all() {
  using TA = typename Gemm::ElementA;
  using TC = typename Gemm::ElementC;
  bool const a_row = std::is_same_v<typename Gemm::LayoutA, RowMajor>;
  bool const b_row = std::is_same_v<typename Gemm::LayoutB, RowMajor>;
  bool const c_row = std::is_same_v<typename Gemm::LayoutC, RowMajor>;
  StatusInfo const gate =
      arch::check_kernel_arch<arch::Sm80>(reinterpret_cast<void const*>(&kernel::gemm_kernel<typename Gemm::Config>));
  for (Case const& c : cases()) {
    int m = 256, n = 128, k = 64, split_k = 1;
    float beta = 0.f;
    std::uintptr_t pa = 0x100000, pb = 0x200000, pc = 0x300000;
    // Leading dimensions whose layouts are tight, after a mutation of the extents is applied.
    std::int64_t lda = 0, ldb = 0, ldc = 0, ldd = 0;
    auto tight = [&] {
      lda = a_row ? k : m;
      ldb = b_row ? n : k;
      ldc = ldd = c_row ? n : m;
    };
    tight();
    int m0 = m, n0 = n, k0 = k;
    c.mutate(m, n, k, lda, ldb, ldc, ldd, pa, pb, pc, beta, split_k);
    if (m != m0 || n != n0 || k != k0) {  // the case changes extents: keep its other changes, retighten
      std::int64_t da = lda - (a_row ? k0 : m0), db = ldb - (b_row ? n0 : k0), dc = ldc - (c_row ? n0 : m0), dd = ldd - (c_row ? n0 : m0);
      tight();
      lda += da, ldb += db, ldc += dc, ldd += dd;
    }
    typename Gemm::Arguments args{{m, n, k},
                                  {reinterpret_cast<TA const*>(pa), lda},
                                  {reinterpret_cast<TA const*>(pb), ldb},
                                  {reinterpret_cast<TC const*>(pc), ldc},
                                  {reinterpret_cast<TC*>(0x400000), ldd},
                                  {1.f, beta},
                                  split_k};
    jit::GemmArguments j{m, n, k, reinterpret_cast<void const*>(pa), lda, a_row, reinterpret_cast<void const*>(pb), ldb, b_row,
                         reinterpret_cast<void const*>(pc), ldc, reinterpret_cast<void const*>(0x400000), ldd, c_row, beta, split_k,
                         sizeof_bits_v<TA>, 128, 128};
    StatusInfo const handle = Gemm::can_implement(args);
    StatusInfo const launcher = jit::check_gemm_arguments(j);
    SCOPED_TRACE(Gemm::name() + ": " + c.what);
    if (launcher.ok()) {
      // Nothing wrong with the arguments: the handle's answer is its device gate's.
      EXPECT_EQ(handle.status, gate.status) << handle.what();
      EXPECT_EQ(handle.message, gate.message);
    } else {
      EXPECT_EQ(launcher.status, handle.status) << launcher.what() << " | " << handle.what();
      EXPECT_EQ(launcher.message, handle.message);
    }
  }
}

TEST(JitGemmArguments, AgreeWithCanImplementTN) { compare_all<Sm80<half_t, RowMajor, ColumnMajor, float, RowMajor>>(); }
TEST(JitGemmArguments, AgreeWithCanImplementNT) { compare_all<Sm80<bfloat16_t, ColumnMajor, RowMajor, bfloat16_t, ColumnMajor>>(); }
TEST(JitGemmArguments, AgreeWithCanImplementNN) { compare_all<Sm80<half_t, ColumnMajor, ColumnMajor, half_t, RowMajor>>(); }
TEST(JitGemmArguments, AgreeWithCanImplementTT) { compare_all<Sm80<bfloat16_t, RowMajor, RowMajor, float, ColumnMajor>>(); }

TEST(JitGemmArguments, CasesCoverEveryRefusal) {
  // Each refusal status of can_implement's argument checks is reached by some case.
  std::vector<Status> seen;
  for (Case const& c : cases()) {
    int m = 256, n = 128, k = 64, split_k = 1;
    float beta = 0.f;
    std::uintptr_t pa = 0x100000, pb = 0x200000, pc = 0x300000;
    std::int64_t lda = k, ldb = k, ldc = n, ldd = n;
    c.mutate(m, n, k, lda, ldb, ldc, ldd, pa, pb, pc, beta, split_k);
    jit::GemmArguments j{m, n, k, reinterpret_cast<void const*>(pa), lda, true, reinterpret_cast<void const*>(pb), ldb, false,
                         reinterpret_cast<void const*>(pc), ldc, reinterpret_cast<void const*>(0x400000), ldd, true, beta, split_k,
                         16, 128, 128};
    seen.push_back(jit::check_gemm_arguments(j).status);
  }
  for (Status s : {Status::kSuccess, Status::kErrorInvalidProblem, Status::kErrorNotSupported, Status::kErrorMisalignedOperand}) {
    EXPECT_NE(std::find(seen.begin(), seen.end(), s), seen.end()) << to_string(s);
  }
}

}  // namespace
