#pragma once
// From Python operands to a launch: the checks every kernel shares, the automatic kernel choice
// (asked of Python once per kind of problem, then remembered), and tessel.gemm's whole per-call
// path in one trip into C++ (gemm_call.cpp).
#include <nanobind/nanobind.h>

#include <cstdint>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "gemm_kernel.hpp"
#include "gemm_operands.hpp"

namespace tessel::py {

namespace nb = nanobind;

class Dispatcher {
 public:
  // resolve(element_ab, element_c, a_row, b_row, epilogue, device, tma_align, m, n, k, promoted,
  // transposable, rowwise) -> Kernel, or (Kernel, True), with tma_align tma_alignment's 0, 16 or 32:
  // the kernel for a kind of problem at one shape, asked once per kind and shape (the registry's heuristic, python/tessel/jit/registry.py);
  // (Kernel, True) runs it on D^T = B^T A^T with D^T stored column-major, which the resolver may
  // answer only where `transposable` (d_transposable in gemm_operands.hpp). fallback(A, B, C, alpha, beta, out_dtype,
  // epilogue, config, out, stream): tessel.gemm for the calls gemm() leaves to Python (a
  // configuration, arguments it does not read). Either may be None where not used.
  Dispatcher(nb::object resolve, nb::object fallback) : resolve_(std::move(resolve)), fallback_(std::move(fallback)) {}

  // The automatic choice: the operands' own layouts with D row-major.
  void run(nb::handle a, nb::handle b, nb::handle c, nb::handle d, float alpha, float beta, std::uintptr_t stream, int epilogue);
  // run() with the options of the PyTorch layer: float32 A and B on TF32 tensor cores (`tf32`), and
  // for FP8 A and B the device addresses of one-float scales of A and B (0: none) and promoted
  // accumulation (torch._scaled_mm's scale_a, scale_b and use_fast_accum=False).
  void run_ex(nb::handle a, nb::handle b, nb::handle c, nb::handle d, float alpha, float beta, std::uintptr_t stream, int epilogue,
              bool tf32, std::uintptr_t scale_a, std::uintptr_t scale_b, bool promoted);
  // run_ex() for FP8 A and B with row-wise scales (torch._scaled_mm's row-wise mode): D = scale_a[m] *
  // scale_b[n] * (A @ B)[m, n] + beta * C, on the automatic choice's kernel built with row-wise
  // scales. scale_a and scale_b are the device addresses of M and N f32 values, `*_stride`
  // elements apart. The problem may run transposed (D^T's, for decode): the scales go with their
  // operands.
  void run_rowwise(nb::handle a, nb::handle b, nb::handle c, nb::handle d, float beta, std::uintptr_t stream, std::uintptr_t scale_a,
                   std::int64_t scale_a_stride, std::uintptr_t scale_b, std::int64_t scale_b_stride, bool promoted);
  // A batch of D_i = A_i @ B_i: a, b and d the first matrices (2-D), the rest `batch_*` elements
  // apart (0 shares one A or B among the batch). One launch on Hopper (the kernels' batch mode).
  // `tf32`: float32 A and B on TF32 tensor cores.
  void run_batched(nb::handle a, nb::handle b, nb::handle d, std::int64_t batches, std::int64_t batch_a, std::int64_t batch_b,
                   std::int64_t batch_d, std::uintptr_t stream, bool tf32);
  using ScaleStrides = std::tuple<std::int64_t, std::int64_t, std::int64_t>;  // (row, K block, group)
  // Grouped GEMM on a grouped kernel (scheduler 'grouped'): a, b and d the first group's matrices
  // (2-D), `groups` groups, B's `batch_b` elements apart; `group_m` the device address of one int
  // per group: ends into A's and D's rows (contiguous) or counts of each block of rows, the
  // blocks `batch_a` and `batch_d` elements apart (masked). FP8: scale_a and scale_b are the
  // device addresses of the per-tensor f32 scales, or, for a block-scaled kernel, of the block
  // scales with their element strides (row or row block, K block, group): A's per row and 128 of
  // K, B's per 128 rows of N and 128 of K for each group; or, for a row-wise scaled kernel, of
  // the row-wise scales with theirs (row, unused, group): A's per row, B's per column of D for
  // each group. A's scales cover all rows with offs (their group stride is ignored) and are
  // batched like A with counts. `bias`: the device address of a row of N values in D's type
  // added to every row of a group (after the scales, before the kernel's activation), the next
  // group's `bias_stride` elements on (0: one bias for all groups); 0 for none.
  void run_grouped(Kernel& kernel, nb::handle a, nb::handle b, nb::handle d, std::int64_t groups, std::int64_t batch_a,
                   std::int64_t batch_b, std::int64_t batch_d, std::uintptr_t group_m, bool masked, std::uintptr_t stream,
                   std::uintptr_t scale_a, std::uintptr_t scale_b, std::optional<ScaleStrides> scale_a_strides,
                   std::optional<ScaleStrides> scale_b_strides, std::uintptr_t bias = 0, std::int64_t bias_stride = 0);
  // Block-scaled FP8 on a block-scaled kernel: D = sum over K blocks of scale_a * scale_b times the
  // block's A @ B, plus beta * C. scale_a and scale_b are the device addresses of the f32 scales
  // (A's per row and 128 of K, B's per 128 rows of N and 128 of K), with their element strides
  // (row or row block, K block). A row-major, B column-major, D row-major, as given: the problem
  // is never transposed, since A's and B's scales have different blocks.
  void run_block_scaled(Kernel& kernel, nb::handle a, nb::handle b, nb::handle c, nb::handle d, float beta, std::uintptr_t stream,
                        std::uintptr_t scale_a, std::tuple<std::int64_t, std::int64_t> scale_a_strides, std::uintptr_t scale_b,
                        std::tuple<std::int64_t, std::int64_t> scale_b_strides);
  // (kernel, transpose_d): what run() would launch, and whether on D^T's problem, without launching.
  nb::tuple select(nb::handle a, nb::handle b, nb::handle c, nb::handle d, int epilogue);
  // Launch the automatic choice for a problem (the tail of run() and gemm()).
  void launch(Problem const& p, int epilogue, float alpha, float beta, std::uintptr_t stream);
  // The arguments run() would give resolve for these operands (without the epilogue): the
  // problem as the automatic choice computes it, D row-major.
  nb::tuple question(nb::handle a, nb::handle b, nb::handle c, nb::handle d);
  // A given kernel: the operands must have its element types, and its layouts as given or
  // transposed.
  void run_kernel(Kernel& kernel, nb::handle a, nb::handle b, nb::handle c, nb::handle d, float alpha, float beta, std::uintptr_t stream);
  // tessel.gemm (see gemm_call.cpp).
  nb::object gemm(nb::handle a, nb::handle b, nb::handle c, double alpha, double beta, nb::handle out_dtype, nb::handle epilogue,
                  nb::handle config, nb::handle out, nb::handle stream);

  // acquire(bytes, device, stream) -> int pointer and release(pointer): the stream-K workspace of
  // the automatic choice's launches (tessel.gemm sets PyTorch's caching allocator).
  void set_workspace_allocator(nb::object acquire, nb::object release);

  void clear() { kernels_.clear(); }
  std::size_t size() const { return kernels_.size(); }

  // For the garbage collector: the Python objects a Dispatcher holds.
  int traverse(visitproc visit, void* arg);
  void drop_references();

 private:
  struct Entry {
    nb::object owner;  // keeps the Kernel alive
    Kernel* kernel;
    bool transpose_d = false;  // run on transpose_d(problem)
  };
  // A kind of problem (element types, layouts, TMA alignment, epilogue, device) at one shape.
  struct Key {
    std::uint64_t kind;
    std::int64_t m, n, k;
    bool operator==(Key const&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(Key const& key) const;
  };
  // The memo forgets everything past this many shapes (a sweep over shapes must not grow it
  // without bound); resolving again costs one heuristic call, the kernels stay loaded.
  static constexpr std::size_t kMaxRemembered = 4096;
  Entry const& choose(Problem const& p, int epilogue);

  // The workspace source of one launch on a device and stream (empty without an allocator).
  WorkspaceSource workspace_for(int device, std::uintptr_t stream);

  nb::object resolve_, fallback_;
  nb::object acquire_, release_;
  std::unordered_map<Key, Entry, KeyHash> kernels_;
};

// The operands as the problem a given kernel computes: its element types, and its layouts as
// given or transposed. @throws StatusError
Problem problem_for(KernelTraits const& t, nb::handle a, nb::handle b, nb::handle c, nb::handle d);

// Whether TMA can read A and B of a problem: 16-byte-aligned base addresses, leading dimensions
// and (for a batch) batch strides.
bool tma_aligned(Problem const& p);

// How TMA meets A's and B's rows: 0 where it cannot read them (tma_aligned), 16 where some row
// starts off a 32-byte sector (gemm::dispatch::rows_straddle_sectors: the dispatcher runs a 2x1-
// cluster twin), 32 where every row starts on one.
int tma_alignment(Problem const& p);

// Refusals share this spelling. @throws StatusError
[[noreturn]] void refuse(Status s, std::string message);

}  // namespace tessel::py
