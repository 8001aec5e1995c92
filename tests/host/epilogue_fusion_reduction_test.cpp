// Side-effect nodes: amax (exact), scalar / row / column reductions with sum and max over random
// fragments split among several "threads", and the auxiliary store. Each passes its child's value
// on unchanged.

#include <algorithm>
#include <limits>

#include "epilogue_fusion_model.hpp"

namespace {

using namespace tessel;
using namespace tessel::epilogue::fusion;
using namespace fusion_test;

constexpr int kM = 10, kN = 7, kL = 3;

// The fragment split among `threads` Callbacks, each finishing on its own, as kernel threads do.
template <class F>
std::vector<typename F::ElementOutput> run_threads(typename F::Arguments const& args, std::vector<Coord> const& frag, int threads) {
  std::vector<typename F::ElementOutput> out(frag.size());
  const auto params = F::to_params(args);
  for (int t = 0; t < threads; ++t) {
    typename F::Callbacks cb(params);
    for (std::size_t i = static_cast<std::size_t>(t); i < frag.size(); i += static_cast<std::size_t>(threads)) {
      out[i] = cb.visit(frag[i].row, frag[i].col, frag[i].batch, frag[i].acc);
    }
    cb.finish();
  }
  return out;
}

TEST(FusionReduction, AmaxIsExactAndPassesTheValueOn) {
  for (unsigned seed : kSeeds) {
    std::mt19937 rng(seed);
    const auto frag = random_fragment(rng, kM, kN, kL, 500, 100.f);
    float amax = 0.f;
    const auto got = run_threads<Amax<Activation<GeluErf, Accumulator>>>({.child = {}, .ptr = &amax}, frag, 5);
    float want = 0.f;
    for (std::size_t i = 0; i < frag.size(); ++i) {
      const float y = GeluErf{}(frag[i].acc);
      EXPECT_EQ(got[i], y);
      want = std::max(want, std::fabs(y));
    }
    EXPECT_EQ(amax, want) << "seed " << seed;
  }
}

TEST(FusionReduction, AmaxKeepsALargerValueAlreadyInMemoryAndIgnoresNaN) {
  float amax = 50.f;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  (void)run<Amax<Accumulator>>({.child = {}, .ptr = &amax}, {{0, 0, 0, -3.f}, {0, 1, 0, nan}, {1, 0, 0, 2.f}});
  EXPECT_EQ(amax, 50.f);
  amax = 0.f;
  (void)run<Amax<Accumulator>>({.child = {}, .ptr = &amax}, {{0, 0, 0, -3.f}, {0, 1, 0, nan}, {1, 0, 0, 0.5f}});
  EXPECT_EQ(amax, 3.f);  // the header's worked example
}

TEST(FusionReduction, ScalarSumAndMax) {
  for (unsigned seed : kSeeds) {
    std::mt19937 rng(seed);
    const auto frag = random_fragment(rng, kM, kN, kL, 400);
    float sum = 0.f, max = -std::numeric_limits<float>::infinity();
    (void)run_threads<ScalarReduction<ReduceSum, Accumulator>>({.child = {}, .ptr = &sum}, frag, 4);
    (void)run_threads<ScalarReduction<ReduceMax, Accumulator>>({.child = {}, .ptr = &max}, frag, 4);
    double want_sum = 0, magnitude = 0;
    float want_max = -std::numeric_limits<float>::infinity();
    for (auto const& e : frag) {
      want_sum += e.acc;
      magnitude += std::fabs(e.acc);
      want_max = std::max(want_max, e.acc);
    }
    EXPECT_TRUE(near(sum, want_sum, magnitude, 2.0 * static_cast<double>(frag.size())));
    EXPECT_EQ(max, want_max);
  }
}

// Row (per = 0) or column (per = 1) results of the double model, batch_stride apart.
std::vector<double> model_reduce(std::vector<Coord> const& frag, bool per_row, std::int64_t bs, std::size_t size, bool max,
                                 std::vector<double>* magnitude) {
  std::vector<double> out(size, max ? -INFINITY : 0.0);
  magnitude->assign(size, 0.0);
  for (auto const& e : frag) {
    const auto k = static_cast<std::size_t>(e.batch * bs + (per_row ? e.row : e.col));
    out[k] = max ? std::max(out[k], double(e.acc)) : out[k] + e.acc;
    (*magnitude)[k] += std::fabs(e.acc);
  }
  return out;
}

template <class Node, bool kPerRow, bool kMax>
void check_vector_reduction(std::int64_t bs) {
  for (unsigned seed : kSeeds) {
    std::mt19937 rng(seed);
    const auto frag = random_fragment(rng, kM, kN, kL, 600);
    const std::size_t size = static_cast<std::size_t>(bs == 0 ? (kPerRow ? kM : kN) : bs * kL);
    std::vector<float> out(size, kMax ? -std::numeric_limits<float>::infinity() : 0.f);
    const auto got = run_threads<Node>({.child = {}, .ptr = out.data(), .batch_stride = bs}, frag, 3);
    for (std::size_t i = 0; i < frag.size(); ++i) EXPECT_EQ(got[i], frag[i].acc);
    std::vector<double> mag;
    const auto want = model_reduce(frag, kPerRow, bs, size, kMax, &mag);
    for (std::size_t k = 0; k < size; ++k) {
      if (kMax) {
        EXPECT_EQ(double(out[k]), want[k]) << "output " << k << ", seed " << seed;
      } else {
        EXPECT_TRUE(near(out[k], want[k], mag[k], 64)) << "output " << k << ", seed " << seed;
      }
    }
  }
}

TEST(FusionReduction, RowSumAndMaxWithBatchStride) {
  check_vector_reduction<RowReduction<ReduceSum, Accumulator>, true, false>(kM + 3);
  check_vector_reduction<RowReduction<ReduceMax, Accumulator>, true, true>(kM + 3);
}

TEST(FusionReduction, ColumnSumAndMaxWithBatchStride) {
  check_vector_reduction<ColumnReduction<ReduceSum, Accumulator>, false, false>(kN + 2);
  check_vector_reduction<ColumnReduction<ReduceMax, Accumulator>, false, true>(kN + 2);
}

TEST(FusionReduction, BatchStrideZeroReducesOverBatchesToo) {
  check_vector_reduction<RowReduction<ReduceSum, Accumulator>, true, false>(0);
  check_vector_reduction<ColumnReduction<ReduceMax, Accumulator>, false, true>(0);
}

TEST(FusionReduction, WorkedExampleOfTheHeader) {
  std::vector<Coord> frag;
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 3; ++c) frag.push_back({r, c, 0, float(3 * r + c + 1)});
  std::vector<float> rows(2, 0.f), cols(3, -INFINITY);
  (void)run<RowReduction<ReduceSum, Accumulator>>({.child = {}, .ptr = rows.data()}, frag);
  (void)run<ColumnReduction<ReduceMax, Accumulator>>({.child = {}, .ptr = cols.data()}, frag);
  EXPECT_EQ(rows, (std::vector<float>{6, 15}));
  EXPECT_EQ(cols, (std::vector<float>{4, 5, 6}));
}

TEST(FusionAuxStore, StoresThePreActivationAndPassesItOn) {
  using Tree = Activation<ReLU, AuxStore<half_t, Add<Accumulator, RowBroadcast<float>>>>;
  const std::int64_t ld = kN + 1, bs = kM * ld;
  for (unsigned seed : kSeeds) {
    std::mt19937 rng(seed);
    const auto bias = random_tensor<float>(rng, kN);
    std::vector<half_t> aux(static_cast<std::size_t>(bs * kL), half_t(-999.f));
    // Distinct coordinates, so each stored element has one writer to compare with.
    std::vector<Coord> frag;
    for (int b = 0; b < kL; ++b)
      for (int r = 0; r < kM; ++r)
        for (int c = 0; c < kN; ++c)
          if ((r + c + b) % 3 != 0) frag.push_back({r, c, b, std::uniform_real_distribution<float>(-4, 4)(rng)});
    const Tree::Arguments args{
        .first = {.child = {.first = {}, .second = {.ptr = bias.data()}, .fn = {}}, .ptr = aux.data(), .ld = ld, .batch_stride = bs},
        .fn = {}};
    const auto got = run<Tree>(args, frag);
    std::vector<bool> written(aux.size(), false);
    for (std::size_t i = 0; i < frag.size(); ++i) {
      const auto& e = frag[i];
      const float z = e.acc + bias[static_cast<std::size_t>(e.col)];
      const auto k = static_cast<std::size_t>(e.batch * bs + e.row * ld + e.col);
      EXPECT_EQ(float(aux[k]), float(half_t(z)));
      EXPECT_EQ(got[i], z < 0 ? 0.f : z);
      written[k] = true;
    }
    for (std::size_t k = 0; k < aux.size(); ++k) {
      if (!written[k]) {
        EXPECT_EQ(float(aux[k]), -999.f) << "element " << k << " written without a visit";
      }
    }
  }
}

}  // namespace
