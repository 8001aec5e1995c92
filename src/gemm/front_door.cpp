// tessel::gemm::gemm (tessel/gemm/front_door.hpp): the checks, the problem put in the kernels' form,
// the heuristic's choice among the shipped Hopper tiles, and the launch.
#include "tessel/gemm/front_door.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

#include "sm90_ops.hpp"
#include "small_n_ring.hpp"
#include "tessel/epilogue/linear_combination.hpp"
#include "tessel/gemm/dispatch/grouped_tile.hpp"
#include "tessel/gemm/dispatch/heuristic.hpp"
#include "tessel/gemm/dispatch/small_n_ring.hpp"

namespace tessel::gemm {

namespace front_door {

std::vector<Sm90Op> const& sm90_ops(DataType type, Activation act) {
  using A = Activation;
  static std::vector<Sm90Op> const table[2][4] = {
      {sm90_ops_f16(A::kIdentity), sm90_ops_f16(A::kReLU), sm90_ops_f16(A::kGeLU), sm90_ops_f16(A::kSiLU)},
      {sm90_ops_bf16(A::kIdentity), sm90_ops_bf16(A::kReLU), sm90_ops_bf16(A::kGeLU), sm90_ops_bf16(A::kSiLU)}};
  return table[type == DataType::kF16 ? 0 : 1][int(act)];
}

std::vector<Sm90Op> const& sm90_twin_ops(DataType type, Activation act) {
  using A = Activation;
  static std::vector<Sm90Op> const table[2][4] = {
      {sm90_twin_ops_f16(A::kIdentity), sm90_twin_ops_f16(A::kReLU), sm90_twin_ops_f16(A::kGeLU), sm90_twin_ops_f16(A::kSiLU)},
      {sm90_twin_ops_bf16(A::kIdentity), sm90_twin_ops_bf16(A::kReLU), sm90_twin_ops_bf16(A::kGeLU), sm90_twin_ops_bf16(A::kSiLU)}};
  return table[type == DataType::kF16 ? 0 : 1][int(act)];
}

std::vector<GroupedOp> const& grouped_ops(DataType type) {
  static std::vector<GroupedOp> const table[2] = {grouped_ops_f16(), grouped_ops_bf16()};
  return table[type == DataType::kF16 ? 0 : 1];
}

namespace {

char const* type_name(DataType t) { return t == DataType::kF16 ? "f16" : "bf16"; }
char const* layout_name(MatrixLayout l) { return l == MatrixLayout::kRowMajor ? "row-major" : "column-major"; }

bool valid_type(DataType t) { return t == DataType::kF16 || t == DataType::kBF16; }
bool valid_layout(MatrixLayout l) { return l == MatrixLayout::kRowMajor || l == MatrixLayout::kColumnMajor; }

/// The extent a matrix's leading dimension must cover: its columns if row-major, else its rows.
std::int64_t ld_floor(MatrixArgument const& x, int rows, int cols) {
  return x.layout == MatrixLayout::kRowMajor ? cols : rows;
}

StatusInfo check_matrix(char const* name, MatrixArgument const& x, int rows, int cols, DataType type, bool broadcast_row = false) {
  if (!valid_type(x.type) || !valid_layout(x.layout))
    return {Status::kErrorInvalidDataType, std::string(name) + " has an element type or layout value outside DataType / MatrixLayout"};
  if (x.type != type)
    return {Status::kErrorInvalidDataType, std::string(name) + " is " + type_name(x.type) + " but A is " + type_name(type) +
                                               ": tessel::gemm takes A, B, C and D of one type (f16 or bf16)"};
  if (!x.ptr) return {Status::kErrorInvalidProblem, std::string(name) + " is a null pointer: pass the device address of the matrix"};
  // NOTES: TMA takes strides below 2^40 bytes; the bound also keeps the checks below from overflowing.
  if (x.ld > (std::int64_t(1) << 38))
    return {Status::kErrorInvalidProblem, std::string("the leading dimension of ") + name + " (" + std::to_string(x.ld) +
                                              ") is above 2^38 elements, past what TMA addresses (2^40 bytes between rows)"};
  if (x.ld < ld_floor(x, rows, cols) && !(broadcast_row && x.ld == 0))
    return {Status::kErrorInvalidProblem, std::string("the leading dimension of ") + name + " (" + std::to_string(x.ld) +
                                              ") is smaller than its " + (x.layout == MatrixLayout::kRowMajor ? "column" : "row") +
                                              " count (" + std::to_string(ld_floor(x, rows, cols)) + ") for a " +
                                              layout_name(x.layout) + " " + std::to_string(rows) + " x " + std::to_string(cols) +
                                              " matrix"};
  // NOTES: TMA reads A and B, and the epilogue's vector stores write C and D, in 16-byte units.
  if (reinterpret_cast<std::uintptr_t>(x.ptr) % 16 != 0 || (x.ld * 2) % 16 != 0)
    return {Status::kErrorMisalignedOperand, std::string(name) + "'s address and leading dimension must be multiples of 16 bytes " +
                                                 "(8 elements of f16/bf16); its leading dimension is " + std::to_string(x.ld) +
                                                 ": pad it to a multiple of 8, or copy the matrix into an aligned buffer"};
  return {};
}

/// The arguments' rules, before any device is asked.
StatusInfo check_arguments(GemmArguments const& g) {
  if (g.m <= 0 || g.n <= 0 || g.k <= 0)
    return {Status::kErrorInvalidProblem, "problem size " + std::to_string(g.m) + " x " + std::to_string(g.n) + " x " +
                                              std::to_string(g.k) + " is empty or negative: M, N and K must all be positive"};
  if (!valid_type(g.A.type)) return {Status::kErrorInvalidDataType, "A's element type is not a DataType value (kF16 or kBF16)"};
  if (int(g.activation) < 0 || int(g.activation) > int(Activation::kSiLU))
    return {Status::kErrorNotSupported, "activation is not an Activation value (kIdentity, kReLU, kGeLU or kSiLU)"};
  DataType const t = g.A.type;
  if (auto s = check_matrix("A", g.A, g.m, g.k, t); !s.ok()) return s;
  if (auto s = check_matrix("B", g.B, g.k, g.n, t); !s.ok()) return s;
  if (auto s = check_matrix("D", g.D, g.m, g.n, t); !s.ok()) return s;
  if (g.beta != 0.f) {
    if (auto s = epilogue::check_source_present(g.beta, g.C.ptr); !s.ok()) return s;
    bool const bias = g.C.ld == 0;  // one row repeated over M
    if (bias && (g.C.layout != MatrixLayout::kRowMajor || g.D.layout != MatrixLayout::kRowMajor))
      return {Status::kErrorInvalidLayout, "C with leading dimension 0 (a bias row repeated over M) takes C and D row-major; "
                                           "for a column-major D, pass the bias as a full C"};
    if (auto s = check_matrix("C", g.C, g.m, g.n, t, bias); !s.ok()) return s;
    if (g.C.layout != g.D.layout)
      return {Status::kErrorInvalidLayout, std::string("C is ") + layout_name(g.C.layout) + " and D " + layout_name(g.D.layout) +
                                               ": give C in D's layout"};
  }
  if (g.A.layout != MatrixLayout::kRowMajor || g.B.layout != MatrixLayout::kColumnMajor)
    return {Status::kErrorInvalidLayout,
            std::string("A is ") + layout_name(g.A.layout) + " and B " + layout_name(g.B.layout) +
                ": tessel::gemm reads A row-major and B column-major (K contiguous in both, as x @ W.t() with W row-major); "
                "pass A^T's or B^T's storage as the other operand of D^T = B^T A^T, copy the operand, or run "
                "device::GemmUniversalAdapter with an MN-major operand"};
  return {};
}

/// The device's SM count, after checking that it is a Hopper GPU and the one asked for (-1: any).
StatusInfo device_facts(int requested, int& device, int& sm_count) {
  if (cudaGetDevice(&device) != cudaSuccess) {
    (void)cudaGetLastError();
    return {Status::kErrorNotSupported, "no CUDA device is visible: tessel::gemm runs on a Hopper GPU"};
  }
  if (requested >= 0 && requested != device)
    return {Status::kErrorInvalidProblem, "device " + std::to_string(requested) + " is not the current device (" +
                                              std::to_string(device) + "): the kernels launch on the current one; call "
                                              "cudaSetDevice(" + std::to_string(requested) + ") first, or pass -1"};
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return {Status::kErrorNotSupported, "CUDA device " + std::to_string(device) + " cannot be queried: pass a visible device"};
  }
  if (major != 9 || minor != 0)
    return {Status::kErrorArchMismatch, "tessel::gemm's kernels are Hopper's (compute capability 9.0); device " +
                                            std::to_string(device) + " is " + std::to_string(major) + "." + std::to_string(minor) +
                                            ": run device::Gemm (the Sm80 kernels) there"};
  return {};
}

/// The problem in the kernels' form: D row-major as given, or D^T = B^T A^T where D is column-major.
Sm90Problem kernel_form(GemmArguments const& g, int device, int sm_count) {
  Sm90Problem p;
  bool const dt = g.D.layout == MatrixLayout::kColumnMajor;
  p.m = dt ? g.n : g.m;
  p.n = dt ? g.m : g.n;
  p.k = g.k;
  p.a = dt ? g.B.ptr : g.A.ptr;  // B column-major (K x N) is B^T row-major (N x K)
  p.lda = dt ? g.B.ld : g.A.ld;
  p.b = dt ? g.A.ptr : g.B.ptr;  // A row-major (M x K) is the N' x K row-major B of D^T's problem
  p.ldb = dt ? g.A.ld : g.B.ld;
  p.c = g.beta != 0.f ? g.C.ptr : nullptr;
  p.ldc = g.beta != 0.f ? g.C.ld : g.D.ld;
  p.d = const_cast<void*>(g.D.ptr);
  p.ldd = g.D.ld;
  p.alpha = g.alpha;
  p.beta = g.beta;
  p.device = device;
  p.sm_count = sm_count;
  return p;
}

struct Picked {
  Sm90Op const* op = nullptr;  // null where the small-N ring runs the call
  DataType type = DataType::kBF16;
  Sm90Problem problem;
  std::string reason;

  std::string name() const {
    return op ? op->name() : dispatch::small_n_ring_name(problem.m, problem.n, problem.k, problem.sm_count, type_name(type));
  }
  StatusInfo can_implement() const { return op ? op->can_implement(problem) : small_n_ring_can_implement(type, problem); }
  std::size_t workspace_size() const { return op ? op->workspace_size(problem) : 0; }
  StatusInfo run(void* workspace, cudaStream_t stream) const {
    return op ? op->run(problem, workspace, stream) : small_n_ring_run(type, problem, stream);  // initialize() checks
  }
};

/// D^T's problem of a kernel-form problem: D^T = B^T A^T, N x M, its D stored column-major.
Sm90Problem transposed(Sm90Problem p) {
  std::swap(p.m, p.n);
  std::swap(p.a, p.b);
  std::swap(p.lda, p.ldb);
  p.d_column_major = !p.d_column_major;
  return p;
}

/// The heuristic's choice among `ops` for a problem in the kernels' form, or its D^T's where the
/// model says so and there is no C, with a workspace of `workspace_bytes`: the model's first where
/// its workspace fits, else the best of the rest on the same problem.
StatusInfo choose_op(std::vector<Sm90Op> const& ops, Sm90Problem const& p, bool transposable, bool straddles,
                     std::size_t workspace_bytes, std::size_t& index, bool& transpose_d, std::string& reason) {
  std::vector<dispatch::Candidate> all;
  for (Sm90Op const& op : ops) all.push_back(op.candidate);
  dispatch::Choice const best = dispatch::choose_oriented(all, transposable ? all : std::vector<dispatch::Candidate>{}, p.m, p.n,
                                                          p.k, p.sm_count, 2, straddles);
  transpose_d = best.transpose_d;
  Sm90Problem const q = transpose_d ? transposed(p) : p;
  std::size_t const wanted = ops[best.index].workspace_size(q);
  if (wanted <= workspace_bytes) {
    index = best.index;
    reason = best.reason;
    return {};
  }
  // The best kernel divides K and no workspace holds its partial tiles: the best of the rest.
  std::vector<dispatch::Candidate> fits;
  std::vector<std::size_t> fit_index;
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (ops[i].workspace_size(q) <= workspace_bytes) fits.push_back(all[i]), fit_index.push_back(i);
  if (fits.empty()) return {Status::kErrorWorkspaceNull, "every kernel for this problem needs a workspace: pass gemm_workspace_size's bytes"};
  dispatch::Choice const c = dispatch::choose(fits, q.m, q.n, q.k, q.sm_count, 2, straddles);
  index = fit_index[c.index];
  reason = (transpose_d ? "D^T = B^T A^T (D^T column-major): " : "") + c.reason + " (the model's first, " +
           dispatch::label(all[best.index]) + ", needs a workspace of " + std::to_string(wanted) + " bytes and " +
           std::to_string(workspace_bytes) + " were given)";
  return {};
}

// NOTES: the choice is remembered per problem (type, device, kernel-form M, N, K, workspace), as
// tessel.gemm's dispatcher does: the model and the workspace queries cost more than a launch.
// The memo forgets everything past kMaxRemembered problems, so a sweep cannot grow it unbounded.
struct MemoKey {
  int type, act, device, m, n, k;
  std::size_t workspace;
  bool transposable, straddles;
  bool operator==(MemoKey const&) const = default;
};
struct MemoHash {
  std::size_t operator()(MemoKey const& key) const {
    std::size_t h = std::hash<std::size_t>{}(key.workspace);
    for (int v : {key.type, key.act, key.device, key.m, key.n, key.k, int(key.transposable) | int(key.straddles) << 1})
      h = h * 1000003u ^ std::hash<int>{}(v);
    return h;
  }
};
struct MemoEntry {
  std::size_t index;
  bool transpose_d, ring;
  std::string reason;
  Sm90Op const* twin = nullptr;  // the chosen tile's cluster twin, run in its place
};

/// The twin of `op` among `twins` (the same tile and schedule), or null.
Sm90Op const* twin_of(Sm90Op const& op, std::vector<Sm90Op> const& twins) {
  if (!dispatch::has_cluster_twin(op.candidate)) return nullptr;
  for (Sm90Op const& t : twins)
    if (t.candidate.bm == op.candidate.bm && t.candidate.bn == op.candidate.bn && t.candidate.bk == op.candidate.bk &&
        t.candidate.schedule == op.candidate.schedule)
      return &t;
  return nullptr;
}
constexpr std::size_t kMaxRemembered = 4096;

StatusInfo pick(GemmArguments const& g, std::size_t workspace_bytes, Picked& out) {
  if (auto s = check_arguments(g); !s.ok()) return s;
  int device = 0, sms = 0;
  if (auto s = device_facts(g.device, device, sms); !s.ok()) return s;
  out.problem = kernel_form(g, device, sms);
  out.type = g.A.type;
  Sm90Problem const& p = out.problem;
  std::vector<Sm90Op> const& ops = sm90_ops(g.A.type, g.activation);
  static std::mutex mutex;
  static std::unordered_map<MemoKey, MemoEntry, MemoHash> memo;
  bool const transposable = g.beta == 0.f;  // a C would have to flip its layout too
  // 16-bit elements: the front door's types.
  bool const straddles = dispatch::rows_straddle_sectors(reinterpret_cast<std::uintptr_t>(p.a), p.lda * 2) ||
                         dispatch::rows_straddle_sectors(reinterpret_cast<std::uintptr_t>(p.b), p.ldb * 2);
  MemoKey const key{int(g.A.type), int(g.activation), device, p.m, p.n, p.k, workspace_bytes, transposable, straddles};
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = memo.find(key); it != memo.end()) {
      out.op = it->second.ring ? nullptr : it->second.twin ? it->second.twin : &ops[it->second.index];
      out.reason = it->second.reason;
      if (it->second.transpose_d) out.problem = transposed(p);
      return {};
    }
  }
  MemoEntry entry{0, false, false, {}};
  if (g.activation == Activation::kIdentity && small_n_ring_takes(g.A.type, p, transposable)) {
    entry.ring = true;
    entry.reason = dispatch::small_n_ring_reason(p.m, p.n, p.k, sms, type_name(g.A.type));
  } else if (auto s = choose_op(ops, p, transposable, straddles, workspace_bytes, entry.index, entry.transpose_d, entry.reason);
             !s.ok()) {
    return s;
  }
  if (!entry.ring && straddles) {
    entry.reason += dispatch::straddling_rows_reason();
    Sm90Problem const q = entry.transpose_d ? transposed(p) : p;
    dispatch::TwinTile const* tile = dispatch::cluster_twin_of(ops[entry.index].candidate);
    if (Sm90Op const* twin = twin_of(ops[entry.index], sm90_twin_ops(g.A.type, g.activation));
        twin && dispatch::twin_fits(*tile, q.m, q.n, sms) && twin->workspace_size(q) <= workspace_bytes && twin->can_implement(q).ok()) {
      entry.twin = twin;
      entry.reason += dispatch::cluster_twin_reason(tile->cluster_m, tile->cluster_n);
    }
  }
  out.op = entry.ring ? nullptr : entry.twin ? entry.twin : &ops[entry.index];
  out.reason = entry.reason;
  if (entry.transpose_d) out.problem = transposed(p);
  std::lock_guard<std::mutex> lock(mutex);
  if (memo.size() >= kMaxRemembered) memo.clear();
  memo.emplace(key, std::move(entry));
  return {};
}

/// The grouped call's rules, before any device is asked.
StatusInfo check_grouped(GroupedGemmArguments const& g) {
  if (g.groups < 1 || g.groups > 65535)
    return {Status::kErrorInvalidProblem, std::to_string(g.groups) + " groups: give 1 to 65535"};
  if (g.layout != GroupLayout::kContiguous && g.layout != GroupLayout::kMasked)
    return {Status::kErrorInvalidProblem, "layout is not a GroupLayout value (kContiguous or kMasked)"};
  bool const masked = g.layout == GroupLayout::kMasked;
  if (!g.group_m)
    return {Status::kErrorInvalidProblem, std::string("group_m is null: pass a device array of one int32 per group (") +
                                              (masked ? "each block's row count" : "the groups' end rows") + ")"};
  if (g.rows < 0 || g.n <= 0 || g.k <= 0)
    return {Status::kErrorInvalidProblem, "rows " + std::to_string(g.rows) + ", N " + std::to_string(g.n) + " and K " +
                                              std::to_string(g.k) + ": rows must be >= 0, N and K positive"};
  if (!valid_type(g.A.type)) return {Status::kErrorInvalidDataType, "A's element type is not a DataType value (kF16 or kBF16)"};
  DataType const t = g.A.type;
  int const rows = g.rows > 0 ? g.rows : 1;  // an empty A or D still needs a valid description
  if (auto s = check_matrix("A", g.A, rows, g.k, t); !s.ok()) return s;
  if (auto s = check_matrix("B", g.B, g.k, g.n, t); !s.ok()) return s;
  if (auto s = check_matrix("D", g.D, rows, g.n, t); !s.ok()) return s;
  if (g.A.layout != MatrixLayout::kRowMajor || g.D.layout != MatrixLayout::kRowMajor)
    return {Status::kErrorInvalidLayout, std::string("A is ") + layout_name(g.A.layout) + " and D " + layout_name(g.D.layout) +
                                             ": grouped_gemm takes A and D row-major (the groups are rows of A and D)"};
  for (auto [name, stride] : {std::pair{"batch_a", g.batch_a}, std::pair{"batch_b", g.batch_b}, std::pair{"batch_d", g.batch_d}}) {
    if (stride < 0)
      return {Status::kErrorInvalidProblem, std::string(name) + " is " + std::to_string(stride) + ": give an element stride >= 0"};
    if ((stride * 2) % 16 != 0)
      return {Status::kErrorMisalignedOperand, std::string(name) + " (" + std::to_string(stride) + " elements) must be a multiple "
                                               "of 16 bytes (8 elements of f16/bf16): TMA steps between groups in 16-byte units"};
  }
  if (g.bias_stride < 0)
    return {Status::kErrorInvalidProblem, "bias_stride is " + std::to_string(g.bias_stride) + ": give an element stride >= 0"};
  if (reinterpret_cast<std::uintptr_t>(g.bias) % 2 != 0)
    return {Status::kErrorMisalignedOperand, "the bias is not 2-byte aligned: pass an array of D's element type (f16 or bf16)"};
  if (masked && g.groups > 1 && g.batch_d < (std::int64_t(rows) - 1) * g.D.ld + g.n)
    return {Status::kErrorInvalidProblem, "batch_d (" + std::to_string(g.batch_d) + ") is smaller than one block of " +
                                              std::to_string(rows) + " rows of D: the groups' blocks would overlap"};
  return {};
}

struct GroupedPicked {
  GroupedOp const* op = nullptr;
  int device = 0, sm_count = 0;
  std::string reason;
};

StatusInfo pick_grouped(GroupedGemmArguments const& g, GroupedPicked& out) {
  if (auto s = check_grouped(g); !s.ok()) return s;
  if (auto s = device_facts(g.device, out.device, out.sm_count); !s.ok()) return s;
  bool const masked = g.layout == GroupLayout::kMasked;
  int const bn = dispatch::grouped_tile_n(g.rows, g.n, g.groups, masked, out.sm_count);
  bool const b_k_major = g.B.layout == MatrixLayout::kColumnMajor;
  for (GroupedOp const& op : grouped_ops(g.A.type))
    if (op.bn == bn && op.b_k_major == b_k_major) out.op = &op;
  std::int64_t const wide = dispatch::grouped_wide_tiles(g.rows, g.n, g.groups, masked);
  out.reason = "128 x " + std::to_string(bn) + " cooperative on the grouped scheduler: at most " + std::to_string(wide) +
               " tiles of 128 x 256 for " + std::to_string(out.sm_count) + " SMs, " +
               (bn == 256 ? "enough to fill them twice (the widest tile reads A least often)"
                          : "fewer than twice their number (the narrower tile makes twice as many)");
  return {};
}

}  // namespace
}  // namespace front_door

StatusInfo grouped_gemm_can_implement(GroupedGemmArguments const& args) {
  front_door::GroupedPicked p;
  if (auto s = front_door::pick_grouped(args, p); !s.ok()) return s;
  return args.rows == 0 ? StatusInfo{} : p.op->can_implement(args, p.device, p.sm_count);
}

StatusInfo grouped_gemm_choice(GroupedGemmArguments const& args, GemmChoice& choice) {
  front_door::GroupedPicked p;
  if (auto s = front_door::pick_grouped(args, p); !s.ok()) return s;
  if (args.rows > 0)
    if (auto s = p.op->can_implement(args, p.device, p.sm_count); !s.ok()) return s;
  choice = {p.op->name(), p.reason, 0};
  return {};
}

StatusInfo grouped_gemm(GroupedGemmArguments const& args, cudaStream_t stream) {
  front_door::GroupedPicked p;
  if (auto s = front_door::pick_grouped(args, p); !s.ok()) return s;
  if (args.rows == 0) return {};  // no row belongs to any group: nothing to write
  return p.op->run(args, p.device, p.sm_count, stream);
}

StatusInfo gemm_can_implement(GemmArguments const& args) {
  front_door::Picked p;
  if (auto s = front_door::pick(args, SIZE_MAX, p); !s.ok()) return s;
  return p.can_implement();
}

StatusInfo gemm_choice(GemmArguments const& args, GemmChoice& choice, std::size_t workspace_bytes) {
  front_door::Picked p;
  if (auto s = front_door::pick(args, workspace_bytes, p); !s.ok()) return s;
  if (auto s = p.can_implement(); !s.ok()) return s;
  choice = {p.name(), p.reason, p.workspace_size()};
  return {};
}

StatusInfo gemm_workspace_size(GemmArguments const& args, std::size_t& bytes) {
  GemmChoice c;
  if (auto s = gemm_choice(args, c); !s.ok()) return s;
  bytes = c.workspace_bytes;
  return {};
}

StatusInfo gemm(GemmArguments const& args, cudaStream_t stream, void* workspace, std::size_t workspace_bytes) {
  front_door::Picked p;
  if (auto s = front_door::pick(args, workspace ? workspace_bytes : 0, p); !s.ok()) return s;
  return p.run(workspace, stream);
}

}  // namespace tessel::gemm
