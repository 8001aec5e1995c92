#pragma once
// The front door's kernels, type-erased: one Sm90Op per shipped Hopper tile and element type
// (hopper_tiles.def), each running a GemmUniversalAdapter on a problem already put in the
// kernels' form (A row-major M x K, B as N x K row-major, i.e. column-major K x N, C and D
// row-major). Instantiated in sm90_ops_<type>.cu; front_door.cpp chooses among them.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tessel/gemm/dispatch/heuristic.hpp"
#include "tessel/gemm/front_door.hpp"

namespace tessel::gemm::front_door {

/// A problem in the kernels' form.
struct Sm90Problem {
  int m = 0, n = 0, k = 0;
  void const* a = nullptr;  // M x K, row-major
  std::int64_t lda = 0;
  void const* b = nullptr;  // N x K, row-major
  std::int64_t ldb = 0;
  void const* c = nullptr;  // M x N, row-major (null where beta is 0)
  std::int64_t ldc = 0;
  void* d = nullptr;  // M x N, row-major (column-major where d_column_major)
  std::int64_t ldd = 0;
  bool d_column_major = false;  // D^T's problem of a call (see kernel_form in front_door.cpp)
  float alpha = 1.f, beta = 0.f;
  int device = 0, sm_count = 0;
};

struct Sm90Op {
  dispatch::Candidate candidate;
  std::string (*name)();
  StatusInfo (*can_implement)(Sm90Problem const&);
  std::size_t (*workspace_size)(Sm90Problem const&);
  StatusInfo (*run)(Sm90Problem const&, void* workspace, cudaStream_t);
};

/// A grouped GEMM's kernel (front_door.hpp's grouped_gemm): the cooperative 128 x BN tile on the
/// grouped scheduler, for B K-major (column-major K x N) or N-major; arguments already checked.
struct GroupedOp {
  int bn = 128;
  bool b_k_major = true;
  std::string (*name)();
  StatusInfo (*can_implement)(GroupedGemmArguments const&, int device, int sm_count);
  StatusInfo (*run)(GroupedGemmArguments const&, int device, int sm_count, cudaStream_t);
};
std::vector<GroupedOp> const& grouped_ops(DataType type);
std::vector<GroupedOp> grouped_ops_f16();
std::vector<GroupedOp> grouped_ops_bf16();

/// The shipped tiles of one element type and activation, in hopper_tiles.def's order: every tile
/// for the plain linear combination, the persistent (data-parallel) ones for an activation (the
/// stream-K kernels are shipped plain only, as in the Python registry).
std::vector<Sm90Op> const& sm90_ops(DataType type, Activation act);
std::vector<Sm90Op> sm90_ops_f16(Activation act);
std::vector<Sm90Op> sm90_ops_bf16(Activation act);

/// The cluster twins (hopper_tiles.def's TESSEL_CLUSTER_TWIN) of one element type and activation:
/// what pick runs in place of the heuristic's choice of the same tile where A's or B's rows
/// straddle 32-byte sectors (dispatch::rows_straddle_sectors) and the twin fits the problem
/// (dispatch::twin_fits).
std::vector<Sm90Op> const& sm90_twin_ops(DataType type, Activation act);
std::vector<Sm90Op> sm90_twin_ops_f16(Activation act);
std::vector<Sm90Op> sm90_twin_ops_bf16(Activation act);

}  // namespace tessel::gemm::front_door
