#pragma once
// Shared by the grouped GEMM GPU tests (Hopper's GroupedScheduler, the Sm80 grouped walk): one
// grouped problem, bf16, with random operands, a poisoned D and optionally a bias row per group;
// its check against a double reference, every row of no group still poisoned.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tessel/gemm/kernel/grouped.hpp"
#include "tessel/numeric.hpp"
#include "tessel/verify/device_buffer.cuh"
#include "tessel/verify/poison.hpp"
#include "tessel/verify/random.hpp"

namespace tessel::test {

/// n random values drawn from `dist` and rounded to T; `as_float` receives what T holds, for a
/// host reference.
template <class T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed, verify::Distribution dist, std::vector<float>& as_float) {
  as_float.resize(n);
  verify::fill_random(as_float.data(), n, seed, dist);
  std::vector<T> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = numeric_cast<T>(as_float[i]);
    as_float[i] = float(out[i]);
  }
  return out;
}

/// One grouped problem: A (rows, K) or (G, rows, K), B (G, N, K) K-major or (G, K, N) N-major, D
/// like A with N columns; `group_m` as the kernel reads it.
struct GroupedProblem {
  gemm::kernel::GroupedLayout layout;
  int rows, n, k, groups;
  bool b_k_major;
  std::vector<int> group_m;
  std::vector<float> a, b;  // what the bf16 operands hold
  std::vector<float> bias;  // (G, N) where given: D_g = A_g B_g + bias[g]
  std::vector<bfloat16_t> ha, hb;
  verify::DeviceBuffer<bfloat16_t> da, db, dd, dbias;
  verify::DeviceBuffer<int> dg;

  GroupedProblem(gemm::kernel::GroupedLayout l, int rows_, int n_, int k_, std::vector<int> gm, bool b_k_major_, std::uint64_t seed)
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
  bool masked() const { return layout == gemm::kernel::GroupedLayout::kMasked; }
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

/// The cases both grouped kernels run. Contiguous: sizes 0, 1, 200, 130, 77 (ends off the
/// 128-row tile, an empty group first), then 11 rows of no group, N ragged against the tile.
/// Masked: blocks of 160 rows with counts 0, 160, 5, 129 and 500 (past the block: 160).
inline GroupedProblem ragged_contiguous(std::uint64_t seed) {
  return GroupedProblem(gemm::kernel::GroupedLayout::kContiguous, 419, 200, 320, {0, 1, 201, 331, 408}, /*b_k_major=*/true, seed);
}
inline GroupedProblem masked_counts(std::uint64_t seed) {
  return GroupedProblem(gemm::kernel::GroupedLayout::kMasked, 160, 136, 256, {0, 160, 5, 129, 500}, /*b_k_major=*/true, seed);
}
inline GroupedProblem n_major_contiguous(std::uint64_t seed) {
  return GroupedProblem(gemm::kernel::GroupedLayout::kContiguous, 384, 256, 192, {64, 64, 300, 384}, /*b_k_major=*/false, seed);
}

/// The bias cases both grouped kernels run: contiguous and masked, one bias row per group.
/// `run(problem, what)` runs one kernel on the problem and checks it.
template <class Run>
void run_bias_per_group_cases(Run&& run) {
  GroupedProblem c = ragged_contiguous(23);
  c.add_bias(29);
  run(c, "contiguous, bias per group");
  GroupedProblem m = masked_counts(31);
  m.add_bias(37);
  run(m, "masked, bias per group");
}

/// Every group's rows against the double reference (bf16 output: 2^-8 relative plus an absolute
/// budget for K terms of size ~1), every other row still poisoned. The first mismatches printed.
inline void check(GroupedProblem const& p, std::string const& what) {
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

}  // namespace tessel::test
