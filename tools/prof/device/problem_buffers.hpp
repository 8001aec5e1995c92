#pragma once
// The operands of one problem, several times over: timed runs rotate through buffer sets whose
// total exceeds the L2 cache, so that every run reads A and B from device memory as a real
// workload does, not from the L2 the previous run filled (the H200's L2 holds 60 MB, more than
// all of a 4096x16x4096 problem).
//
// Each set holds A, B, C (when beta reads it) and D, filled with random values from distinct
// seeds. Leading dimensions are tight: the contiguous extent of each operand. D has room for the
// cuBLAS column's output too (core/counterpart.hpp: bf16 where the kernels write e4m3).
//
// For kernels with the fused FP8 epilogue (`epilogue_inputs`) the buffers also hold, once for all
// sets, the bias (M bf16 values, uniform in [-s, s) with s = sqrt(K)/3, the standard deviation of
// an accumulator of K products of values uniform in [-1, 1), so that it moves values by about as
// much as the product does), scale_d = 448 / (4 s) (a four-s value of the activation lands on
// e4m3's largest, 448, and only the tail beyond saturates) and amax.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "device/cuda_check.hpp"
#include "device/gpu_ops.hpp"
#include "kernels/operation.hpp"

namespace tessel::prof {

struct BufferPlan {
  std::size_t set_bytes = 0;
  int sets = 0;
};

/// How many sets: enough that the other sets between two uses of one set exceed twice the L2,
/// at least 2, at most `max_sets` (more than the runs would never be touched), and within
/// `budget_bytes`. Throws ProfError when even one set does not fit.
BufferPlan plan_buffers(std::size_t set_bytes, long long l2_bytes, int max_sets, std::size_t budget_bytes);

class ProblemBuffers {
 public:
  ProblemBuffers(const GemmShape& shape, const OperandSet& ops, bool reads_c, const BufferPlan& plan,
                 std::uint64_t seed, cudaStream_t stream, bool epilogue_inputs = false);

  int sets() const { return int(sets_.size()); }
  GemmArguments args(int set, const GemmProblem& p) const;
  /// A buffer shaped like cuBLAS's D (core/counterpart.hpp), for its reference result.
  void* reference_d() const { return ref_d_.get(); }
  /// The scale_d the epilogue inputs hold (0 without them).
  float scale_d() const { return scale_d_value_; }
  std::size_t d_elements() const { return d_elems_; }
  MatrixRef a(int set) const { return {sets_[set].a.get(), lda_}; }
  MatrixRef b(int set) const { return {sets_[set].b.get(), ldb_}; }
  MatrixRef c(int set) const { return {sets_[set].c.get(), ldc_}; }
  MatrixRef d(int set) const { return {sets_[set].d.get(), ldc_}; }

 private:
  struct Set {
    DeviceAllocation a, b, c, d;
  };
  GemmShape shape_;
  OperandSet ops_;
  std::int64_t lda_ = 0, ldb_ = 0, ldc_ = 0;
  std::size_t a_elems_ = 0, b_elems_ = 0, c_elems_ = 0, d_elems_ = 0;
  std::vector<Set> sets_;
  DeviceAllocation ref_d_;
  DeviceAllocation bias_, scale_d_, amax_;
  float scale_d_value_ = 0;
};

/// Bytes of one set for this problem (D with room for cuBLAS's output).
std::size_t set_bytes(const GemmShape& shape, const OperandSet& ops, bool reads_c);

}  // namespace tessel::prof
