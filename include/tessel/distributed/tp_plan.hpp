#pragma once
// The schedule of one rank's overlapped tensor-parallel GEMM: which rows it exchanges with which
// peer, which rows each GEMM computes, and what each waits for. Host code only, no CUDA and no
// NCCL: the C++ executor (tessel/distributed/tp_gemm.hpp) and Python's tessel.distributed both run
// this plan, and the host tests run it for every rank of a simulated world.
//
// Tokens (rows) are split among the W ranks of a tensor-parallel group: rank w owns
// rows_per_rank[w] of them, rank-major in the full token dimension (rank w's first row is
// offset(w) = rows_per_rank[0] + ... + rows_per_rank[w-1]). Ragged counts, zeros included, are
// allowed; every rank must be given the same list.
//
// AllGather + GEMM (column-parallel linear layer, Megatron's sequence-parallel input):
//   X_w (rows_per_rank[w] x K) on every rank; W_r (K x N_r) this rank's weight shard.
//   D_r = gather(X_0 .. X_{W-1}) @ W_r   (M x N_r, M = the sum of rows_per_rank)
//   Step t = 1 .. W-1 sends this rank's rows to rank r+t and receives rank r-t's (mod W), cut
//   into `chunks` pieces along the rows; the GEMM of each piece waits only for the exchange that
//   delivered it. The GEMM of this rank's own rows runs first, while the first exchange is in
//   flight. Pairwise shifts rather than a ring: no exchange waits for another, so all of them are
//   enqueued at once and the network runs ahead of the GEMMs.
//
// GEMM + ReduceScatter (row-parallel linear layer):
//   X_r (M x K_r) and W_r (K_r x N) on rank r; D_w = sum over r of (X_r @ W_r)[rows of w], kept
//   by rank w.
//   Step t = 1 .. W-1 computes the partial product of rank r+t's rows (its `chunks` pieces) into
//   a send buffer; the exchange of each piece waits only for its GEMM, sends it to rank r+t and
//   receives rank r-t's partial of this rank's rows. The GEMM of this rank's own rows runs last,
//   under the last exchanges, and a reduction adds the W - 1 received partials to it.
//
// Example (AllGather + GEMM, W = 2, rows_per_rank = {3, 5}, chunks = 2, rank 1):
//   exchanges: [0] send rows 3..5 of the gathered buffer to rank 0, receive rows 0..1 from rank 0
//              [1] send rows 6..7 to rank 0,                           receive row 2 from rank 0
//   GEMMs:     rows 3..7 (its own, no wait); rows 0..1 after exchange 0; row 2 after exchange 1.
//
// Exchanges are numbered alike on every rank: exchange i of rank r and exchange i of its peers
// pair up (r's send to p is p's receive from r, of the same size), which is what NCCL needs of
// grouped send/receive calls issued in the same order on every rank.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tessel/status.hpp"

namespace tessel::distributed {

/// Rows [begin, begin + count) of the token dimension.
struct RowRange {
  std::int64_t begin = 0, count = 0;
  std::int64_t end() const { return begin + count; }
  friend bool operator==(RowRange const&, RowRange const&) = default;
};

enum class TpKind { kAllGatherGemm, kGemmReduceScatter };

/// One grouped send/receive with a peer pair. Rows are in the full token dimension (the gathered
/// buffer of AllGather + GEMM; the rows of the partial products of GEMM + ReduceScatter). An
/// empty range is not sent (or received): the peer's plan has the matching empty range.
struct TpExchange {
  int send_to = -1;
  RowRange send_rows;
  int recv_from = -1;
  RowRange recv_rows;
  int waits_for_gemm = -1;  // GEMM + ReduceScatter: the GEMM that wrote send_rows; -1: none
};

/// One GEMM over rows of the token dimension.
struct TpGemm {
  RowRange rows;
  int waits_for_exchange = -1;  // AllGather + GEMM: the exchange that delivered `rows`; -1: none
  // GEMM + ReduceScatter: where the partial goes. -1: the output (this rank's own rows);
  // otherwise the index of the exchange that sends it (its send buffer slot).
  int feeds_exchange = -1;
};

struct TpPlan {
  TpKind kind = TpKind::kAllGatherGemm;
  int world = 1, rank = 0, chunks = 1;
  std::vector<std::int64_t> rows_per_rank;
  std::vector<TpExchange> exchanges;
  std::vector<TpGemm> gemms;  // in the order they are enqueued

  std::int64_t offset(int w) const {
    std::int64_t o = 0;
    for (int v = 0; v < w; ++v) o += rows_per_rank[std::size_t(v)];
    return o;
  }
  std::int64_t total_rows() const { return offset(world); }
  std::int64_t own_rows() const { return rows_per_rank[std::size_t(rank)]; }
};

/// Piece `s` of `chunks` of `rows` rows starting at `begin`: the first rows % chunks pieces have
/// one row more, so that pieces differ by at most one row (and may be empty when rows < chunks).
inline RowRange chunk_of(std::int64_t begin, std::int64_t rows, int chunks, int s) {
  std::int64_t const base = rows / chunks, extra = rows % chunks;
  std::int64_t const start = begin + s * base + std::min<std::int64_t>(s, extra);
  return {start, base + (s < extra ? 1 : 0)};
}

/// The pieces each rank's rows are cut into when the caller leaves it to tessel (chunks = 0):
/// enough exchanges that the GEMMs have something to overlap (at least 4 in all, W - 1 per piece),
/// but no piece under kMinChunkRows rows, below which the GEMM of a piece runs its tiles half
/// empty and loses more than the overlap gains.
inline constexpr std::int64_t kMinChunkRows = 512;
inline int default_chunks(int world, std::int64_t rows_per_rank_max) {
  if (world <= 1) return 1;
  int chunks = (4 + (world - 1) - 1) / (world - 1);
  while (chunks > 1 && rows_per_rank_max / chunks < kMinChunkRows) --chunks;
  return chunks;
}

/// The most tokens one rank may hold (the GEMMs take M in int); with it no sum of counts overflows.
inline constexpr std::int64_t kMaxRows = 2147483647;

/// The most exchanges a plan makes ((world - 1) * chunks): each is an NCCL group and a CUDA event,
/// and the plan's indices are int; far past any useful cut (pieces below kMinChunkRows rows).
inline constexpr std::int64_t kMaxExchanges = std::int64_t(1) << 16;

/// Whether a plan can be made for these arguments, and if not, why.
inline StatusInfo check_tp_arguments(int world, int rank, std::vector<std::int64_t> const& rows_per_rank, int chunks) {
  if (world < 1) return {Status::kErrorInvalidProblem, "world size is " + std::to_string(world) + ": a group has at least one rank"};
  if (rank < 0 || rank >= world)
    return {Status::kErrorInvalidProblem,
            "rank " + std::to_string(rank) + " is outside the group of " + std::to_string(world) + " ranks (0 .. world - 1)"};
  if (rows_per_rank.size() != std::size_t(world))
    return {Status::kErrorInvalidProblem, "rows_per_rank has " + std::to_string(rows_per_rank.size()) + " entries for " +
                                              std::to_string(world) + " ranks: give every rank's token count"};
  for (std::size_t w = 0; w < rows_per_rank.size(); ++w)
    if (rows_per_rank[w] < 0 || rows_per_rank[w] > kMaxRows)
      return {Status::kErrorInvalidProblem, "rows_per_rank[" + std::to_string(w) + "] is " + std::to_string(rows_per_rank[w]) +
                                                ": token counts are 0 to 2^31 - 1"};
  if (chunks < 0)
    return {Status::kErrorInvalidProblem, "chunks is " + std::to_string(chunks) + ": pass 1 or more, or 0 to let tessel choose"};
  if (std::int64_t(world - 1) * chunks > kMaxExchanges)
    return {Status::kErrorInvalidProblem, "chunks is " + std::to_string(chunks) + ": with " + std::to_string(world) + " ranks that is " +
                                              std::to_string(std::int64_t(world - 1) * chunks) + " exchanges, above the " +
                                              std::to_string(kMaxExchanges) + " a plan makes; pass fewer, or 0 to let tessel choose"};
  return {};
}

/// The plan of rank `rank` (see the header comment). @pre check_tp_arguments(...) is ok.
inline TpPlan make_tp_plan(TpKind kind, int world, int rank, std::vector<std::int64_t> rows_per_rank, int chunks = 0) {
  TpPlan p;
  p.kind = kind;
  p.world = world;
  p.rank = rank;
  p.rows_per_rank = std::move(rows_per_rank);
  p.chunks = chunks > 0 ? chunks : default_chunks(world, *std::max_element(p.rows_per_rank.begin(), p.rows_per_rank.end()));
  auto const rows_of = [&](int w) { return RowRange{p.offset(w), p.rows_per_rank[std::size_t(w)]}; };
  if (kind == TpKind::kAllGatherGemm) {
    p.gemms.push_back({rows_of(rank), -1, -1});
    for (int t = 1; t < world; ++t) {
      int const to = (rank + t) % world, from = (rank - t + world) % world;
      for (int s = 0; s < p.chunks; ++s) {
        RowRange const own = rows_of(rank), peer = rows_of(from);
        p.exchanges.push_back({to, chunk_of(own.begin, own.count, p.chunks, s), from,
                               chunk_of(peer.begin, peer.count, p.chunks, s), -1});
        RowRange const arrived = p.exchanges.back().recv_rows;
        if (arrived.count > 0) p.gemms.push_back({arrived, int(p.exchanges.size()) - 1, -1});
      }
    }
  } else {
    for (int t = 1; t < world; ++t) {
      int const to = (rank + t) % world, from = (rank - t + world) % world;
      for (int s = 0; s < p.chunks; ++s) {
        RowRange const theirs = rows_of(to), own = rows_of(rank);
        RowRange const send = chunk_of(theirs.begin, theirs.count, p.chunks, s);
        int const exchange = int(p.exchanges.size());
        int gemm = -1;
        if (send.count > 0) {
          gemm = int(p.gemms.size());
          p.gemms.push_back({send, -1, exchange});
        }
        p.exchanges.push_back({to, send, from, chunk_of(own.begin, own.count, p.chunks, s), gemm});
      }
    }
    if (p.own_rows() > 0) p.gemms.push_back({rows_of(rank), -1, -1});
  }
  return p;
}

}  // namespace tessel::distributed
