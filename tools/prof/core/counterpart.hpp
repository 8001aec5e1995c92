#pragma once
// What the cuBLAS column measures for a group of kernels: cuBLAS on the same operands, except
// where cuBLAS has no such operation. The fused FP8 epilogue (16-bit A and B, FP8 D) has none, so
// its counterpart is cuBLAS's plain GEMM with a bf16 D: the fused row's ratio then sits beside the
// plain tessel rows' ratios against the same GEMM. FP8 A and B run through cuBLASLt's FP8 matmul.

#include <string>

#include "core/problem.hpp"

namespace tessel::prof {

/// The operands cuBLAS runs for kernels of `kernel_ops`: the same, with an FP8 D (and its C)
/// replaced by bf16 when A is not FP8.
OperandSet cublas_counterpart(const OperandSet& kernel_ops);

/// A few words naming that operation, for the cuBLAS row's note: "cuBLASLt FP8 matmul (default
/// accumulation)", "cuBLAS bf16 GEMM, bf16 D (the plain GEMM beside the fused epilogue)", or ""
/// where it is the plain cublasGemmEx on the kernels' own operands.
std::string cublas_counterpart_note(const OperandSet& kernel_ops);

}  // namespace tessel::prof
