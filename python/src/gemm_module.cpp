// tessel._core: GEMM kernels loaded from cubins, the argument checks, and the per-call path from
// Python operands to a launch. Python (tessel/gemm.py) chooses and compiles kernels; everything
// that runs on every call is here, so a call costs one trip into C++.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include <cstddef>
#include <tessel/jit/gemm_arguments.hpp>
#include <unordered_map>

#include "bindings.hpp"
#include "cuda_driver.hpp"
#include "gemm_kernel.hpp"
#include "gemm_operands.hpp"

namespace tessel::py {

namespace {

// The enumerator's name, which Python exceptions carry as `.status`.
char const* status_name(Status s) {
  switch (s) {
    case Status::kSuccess: return "kSuccess";
    case Status::kErrorMisalignedOperand: return "kErrorMisalignedOperand";
    case Status::kErrorInvalidDataType: return "kErrorInvalidDataType";
    case Status::kErrorInvalidLayout: return "kErrorInvalidLayout";
    case Status::kErrorInvalidProblem: return "kErrorInvalidProblem";
    case Status::kErrorNotSupported: return "kErrorNotSupported";
    case Status::kErrorWorkspaceNull: return "kErrorWorkspaceNull";
    case Status::kErrorInternal: return "kErrorInternal";
    case Status::kErrorArchMismatch: return "kErrorArchMismatch";
    case Status::kErrorInsufficientDriver: return "kErrorInsufficientDriver";
    case Status::kErrorMemoryAllocation: return "kErrorMemoryAllocation";
    case Status::kInvalid: return "kInvalid";
  }
  return "kInvalid";
}

// Argument problems are the caller's to fix (ValueError); the rest come from CUDA.
bool is_argument_error(Status s) {
  return s == Status::kErrorMisalignedOperand || s == Status::kErrorInvalidDataType || s == Status::kErrorInvalidLayout ||
         s == Status::kErrorInvalidProblem || s == Status::kErrorNotSupported;
}

PyObject* gemm_error_type = nullptr;
PyObject* cuda_error_type = nullptr;

template <class E>
[[noreturn]] void refuse(Status s, E&& message) {
  throw StatusError{{s, std::string(std::forward<E>(message))}};
}

std::string element_list(KernelTraits const& t) {
  return std::string(element_name(t.ab)) + " A and B and " + element_name(t.c) + " D";
}

class Dispatcher {
 public:
  // The automatic choice: the operands' own layouts with D row-major, one kernel per
  // (element types, layouts, epilogue, device), asked of `resolve` the first time. (resolve is
  // an argument rather than a member so that no reference cycle runs through C++.)
  void run(nb::handle a, nb::handle b, nb::handle c, nb::handle d, float alpha, float beta, std::uintptr_t stream, int epilogue,
           nb::handle resolve) {
    Operands const ops = read_operands(a, b, c, d);
    Problem const p = natural(ops);
    choose(p, epilogue, resolve).kernel->launch(p, alpha, beta, stream);
  }

  // The kernel run() would launch, without launching it.
  nb::object select(nb::handle a, nb::handle b, nb::handle c, nb::handle d, int epilogue, nb::handle resolve) {
    return choose(natural(read_operands(a, b, c, d)), epilogue, resolve).owner;
  }

  // A given kernel: the operands must have its element types, and its layouts as given or
  // transposed.
  void run_kernel(Kernel& kernel, nb::handle a, nb::handle b, nb::handle c, nb::handle d, float alpha, float beta, std::uintptr_t stream) {
    Operands const ops = read_operands(a, b, c, d);
    KernelTraits const& t = kernel.traits();
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
    kernel.launch(*p, alpha, beta, stream);
  }

  // The device of operands that pass the checks every kernel shares. @throws StatusError
  int operands_device(nb::handle a, nb::handle b, nb::handle c, nb::handle d) { return read_operands(a, b, c, d).device; }

  void clear() { kernels_.clear(); }
  std::size_t size() const { return kernels_.size(); }

 private:
  struct Entry {
    nb::object owner;  // keeps the Kernel alive
    Kernel* kernel;
  };

  Entry const& choose(Problem const& p, int epilogue, nb::handle resolve) {
    std::uint64_t const key = std::uint64_t(p.ab) | std::uint64_t(p.c) << 2 | std::uint64_t(p.a_row) << 4 |
                              std::uint64_t(p.b_row) << 5 | std::uint64_t(epilogue & 0xff) << 8 | std::uint64_t(p.device) << 16;
    auto it = kernels_.find(key);
    if (it == kernels_.end()) {
      nb::object k = resolve(int(p.ab), int(p.c), p.a_row, p.b_row, epilogue, p.device);
      if (!nb::isinstance<Kernel>(k)) throw nb::type_error("the kernel resolver must return a tessel._core.Kernel");
      KernelTraits const& t = nb::cast<Kernel&>(k).traits();
      if (t.ab != p.ab || t.c != p.c || t.a_row != p.a_row || t.b_row != p.b_row || !t.c_row || int(t.epilogue) != epilogue)
        refuse(Status::kErrorInternal, "the kernel resolver returned " + t.name + " for a problem it does not compute");
      it = kernels_.emplace(key, Entry{k, &nb::cast<Kernel&>(k)}).first;
    }
    return it->second;
  }
  std::unordered_map<std::uint64_t, Entry> kernels_;
};

nb::dict params_layout() {
  nb::dict d;
  d["size"] = sizeof(KernelParams);
  d["problem"] = offsetof(KernelParams, problem);
  d["A"] = offsetof(KernelParams, a);
  d["lda"] = offsetof(KernelParams, lda);
  d["B"] = offsetof(KernelParams, b);
  d["ldb"] = offsetof(KernelParams, ldb);
  d["C"] = offsetof(KernelParams, c);
  d["ldc"] = offsetof(KernelParams, ldc);
  d["D"] = offsetof(KernelParams, d);
  d["ldd"] = offsetof(KernelParams, ldd);
  d["epilogue"] = offsetof(KernelParams, alpha);
  d["raster"] = offsetof(KernelParams, raster);
  return d;
}

}  // namespace

void bind_gemm(nb::module_& m) {
  gemm_error_type = PyErr_NewExceptionWithDoc("tessel._core.GemmError",
                                              "Arguments a GEMM kernel cannot take; .status names the tessel Status.", PyExc_ValueError, nullptr);
  cuda_error_type = PyErr_NewExceptionWithDoc("tessel._core.CudaError", "A CUDA failure; .status names the tessel Status.",
                                              PyExc_RuntimeError, nullptr);
  m.attr("GemmError") = nb::handle(gemm_error_type);
  m.attr("CudaError") = nb::handle(cuda_error_type);
  nb::register_exception_translator([](std::exception_ptr const& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (StatusError const& e) {
      PyObject* type = is_argument_error(e.info.status) ? gemm_error_type : cuda_error_type;
      nb::object exc = nb::handle(type)(nb::str(e.info.what().c_str()));
      exc.attr("status") = status_name(e.info.status);
      PyErr_SetObject(type, exc.ptr());
    }
  });

  m.def(
      "describe_operand",
      [](nb::handle obj, std::string const& via) -> nb::object {
        if (via != "torch" && via != "dlpack") throw nb::value_error("via is 'torch' or 'dlpack'");
        TensorView v;
        if (!describe(obj, via == "torch", v)) return nb::none();
        return nb::make_tuple(reinterpret_cast<std::uintptr_t>(v.data), v.dtype, v.device_type, v.device_id, v.ndim,
                              nb::make_tuple(v.shape[0], v.shape[1]), nb::make_tuple(v.strides[0], v.strides[1]));
      },
      nb::arg("obj"), nb::arg("via"),
      "(data pointer, dtype, DLPack device type, device index, ndim, shape, strides) as the launcher reads an operand through "
      "one path, or None when that path cannot read it: the two must agree.");
  m.def("gemm_params_layout", &params_layout, "Offsets of the kernel parameter block the launcher fills (bytes).");
  m.def("target_runs_on", &target_runs_on, nb::arg("target"), nb::arg("compute_capability"),
        "Can SASS for `target` (\"sm_80\", \"sm_90a\") run on a device of this compute capability (major*10+minor)?");
  m.def(
      "driver_status",
      []() {
        std::string why;
        return cuda::driver(&why) ? std::string() : why;
      },
      "Empty when the CUDA driver loaded; else why not.");
  m.def(
      "device_count",
      []() {
        cuda::Driver const* d = cuda::driver();
        int n = 0;
        if (!d || d->cuDeviceGetCount(&n) != cuda::CUDA_SUCCESS) return 0;
        return n;
      },
      "Visible CUDA devices; 0 without a driver.");
  m.def(
      "compute_capability",
      [](int device) {
        try {
          return cuda::device_info(device).compute_capability;
        } catch (cuda::CudaFailure const& f) {
          throw StatusError{{Status::kErrorNotSupported, f.message}};
        }
      },
      nb::arg("device"), "major*10+minor of a CUDA device.");
  m.def(
      "check_gemm_arguments",
      [](std::int64_t mm, std::int64_t n, std::int64_t k, std::uintptr_t a, std::int64_t lda, bool a_row, std::uintptr_t b,
         std::int64_t ldb, bool b_row, std::uintptr_t c, std::int64_t ldc, std::uintptr_t d, std::int64_t ldd, bool c_row, float beta,
         int split_k, int tile_m, int tile_n) {
        jit::GemmArguments g{mm, n, k, reinterpret_cast<void const*>(a), lda, a_row, reinterpret_cast<void const*>(b), ldb, b_row,
                             reinterpret_cast<void const*>(c), ldc, reinterpret_cast<void const*>(d), ldd, c_row, beta, split_k, 16,
                             tile_m, tile_n};
        StatusInfo s = jit::check_gemm_arguments(g);
        return std::make_tuple(std::string(status_name(s.status)), s.what());
      },
      "The launcher's argument checks on raw values: (status name, message).");

  nb::class_<Kernel>(m, "Kernel", "A compiled GEMM kernel (cubin) and what it computes.")
      .def(
          "__init__",
          [](Kernel* self, nb::bytes cubin, std::string name, std::string symbol, std::string target, int ab, int c, bool a_row, bool b_row,
             bool c_row, int epilogue, int tile_m, int tile_n, int threads, int smem) {
            if (ab < 0 || ab > 1 || c < 0 || c > 2 || epilogue < 0 || epilogue > 3) throw nb::value_error("Kernel: element or epilogue code out of range");
            if (tile_m <= 0 || tile_n <= 0 || threads <= 0 || threads > 1024 || smem < 0) throw nb::value_error("Kernel: tile, threads or smem out of range");
            KernelTraits t{Element(ab), Element(c), a_row, b_row, c_row, Epilogue(epilogue), tile_m, tile_n, threads, smem,
                           std::move(target), std::move(name), std::move(symbol)};
            new (self) Kernel(std::string(static_cast<char const*>(cubin.data()), cubin.size()), std::move(t));
          },
          nb::arg("cubin"), nb::arg("name"), nb::arg("symbol"), nb::arg("target"), nb::arg("element_ab"), nb::arg("element_c"),
          nb::arg("a_row"), nb::arg("b_row"), nb::arg("c_row"), nb::arg("epilogue"), nb::arg("tile_m"), nb::arg("tile_n"),
          nb::arg("threads"), nb::arg("smem"))
      .def_prop_ro("name", [](Kernel const& k) { return k.traits().name; })
      .def_prop_ro("symbol", [](Kernel const& k) { return k.traits().symbol; })
      .def_prop_ro("target", [](Kernel const& k) { return k.traits().target; })
      .def_prop_ro("threads", [](Kernel const& k) { return k.traits().threads; })
      .def_prop_ro("smem", [](Kernel const& k) { return k.traits().smem; })
      .def("load", [](Kernel& k, int device) { k.function(device); }, nb::arg("device"),
           "Load the kernel on a device now instead of at its first launch.")
      .def("__repr__", [](Kernel const& k) { return "<tessel Kernel " + k.traits().name + " for " + k.traits().target + ">"; });

  nb::class_<Dispatcher>(m, "Dispatcher", "Operands to kernel to launch, with the automatic choice memoised.")
      .def(nb::init<>())
      .def("run", &Dispatcher::run, nb::arg("A"), nb::arg("B"), nb::arg("C").none(), nb::arg("D"), nb::arg("alpha"), nb::arg("beta"),
           nb::arg("stream"), nb::arg("epilogue"), nb::arg("resolve"))
      .def("run_kernel", &Dispatcher::run_kernel, nb::arg("kernel"), nb::arg("A"), nb::arg("B"), nb::arg("C").none(), nb::arg("D"),
           nb::arg("alpha"), nb::arg("beta"), nb::arg("stream"))
      .def("select", &Dispatcher::select, nb::arg("A"), nb::arg("B"), nb::arg("C").none(), nb::arg("D"), nb::arg("epilogue"),
           nb::arg("resolve"))
      .def("operands_device", &Dispatcher::operands_device, nb::arg("A"), nb::arg("B"), nb::arg("C").none(), nb::arg("D"))
      .def("clear", &Dispatcher::clear)
      .def("__len__", &Dispatcher::size);
}

}  // namespace tessel::py
