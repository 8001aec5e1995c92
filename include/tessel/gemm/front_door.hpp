#pragma once
// tessel::gemm::gemm: one call for a GEMM, the kernel chosen for the problem. (tessel::gemm is the
// namespace of the GEMM hierarchy, so the call lives inside it: `using namespace tessel::gemm;
// gemm(args, stream);`.)
//
//   D = alpha * A @ B + beta * C        A: M x K, B: K x N, C and D: M x N
//
// Each matrix is a device pointer with its element type, its layout (row- or column-major) and
// its leading dimension, as cuBLAS and CUTLASS callers pass them. The call picks among the
// Hopper kernels the library ships (tessel/gemm/dispatch/hopper_tiles.def) with the dispatcher's
// heuristic (tessel/gemm/dispatch/heuristic.hpp, the same that tessel.gemm asks from Python and
// tessel-prof --mode=dispatch prints), and says why:
//
//   tessel::gemm::GemmArguments args;
//   args.m = 4096; args.n = 14336; args.k = 4096;
//   args.A = {x, DataType::kBF16, MatrixLayout::kRowMajor, 4096};     // tokens x hidden
//   args.B = {w, DataType::kBF16, MatrixLayout::kColumnMajor, 4096};  // W.t(), W row-major
//   args.D = {y, DataType::kBF16, MatrixLayout::kRowMajor, 14336};
//   tessel::StatusInfo s = tessel::gemm::gemm(args, stream);  // s.what(): what is wrong and how to fix it
//   tessel::gemm::GemmChoice c;  gemm_choice(args, c);          // c.kernel, c.reason
//
// What is served (a request outside it is refused with a Status and a sentence, never run
// wrong): f16 or bf16 A, B, C and D of one type, f32 accumulation, alpha and beta, a bias (C
// broadcast along M) and a fused ReLU, GELU or SiLU; A row-major
// and B column-major (x @ W.t(): both read K-major by TMA), D and C row- or column-major (a
// column-major D is D^T = B^T A^T row-major, whose operands are K-major too);
// 16-byte-aligned pointers and leading dimensions; a Hopper GPU (compute capability 9.0).
// A decode call (M short of every tile's rows, no C) runs as D^T = B^T A^T with D^T stored
// column-major, so that the weights fill the tiles' rows, as tessel.gemm does from Python.
// Kernels that divide K (stream-K) need a workspace (gemm_workspace_size); without one the call
// takes the fastest kernel that needs none.
//
// Grouped GEMM (mixture-of-experts layers) has a call of its own, grouped_gemm below: G problems
// D_g = alpha * A_g @ B_g of one N and K and ragged M, the groups' sizes read on the device.
//
// Linked as the compiled library tessel::gemm (CMake target tessel_gemm), so that a program
// including this header compiles no kernel of its own.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "tessel/status.hpp"

namespace tessel::gemm {

enum class DataType { kF16, kBF16 };
enum class MatrixLayout { kRowMajor, kColumnMajor };
/// The activation applied to alpha * A @ B + beta * C in the epilogue (epilogue/fusion/activation_fn.hpp):
/// none, ReLU, GELU (erf form, PyTorch's default) or SiLU.
enum class Activation { kIdentity, kReLU, kGeLU, kSiLU };

/// One matrix: device pointer, element type, layout, leading dimension (elements between rows of
/// a row-major matrix, between columns of a column-major one).
struct MatrixArgument {
  void const* ptr = nullptr;
  DataType type = DataType::kBF16;
  MatrixLayout layout = MatrixLayout::kRowMajor;
  std::int64_t ld = 0;
};

struct GemmArguments {
  int m = 0, n = 0, k = 0;
  MatrixArgument A, B;
  // Read only where beta != 0; may be null otherwise. Row-major with ld 0 (D row-major): one row
  // of N values repeated over the M rows, a bias (with beta = 1).
  MatrixArgument C;
  MatrixArgument D;  // written: its ptr must be writable device memory
  float alpha = 1.f, beta = 0.f;
  Activation activation = Activation::kIdentity;
  int device = -1;  // -1: the current device; any other value must be the current device
};

/// The kernel a call runs, why, and the workspace it needs.
struct GemmChoice {
  std::string kernel;  // Gemm::name() of the kernel
  std::string reason;  // the heuristic's sentence
  std::size_t workspace_bytes = 0;
};

/// Whether tessel::gemm computes `args` on this device, with the reason where not.
StatusInfo gemm_can_implement(GemmArguments const& args);

/// The kernel gemm() would run with a workspace of `workspace_bytes` (SIZE_MAX: as large as the
/// best kernel wants), and why.
StatusInfo gemm_choice(GemmArguments const& args, GemmChoice& choice, std::size_t workspace_bytes = SIZE_MAX);

/// The workspace the heuristic's first choice wants (0 for most problems); `bytes` is set only
/// when the status is success.
StatusInfo gemm_workspace_size(GemmArguments const& args, std::size_t& bytes);

/// How the groups' rows lie in A and D (kernel::GroupedLayout's values).
enum class GroupLayout {
  kContiguous,  // A (rows x K) and D (rows x N) hold the groups one after another; group_m[g] is
                // group g's end row (torch._grouped_mm's offs): rows [group_m[g-1], group_m[g])
  kMasked,      // group g has a block of `rows` rows at A + g * batch_a and D + g * batch_d, of
                // which the first group_m[g] are its problem (decode under CUDA graphs)
};

/// G GEMMs in one launch: D_g = alpha * A_g @ B_g for g < groups.
///
///   tessel::gemm::GroupedGemmArguments args;
///   args.groups = 8; args.group_m = offs; args.rows = tokens; args.n = 14336; args.k = 4096;
///   args.A = {x, DataType::kBF16, MatrixLayout::kRowMajor, 4096};           // tokens sorted by expert
///   args.B = {w, DataType::kBF16, MatrixLayout::kColumnMajor, 4096};        // expert g's W.t() at w + g * batch_b
///   args.batch_b = 14336 * 4096;
///   args.D = {y, DataType::kBF16, MatrixLayout::kRowMajor, 14336};
///   tessel::StatusInfo s = tessel::gemm::grouped_gemm(args, stream);
///
/// Served: f16 or bf16 A, B and D of one type; A and D row-major; B column-major (K contiguous:
/// W.t() of a row-major N x K weight) or row-major; 16-byte-aligned pointers, leading dimensions
/// and batch strides; a Hopper GPU. Rows of D that belong to no group are not written; sizes out
/// of order or past `rows` give empty or clipped groups, never a write outside D.
struct GroupedGemmArguments {
  int groups = 0;                               // G, 1 to 65535
  GroupLayout layout = GroupLayout::kContiguous;
  int const* group_m = nullptr;                 // device memory: one int32 per group (ends or counts)
  int rows = 0;                                 // contiguous: rows of A and D; masked: rows of one block
  int n = 0, k = 0;
  MatrixArgument A, B, D;                       // the first group's (masked: block's) matrices
  std::int64_t batch_a = 0;                     // masked: elements from one block of A to the next
  std::int64_t batch_b = 0;                     // elements from one group's B to the next
  std::int64_t batch_d = 0;                     // masked: elements from one block of D to the next
  float alpha = 1.f;
  // A bias added to every row of a group after alpha: N values of D's type (device memory),
  // the next group's bias_stride elements on (0: one row for every group); null for none.
  void const* bias = nullptr;
  std::int64_t bias_stride = 0;
  int device = -1;                              // -1: the current device; any other must be current
};

/// Whether grouped_gemm computes `args` on this device, with the reason where not.
StatusInfo grouped_gemm_can_implement(GroupedGemmArguments const& args);

/// The kernel grouped_gemm would run, and why (workspace_bytes is always 0).
StatusInfo grouped_gemm_choice(GroupedGemmArguments const& args, GemmChoice& choice);

/// The grouped GEMM on `stream`, enqueued without a synchronisation (the host never reads the
/// sizes, so the call can be captured in a CUDA graph).
StatusInfo grouped_gemm(GroupedGemmArguments const& args, cudaStream_t stream = nullptr);

/// D = alpha * A @ B + beta * C on `stream`, enqueued without a synchronisation. `workspace`:
/// device memory of `workspace_bytes`, for the kernels that divide K; null takes a kernel that
/// needs none.
StatusInfo gemm(GemmArguments const& args, cudaStream_t stream = nullptr, void* workspace = nullptr,
                std::size_t workspace_bytes = 0);

}  // namespace tessel::gemm
