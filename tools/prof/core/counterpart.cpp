#include "core/counterpart.hpp"

namespace tessel::prof {

OperandSet cublas_counterpart(const OperandSet& o) {
  OperandSet c = o;
  if (is_fp8(o.d.element) && !is_fp8(o.a.element)) {
    c.c.element = Element::kBF16;
    c.d.element = Element::kBF16;
  }
  return c;
}

std::string cublas_counterpart_note(const OperandSet& o) {
  if (is_fp8(o.a.element)) return "cuBLASLt FP8 matmul (default accumulation)";
  if (cublas_counterpart(o) != o) {
    return "cuBLAS " + std::string(to_string(o.a.element)) +
           " GEMM, bf16 D: the plain GEMM the fused epilogue is measured against";
  }
  return "";
}

}  // namespace tessel::prof
