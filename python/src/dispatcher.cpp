#include "dispatcher.hpp"

#include <functional>
#include <tuple>

#include "tessel/gemm/dispatch/heuristic.hpp"

namespace tessel::py {

void refuse(Status s, std::string message) { throw StatusError{{s, std::move(message)}}; }

bool tma_aligned(Problem const& p) {
  auto aligned = [](void const* ptr) { return reinterpret_cast<std::uintptr_t>(ptr) % 16 == 0; };
  std::int64_t const vector = 16 / element_bytes(p.ab);  // elements in 16 bytes
  // A batch also needs 16-byte batch strides, and TMA takes no zero stride (an A or B shared by
  // the batch): such a batch runs on the Sm80 kernel, one launch per matrix.
  bool const batch_ok = p.l == 1 || (p.batch_a > 0 && p.batch_b > 0 && p.batch_a % vector == 0 && p.batch_b % vector == 0);
  return aligned(p.a) && aligned(p.b) && p.lda % vector == 0 && p.ldb % vector == 0 && batch_ok;
}

int tma_alignment(Problem const& p) {
  if (!tma_aligned(p)) return 0;
  std::int64_t const bytes = element_bytes(p.ab);
  auto straddles = [&](void const* ptr, std::int64_t ld, std::int64_t batch) {
    return gemm::dispatch::rows_straddle_sectors(reinterpret_cast<std::uintptr_t>(ptr), ld * bytes, p.l == 1 ? 0 : batch * bytes);
  };
  return straddles(p.a, p.lda, p.batch_a) || straddles(p.b, p.ldb, p.batch_b) ? 16 : 32;
}

namespace {

std::string element_list(KernelTraits const& t) {
  return std::string(element_name(t.ab)) + " A and B and " + element_name(t.c) + " D";
}

}  // namespace

void Dispatcher::run(nb::handle a, nb::handle b, nb::handle c, nb::handle d, float alpha, float beta, std::uintptr_t stream, int epilogue) {
  launch(natural(read_operands(a, b, c, d)), epilogue, alpha, beta, stream);
}

void Dispatcher::run_ex(nb::handle a, nb::handle b, nb::handle c, nb::handle d, float alpha, float beta, std::uintptr_t stream,
                        int epilogue, bool tf32, std::uintptr_t scale_a, std::uintptr_t scale_b, bool promoted) {
  Problem p = natural(read_operands(a, b, c, d, tf32));
  bool const fp8 = p.ab == Element::e4m3 || p.ab == Element::e5m2;
  if (!fp8 && (scale_a || scale_b || promoted))
    refuse(Status::kErrorInvalidDataType, std::string("scales and promoted accumulation are for FP8 A and B, not ") + element_name(p.ab));
  // D^T = B^T A^T: the operands swapped, their scales with them (the product is the same).
  p.scale_a = reinterpret_cast<float const*>(p.transposed ? scale_b : scale_a);
  p.scale_b = reinterpret_cast<float const*>(p.transposed ? scale_a : scale_b);
  p.promoted = promoted;
  launch(p, epilogue, alpha, beta, stream);
}

void Dispatcher::launch(Problem const& natural_problem, int epilogue, float alpha, float beta, std::uintptr_t stream) {
  Entry const& e = choose(natural_problem, epilogue);
  Problem const p = e.transpose_d ? transpose_d(natural_problem) : natural_problem;
  Kernel& k = *e.kernel;
  if (k.traits().fixup_slot_floats > 0) {
    WorkspaceSource const source = workspace_for(p.device, stream);
    k.launch(p, alpha, beta, stream, 8, &source);
  } else {
    k.launch(p, alpha, beta, stream);
  }
}

void Dispatcher::set_workspace_allocator(nb::object acquire, nb::object release) {
  acquire_ = std::move(acquire);
  release_ = std::move(release);
}

WorkspaceSource Dispatcher::workspace_for(int device, std::uintptr_t stream) {
  if (!acquire_.is_valid() || acquire_.is_none() || !release_.is_valid() || release_.is_none()) return {};
  return {[this, device, stream](std::size_t bytes) {
            nb::object ptr = acquire_(bytes, device, stream);
            return ptr.is_none() ? std::uintptr_t(0) : nb::cast<std::uintptr_t>(ptr);
          },
          [this](std::uintptr_t ptr) { release_(ptr); }};
}

void Dispatcher::run_batched(nb::handle a, nb::handle b, nb::handle d, std::int64_t batches, std::int64_t batch_a, std::int64_t batch_b,
                             std::int64_t batch_d, std::uintptr_t stream, bool tf32) {
  Problem p = natural(read_operands(a, b, nb::none(), d, tf32));
  if (batches < 1 || batches > 65535)
    refuse(Status::kErrorInvalidProblem, "a batch of " + std::to_string(batches) + " matrices: give 1 to 65535");
  if (batch_a < 0 || batch_b < 0 || batch_d < 0)
    refuse(Status::kErrorInvalidProblem, "batch strides (" + std::to_string(batch_a) + ", " + std::to_string(batch_b) + ", " +
                                             std::to_string(batch_d) + "): give non-negative element strides");
  // D's batches must not overlap: each is (m - 1) * ldd + n elements in the kernel's layout.
  if (batches > 1 && batch_d < (p.m - 1) * p.ldd + p.n)
    refuse(Status::kErrorInvalidProblem, "D's batch stride " + std::to_string(batch_d) + " is smaller than one of its matrices (" +
                                             std::to_string((p.m - 1) * p.ldd + p.n) + " elements): the batches would overlap");
  p.l = static_cast<int>(batches);
  p.batch_a = p.transposed ? batch_b : batch_a;
  p.batch_b = p.transposed ? batch_a : batch_b;
  p.batch_d = batch_d;
  launch(p, 0, 1.f, 0.f, stream);
}

namespace {
// One array of block or row-wise scales (`what`) as the kernel reads it; the rules of any launch
// that passes them.
BlockScaleView block_scale_view(std::uintptr_t ptr, Dispatcher::ScaleStrides const& strides, char const* what = "block scales") {
  auto const [row, k, batch] = strides;
  if (row < 0 || k < 0 || batch < 0)
    refuse(Status::kErrorInvalidProblem, std::string(what) + " take element strides >= 0: pass the scales without negative strides");
  if (ptr % 4) refuse(Status::kErrorMisalignedOperand, std::string(what) + " must be 4-byte aligned float32 arrays");
  return {reinterpret_cast<float const*>(ptr), row, k, batch};
}
}  // namespace

void Dispatcher::run_grouped(Kernel& kernel, nb::handle a, nb::handle b, nb::handle d, std::int64_t groups, std::int64_t batch_a,
                             std::int64_t batch_b, std::int64_t batch_d, std::uintptr_t group_m, bool masked, std::uintptr_t stream,
                             std::uintptr_t scale_a, std::uintptr_t scale_b, std::optional<ScaleStrides> scale_a_strides,
                             std::optional<ScaleStrides> scale_b_strides, std::uintptr_t bias, std::int64_t bias_stride) {
  if (!kernel.traits().grouped)
    refuse(Status::kErrorNotSupported, "the kernel " + kernel.traits().name + " is not a grouped kernel: choose a configuration with "
                                                                               "scheduler='grouped'");
  Problem p = problem_for(kernel.traits(), a, b, nb::none(), d);
  if (p.transposed)
    refuse(Status::kErrorInvalidLayout, "grouped GEMM takes A and D row-major (K and N contiguous): the groups are rows of A and D");
  if (groups < 1 || groups > 65535)
    refuse(Status::kErrorInvalidProblem, std::to_string(groups) + " groups: give 1 to 65535");
  if (!group_m) refuse(Status::kErrorInvalidProblem, "no group sizes: pass a device array of one int32 per group");
  if (batch_a < 0 || batch_b < 0 || batch_d < 0)
    refuse(Status::kErrorInvalidProblem, "batch strides (" + std::to_string(batch_a) + ", " + std::to_string(batch_b) + ", " +
                                             std::to_string(batch_d) + "): give non-negative element strides");
  if (masked && groups > 1 && batch_d < (p.m - 1) * p.ldd + p.n)
    refuse(Status::kErrorInvalidProblem, "D's block stride " + std::to_string(batch_d) + " is smaller than one block of " + std::to_string(p.m) +
                                             " rows: the groups would overlap");
  p.l = static_cast<int>(groups);
  p.batch_a = masked ? batch_a : 0;
  p.batch_b = batch_b;
  p.batch_d = masked ? batch_d : 0;
  // Both kernel families step from one group's matrix to the next in 16-byte units (TMA's strides,
  // cp.async's vectors); a stride off that grid would fault or be refused by the driver mid-launch.
  for (auto [name, stride, bytes] : {std::tuple{"A", p.batch_a, element_bytes(p.ab)}, std::tuple{"B", p.batch_b, element_bytes(p.ab)},
                                     std::tuple{"D", p.batch_d, element_bytes(p.c)}})
    if ((stride * bytes) % 16 != 0)
      refuse(Status::kErrorMisalignedOperand, std::string(name) + "'s stride between groups (" + std::to_string(stride) +
                                                  " elements) is not a multiple of 16 bytes: pad each group's matrix to a multiple of " +
                                                  std::to_string(16 / bytes) + " elements");
  p.group_m = reinterpret_cast<int const*>(group_m);
  p.group_masked = masked;
  // A bias: C with ldc 0, one row per group (the kernels index C by the group).
  if (bias_stride < 0) refuse(Status::kErrorInvalidProblem, "the bias's stride between groups is negative: give one >= 0");
  if (bias % element_bytes(p.c) != 0)
    refuse(Status::kErrorMisalignedOperand, "the bias is not aligned to its element type: pass a tensor of D's dtype");
  p.c_ptr = reinterpret_cast<void const*>(bias);
  p.ldc = 0;
  p.batch_c = bias ? bias_stride : 0;
  float const beta = bias ? 1.f : 0.f;
  // Block or row-wise scales: B's per group; A's over all rows with offs (the groups are rows of
  // A), batched like A with counts. Block scales are per row and 128 of K (A) and per 128 x 128
  // block (B); row-wise ones per row of A and per column of D.
  if (bool const block = kernel.traits().block_scaled; block || kernel.traits().rowwise) {
    if (!scale_a || !scale_b || !scale_a_strides || !scale_b_strides)
      refuse(Status::kErrorInvalidProblem, block ? "block-scaled grouped GEMM without its scales: pass scale_a (rows, K blocks) and "
                                                   "scale_b (groups, N blocks, K blocks) with their strides"
                                                 : "row-wise scaled grouped GEMM without its scales: pass scale_a (one per row of A) "
                                                   "and scale_b (groups, N) with their strides");
    (block ? p.block_scaled : p.rowwise) = true;
    char const* what = block ? "block scales" : "row-wise scales";
    p.sfa = block_scale_view(scale_a, *scale_a_strides, what);
    p.sfb = block_scale_view(scale_b, *scale_b_strides, what);
    if (!masked) p.sfa.batch = 0;
    kernel.launch(p, 1.f, beta, stream);
    return;
  }
  if (scale_a_strides || scale_b_strides)
    refuse(Status::kErrorNotSupported, "the kernel " + kernel.traits().name + " applies neither block nor row-wise scales: choose a "
                                                                               "configuration with schedule='cooperative_blockscaled' "
                                                                               "or scaling='rowwise'");
  // FP8: torch._scaled_mm's per-tensor scales, one float each on the device, shared by the groups.
  bool const fp8 = p.ab == Element::e4m3 || p.ab == Element::e5m2;
  if (fp8 != (scale_a && scale_b))
    refuse(fp8 ? Status::kErrorInvalidProblem : Status::kErrorInvalidDataType,
           fp8 ? "FP8 grouped GEMM without scale_a or scale_b: pass both (one float32 each, the dequantization factors)"
               : std::string("scales are for FP8 A and B, not ") + element_name(p.ab));
  p.scale_a = reinterpret_cast<float const*>(scale_a);
  p.scale_b = reinterpret_cast<float const*>(scale_b);
  kernel.launch(p, 1.f, beta, stream);
}

void Dispatcher::run_block_scaled(Kernel& kernel, nb::handle a, nb::handle b, nb::handle c, nb::handle d, float beta,
                                  std::uintptr_t stream, std::uintptr_t scale_a, std::tuple<std::int64_t, std::int64_t> scale_a_strides,
                                  std::uintptr_t scale_b, std::tuple<std::int64_t, std::int64_t> scale_b_strides) {
  KernelTraits const& t = kernel.traits();
  if (!t.block_scaled)
    refuse(Status::kErrorNotSupported, "the kernel " + t.name + " applies no block scales: choose a configuration with "
                                                                 "schedule='cooperative_blockscaled'");
  Operands const ops = read_operands(a, b, c, d);
  if (*ops.a.element != t.ab || *ops.d.element != t.c)
    refuse(Status::kErrorInvalidDataType, "the kernel " + t.name + " takes " + element_list(t) + ", not " + ops.a.dtype + " A and B and " +
                                              ops.d.dtype + " D");
  // fit() tries the layouts as given first; the transposed problem would pair each operand with
  // the other's scales, whose blocks differ (1 x 128 for A, 128 x 128 for B), so it is refused.
  std::optional<Problem> p = fit(ops, true, false, true);
  if (!p || p->transposed)
    refuse(Status::kErrorInvalidLayout, "block-scaled FP8 reads A row-major (M x K, K contiguous), B column-major (B = W.t() of a "
                                        "row-major N x K W) and writes D row-major, not transposed: pass .contiguous() copies in "
                                        "those layouts");
  if (!scale_a || !scale_b) refuse(Status::kErrorInvalidProblem, "block-scaled FP8 without scale_a or scale_b: pass both scale arrays");
  auto const [a_row, a_k] = scale_a_strides;
  auto const [b_row, b_k] = scale_b_strides;
  p->block_scaled = true;
  p->sfa = block_scale_view(scale_a, {a_row, a_k, 0});
  p->sfb = block_scale_view(scale_b, {b_row, b_k, 0});
  kernel.launch(*p, 1.f, beta, stream);
}

void Dispatcher::run_rowwise(nb::handle a, nb::handle b, nb::handle c, nb::handle d, float beta, std::uintptr_t stream,
                              std::uintptr_t scale_a, std::int64_t scale_a_stride, std::uintptr_t scale_b, std::int64_t scale_b_stride,
                              bool promoted) {
  Problem p = natural(read_operands(a, b, c, d));
  if (p.ab != Element::e4m3 && p.ab != Element::e5m2)
    refuse(Status::kErrorInvalidDataType, std::string("row-wise scales are for FP8 A and B, not ") + element_name(p.ab));
  if (!scale_a || !scale_b) refuse(Status::kErrorInvalidProblem, "row-wise FP8 without scale_a or scale_b: pass both scale vectors");
  p.rowwise = true;
  p.promoted = promoted;
  BlockScaleView const sa = block_scale_view(scale_a, {scale_a_stride, 0, 0}, "row-wise scales");
  BlockScaleView const sb = block_scale_view(scale_b, {scale_b_stride, 0, 0}, "row-wise scales");
  // natural() may have swapped A and B (D^T = B^T A^T for a column-major D): their scales follow.
  p.sfa = p.transposed ? sb : sa;
  p.sfb = p.transposed ? sa : sb;
  launch(p, int(Epilogue::linear), 1.f, beta, stream);
}

nb::tuple Dispatcher::select(nb::handle a, nb::handle b, nb::handle c, nb::handle d, int epilogue) {
  Entry const& e = choose(natural(read_operands(a, b, c, d)), epilogue);
  return nb::make_tuple(e.owner, e.transpose_d);
}

void Dispatcher::run_kernel(Kernel& kernel, nb::handle a, nb::handle b, nb::handle c, nb::handle d, float alpha, float beta,
                            std::uintptr_t stream) {
  kernel.launch(problem_for(kernel.traits(), a, b, c, d), alpha, beta, stream);
}

Problem problem_for(KernelTraits const& t, nb::handle a, nb::handle b, nb::handle c, nb::handle d) {
  Operands const ops = read_operands(a, b, c, d, t.ab == Element::tf32);  // a TF32 kernel takes float32 A and B
  if (*ops.a.element != t.ab || *ops.d.element != t.c)
    refuse(Status::kErrorInvalidDataType, "the kernel " + t.name + " takes " + element_list(t) + ", not " + ops.a.dtype + " A and B and " +
                                              ops.d.dtype + " D");
  std::optional<Problem> p = fit(ops, t.a_row, t.b_row, t.c_row);
  if (!p) {
    Problem const n = natural(ops);
    refuse(Status::kErrorInvalidLayout, "the operands are " + describe_layouts(n.a_row, n.b_row, n.c_row) + " (or, transposed, " +
                                            describe_layouts(!n.b_row, !n.a_row, !n.c_row) + "), but the kernel " + t.name + " takes " +
                                            describe_layouts(t.a_row, t.b_row, t.c_row) + ": choose a configuration with these layouts");
  }
  return *p;
}

std::size_t Dispatcher::KeyHash::operator()(Key const& key) const {
  std::size_t h = std::hash<std::uint64_t>{}(key.kind);
  for (std::int64_t v : {key.m, key.n, key.k}) h = h * 1000003u ^ std::hash<std::int64_t>{}(v);
  return h;
}

nb::tuple Dispatcher::question(nb::handle a, nb::handle b, nb::handle c, nb::handle d) {
  Problem const p = natural(read_operands(a, b, c, d));
  return nb::make_tuple(int(p.ab), int(p.c), p.a_row, p.b_row, p.device, tma_alignment(p), p.m, p.n, p.k, p.promoted,
                        d_transposable(p));
}

Dispatcher::Entry const& Dispatcher::choose(Problem const& p, int epilogue) {
  int const tma = tma_alignment(p);
  bool const transposable = d_transposable(p);
  // A batch is chosen for as one problem of all its rows: the same tiles to spread over the SMs.
  std::int64_t const rows = p.m * p.l;
  Key const key{std::uint64_t(p.ab) | std::uint64_t(p.c) << 4 | std::uint64_t(p.a_row) << 8 | std::uint64_t(p.b_row) << 9 |
                    std::uint64_t(tma > 0) << 10 | std::uint64_t(p.promoted) << 11 | std::uint64_t(transposable) << 12 |
                    std::uint64_t(p.rowwise) << 13 | std::uint64_t(tma == 16) << 14 | std::uint64_t(epilogue & 0xff) << 16 |
                    std::uint64_t(p.device) << 24,
                rows, p.n, p.k};
  auto it = kernels_.find(key);
  if (it == kernels_.end()) {
    if (!resolve_.is_valid() || resolve_.is_none()) throw nb::type_error("this Dispatcher has no kernel resolver");
    nb::object k =
        resolve_(int(p.ab), int(p.c), p.a_row, p.b_row, epilogue, p.device, tma, rows, p.n, p.k, p.promoted, transposable, p.rowwise);
    bool transpose = false;
    if (nb::isinstance<nb::tuple>(k) && nb::len(k) == 2 && nb::isinstance<bool>(k[1])) {
      transpose = nb::cast<bool>(k[1]);
      k = nb::borrow(k[0]);
    }
    if (!nb::isinstance<Kernel>(k)) throw nb::type_error("the kernel resolver must return a tessel._core.Kernel, or (Kernel, bool)");
    if (transpose && !transposable)
      refuse(Status::kErrorInternal, "the kernel resolver asked for D^T's problem where D cannot be transposed (a C, a batch or block scales)");
    Problem const q = transpose ? transpose_d(p) : p;
    KernelTraits const& t = nb::cast<Kernel&>(k).traits();
    if (t.ab != q.ab || t.c != q.c || t.a_row != q.a_row || t.b_row != q.b_row || !t.c_row || int(t.epilogue) != epilogue ||
        ((t.hopper || t.small_n.n8) && !tma) || (transpose && !t.hopper && !t.small_n.n8) ||
        // A ring accumulates every K step in f32 registers and reads any scales from its parameters:
        // it serves FP8 with fast or promoted accumulation, per-tensor or row-wise scales alike.
        (!t.small_n.n8 && (t.promoted != q.promoted || t.rowwise != q.rowwise)))
      refuse(Status::kErrorInternal, "the kernel resolver returned " + t.name + " for a problem it does not compute");
    if (kernels_.size() >= kMaxRemembered) kernels_.clear();
    it = kernels_.emplace(key, Entry{k, &nb::cast<Kernel&>(k), transpose}).first;
  }
  return it->second;
}

int Dispatcher::traverse(visitproc visit, void* arg) {
  Py_VISIT(resolve_.ptr());
  Py_VISIT(fallback_.ptr());
  Py_VISIT(acquire_.ptr());
  Py_VISIT(release_.ptr());
  for (auto& [key, entry] : kernels_) Py_VISIT(entry.owner.ptr());
  return 0;
}

void Dispatcher::drop_references() {
  kernels_.clear();
  resolve_.reset();
  fallback_.reset();
  acquire_.reset();
  release_.reset();
}

}  // namespace tessel::py
