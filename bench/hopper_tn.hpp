#pragma once
// The Hopper kernel behind the Sm80 handle's interface, so the benchmark can time it beside the
// others. The bench writes D column-major, as cuBLAS does; the Hopper kernel writes D row-major.
// D column-major (M x N) is D^T row-major (N x M) = B^T A^T: the same kernel on (N, M, K) with the
// operands swapped reads exactly the same memory.

#include <string>

#include "tessel/gemm/device/gemm.hpp"
#include "tessel/gemm/device/gemm_sm90.hpp"

namespace tessel::bench {

template <int BN, int Stages>
class HopperTN {
  using Inner = tessel::gemm::device::GemmSm90<tessel::bfloat16_t, 128, BN, 64, Stages>;

 public:
  // Same shape as the Sm80 handle's arguments: A row-major M x K, B column-major K x N, D
  // column-major M x N.
  struct Arguments {
    tessel::gemm::GemmCoord problem_size;
    tessel::gemm::TensorRef<tessel::bfloat16_t const, tessel::gemm::RowMajor> ref_A;
    tessel::gemm::TensorRef<tessel::bfloat16_t const, tessel::gemm::ColumnMajor> ref_B;
    tessel::gemm::TensorRef<tessel::bfloat16_t const, tessel::gemm::ColumnMajor> ref_C;
    tessel::gemm::TensorRef<tessel::bfloat16_t, tessel::gemm::ColumnMajor> ref_D;
    typename Inner::Epilogue epilogue;
    int split_k_slices = 1;
  };

  tessel::StatusInfo initialize(Arguments const& a) {
    typename Inner::Arguments t{{a.problem_size.n, a.problem_size.m, a.problem_size.k},
                                {a.ref_B.data, a.ref_B.ld},
                                {a.ref_A.data, a.ref_A.ld},
                                {a.ref_C.data, a.ref_C.ld},
                                {a.ref_D.data, a.ref_D.ld},
                                a.epilogue};
    return inner_.initialize(t);
  }
  tessel::StatusInfo run(cudaStream_t stream = nullptr) { return inner_.run(stream); }
  static std::string name() { return Inner::name(); }

 private:
  Inner inner_;
};

}  // namespace tessel::bench
