// The tensor-parallel schedules (tessel/distributed/tp_plan.hpp), run for every rank of simulated
// worlds on the host: exchanges pair up across ranks, every GEMM waits for the exchange that
// delivers its rows (or feeds the one that sends them), and the result equals the unsplit GEMM,
// for ragged token counts (zeros included), every world size up to 8 and several chunk counts.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "tessel/distributed/tp_plan.hpp"

namespace {

using namespace tessel::distributed;
using Matrix = std::vector<double>;  // row-major

// rows x cols of small integers: every sum below is exact in double.
Matrix random_matrix(std::mt19937& rng, std::int64_t rows, std::int64_t cols) {
  std::uniform_int_distribution<int> d(-3, 3);
  Matrix m(std::size_t(rows * cols));
  for (auto& v : m) v = d(rng);
  return m;
}

// out[rows] = a[rows] @ b, a: ? x k, b: k x n.
void gemm_rows(Matrix const& a, Matrix const& b, Matrix& out, RowRange rows, std::int64_t k, std::int64_t n) {
  for (std::int64_t i = rows.begin; i < rows.end(); ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (std::int64_t q = 0; q < k; ++q) s += a[std::size_t(i * k + q)] * b[std::size_t(q * n + j)];
      out[std::size_t(i * n + j)] = s;
    }
}

std::vector<TpPlan> make_plans(TpKind kind, std::vector<std::int64_t> const& rows, int chunks) {
  std::vector<TpPlan> p;
  for (int r = 0; r < int(rows.size()); ++r) {
    EXPECT_TRUE(check_tp_arguments(int(rows.size()), r, rows, chunks).ok());
    p.push_back(make_tp_plan(kind, int(rows.size()), r, rows, chunks));
  }
  return p;
}

// Exchange i of every rank pairs with exchange i of its peers, sizes equal.
void expect_exchanges_pair(std::vector<TpPlan> const& p) {
  for (auto const& mine : p) {
    for (std::size_t i = 0; i < mine.exchanges.size(); ++i) {
      TpExchange const& e = mine.exchanges[i];
      ASSERT_LT(i, p[std::size_t(e.send_to)].exchanges.size());
      TpExchange const& peer = p[std::size_t(e.send_to)].exchanges[i];
      EXPECT_EQ(peer.recv_from, mine.rank) << "exchange " << i << " of rank " << mine.rank;
      EXPECT_EQ(peer.recv_rows.count, e.send_rows.count) << "exchange " << i << " of rank " << mine.rank;
      EXPECT_NE(e.send_to, mine.rank);
      EXPECT_NE(e.recv_from, mine.rank);
    }
  }
}

// Every rank's plan of one simulated group (their exchanges checked to pair up), and its sizes.
struct Group {
  std::vector<TpPlan> plans;
  int world;
  std::int64_t m;  // the group's token count
  std::size_t ranks;
  Group(TpKind kind, std::vector<std::int64_t> const& rows, int chunks)
      : plans(make_plans(kind, rows, chunks)), world(int(rows.size())), m(plans[0].total_rows()), ranks(rows.size()) {
    expect_exchanges_pair(plans);
  }
};

std::string describe(char const* what, std::vector<std::int64_t> const& rows, int chunks, unsigned seed) {
  return std::string(what) + ", world " + std::to_string(rows.size()) + ", chunks " + std::to_string(chunks) + ", seed " +
         std::to_string(seed);
}

// AllGather + GEMM on every rank; D of each rank must equal gather(X) @ W_r.
void check_all_gather(std::vector<std::int64_t> const& rows, int chunks, unsigned seed) {
  SCOPED_TRACE(describe("all-gather", rows, chunks, seed));
  std::mt19937 rng(seed);
  constexpr std::int64_t K = 5, N = 3;
  auto const& [p, world, M, ranks] = Group(TpKind::kAllGatherGemm, rows, chunks);
  Matrix const x = random_matrix(rng, M, K);  // the full activations; rank w owns its rows
  std::vector<Matrix> w(ranks), gathered(ranks, Matrix(std::size_t(M * K), 0.0));
  std::vector<std::vector<int>> arrived(ranks, std::vector<int>(std::size_t(M), -2));  // -2: not here
  for (int r = 0; r < world; ++r) {
    w[std::size_t(r)] = random_matrix(rng, K, N);
    for (std::int64_t i = p[0].offset(r); i < p[0].offset(r + 1); ++i) {
      std::copy_n(x.begin() + i * K, K, gathered[std::size_t(r)].begin() + i * K);
      arrived[std::size_t(r)][std::size_t(i)] = -1;  // its own rows: there from the start
    }
  }
  // Deliver the exchanges in order (they are independent, so any order the network picks is one
  // of these as far as a GEMM that waits for exchange i is concerned).
  for (std::size_t i = 0; i < p[0].exchanges.size(); ++i) {
    for (int r = 0; r < world; ++r) {
      TpExchange const& e = p[std::size_t(r)].exchanges[i];
      TpExchange const& from = p[std::size_t(e.recv_from)].exchanges[i];
      EXPECT_EQ(from.send_rows, e.recv_rows) << "rank " << r << " receives other rows than its peer sends";
      for (std::int64_t row = e.recv_rows.begin; row < e.recv_rows.end(); ++row) {
        EXPECT_EQ(arrived[std::size_t(r)][std::size_t(row)], -2) << "row " << row << " reaches rank " << r << " twice";
        arrived[std::size_t(r)][std::size_t(row)] = int(i);
        std::copy_n(gathered[std::size_t(e.recv_from)].begin() + row * K, K, gathered[std::size_t(r)].begin() + row * K);
      }
    }
  }
  Matrix want(std::size_t(M * N));
  for (int r = 0; r < world; ++r) {
    auto const& plan = p[std::size_t(r)];
    ASSERT_FALSE(plan.gemms.empty());
    EXPECT_EQ(plan.gemms.front().rows, (RowRange{plan.offset(r), rows[std::size_t(r)]})) << "the own rows go first";
    Matrix d(std::size_t(M * N), 1e300);  // poisoned
    std::vector<int> computed(std::size_t(M), 0);
    for (TpGemm const& g : plan.gemms) {
      EXPECT_EQ(g.feeds_exchange, -1);
      for (std::int64_t row = g.rows.begin; row < g.rows.end(); ++row) {
        int const when = arrived[std::size_t(r)][std::size_t(row)];
        EXPECT_NE(when, -2) << "rank " << r << " multiplies row " << row << ", which never reaches it";
        EXPECT_LE(when, g.waits_for_exchange) << "rank " << r << " multiplies row " << row << " before it arrives";
        ++computed[std::size_t(row)];
      }
      gemm_rows(gathered[std::size_t(r)], w[std::size_t(r)], d, g.rows, K, N);
    }
    for (std::int64_t row = 0; row < M; ++row) EXPECT_EQ(computed[std::size_t(row)], 1) << "row " << row << " of rank " << r;
    gemm_rows(x, w[std::size_t(r)], want, {0, M}, K, N);
    EXPECT_EQ(d, want) << "rank " << r;
    EXPECT_EQ(gathered[std::size_t(r)], x) << "rank " << r << "'s gathered activations";
  }
}

// GEMM + ReduceScatter on every rank; rank w's rows of the sum over ranks of X_r @ W_r.
void check_reduce_scatter(std::vector<std::int64_t> const& rows, int chunks, unsigned seed) {
  SCOPED_TRACE(describe("reduce-scatter", rows, chunks, seed));
  std::mt19937 rng(seed);
  constexpr std::int64_t K = 4, N = 3;
  auto const& [p, world, M, ranks] = Group(TpKind::kGemmReduceScatter, rows, chunks);
  std::vector<Matrix> x(ranks), w(ranks), partial(ranks);
  Matrix want(std::size_t(M * N), 0.0), term(std::size_t(M * N));
  for (int r = 0; r < world; ++r) {
    x[std::size_t(r)] = random_matrix(rng, M, K);
    w[std::size_t(r)] = random_matrix(rng, K, N);
    gemm_rows(x[std::size_t(r)], w[std::size_t(r)], term, {0, M}, K, N);
    for (std::size_t i = 0; i < want.size(); ++i) want[i] += term[i];
  }
  // Each rank's GEMMs: partials of other ranks' rows into its send buffer, its own last.
  std::vector<std::vector<int>> written_by(ranks, std::vector<int>(std::size_t(M), -1));
  for (int r = 0; r < world; ++r) {
    auto const& plan = p[std::size_t(r)];
    partial[std::size_t(r)].assign(std::size_t(M * N), 1e300);
    for (std::size_t gi = 0; gi < plan.gemms.size(); ++gi) {
      TpGemm const& g = plan.gemms[gi];
      EXPECT_EQ(g.waits_for_exchange, -1);
      if (g.feeds_exchange >= 0) {
        EXPECT_EQ(plan.exchanges[std::size_t(g.feeds_exchange)].send_rows, g.rows);
        EXPECT_EQ(plan.exchanges[std::size_t(g.feeds_exchange)].waits_for_gemm, int(gi));
      } else {
        EXPECT_EQ(gi, plan.gemms.size() - 1) << "the own rows go last";
        EXPECT_EQ(g.rows, (RowRange{plan.offset(r), rows[std::size_t(r)]}));
      }
      for (std::int64_t row = g.rows.begin; row < g.rows.end(); ++row) {
        EXPECT_EQ(written_by[std::size_t(r)][std::size_t(row)], -1) << "rank " << r << " computes row " << row << " twice";
        written_by[std::size_t(r)][std::size_t(row)] = int(gi);
      }
      gemm_rows(x[std::size_t(r)], w[std::size_t(r)], partial[std::size_t(r)], g.rows, K, N);
    }
    for (std::int64_t row = 0; row < M; ++row) EXPECT_NE(written_by[std::size_t(r)][std::size_t(row)], -1);
  }
  // Exchanges: rank r adds what it receives to its own partial (the reduction, after the last).
  std::vector<std::vector<int>> contributions(ranks, std::vector<int>(std::size_t(M), 0));
  std::vector<Matrix> out = partial;
  for (std::size_t i = 0; i < p[0].exchanges.size(); ++i) {
    for (int r = 0; r < world; ++r) {
      TpExchange const& e = p[std::size_t(r)].exchanges[i];
      if (e.send_rows.count > 0) {
        ASSERT_GE(e.waits_for_gemm, 0) << "rank " << r << " sends rows no GEMM wrote";
        EXPECT_EQ(p[std::size_t(r)].gemms[std::size_t(e.waits_for_gemm)].rows, e.send_rows);
      }
      TpExchange const& from = p[std::size_t(e.recv_from)].exchanges[i];
      EXPECT_EQ(from.send_rows, e.recv_rows);
      EXPECT_GE(e.recv_rows.begin, p[0].offset(r));
      EXPECT_LE(e.recv_rows.end(), p[0].offset(r + 1)) << "rank " << r << " receives rows it does not keep";
      for (std::int64_t row = e.recv_rows.begin; row < e.recv_rows.end(); ++row) {
        ++contributions[std::size_t(r)][std::size_t(row)];
        for (std::int64_t j = 0; j < N; ++j)
          out[std::size_t(r)][std::size_t(row * N + j)] += partial[std::size_t(e.recv_from)][std::size_t(row * N + j)];
      }
    }
  }
  for (int r = 0; r < world; ++r)
    for (std::int64_t row = p[0].offset(r); row < p[0].offset(r + 1); ++row) {
      EXPECT_EQ(contributions[std::size_t(r)][std::size_t(row)], world - 1) << "row " << row << " of rank " << r;
      for (std::int64_t j = 0; j < N; ++j)
        EXPECT_EQ(out[std::size_t(r)][std::size_t(row * N + j)], want[std::size_t(row * N + j)]) << "rank " << r << " row " << row;
    }
}

TEST(TpPlan, HeaderExample) {
  TpPlan const p = make_tp_plan(TpKind::kAllGatherGemm, 2, 1, {3, 5}, 2);
  ASSERT_EQ(p.exchanges.size(), 2u);
  EXPECT_EQ(p.exchanges[0].send_to, 0);
  EXPECT_EQ(p.exchanges[0].send_rows, (RowRange{3, 3}));
  EXPECT_EQ(p.exchanges[0].recv_rows, (RowRange{0, 2}));
  EXPECT_EQ(p.exchanges[1].send_rows, (RowRange{6, 2}));
  EXPECT_EQ(p.exchanges[1].recv_rows, (RowRange{2, 1}));
  ASSERT_EQ(p.gemms.size(), 3u);
  EXPECT_EQ(p.gemms[0].rows, (RowRange{3, 5}));
  EXPECT_EQ(p.gemms[0].waits_for_exchange, -1);
  EXPECT_EQ(p.gemms[1].rows, (RowRange{0, 2}));
  EXPECT_EQ(p.gemms[1].waits_for_exchange, 0);
  EXPECT_EQ(p.gemms[2].rows, (RowRange{2, 1}));
  EXPECT_EQ(p.gemms[2].waits_for_exchange, 1);
}

TEST(TpPlan, AllGatherGemmEqualsTheUnsplitGemm) {
  std::mt19937 rng(1);
  for (int world = 1; world <= 8; ++world)
    for (int chunks : {1, 2, 3, 5}) {
      std::vector<std::int64_t> rows(static_cast<std::size_t>(world));
      for (auto& r : rows) r = std::uniform_int_distribution<int>(0, 9)(rng);  // ragged, zeros included
      check_all_gather(rows, chunks, unsigned(world * 10 + chunks));
    }
  check_all_gather({0, 0, 4}, 2, 7);  // most ranks without tokens
}

TEST(TpPlan, GemmReduceScatterEqualsTheUnsplitGemm) {
  std::mt19937 rng(2);
  for (int world = 1; world <= 8; ++world)
    for (int chunks : {1, 2, 3, 5}) {
      std::vector<std::int64_t> rows(static_cast<std::size_t>(world));
      for (auto& r : rows) r = std::uniform_int_distribution<int>(0, 9)(rng);
      check_reduce_scatter(rows, chunks, unsigned(world * 10 + chunks));
    }
  check_reduce_scatter({0, 7, 0}, 3, 9);
}

TEST(TpPlan, DefaultChunksOverlapWithoutStarvingTheGemm) {
  EXPECT_EQ(default_chunks(1, 8192), 1);
  EXPECT_EQ(default_chunks(2, 8192), 4);  // 4 exchanges of 2048 rows
  EXPECT_EQ(default_chunks(4, 4096), 2);  // 6 exchanges
  EXPECT_EQ(default_chunks(8, 2048), 1);  // 7 exchanges already
  EXPECT_EQ(default_chunks(2, 1024), 2);  // pieces of 512 rows, no smaller
  EXPECT_EQ(default_chunks(2, 700), 1);
  EXPECT_EQ(make_tp_plan(TpKind::kAllGatherGemm, 2, 0, {4096, 4096}).chunks, 4);
}

TEST(TpPlan, RefusesWhatItCannotPlan) {
  auto const msg = [](tessel::StatusInfo const& s) { return s.message; };
  EXPECT_EQ(check_tp_arguments(0, 0, {}, 0).status, tessel::Status::kErrorInvalidProblem);
  EXPECT_NE(msg(check_tp_arguments(2, 2, {1, 1}, 0)).find("rank 2 is outside the group of 2 ranks"), std::string::npos);
  EXPECT_NE(msg(check_tp_arguments(2, 0, {1}, 0)).find("rows_per_rank has 1 entries for 2 ranks"), std::string::npos);
  EXPECT_NE(msg(check_tp_arguments(2, 0, {1, -1}, 0)).find("rows_per_rank[1] is -1"), std::string::npos);
  EXPECT_NE(msg(check_tp_arguments(2, 0, {1, 1}, -1)).find("chunks is -1"), std::string::npos);
  // A chunk count that would make billions of (mostly empty) exchanges is refused, not planned.
  EXPECT_NE(msg(check_tp_arguments(8, 0, std::vector<std::int64_t>(8, 1), 2147483647)).find("exchanges, above the 65536"), std::string::npos);
  EXPECT_TRUE(check_tp_arguments(2, 0, {1, 1}, 65536).ok());
  EXPECT_FALSE(check_tp_arguments(3, 0, {1, 1, 1}, 32769).ok());
  EXPECT_NE(msg(check_tp_arguments(2, 0, {1, std::int64_t(1) << 40}, 0)).find("rows_per_rank[1] is 1099511627776: token counts are 0 to 2^31 - 1"),
            std::string::npos);
}

}  // namespace
