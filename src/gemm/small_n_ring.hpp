#pragma once
// The front door's decode kernel (small_n_ring.cu): the small-N TMA ring on D^T's problem.
#include <cuda_runtime_api.h>

#include <string>

#include "sm90_ops.hpp"

namespace tessel::gemm::front_door {

/// Whether a kernel-form problem (D row-major M x N, A the tokens, B the weights) runs on the
/// ring: bf16 or f16, no C, and the shape dispatch::small_n_ring_takes (dispatch/small_n_ring.hpp)
/// takes.
bool small_n_ring_takes(DataType type, Sm90Problem const& p, bool transposable);
StatusInfo small_n_ring_can_implement(DataType type, Sm90Problem const& p);
StatusInfo small_n_ring_run(DataType type, Sm90Problem const& p, cudaStream_t stream);

}  // namespace tessel::gemm::front_door
