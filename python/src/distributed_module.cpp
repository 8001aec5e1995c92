// tessel._core's view of the tensor-parallel schedules (include/tessel/distributed/tp_plan.hpp),
// which python/tessel/distributed.py runs on torch.distributed: the plan C++ runs on NCCL, so
// both sides exchange the same pieces in the same order.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.hpp"
#include "tessel/distributed/tp_plan.hpp"

namespace tessel::py {

namespace {

nb::dict tp_plan(std::string const& kind, int world, int rank, std::vector<std::int64_t> const& rows_per_rank, int chunks) {
  distributed::TpKind k;
  if (kind == "all_gather_gemm")
    k = distributed::TpKind::kAllGatherGemm;
  else if (kind == "gemm_reduce_scatter")
    k = distributed::TpKind::kGemmReduceScatter;
  else
    throw nb::value_error(("tp_plan: kind is '" + kind + "'; pass 'all_gather_gemm' or 'gemm_reduce_scatter'").c_str());
  if (auto s = distributed::check_tp_arguments(world, rank, rows_per_rank, chunks); !s.ok()) throw nb::value_error(s.message.c_str());
  distributed::TpPlan const p = distributed::make_tp_plan(k, world, rank, rows_per_rank, chunks);
  nb::list exchanges, gemms;
  for (auto const& e : p.exchanges)
    exchanges.append(nb::make_tuple(e.send_to, e.send_rows.begin, e.send_rows.count, e.recv_from, e.recv_rows.begin,
                                    e.recv_rows.count, e.waits_for_gemm));
  for (auto const& g : p.gemms) gemms.append(nb::make_tuple(g.rows.begin, g.rows.count, g.waits_for_exchange, g.feeds_exchange));
  nb::dict d;
  d["chunks"] = p.chunks;
  d["offset"] = p.offset(rank);
  d["total_rows"] = p.total_rows();
  d["exchanges"] = exchanges;
  d["gemms"] = gemms;
  return d;
}

}  // namespace

void bind_distributed(nb::module_& m) {
  m.def("tp_plan", &tp_plan, nb::arg("kind"), nb::arg("world"), nb::arg("rank"), nb::arg("rows_per_rank"), nb::arg("chunks") = 0,
        R"(One rank's schedule of an overlapped tensor-parallel GEMM (tessel/distributed/tp_plan.hpp).

Returns {'chunks', 'offset', 'total_rows', 'exchanges', 'gemms'}: exchanges as
(send_to, send_begin, send_count, recv_from, recv_begin, recv_count, waits_for_gemm) and GEMMs as
(begin, count, waits_for_exchange, feeds_exchange), rows in the full token dimension, in the
order they are issued. ValueError names a bad argument.)");
}

}  // namespace tessel::py
