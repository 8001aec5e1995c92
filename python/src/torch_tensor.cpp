#include "torch_tensor.hpp"

#include <utility>
#include <vector>

namespace tessel::py {

namespace {

// The torch.Tensor type, once PyTorch has been imported by someone; never imported from here.
PyTypeObject* tensor_type() {
  static PyTypeObject* type = nullptr;
  if (!type) {
    PyObject* torch = PyImport_GetModule(nb::str("torch").ptr());
    if (!torch) {
      PyErr_Clear();
      return nullptr;
    }
    PyObject* t = PyObject_GetAttrString(torch, "Tensor");
    Py_DECREF(torch);
    if (!t || !PyType_Check(t)) {
      Py_XDECREF(t);
      PyErr_Clear();
      return nullptr;
    }
    type = reinterpret_cast<PyTypeObject*>(t);  // kept for the life of the process
  }
  return type;
}

PyObject* interned(char const* s) { return PyUnicode_InternFromString(s); }

// An attribute of torch.Tensor: its name, and the descriptor the class defines for it (a
// getset_descriptor or a method_descriptor of torch._C.TensorBase). On a tensor whose type is
// exactly torch.Tensor the descriptor is called directly, skipping the attribute lookup and, for
// a method, the bound-method object: the same answer, for a fraction of the time a call pays for
// each of the operands' eight reads.
struct Attr {
  PyObject* name = nullptr;
  PyObject* descr = nullptr;  // nullptr: always look the name up
};

Attr attr(char const* name) {
  Attr a{interned(name), nullptr};
  PyTypeObject* type = tensor_type();
  if (!type) return a;
  PyObject* d = PyObject_GetAttr(reinterpret_cast<PyObject*>(type), a.name);
  if (d && (Py_IS_TYPE(d, &PyGetSetDescr_Type) || Py_IS_TYPE(d, &PyMethodDescr_Type))) {
    a.descr = d;  // kept for the life of the process
  } else {
    Py_XDECREF(d);
    PyErr_Clear();
  }
  return a;
}

// obj.name as a new reference, or nullptr.
PyObject* get(PyObject* obj, Attr const& a) {
  if (a.descr && Py_IS_TYPE(obj, tensor_type()) && Py_IS_TYPE(a.descr, &PyGetSetDescr_Type))
    return Py_TYPE(a.descr)->tp_descr_get(a.descr, obj, reinterpret_cast<PyObject*>(Py_TYPE(obj)));
  return PyObject_GetAttr(obj, a.name);
}

// obj.name() as a new reference, or nullptr.
PyObject* call0(PyObject* obj, Attr const& a) {
  if (a.descr && Py_IS_TYPE(obj, tensor_type()) && Py_IS_TYPE(a.descr, &PyMethodDescr_Type)) {
    PyObject* args[] = {obj};
    return PyObject_Vectorcall(a.descr, args, 1, nullptr);
  }
  return PyObject_CallMethodNoArgs(obj, a.name);
}

bool read_pair(PyObject* seq, std::int64_t (&out)[2]) {
  if (!PyTuple_Check(seq) || PyTuple_GET_SIZE(seq) != 2) return false;
  for (int i = 0; i < 2; ++i) {
    out[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(seq, i));
    if (out[i] == -1 && PyErr_Occurred()) return false;
  }
  return true;
}

// "float16" for torch.float16: the dtype objects are singletons, so each is named once.
bool dtype_name(PyObject* dtype, std::string& out) {
  static std::vector<std::pair<PyObject*, std::string>> names;
  for (auto const& [d, name] : names) {
    if (d == dtype) {
      out = name;
      return true;
    }
  }
  nb::object text = nb::steal(PyObject_Str(dtype));  // "torch.float16"
  if (!text.is_valid()) return false;
  std::string s = PyUnicode_AsUTF8(text.ptr());
  out = s.rfind("torch.", 0) == 0 ? s.substr(6) : s;
  Py_INCREF(dtype);  // kept with its name for the life of the process
  names.emplace_back(dtype, out);
  return true;
}

TorchRead read(PyObject* obj, TensorView& v, std::string& why) {
  static Attr const s_is_neg = attr("is_neg");
  static Attr const s_is_conj = attr("is_conj");
  static Attr const s_data_ptr = attr("data_ptr");
  static Attr const s_stride = attr("stride");
  static Attr const s_shape = attr("shape");
  static Attr const s_dtype = attr("dtype");
  static Attr const s_is_cuda = attr("is_cuda");
  static Attr const s_get_device = attr("get_device");
  static Attr const s_device = attr("device");
  static PyObject* const s_type = interned("type");
  static Attr const s_requires_grad = attr("requires_grad");

  constexpr TorchRead no = TorchRead::kNotTorch;
  // What the DLPack export refuses, refused alike: it does not drop a gradient silently, and
  // cannot express a negated view (or a conjugated one, which only complex tensors can be).
  nb::object grad = nb::steal(get(obj, s_requires_grad));
  if (!grad.is_valid()) return no;
  if (grad.ptr() != Py_False) {
    why = "requires grad, and tessel.gemm records no autograd graph: pass .detach()";
    return TorchRead::kRefused;
  }
  nb::object dtype = nb::steal(get(obj, s_dtype));
  if (!dtype.is_valid() || !dtype_name(dtype.ptr(), v.dtype)) return no;
  bool const complex = v.dtype.rfind("complex", 0) == 0;
  for (Attr const* flag : {&s_is_neg, &s_is_conj}) {
    if (flag == &s_is_conj && !complex) continue;
    nb::object set = nb::steal(call0(obj, *flag));
    if (!set.is_valid()) return no;
    if (set.ptr() != Py_False) {
      why = flag == &s_is_neg ? "is a negated view: pass .resolve_neg()" : "is a conjugated view: pass .resolve_conj()";
      return TorchRead::kRefused;
    }
  }

  // The device: is_cuda and get_device() are plain values; the device object is built only for
  // the message about a tensor that is not on a CUDA device.
  nb::object is_cuda = nb::steal(get(obj, s_is_cuda));
  if (!is_cuda.is_valid()) return no;
  if (is_cuda.ptr() == Py_True) {
    nb::object index = nb::steal(call0(obj, s_get_device));
    if (!index.is_valid()) return no;
    v.device_type = 2;
    v.device_name = "cuda";
    v.device_id = static_cast<int>(PyLong_AsLong(index.ptr()));
  } else {
    nb::object device = nb::steal(get(obj, s_device));
    nb::object type = device.is_valid() ? nb::steal(PyObject_GetAttr(device.ptr(), s_type)) : nb::object();
    if (!type.is_valid() || !PyUnicode_Check(type.ptr())) return no;
    v.device_name = PyUnicode_AsUTF8(type.ptr());
    v.device_type = v.device_name == "cpu" ? 1 : 0;
    v.device_id = 0;  // as DLPack gives the CPU
  }

  nb::object shape = nb::steal(get(obj, s_shape));  // torch.Size, a tuple
  if (!shape.is_valid() || !PyTuple_Check(shape.ptr())) return no;
  v.ndim = static_cast<int>(PyTuple_GET_SIZE(shape.ptr()));
  if (v.ndim == 2) {
    nb::object stride = nb::steal(call0(obj, s_stride));
    if (!stride.is_valid() || !read_pair(shape.ptr(), v.shape) || !read_pair(stride.ptr(), v.strides)) return no;
  }
  nb::object ptr = nb::steal(call0(obj, s_data_ptr));
  if (!ptr.is_valid()) return no;
  v.data = PyLong_AsVoidPtr(ptr.ptr());
  return PyErr_Occurred() ? no : TorchRead::kRead;
}

}  // namespace

bool is_torch_tensor(nb::handle obj) {
  PyTypeObject* type = tensor_type();
  return type && PyObject_TypeCheck(obj.ptr(), type);
}

TorchRead read_torch_tensor(nb::handle obj, TensorView& out, std::string& why) {
  PyTypeObject* type = tensor_type();
  if (!type || !PyObject_TypeCheck(obj.ptr(), type)) return TorchRead::kNotTorch;
  TorchRead r = read(obj.ptr(), out, why);
  PyErr_Clear();
  return r;
}

}  // namespace tessel::py
