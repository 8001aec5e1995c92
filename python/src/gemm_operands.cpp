#include "gemm_operands.hpp"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessel::py {

namespace {

[[noreturn]] void refuse(Status s, std::string message) { throw StatusError{{s, std::move(message)}}; }

std::string dtype_name(nb::dlpack::dtype t) {
  // DLPack's FP8 codes (kDLFloat8_e4m3fn = 10, kDLFloat8_e5m2 = 12), spelled as PyTorch spells the
  // two FP8 types the kernels take.
  if (t.bits == 8 && t.lanes == 1 && (t.code == 10 || t.code == 12)) return t.code == 10 ? "float8_e4m3fn" : "float8_e5m2";
  std::string base;
  switch (t.code) {
    case std::uint8_t(nb::dlpack::dtype_code::Int): base = "int"; break;
    case std::uint8_t(nb::dlpack::dtype_code::UInt): base = "uint"; break;
    case std::uint8_t(nb::dlpack::dtype_code::Float): base = "float"; break;
    case std::uint8_t(nb::dlpack::dtype_code::Bfloat): base = "bfloat"; break;
    case std::uint8_t(nb::dlpack::dtype_code::Complex): base = "complex"; break;
    case std::uint8_t(nb::dlpack::dtype_code::Bool): return "bool";
    default: base = "dtype code " + std::to_string(t.code) + " of ";
  }
  std::string out = base + std::to_string(t.bits);
  if (t.lanes != 1) out += "x" + std::to_string(t.lanes);
  return out;
}

std::string device_name(int type) {
  switch (type) {
    case 1: return "the CPU";
    case 2: return "a CUDA device";
    case 3: return "pinned host memory";
    case 13: return "CUDA managed memory";
    default: return "DLPack device type " + std::to_string(type);
  }
}

std::int64_t round_up(std::int64_t v, std::int64_t to) { return (v + to - 1) / to * to; }

std::string shape_text(Matrix const& m) { return std::to_string(m.rows) + " x " + std::to_string(m.cols); }

// Which matrix layouts strides (s0, s1) of a rows x cols operand allow. Row-major: consecutive
// elements of a row are adjacent (s1 == 1) and rows do not overlap (s0 >= cols). A single row or
// column leaves the other stride free; its leading dimension is then chosen, a multiple of 16
// elements (a 16-byte vector of every element type), so that only the true extent can be misaligned.
void classify(Matrix& m, std::int64_t s0, std::int64_t s1) {
  if (s0 < 0 || s1 < 0) return;
  m.row_ok = (s1 == 1 || m.cols <= 1) && (m.rows <= 1 || s0 >= m.cols);
  m.col_ok = (s0 == 1 || m.rows <= 1) && (m.cols <= 1 || s1 >= m.rows);
  m.ld_row = m.rows <= 1 ? round_up(std::max<std::int64_t>(m.cols, 1), 16) : s0;
  m.ld_col = m.cols <= 1 ? round_up(std::max<std::int64_t>(m.rows, 1), 16) : s1;
  // A single column is a column-major matrix whatever its row stride says (its leading dimension
  // is then free), and a single row a row-major one.
  m.prefers_row = m.row_ok && (m.cols == 1 && m.rows > 1 ? !m.col_ok : (s1 == 1 || !m.col_ok));
}

// C may repeat one row over M (strides (0, 1): a bias broadcast with expand) or one column over
// N (strides (1, 0)): the kernels read C at row * ldc + col, so ldc 0 reads the same row each
// time. Only C: A and B go through TMA, which takes no zero stride, and D is written.
void allow_repeated_c(Matrix& m) {
  if (m.rows > 1 && m.cols > 1 && m.strides[0] == 0 && m.strides[1] == 1) {
    m.row_ok = true;
    m.ld_row = 0;
    m.prefers_row = true;
  } else if (m.rows > 1 && m.cols > 1 && m.strides[0] == 1 && m.strides[1] == 0) {
    m.col_ok = true;
    m.ld_col = 0;
    m.prefers_row = false;
  }
}

}  // namespace

char const* element_name(Element e) {
  switch (e) {
    case Element::f16: return "float16";
    case Element::bf16: return "bfloat16";
    case Element::f32: return "float32";
    case Element::e4m3: return "float8_e4m3fn";
    case Element::e5m2: return "float8_e5m2";
    case Element::tf32: return "float32 (TF32)";
  }
  return "?";
}

namespace {

std::optional<Element> element_named(std::string const& dtype) {
  if (dtype == "float16") return Element::f16;
  if (dtype == "bfloat16") return Element::bf16;
  if (dtype == "float32") return Element::f32;
  if (dtype == "float8_e4m3fn") return Element::e4m3;
  if (dtype == "float8_e5m2") return Element::e5m2;
  return {};
}

// The operand as DLPack describes it (the general path).
bool read_dlpack(nb::handle obj, TensorView& v) {
  nb::ndarray<> arr;
  if (!nb::try_cast(obj, arr)) return false;
  v.data = arr.data();
  v.dtype = dtype_name(arr.dtype());  // "float16x2" for a vector type: no element type then
  v.device_type = arr.device_type();
  v.device_id = arr.device_id();
  v.ndim = static_cast<int>(arr.ndim());
  if (v.ndim == 2) {
    for (int i = 0; i < 2; ++i) {
      v.shape[i] = static_cast<std::int64_t>(arr.shape(i));
      v.strides[i] = arr.stride(i);
    }
  }
  return true;
}

}  // namespace

bool describe(nb::handle obj, bool via_torch, TensorView& out) {
  std::string why;
  return via_torch ? read_torch_tensor(obj, out, why) == TorchRead::kRead : read_dlpack(obj, out);
}

Matrix read_matrix(nb::handle obj, char const* name) {
  TensorView v;
  std::string why;
  TorchRead const t = read_torch_tensor(obj, v, why);
  if (t == TorchRead::kRefused) refuse(Status::kErrorNotSupported, std::string(name) + " " + why);
  if (t == TorchRead::kNotTorch && !read_dlpack(obj, v)) {
    refuse(Status::kErrorInvalidDataType, std::string(name) + " is a " + nb::type_name(obj.type()).c_str() +
                                              ", not an array: pass a tensor (any object with __dlpack__)");
  }
  Matrix m;
  m.name = name;
  m.dtype = v.dtype;
  m.element = element_named(v.dtype);
  m.device_type = v.device_type;
  m.device_name = v.device_name;
  m.device_id = v.device_id;
  if (v.ndim != 2) {
    refuse(Status::kErrorInvalidProblem, std::string(name) + " has " + std::to_string(v.ndim) +
                                             " dimensions: tessel.gemm multiplies matrices (2 dimensions)");
  }
  m.rows = v.shape[0];
  m.cols = v.shape[1];
  m.data = v.data;
  m.strides[0] = v.strides[0];
  m.strides[1] = v.strides[1];
  classify(m, v.strides[0], v.strides[1]);
  if (std::string_view(name) == "C") allow_repeated_c(m);
  if (!m.row_ok && !m.col_ok) {
    refuse(Status::kErrorInvalidLayout,
           std::string(name) + " (" + shape_text(m) + ") has strides (" + std::to_string(v.strides[0]) + ", " +
               std::to_string(v.strides[1]) + "): neither row-major (stride 1 along the columns) nor column-major (stride 1 "
               "along the rows); pass a contiguous copy (.contiguous()) or its transpose");
  }
  return m;
}

Matrix make_matrix(char const* name, void* data, std::string dtype, std::int64_t rows, std::int64_t cols, std::int64_t s0,
                   std::int64_t s1, int device_type, int device_id) {
  Matrix m;
  m.name = name;
  m.data = data;
  m.element = element_named(dtype);
  m.dtype = std::move(dtype);
  m.rows = rows;
  m.cols = cols;
  m.device_type = device_type;
  m.device_id = device_id;
  m.strides[0] = s0;
  m.strides[1] = s1;
  classify(m, s0, s1);
  return m;
}

Operands read_operands(nb::handle a, nb::handle b, nb::handle c, nb::handle d, bool tf32) {
  Matrix ma = read_matrix(a, "A"), mb = read_matrix(b, "B"), md = read_matrix(d, "D");
  std::optional<Matrix> mc;
  if (!c.is_none()) mc = read_matrix(c, "C");
  return check_operands(std::move(ma), std::move(mb), std::move(mc), std::move(md), tf32);
}

Operands check_operands(Matrix a, Matrix b, std::optional<Matrix> c, Matrix d, bool tf32) {
  Operands ops{std::move(a), std::move(b), std::move(d), std::move(c)};
  // Devices first: nothing else can be checked against memory the GPU cannot reach.
  std::vector<Matrix const*> all{&ops.a, &ops.b, &ops.d};
  if (ops.c) all.insert(all.begin() + 2, &*ops.c);
  for (Matrix const* m : all) {
    if (m->device_type != 2 && m->device_type != 13)
      refuse(Status::kErrorInvalidProblem, std::string(m->name) + " is on " +
                                               (m->device_type == 0 ? "the " + m->device_name + " device" : device_name(m->device_type)) +
                                               ": tessel.gemm runs on CUDA tensors");
  }
  ops.device = ops.a.device_id;
  for (Matrix const* m : all) {
    if (m->device_id != ops.device)
      refuse(Status::kErrorInvalidProblem, std::string(m->name) + " is on CUDA device " + std::to_string(m->device_id) + " but A is on device " +
                                               std::to_string(ops.device) + ": put all operands on one device");
  }
  if (ops.a.cols != ops.b.rows)
    refuse(Status::kErrorInvalidProblem, "A is " + shape_text(ops.a) + " and B is " + shape_text(ops.b) +
                                             ": the columns of A (K) must equal the rows of B");
  for (Matrix const* m : {&ops.d, ops.c ? &*ops.c : nullptr}) {
    if (m && (m->rows != ops.a.rows || m->cols != ops.b.cols))
      refuse(Status::kErrorInvalidProblem, std::string(m->name) + " is " + shape_text(*m) + " but A @ B is " + std::to_string(ops.a.rows) +
                                               " x " + std::to_string(ops.b.cols));
  }
  if (!ops.a.element || !ops.b.element || (!tf32 && (ops.a.element == Element::f32 || ops.b.element == Element::f32)))
    refuse(Status::kErrorInvalidDataType, "A is " + ops.a.dtype + " and B is " + ops.b.dtype +
                                              ": the tensor-core kernels take float16, bfloat16 or FP8 (float8_e4m3fn, float8_e5m2) A "
                                              "and B; float32 runs on TF32 tensor cores through tessel.matmul, tessel.ops.mm and "
                                              "tessel.nn.Linear where torch.backends.cuda.matmul.allow_tf32 is True");
  if (*ops.a.element != *ops.b.element)
    refuse(Status::kErrorInvalidDataType, "A is " + ops.a.dtype + " but B is " + ops.b.dtype + ": A and B must have the same element type");
  if (tf32 && ops.a.element == Element::f32) ops.a.element = ops.b.element = Element::tf32;
  bool const fp8 = ops.a.element == Element::e4m3 || ops.a.element == Element::e5m2;
  if (!ops.d.element || ops.d.element == Element::e4m3 || ops.d.element == Element::e5m2)
    refuse(Status::kErrorInvalidDataType, "D is " + ops.d.dtype + ": the output must be float32, float16 or bfloat16" +
                                              (fp8 ? std::string(" (FP8 A and B: pass out_dtype=torch.bfloat16, or an out= of one of these)")
                                                   : std::string()));
  if (ops.c && ops.c->element != ops.d.element)
    refuse(Status::kErrorInvalidDataType, "C is " + ops.c->dtype + " but D is " + ops.d.dtype + ": C and D must have the same element type");
  return ops;
}

namespace {

Problem make_problem(Operands const& ops, bool transpose, bool a_row, bool b_row, bool c_row) {
  Problem p;
  p.device = ops.device;
  p.ab = *ops.a.element;
  p.c = *ops.d.element;
  p.a_row = a_row;
  p.b_row = b_row;
  p.c_row = c_row;
  p.k = ops.a.cols;
  // D^T = B^T A^T: B^T is the new A, A^T the new B; a matrix and its transpose share memory
  // and leading dimension, with the layout flipped.
  Matrix const& na = transpose ? ops.b : ops.a;
  Matrix const& nb_ = transpose ? ops.a : ops.b;
  p.m = transpose ? ops.b.cols : ops.a.rows;
  p.n = transpose ? ops.a.rows : ops.b.cols;
  p.a = na.data;
  p.b = nb_.data;
  p.d = ops.d.data;
  p.c_ptr = ops.c ? ops.c->data : nullptr;
  // The layout of an operand as stored: flipped back when the problem is transposed.
  p.lda = (a_row != transpose) ? na.ld_row : na.ld_col;
  p.ldb = (b_row != transpose) ? nb_.ld_row : nb_.ld_col;
  p.ldd = (c_row != transpose) ? ops.d.ld_row : ops.d.ld_col;
  p.ldc = ops.c ? ((c_row != transpose) ? ops.c->ld_row : ops.c->ld_col) : 0;
  p.transposed = transpose;
  return p;
}

bool allows(Matrix const& m, bool row) { return row ? m.row_ok : m.col_ok; }

bool fits(Operands const& ops, bool transpose, bool a_row, bool b_row, bool c_row) {
  Matrix const& na = transpose ? ops.b : ops.a;
  Matrix const& nb_ = transpose ? ops.a : ops.b;
  bool ok = allows(na, a_row != transpose) && allows(nb_, b_row != transpose) && allows(ops.d, c_row != transpose);
  return ok && (!ops.c || allows(*ops.c, c_row != transpose));
}

}  // namespace

std::optional<Problem> fit(Operands const& ops, bool a_row, bool b_row, bool c_row) {
  for (bool transpose : {false, true}) {
    if (fits(ops, transpose, a_row, b_row, c_row)) return make_problem(ops, transpose, a_row, b_row, c_row);
  }
  return std::nullopt;
}

Problem natural(Operands const& ops) {
  // D decides: its preferred layout, and C must share it (one layout tag serves both).
  bool d_row = ops.d.prefers_row;
  if (ops.c && !allows(*ops.c, d_row)) {
    if (allows(*ops.c, !d_row) && allows(ops.d, !d_row)) {
      d_row = !d_row;
    } else {
      refuse(Status::kErrorInvalidLayout, std::string("C is ") + (ops.c->prefers_row ? "row" : "column") + "-major but D is " +
                                              (d_row ? "row" : "column") + "-major: C and D must have the same layout");
    }
  }
  bool const transpose = !d_row;
  Matrix const& na = transpose ? ops.b : ops.a;
  Matrix const& nb_ = transpose ? ops.a : ops.b;
  // An operand's stored layout in the transposed problem is the opposite one.
  bool const a_row = na.prefers_row != transpose;
  bool const b_row = nb_.prefers_row != transpose;
  return make_problem(ops, transpose, a_row, b_row, true);
}

bool d_transposable(Problem const& p) {
  return p.c_row && !p.d_column_major && p.l == 1 && !p.c_ptr && !p.block_scaled && !p.group_m;
}

Problem transpose_d(Problem p) {
  std::swap(p.a, p.b);
  std::swap(p.lda, p.ldb);
  std::swap(p.m, p.n);
  std::swap(p.scale_a, p.scale_b);
  std::swap(p.sfa, p.sfb);  // row-wise scales go with their operands (block scales never get here)
  std::swap(p.batch_a, p.batch_b);
  // A^T of a row-major A is column-major, and so on: the new A is B^T, the new B is A^T.
  bool const a_row = !p.b_row, b_row = !p.a_row;
  p.a_row = a_row;
  p.b_row = b_row;
  p.transposed = !p.transposed;
  p.d_column_major = true;
  return p;
}

std::string describe_layouts(bool a_row, bool b_row, bool c_row) {
  auto w = [](bool row) { return row ? "row-major" : "column-major"; };
  return std::string("A ") + w(a_row) + ", B " + w(b_row) + ", D " + w(c_row);
}

}  // namespace tessel::py
