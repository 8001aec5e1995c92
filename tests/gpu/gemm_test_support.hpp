#pragma once
// What every GEMM correctness test does, for any tessel::gemm::device::Gemm: build random
// operands in the Gemm's layouts, poison D (and a guard region behind it), ask can_implement,
// run, and check every element against the double-precision reference under the K-scaled budget.
//
// A test file lists its kernel configurations (one Gemm type each) and crosses them with the
// shapes below; each (configuration, shape) pair is one named test case, so a failure says which
// kernel and which shape without reading the log.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu_test_util.hpp"
#include "tessel/arch/runtime.hpp"
#include "tessel/gemm/device/gemm.hpp"
#include "tessel/verify/compare.hpp"
#include "tessel/verify/device_buffer.cuh"
#include "tessel/verify/device_compare.cuh"
#include "tessel/verify/device_fill.cuh"
#include "tessel/verify/device_reference.cuh"
#include "tessel/verify/host_reference.hpp"
#include "tessel/verify/poison.hpp"
#include "tessel/verify/random.hpp"
#include "tessel/verify/tolerance.hpp"

namespace tessel::test {

// Where the epilogue's C comes from.
enum class Source {
  kNone,      // C is null; beta must be 0 (the kernel must not read it)
  kSeparate,  // C is its own buffer
  kInPlace,   // C is D: D = alpha * A B + beta * D
};

struct GemmCase {
  const char* name;  // test-name suffix: letters, digits and underscores
  int m, n, k;
  float alpha, beta;
  Source source;
  int pad_ab;  // extra elements in lda and ldb (a multiple of 8, so alignment is the extent's)
  int pad_cd;  // extra elements in ldc and ldd (any: C and D are accessed element by element)
};

inline void PrintTo(const GemmCase& c, std::ostream* os) { *os << c.name; }

// Above this many multiply-adds the reference runs on the device (the host reference is in
// double, one element at a time, and unoptimised in a build without CMAKE_BUILD_TYPE).
inline constexpr std::int64_t kHostReferenceLimit = std::int64_t{1} << 25;

// The shapes every configuration is run on. Those whose contiguous extents are not multiples of
// 8 are run only by the layouts that do not need them to be; the others must be refused.
inline std::vector<GemmCase> gemm_cases() {
  return {
      {"8x8x8", 8, 8, 8, 1.f, 0.f, Source::kNone, 0, 0},
      {"1x8x8_one_row", 1, 8, 8, 1.f, 0.5f, Source::kSeparate, 0, 0},
      {"8x1x16_one_column", 8, 1, 16, 1.f, 0.f, Source::kNone, 0, 0},
      {"1x1x8", 1, 1, 8, 2.f, 0.f, Source::kNone, 0, 0},
      {"13x17x24_ragged_mn", 13, 17, 24, 1.f, 1.f, Source::kSeparate, 0, 0},
      {"64x64x20_k_not_mult_8", 64, 64, 20, 1.f, 0.f, Source::kNone, 0, 0},
      {"128x128x32_one_tile", 128, 128, 32, 1.f, 0.5f, Source::kSeparate, 0, 0},
      {"129x127x40", 129, 127, 40, 1.f, -1.f, Source::kSeparate, 8, 3},
      {"200x136x72", 200, 136, 72, 1.5f, -0.5f, Source::kSeparate, 0, 0},
      {"256x256x256_padded_ld", 256, 256, 256, -1.f, 1.f, Source::kSeparate, 8, 3},
      {"8x520x8_thin", 8, 520, 8, 1.f, 0.f, Source::kNone, 0, 0},
      {"520x8x16_thin", 520, 8, 16, 1.f, 0.f, Source::kNone, 0, 0},
      {"96x160x96_in_place", 96, 160, 96, 1.f, 2.f, Source::kInPlace, 0, 0},
      {"520x392x264", 520, 392, 264, 0.75f, 0.f, Source::kNone, 0, 0},
      {"136x264x1000_long_k", 136, 264, 1000, 1.f, 0.25f, Source::kSeparate, 16, 5},
      {"1024x768x4096", 1024, 768, 4096, 1.f, 0.5f, Source::kSeparate, 0, 0},
  };
}

// One kernel configuration: a name and the function that runs a case through it.
struct GemmConfig {
  const char* name;
  void (*run)(const GemmCase&);
};

inline void PrintTo(const GemmConfig& c, std::ostream* os) { *os << c.name; }

template <class Gemm>
struct GemmTraits {
  static constexpr bool kARow = std::is_same_v<typename Gemm::LayoutA, gemm::RowMajor>;
  static constexpr bool kBCol = std::is_same_v<typename Gemm::LayoutB, gemm::ColumnMajor>;
  static constexpr bool kCRow = std::is_same_v<typename Gemm::LayoutC, gemm::RowMajor>;
  static constexpr verify::Order order(bool row) {
    return row ? verify::Order::kRowMajor : verify::Order::kColumnMajor;
  }
};

// The rule the kernel documents, restated independently: A and B are read in 16-byte vectors
// along their contiguous mode, so that mode's extent must be a multiple of the vector. C and D
// are read and written element by element and impose nothing.
template <class Gemm>
bool alignment_admits(const GemmCase& c) {
  using T = GemmTraits<Gemm>;
  constexpr int v = 16 / int(sizeof(typename Gemm::ElementA));
  const int a_contig = T::kARow ? c.k : c.m;
  const int b_contig = T::kBCol ? c.k : c.n;
  return a_contig % v == 0 && b_contig % v == 0;
}

// The leading dimensions a case runs with: the contiguous extent plus the case's padding.
struct LeadingDims {
  std::int64_t a, b, d;  // C shares D's
};
template <class Gemm>
LeadingDims leading_dims(const GemmCase& c) {
  using T = GemmTraits<Gemm>;
  return {(T::kARow ? c.k : c.m) + std::int64_t(c.pad_ab), (T::kBCol ? c.k : c.n) + std::int64_t(c.pad_ab),
          (T::kCRow ? c.n : c.m) + std::int64_t(c.pad_cd)};
}

// Elements of a D allocation that lie outside the matrix view (padding and the guard behind it)
// and no longer hold the poison pattern: the kernel wrote where it must not.
template <class TD>
std::string stray_writes(const std::vector<TD>& d, std::int64_t rows, std::int64_t cols, bool row_major,
                         std::int64_t ld) {
  std::int64_t stray = 0;
  std::string first;
  for (std::int64_t e = 0; e < std::int64_t(d.size()); ++e) {
    const std::int64_t major = e / ld, minor = e % ld;  // (row, col) or (col, row)
    const bool inside = row_major ? (major < rows && minor < cols) : (major < cols && minor < rows);
    if (inside || verify::is_poison(d[std::size_t(e)])) continue;
    if (++stray <= 4) {
      first += " (" + std::to_string(row_major ? major : minor) + ", " + std::to_string(row_major ? minor : major) + ")";
    }
  }
  if (stray == 0) return {};
  return std::to_string(stray) + " elements outside the " + std::to_string(rows) + "x" + std::to_string(cols) +
         " output were written, e.g. at (row, col)" + first;
}

template <class Gemm>
void run_case(const GemmCase& c) {
  using TA = typename Gemm::ElementA;
  using TC = typename Gemm::ElementC;
  using T = GemmTraits<Gemm>;
  const std::int64_t m = c.m, n = c.n, k = c.k;
  const auto [lda, ldb, ldd] = leading_dims<Gemm>(c);
  const auto oa = T::order(T::kARow), ob = T::order(!T::kBCol), oc = T::order(T::kCRow);
  const std::uint64_t seed = 1000 + 17 * std::uint64_t(m) + 31 * std::uint64_t(n) + std::uint64_t(k);

  // A and B are filled on the device (the same values a host fill gives) and copied back only
  // for the host reference: the large cases would spend seconds in an unoptimised host fill.
  const bool host_reference = m * n * k <= kHostReferenceLimit;
  verify::DeviceBuffer<TA> da(std::size_t(verify::required_elements(m, k, oa, lda)));
  verify::DeviceBuffer<TA> db(std::size_t(verify::required_elements(k, n, ob, ldb)));
  verify::fill_random_device(da.data(), da.size(), seed, verify::Distribution::uniform(-1, 1));
  verify::fill_random_device(db.data(), db.size(), seed + 1, verify::Distribution::uniform(-1, 1));
  TESSEL_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<TA> a = host_reference ? da.download() : std::vector<TA>{};
  const std::vector<TA> b = host_reference ? db.download() : std::vector<TA>{};

  // D: the matrix, its padding, and a guard of 256 rows (row-major) or columns behind it, all
  // poisoned. In place, the matrix part starts out as C.
  const std::int64_t d_view_elems = verify::required_elements(m, n, oc, ldd);
  std::vector<TC> d(std::size_t(d_view_elems + 256 * ldd));
  verify::poison(d.data(), d.size());
  std::vector<TC> c_host;
  if (c.source != Source::kNone) {
    c_host.resize(std::size_t(d_view_elems));
    verify::fill_random(c_host.data(), c_host.size(), seed + 2, verify::Distribution::uniform(-1, 1));
  }
  const auto d_view_host = verify::make_view(d.data(), m, n, oc, ldd);
  const auto c_view_host = verify::make_view<const TC>(c_host.data(), m, n, oc, ldd);
  if (c.source == Source::kInPlace) {
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) d_view_host(i, j) = c_view_host(i, j);
  }

  verify::DeviceBuffer<TC> dd(d);
  verify::DeviceBuffer<TC> dc;
  if (c.source == Source::kSeparate) dc = verify::DeviceBuffer<TC>(c_host);
  TC const* c_ptr = c.source == Source::kNone ? nullptr : c.source == Source::kInPlace ? dd.data() : dc.data();

  typename Gemm::Arguments args{{c.m, c.n, c.k},     {da.data(), lda}, {db.data(), ldb}, {c_ptr, ldd},
                                {dd.data(), ldd}, {c.alpha, c.beta}, 1};
  const StatusInfo admitted = Gemm::can_implement(args);
  if (!alignment_admits<Gemm>(c)) {
    // Refused, with the sentence that says what to pad.
    EXPECT_EQ(admitted.status, Status::kErrorMisalignedOperand) << admitted.what();
    EXPECT_NE(admitted.message.find("not a multiple of the 8 elements (16 bytes) the vector loads need"),
              std::string::npos)
        << admitted.what();
    return;
  }
  ASSERT_TRUE(admitted.ok()) << Gemm::name() << ": " << admitted.what();

  Gemm gemm;
  const StatusInfo init = gemm.initialize(args);
  ASSERT_TRUE(init.ok()) << init.what();
  const StatusInfo ran = gemm.run();
  ASSERT_TRUE(ran.ok()) << ran.what();
  TESSEL_CUDA_CHECK(cudaDeviceSynchronize());
  TESSEL_CUDA_CHECK(cudaGetLastError());

  const std::vector<TC> d_out = dd.download();
  const std::string stray = stray_writes(d_out, m, n, T::kCRow, ldd);
  EXPECT_TRUE(stray.empty()) << Gemm::name() << ": " << stray;
  if (c.source == Source::kSeparate) {
    const std::vector<TC> c_after = dc.download();
    EXPECT_EQ(std::memcmp(c_after.data(), c_host.data(), c_host.size() * sizeof(TC)), 0)
        << Gemm::name() << ": C was modified";
  }

  const verify::Tolerance tol = verify::make_tolerance<float, TC>();
  verify::CompareReport report;
  if (host_reference) {
    const auto ref = verify::host_reference_gemm<TA, TA, TC>(
        c.alpha, verify::make_view<const TA>(a.data(), m, k, oa, lda), verify::make_view<const TA>(b.data(), k, n, ob, ldb),
        c.beta, c_view_host);
    report = verify::compare(verify::make_view<const TC>(d_out.data(), m, n, oc, ldd), ref, tol);
  } else {
    // The reference reads C from its own copy: in place, D now holds the result.
    verify::DeviceBuffer<TC> c_ref;
    if (c.source != Source::kNone) c_ref = verify::DeviceBuffer<TC>(c_host);
    const auto ref = verify::device_reference_gemm<TA, TA, TC>(
        c.alpha, verify::make_view<const TA>(da.data(), m, k, oa, lda), verify::make_view<const TA>(db.data(), k, n, ob, ldb),
        c.beta, verify::make_view<const TC>(c_ref.data(), m, n, oc, ldd));
    report = verify::device_compare(verify::make_view<const TC>(dd.data(), m, n, oc, ldd), ref, tol);
  }
  EXPECT_TRUE(report.passed()) << Gemm::name() << " on " << c.name << "\n" << report.details();
  EXPECT_EQ(report.checked, m * n);
}

}  // namespace tessel::test
