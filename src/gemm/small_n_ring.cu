// The front door's decode kernel: the small-N TMA ring (device::GemmSmallN's variant 11) on D^T's
// problem of a bf16 call of at most 16 tokens, where kernel/small_n_rules.hpp's plan takes it,
// as tessel.gemm runs it from Python.
#include "small_n_ring.hpp"
#include "tessel/gemm/device/gemm_small_n.hpp"
#include "tessel/gemm/dispatch/small_n_ring.hpp"

namespace tessel::gemm::front_door {

namespace {
using Ring = device::GemmSmallN<bfloat16_t>;

/// The problem in the ring's form: the weights (the kernel-form B, N x K) as its A, the tokens
/// (the kernel-form A, M x K) as its B, and the M x N row-major D written as the ring's N x M
/// result stored column-major.
Ring::Arguments ring_arguments(Sm90Problem const& p) {
  Ring::Arguments a{};
  a.problem_size = {p.n, p.m, p.k};
  a.ref_A = {static_cast<bfloat16_t const*>(p.b), p.ldb};
  a.ref_B = {static_cast<bfloat16_t const*>(p.a), p.lda};
  a.ref_D = {static_cast<bfloat16_t*>(p.d), 1};
  a.d_col_stride = p.ldd;
  a.epilogue = {p.alpha, 0.f};
  a.variant = Ring::kTmaVariant;
  return a;
}
}  // namespace

bool small_n_ring_takes(DataType type, Sm90Problem const& p, bool transposable) {
  return type == DataType::kBF16 && transposable && !p.d_column_major && dispatch::small_n_ring_takes(p.m, p.n, p.sm_count) &&
         Ring::hopper_variants_available().ok();
}

StatusInfo small_n_ring_can_implement(Sm90Problem const& p) { return Ring::can_implement(ring_arguments(p)); }

StatusInfo small_n_ring_run(Sm90Problem const& p, cudaStream_t stream) {
  Ring ring;
  return ring(ring_arguments(p), nullptr, stream);
}

}  // namespace tessel::gemm::front_door
