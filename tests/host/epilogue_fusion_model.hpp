#pragma once
// What the epilogue fusion tests share: random fragments (in-bounds coordinates with an
// accumulator each), random tensors, the comparison against a double-precision model, and a
// helper that runs a fusion's Callbacks over a fragment the way a kernel thread would.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "tessel/epilogue/fusion.hpp"
#include "tessel/numeric.hpp"

namespace fusion_test {

inline constexpr unsigned kSeeds[] = {1u, 7u, 42u, 2024u, 90210u};

struct Coord {
  int row, col, batch;
  float acc;
};

// `count` elements anywhere in an M x N x L output, accumulators uniform in [-range, range].
inline std::vector<Coord> random_fragment(std::mt19937& rng, int m, int n, int l, int count, float range = 8.f) {
  std::uniform_int_distribution<int> row(0, m - 1), col(0, n - 1), batch(0, l - 1);
  std::uniform_real_distribution<float> acc(-range, range);
  std::vector<Coord> out(static_cast<std::size_t>(count));
  for (auto& e : out) e = {row(rng), col(rng), batch(rng), acc(rng)};
  return out;
}

// Values uniform in [-range, range], already rounded to T so the model sees what the node reads.
template <class T>
std::vector<T> random_tensor(std::mt19937& rng, std::size_t size, float range = 4.f) {
  std::uniform_real_distribution<float> dist(-range, range);
  std::vector<T> out(size);
  for (auto& x : out) x = tessel::numeric_cast<T>(dist(rng));
  return out;
}

template <class T>
double as_double(T x) {
  return tessel::to_double(x);
}

// |got - want| within `ulps` units of f32 roundoff of `magnitude` (the sum of the absolute values
// of the terms: cancellation does not make the bound unfairly tight).
inline ::testing::AssertionResult near(double got, double want, double magnitude, double ulps = 4.0) {
  const double bound = ulps * std::ldexp(1.0, -24) * magnitude + 1e-30;
  if (std::isnan(want) ? std::isnan(got) : std::fabs(got - want) <= bound) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << got << ", want " << want << " (bound " << bound << ")";
}

// One thread's epilogue: construct Callbacks, visit the fragment, finish.
template <class F>
std::vector<typename F::ElementOutput> run(typename F::Arguments const& args, std::vector<Coord> const& frag) {
  typename F::Callbacks cb(F::to_params(args));
  std::vector<typename F::ElementOutput> out;
  out.reserve(frag.size());
  for (auto const& e : frag) out.push_back(cb.visit(e.row, e.col, e.batch, e.acc));
  cb.finish();
  return out;
}

}  // namespace fusion_test
