// The front door's decode kernel: the small-N TMA ring (device::GemmSmallN's variant 11) on D^T's
// problem of a bf16 or f16 call of at most 16 tokens, where kernel/small_n_rules.hpp's plan takes
// it, as tessel.gemm runs it from Python.
#include "small_n_ring.hpp"
#include "tessel/gemm/device/gemm_small_n.hpp"
#include "tessel/gemm/dispatch/small_n_ring.hpp"

namespace tessel::gemm::front_door {

namespace {
template <class T>
using Ring = device::GemmSmallN<T, T>;

/// The problem in the ring's form: the weights (the kernel-form B, N x K) as its A, the tokens
/// (the kernel-form A, M x K) as its B, and the M x N row-major D written as the ring's N x M
/// result stored column-major.
template <class T>
typename Ring<T>::Arguments ring_arguments(Sm90Problem const& p) {
  typename Ring<T>::Arguments a{};
  a.problem_size = {p.n, p.m, p.k};
  a.ref_A = {static_cast<T const*>(p.b), p.ldb};
  a.ref_B = {static_cast<T const*>(p.a), p.lda};
  a.ref_D = {static_cast<T*>(p.d), 1};
  a.d_col_stride = p.ldd;
  a.epilogue = {p.alpha, 0.f};
  a.variant = Ring<T>::kTmaVariant;
  return a;
}

template <class T>
StatusInfo run_ring(Sm90Problem const& p, cudaStream_t stream) {
  Ring<T> ring;
  return ring(ring_arguments<T>(p), nullptr, stream);
}
}  // namespace

bool small_n_ring_takes(DataType type, Sm90Problem const& p, bool transposable) {
  if (!transposable || p.d_column_major || !dispatch::small_n_ring_takes(p.m, p.n, p.sm_count)) return false;
  return type == DataType::kF16 ? Ring<half_t>::hopper_variants_available().ok() : Ring<bfloat16_t>::hopper_variants_available().ok();
}

StatusInfo small_n_ring_can_implement(DataType type, Sm90Problem const& p) {
  return type == DataType::kF16 ? Ring<half_t>::can_implement(ring_arguments<half_t>(p))
                                : Ring<bfloat16_t>::can_implement(ring_arguments<bfloat16_t>(p));
}

StatusInfo small_n_ring_run(DataType type, Sm90Problem const& p, cudaStream_t stream) {
  return type == DataType::kF16 ? run_ring<half_t>(p, stream) : run_ring<bfloat16_t>(p, stream);
}

}  // namespace tessel::gemm::front_door
