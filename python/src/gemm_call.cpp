// tessel.gemm's per-call path, all in one call into C++: the arguments, D's allocation, the
// stream, the operand checks, the kernel choice and the launch. What it does not read itself (a
// configuration, dtype or epilogue names it does not know, arrays that are not PyTorch tensors
// without `out`) goes to the Python version in tessel/gemm.py, which also words the refusals.
#include <array>

#include "dispatcher.hpp"
#include "torch_tensor.hpp"

namespace tessel::py {

namespace {

// PyTorch's objects this file uses, found once PyTorch is imported.
struct Torch {
  std::array<PyObject*, 3> dtypes{};   // by Element: torch.float16, torch.bfloat16, torch.float32
  PyObject* raw_stream = nullptr;      // torch._C._cuda_getCurrentRawStream, where it exists
  PyObject* new_empty_strided = nullptr;
  PyObject* kw_dtype = nullptr;        // ("dtype",)
  PyObject* data_ptr = nullptr;
};

Torch const* torch_objects() {
  static Torch t;
  static bool found = false;
  if (found) return &t;
  PyObject* torch = PyImport_GetModule(nb::str("torch").ptr());
  if (!torch) {
    PyErr_Clear();
    return nullptr;
  }
  char const* names[] = {"float16", "bfloat16", "float32"};
  for (int i = 0; i < 3; ++i) t.dtypes[i] = PyObject_GetAttrString(torch, names[i]);
  if (PyObject* c = PyObject_GetAttrString(torch, "_C")) {
    t.raw_stream = PyObject_GetAttrString(c, "_cuda_getCurrentRawStream");
    Py_DECREF(c);
  }
  PyErr_Clear();
  Py_DECREF(torch);
  t.new_empty_strided = PyUnicode_InternFromString("new_empty_strided");
  t.data_ptr = PyUnicode_InternFromString("data_ptr");
  t.kw_dtype = PyTuple_Pack(1, PyUnicode_InternFromString("dtype"));
  for (PyObject* d : t.dtypes)
    if (!d) return nullptr;
  found = true;  // everything above is kept for the life of the process
  return &t;
}

// The element type of out_dtype when it is a torch.dtype tessel writes; nullopt otherwise.
std::optional<Element> torch_element(Torch const* t, nb::handle dtype) {
  for (int i = 0; t && i < 3; ++i)
    if (dtype.ptr() == t->dtypes[i]) return Element(i);
  return std::nullopt;
}

// The epilogue code of None or one of the names; -1 for anything else.
int epilogue_code(nb::handle e) {
  if (e.is_none()) return 0;
  if (!PyUnicode_Check(e.ptr())) return -1;
  char const* names[] = {"linear", "relu", "gelu", "silu"};
  for (int i = 0; i < 4; ++i)
    if (PyUnicode_CompareWithASCIIString(e.ptr(), names[i]) == 0) return i;
  return -1;
}

// D for torch operands: rows x cols like A (its device), row-major or column-major.
nb::object allocate(Torch const* t, nb::handle like, std::int64_t rows, std::int64_t cols, Element e, bool row_major) {
  nb::object size = nb::make_tuple(rows, cols);
  nb::object stride = row_major ? nb::make_tuple(cols, 1) : nb::make_tuple(1, rows);
  PyObject* args[] = {like.ptr(), size.ptr(), stride.ptr(), t->dtypes[int(e)]};
  PyObject* d = PyObject_VectorcallMethod(t->new_empty_strided, args, 3, t->kw_dtype);
  if (!d) throw nb::python_error();
  return nb::steal(d);
}

std::uintptr_t stream_handle(Torch const* t, nb::handle stream, int device, bool torch_cuda) {
  if (!stream.is_none()) {
    nb::handle s = stream;
    nb::object attr;
    if (nb::hasattr(stream, "cuda_stream")) {
      attr = stream.attr("cuda_stream");
      s = attr;
    }
    std::uintptr_t handle = 0;
    if (PyBool_Check(s.ptr()) || !nb::try_cast(s, handle, false)) {
      throw nb::type_error("tessel.gemm: stream must be a CUDA stream handle (a non-negative int) or an object with "
                           ".cuda_stream such as torch.cuda.Stream");
    }
    return handle;
  }
  if (!torch_cuda || !t) return 0;  // the legacy default stream, for DLPack producers without a stream API
  if (t->raw_stream) {
    PyObject* r = PyObject_CallOneArg(t->raw_stream, nb::int_(device).ptr());
    if (!r) throw nb::python_error();
    return nb::cast<std::uintptr_t>(nb::steal(r));
  }
  return nb::cast<std::uintptr_t>(nb::module_::import_("torch").attr("cuda").attr("current_stream")(device).attr("cuda_stream"));
}

}  // namespace

nb::object Dispatcher::gemm(nb::handle a, nb::handle b, nb::handle c, double alpha, double beta, nb::handle out_dtype, nb::handle epilogue,
                            nb::handle config, nb::handle out, nb::handle stream) {
  Torch const* t = torch_objects();
  int const epi = epilogue_code(epilogue);
  std::optional<Element> out_element = torch_element(t, out_dtype);
  bool const allocates = out.is_none();
  if (!config.is_none() || epi < 0 || (!out_dtype.is_none() && !out_element) || (allocates && (!t || !is_torch_tensor(a)))) {
    if (!fallback_.is_valid() || fallback_.is_none()) throw nb::type_error("this Dispatcher has no Python fallback");
    return fallback_(a, b, c, alpha, beta, out_dtype, epilogue, config, out, stream);
  }
  Matrix ma = read_matrix(a, "A"), mb = read_matrix(b, "B");
  std::optional<Matrix> mc;
  if (!c.is_none()) mc = read_matrix(c, "C");
  nb::object d;
  Matrix md;
  if (allocates) {
    // D takes C's element type and layout when C is given, else A's type, row-major.
    Element e = out_element ? *out_element : mc && mc->element ? *mc->element : ma.element ? *ma.element : Element::f16;
    if ((!out_element && ((mc && !mc->element) || (!mc && !ma.element))) || int(e) >= int(t->dtypes.size())) {
      // A type tessel does not write (FP8 A without out_dtype among them): the operand checks in
      // Python say so, on a D of A's or C's type.
      return fallback_(a, b, c, alpha, beta, out_dtype, epilogue, config, out, stream);
    }
    bool const row = !(mc && mc->rows > 1 && mc->strides[0] == 1 && mc->strides[1] != 1);
    d = allocate(t, a, ma.rows, mb.cols, e, row);
    nb::object ptr = nb::steal(PyObject_CallMethodNoArgs(d.ptr(), t->data_ptr));
    if (!ptr.is_valid()) throw nb::python_error();
    md = make_matrix("D", PyLong_AsVoidPtr(ptr.ptr()), element_name(e), ma.rows, mb.cols, row ? mb.cols : 1, row ? 1 : ma.rows,
                     ma.device_type, ma.device_id);
  } else {
    d = nb::borrow(out);
    md = read_matrix(out, "D");
    if (out_element && md.element != out_element)
      throw nb::value_error(("tessel.gemm: out_dtype is " + std::string(element_name(*out_element)) + " but out is " + md.dtype +
                             ": D is written in out's type; leave out_dtype out or give out of that type")
                                .c_str());
  }
  Operands const ops = check_operands(std::move(ma), std::move(mb), std::move(mc), std::move(md));
  std::uintptr_t const s = stream_handle(t, stream, ops.device, is_torch_tensor(d) && ops.d.device_type == 2);
  launch(natural(ops), epi, float(alpha), float(beta), s);
  return d;
}

}  // namespace tessel::py
