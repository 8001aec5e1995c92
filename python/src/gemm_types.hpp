#pragma once
// What the GEMM launcher works with: element types, a problem with its operands' layouts, the
// parameter block the kernel takes, and the two exceptions a call can end in.
#include <cstdint>
#include <string>
#include <tessel/gemm/gemm_shape.hpp>
#include <tessel/gemm/kernel/gemm_params.hpp>
#include <tessel/gemm/kernel/sm90_block_scale_rules.hpp>
#include <tessel/gemm/kernel/sm90_params.hpp>
#include <tessel/gemm/kernel/sm90_tile_scheduler.hpp>
#include <tessel/gemm/kernel/stream_k_fixup.hpp>
#include <tessel/gemm/kernel/tile_scheduler.hpp>
#include <tessel/status.hpp>

namespace tessel::py {

// The element types of the kernels. The numbers are the Python side's codes too
// (tessel/jit/config.py ELEMENT_CODES). tf32 is float32 in memory read by TF32 tensor cores: an
// A and B type only, of the Hopper kernels, as are the FP8 types e4m3 and e5m2.
enum class Element : std::uint8_t { f16 = 0, bf16 = 1, f32 = 2, e4m3 = 3, e5m2 = 4, tf32 = 5 };

// Bytes of one element in memory.
constexpr int element_bytes(Element e) {
  return e == Element::e4m3 || e == Element::e5m2 ? 1 : e == Element::f32 || e == Element::tf32 ? 4 : 2;
}
// The epilogues a kernel can fuse (epilogue::LinearCombination's activations); Python's codes too.
enum class Epilogue : std::uint8_t { linear = 0, relu = 1, gelu = 2, silu = 3 };

char const* element_name(Element e);  // "float16", "bfloat16", "float32", "float8_e4m3fn": PyTorch's names

// Where one operand's block scales are: base and element strides over row or row block, K block
// and batch (the kernels' own struct, from the plain header they share with this launcher).
using BlockScaleView = gemm::kernel::BlockScaleTensor;

// D = epilogue(A @ B, C) with A (M,K), B (K,N), C and D (M,N), ready for one kernel: the
// operands' layouts are those of the kernel that will run it (the launcher may have transposed
// the whole problem to get there).
struct Problem {
  int device = 0;
  Element ab = Element::f16, c = Element::f32;
  bool a_row = true, b_row = false, c_row = true;
  std::int64_t m = 0, n = 0, k = 0;
  void const* a = nullptr;
  void const* b = nullptr;
  void const* c_ptr = nullptr;
  void* d = nullptr;
  std::int64_t lda = 0, ldb = 0, ldc = 0, ldd = 0;
  // A batch of `l` problems, each operand's matrices `batch_*` elements apart (0: one matrix
  // shared by every batch; never for D). `transposed`: the operands were swapped to get here
  // (D^T = B^T A^T), so a caller's batch strides of A and B go to b and a.
  int l = 1;
  std::int64_t batch_a = 0, batch_b = 0, batch_c = 0, batch_d = 0;
  bool transposed = false;
  // D^T = B^T A^T run with D^T stored column-major (transpose_d in gemm_operands.hpp): a row-major
  // D of a few rows (decode tokens) becomes the N rows of the kernel's problem, so the tiles'
  // rows are the weights' and not padding. The Hopper kernels only (Sm90GemmParams::d_column_major).
  bool d_column_major = false;
  // FP8: device pointers to one float each that multiply alpha (torch._scaled_mm's scale_a and
  // scale_b, as the caller gave them: swapped with A and B when transposed), or null; and
  // whether the kernel must promote its accumulation (use_fast_accum=False).
  float const* scale_a = nullptr;
  float const* scale_b = nullptr;
  bool promoted = false;
  // Block-scaled FP8 (kernel/sm90_block_scales.hpp): f32 scales of A per row and 128 of K and of
  // B per 128 x 128 block, as device pointers and element strides; the problem is never
  // transposed (the two operands' scales have different blocks, so D^T = B^T A^T would need
  // other scales, not the same ones swapped).
  bool block_scaled = false;
  // Row-wise scaled FP8 (Sm90KernelConfig::kRowwiseScales): sfa one f32 per row of A, sfb one per
  // row of B (column of D), their `row` strides along those rows and `batch` strides per group
  // (the k strides unused). transpose_d swaps them with A and B: the product is symmetric.
  bool rowwise = false;
  BlockScaleView sfa, sfb;
  // Grouped kernels: `l` groups whose rows group_m (device memory, one int per group) gives, as
  // ends into one A and D of m rows (contiguous) or as counts of each group's block of m rows
  // (masked: A and D batched like B). B is always batched by group.
  int const* group_m = nullptr;
  bool group_masked = false;
};

// The Sm75/Sm80 kernels' parameter block in the layout every configuration shares
// (kernel/gemm_params.hpp): every generated source asserts TESSEL_SM80_PARAMS_MATCH for its own.
using KernelParams = gemm::kernel::Sm80LaunchParams;
using GroupedKernelParams = gemm::kernel::Sm80GroupedLaunchParams;

// The Hopper kernels' parameter block, kernel::Sm90GemmParams, in the layout every configuration
// shares (kernel/sm90_params.hpp): the launcher fills it at the start of a zeroed block of
// kSm90ParamsCapacity bytes, and every generated source asserts TESSEL_SM90_PARAMS_MATCH for its own.
using Sm90KernelParams = gemm::kernel::Sm90LaunchParams;
using gemm::kernel::kSm90ParamsCapacity;

// A refusal with a tessel Status: arguments (ValueError in Python) or CUDA (RuntimeError).
struct StatusError {
  StatusInfo info;
};

}  // namespace tessel::py
