// tessel._core: GEMM kernels loaded from cubins, the argument checks, and the per-call path from
// Python operands to a launch. Python (tessel/gemm.py) chooses and compiles kernels; everything
// that runs on every call is here, so a call costs one trip into C++.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <tessel/gemm/kernel/small_n_rules.hpp>
#include <tessel/jit/gemm_arguments.hpp>

#include "bindings.hpp"
#include "cuda_driver.hpp"
#include "dispatcher.hpp"
#include "gemm_kernel.hpp"
#include "gemm_operands.hpp"
#include "torch_tensor.hpp"

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

int dispatcher_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  if (!nb::inst_ready(self)) return 0;
  return nb::inst_ptr<Dispatcher>(self)->traverse(visit, arg);
}

int dispatcher_clear(PyObject* self) {
  nb::inst_ptr<Dispatcher>(self)->drop_references();
  return 0;
}

PyType_Slot dispatcher_slots[] = {{Py_tp_traverse, reinterpret_cast<void*>(dispatcher_traverse)},
                                  {Py_tp_clear, reinterpret_cast<void*>(dispatcher_clear)},
                                  {0, nullptr}};

// tessel.gemm's operands are arrays; anything else is refused before the operand checks, whose
// refusals (GemmError) are about arrays a kernel cannot take.
void require_array(nb::handle x, char const* name, char const* caller = "tessel.gemm") {
  if (is_torch_tensor(x) || nb::hasattr(x, "__dlpack__")) return;
  throw nb::type_error((std::string(caller) + ": " + name + " must be a tensor (an object with __dlpack__), got " +
                        nb::type_name(x.type()).c_str())
                           .c_str());
}

// alpha and beta: a real number (an int, a float, or anything with __float__), never a bool or
// a string; float("2") would take text for a number.
double real_number(nb::handle x, char const* name, char const* caller = "tessel.gemm") {
  PyNumberMethods const* n = Py_TYPE(x.ptr())->tp_as_number;
  if (PyBool_Check(x.ptr()) || !n || !n->nb_float) {
    throw nb::type_error((std::string(caller) + ": " + name + " must be a real number such as 1.0, got " +
                          nb::type_name(x.type()).c_str())
                             .c_str());
  }
  double const v = PyFloat_AsDouble(x.ptr());
  if (v == -1.0 && PyErr_Occurred()) {
    PyErr_Clear();  // an int past float's range (OverflowError), or a number type that cannot say
    throw nb::value_error((std::string(caller) + ": " + name + " " + nb::repr(x).c_str() +
                           " is not representable as a float: give a finite real number")
                              .c_str());
  }
  return v;
}

// One fact of a CUDA device (cuda::DeviceInfo), a driver failure reported as kErrorNotSupported.
template <int cuda::DeviceInfo::*Fact>
int device_fact(int device) {
  try {
    return cuda::device_info(device).*Fact;
  } catch (cuda::CudaFailure const& f) {
    throw StatusError{{Status::kErrorNotSupported, f.message}};
  }
}

nb::object checked_gemm(Dispatcher& self, nb::handle a, nb::handle b, nb::handle c, nb::handle alpha, nb::handle beta,
                        nb::handle out_dtype, nb::handle epilogue, nb::handle config, nb::handle out, nb::handle stream) {
  require_array(a, "A");
  require_array(b, "B");
  if (!c.is_none()) require_array(c, "C");
  if (!out.is_none()) require_array(out, "out");
  return self.gemm(a, b, c, real_number(alpha, "alpha"), real_number(beta, "beta"), out_dtype, epilogue, config, out, stream);
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
  m.def("require_array", [](nb::handle x, std::string const& name, std::string const& caller) { require_array(x, name.c_str(), caller.c_str()); },
        nb::arg("x").none(), nb::arg("name"), nb::arg("caller"), "TypeError unless x is a tensor (a PyTorch tensor or an object with __dlpack__).");
  m.def("real_number", [](nb::handle x, std::string const& name, std::string const& caller) { return real_number(x, name.c_str(), caller.c_str()); },
        nb::arg("x").none(), nb::arg("name"), nb::arg("caller"), "x as a float when it is a real number (not a bool or a string); else TypeError.");
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
  m.def("compute_capability", device_fact<&cuda::DeviceInfo::compute_capability>, nb::arg("device"),
        "major*10+minor of a CUDA device.");
  m.def("sm_count", device_fact<&cuda::DeviceInfo::sm_count>, nb::arg("device"), "Streaming multiprocessors of a CUDA device.");
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
             bool c_row, int epilogue, int tile_m, int tile_n, int threads, int smem, bool hopper, int cluster_m, int cluster_n,
             std::tuple<int, int> box_a, std::tuple<int, int> box_b, int fixup_slot_floats, bool promoted, bool grouped,
             bool block_scaled, bool rowwise) {
            if (ab < 0 || ab > int(Element::tf32) || ab == int(Element::f32) || c < 0 || c > 2 || epilogue < 0 || epilogue > 3)
              throw nb::value_error("Kernel: element or epilogue code out of range");
            bool const wide_only = ab != int(Element::f16) && ab != int(Element::bf16);  // FP8 and TF32: Hopper, K-major
            if (wide_only && (!hopper || !a_row || b_row)) throw nb::value_error("Kernel: FP8 and TF32 kernels are Hopper kernels with K-major A and B");
            if (promoted && ab != int(Element::e4m3) && ab != int(Element::e5m2)) throw nb::value_error("Kernel: promoted accumulation is for FP8");
            if (block_scaled && ((ab != int(Element::e4m3) && ab != int(Element::e5m2)) || !hopper || fixup_slot_floats > 0))
              throw nb::value_error("Kernel: a block-scaled kernel is a Hopper FP8 kernel without stream-K");
            if (rowwise && ((ab != int(Element::e4m3) && ab != int(Element::e5m2)) || !hopper || block_scaled))
              throw nb::value_error("Kernel: a row-wise scaled kernel is a Hopper FP8 kernel without block scales");
            if (tile_m <= 0 || tile_n <= 0 || threads <= 0 || threads > 1024 || smem < 0) throw nb::value_error("Kernel: tile, threads or smem out of range");
            KernelTraits t{Element(ab), Element(c), a_row, b_row, c_row, Epilogue(epilogue), tile_m, tile_n, threads, smem, hopper, cluster_m, cluster_n,
                           {std::get<0>(box_a), std::get<1>(box_a)}, {std::get<0>(box_b), std::get<1>(box_b)},
                           fixup_slot_floats, promoted, grouped, block_scaled, rowwise, std::move(target), std::move(name), std::move(symbol)};
            if (grouped && (cluster_m * cluster_n != 1 || fixup_slot_floats > 0 || !a_row || !c_row))
              throw nb::value_error("Kernel: a grouped kernel has no cluster or stream-K, and A and D row-major");
            if (fixup_slot_floats < 0 || (fixup_slot_floats > 0 && (!hopper || cluster_m * cluster_n != 1)))
              throw nb::value_error("Kernel: a stream-K kernel (fixup_slot_floats > 0) is a Hopper kernel without a cluster");
            if (hopper && (cluster_m < 1 || cluster_m > 2 || cluster_n < 1 || cluster_n > 2 || t.box_a[0] <= 0 || t.box_a[1] <= 0 || t.box_b[0] <= 0 || t.box_b[1] <= 0 || !c_row))
              throw nb::value_error("Kernel: a Hopper kernel needs a cluster of 1 or 2 CTAs along M and N, both TMA boxes and a row-major D");
            new (self) Kernel(std::string(static_cast<char const*>(cubin.data()), cubin.size()), std::move(t));
          },
          nb::arg("cubin"), nb::arg("name"), nb::arg("symbol"), nb::arg("target"), nb::arg("element_ab"), nb::arg("element_c"),
          nb::arg("a_row"), nb::arg("b_row"), nb::arg("c_row"), nb::arg("epilogue"), nb::arg("tile_m"), nb::arg("tile_n"),
          nb::arg("threads"), nb::arg("smem"), nb::kw_only(), nb::arg("hopper") = false, nb::arg("cluster_m") = 1, nb::arg("cluster_n") = 1,
          nb::arg("box_a") = std::make_tuple(0, 0), nb::arg("box_b") = std::make_tuple(0, 0), nb::arg("fixup_slot_floats") = 0,
          nb::arg("promoted") = false, nb::arg("grouped") = false, nb::arg("block_scaled") = false, nb::arg("rowwise") = false)
      .def_prop_ro("name", [](Kernel const& k) { return k.traits().name; })
      .def_prop_ro("symbol", [](Kernel const& k) { return k.traits().symbol; })
      .def_prop_ro("target", [](Kernel const& k) { return k.traits().target; })
      .def_prop_ro("threads", [](Kernel const& k) { return k.traits().threads; })
      .def_prop_ro("smem", [](Kernel const& k) { return k.traits().smem; })
      .def_prop_ro("hopper", [](Kernel const& k) { return k.traits().hopper; })
      .def_prop_ro("block_scaled", [](Kernel const& k) { return k.traits().block_scaled; })
      .def_prop_ro("rowwise", [](Kernel const& k) { return k.traits().rowwise; })
      .def_prop_ro("small_n", [](Kernel const& k) { return k.traits().small_n.n8 > 0; })
      .def("load", [](Kernel& k, int device) { k.function(device); }, nb::arg("device"),
           "Load the kernel on a device now instead of at its first launch.")
      .def("__repr__", [](Kernel const& k) { return "<tessel Kernel " + k.traits().name + " for " + k.traits().target + ">"; });

  m.def(
      "small_n_kernel",
      [](nb::bytes cubin, std::string name, std::string symbol, std::string target, int n8, int boxes, int stages, std::string element,
         int rows) {
        // A and B of `element`; D of the same 16-bit type, or bf16 for FP8 (torch._scaled_mm's usual out_dtype).
        Element ab;
        if (element == "bf16") ab = Element::bf16;
        else if (element == "f16") ab = Element::f16;
        else if (element == "e4m3") ab = Element::e4m3;
        else if (element == "e5m2") ab = Element::e5m2;
        else throw nb::value_error("small_n_kernel: element is 'bf16', 'f16', 'e4m3' or 'e5m2'");
        SmallNShape const s = small_n_shape(n8, boxes, stages, element_bytes(ab), rows);
        KernelTraits t;
        t.ab = ab;
        t.c = element_bytes(ab) == 1 ? Element::bf16 : ab;
        t.a_row = true;
        t.b_row = false;
        t.tile_m = s.rows;
        t.tile_n = 8 * s.n8;
        t.threads = s.threads;
        t.smem = s.smem;
        t.small_n = s;
        t.target = std::move(target);
        t.name = std::move(name);
        t.symbol = std::move(symbol);
        return new Kernel(std::string(static_cast<char const*>(cubin.data()), cubin.size()), std::move(t));
      },
      nb::arg("cubin"), nb::arg("name"), nb::arg("symbol"), nb::arg("target"), nb::arg("n8"), nb::arg("boxes"), nb::arg("stages"),
      nb::arg("element") = "bf16", nb::arg("rows") = 32,
      "A Kernel of the small-N TMA ring (kernel/sm90_gemm_small_n_tma.hpp) for 8 * n8 columns with `boxes` boxes and `stages` "
      "stages per ring over blocks of `rows` rows, `element` ('bf16' or 'f16' in and out; 'e4m3' or 'e5m2' in, bf16 out) "
      "(tessel/jit/small_n.py); its threads and shared memory are the tile's.");
  m.def(
      "small_n_plan",
      [](std::int64_t m_, std::int64_t n, std::int64_t k, std::int64_t sms, int element_bytes, bool promoted) -> nb::object {
        if (element_bytes != 1 && element_bytes != 2) throw nb::value_error("small_n_plan: element_bytes is 1 (FP8) or 2 (bf16, f16)");
        // Extents past int are no decode problem: the ring is not the kernel (as for N > 16).
        constexpr std::int64_t kInt = std::numeric_limits<int>::max();
        if (m_ < 0 || n < 0 || k < 0 || sms < 0 || m_ > kInt || n > kInt || sms > kInt) return nb::none();
        if (!gemm::kernel::small_n_tma_takes(int(m_), int(n), int(sms))) return nb::none();
        if (element_bytes == 1 && !gemm::kernel::small_n_tma_takes_fp8(m_, k, int(sms), promoted)) return nb::none();
        int const n8 = gemm::kernel::small_n_tma_n8(int(n));
        auto const ring = gemm::kernel::small_n_tma_ring(int(std::min(k, kInt)), n8, element_bytes, m_, int(sms));
        return nb::make_tuple(n8, ring.boxes, ring.stages, ring.rows);
      },
      nb::arg("m"), nb::arg("n"), nb::arg("k"), nb::arg("sms"), nb::arg("element_bytes") = 2, nb::arg("promoted") = false,
      "(n8, boxes, stages, rows) of the small-N TMA ring for D = A B with M weight rows and N <= 16 columns of `element_bytes`-byte "
      "A and B on `sms` SMs, as device::GemmSmallN plans it (kernel/small_n_rules.hpp; FP8 also small_n_tma_takes_fp8, with "
      "promoted accumulation or not); None where the ring is not the decode kernel.");

  nb::class_<Dispatcher>(m, "Dispatcher", "Operands to kernel to launch, with the automatic choice memoised.",
                         nb::type_slots(dispatcher_slots))
      .def(nb::init<nb::object, nb::object>(), nb::arg("resolve").none(), nb::arg("fallback").none() = nb::none())
      .def("run", &Dispatcher::run, nb::arg("A"), nb::arg("B"), nb::arg("C").none(), nb::arg("D"), nb::arg("alpha"), nb::arg("beta"),
           nb::arg("stream"), nb::arg("epilogue"))
      .def("run_ex", &Dispatcher::run_ex, nb::arg("A"), nb::arg("B"), nb::arg("C").none(), nb::arg("D"), nb::arg("alpha"), nb::arg("beta"),
           nb::arg("stream"), nb::arg("epilogue"), nb::arg("tf32"), nb::arg("scale_a"), nb::arg("scale_b"), nb::arg("promoted"),
           "run() with float32 A and B on TF32 tensor cores (tf32), and FP8's device scales (addresses of one float each, 0 for "
           "none) and promoted accumulation.")
      .def("run_rowwise", &Dispatcher::run_rowwise, nb::arg("A"), nb::arg("B"), nb::arg("C").none(), nb::arg("D"), nb::arg("beta"),
           nb::arg("stream"), nb::arg("scale_a"), nb::arg("scale_a_stride"), nb::arg("scale_b"), nb::arg("scale_b_stride"),
           nb::arg("promoted"),
           "FP8 with row-wise scales (torch._scaled_mm's row-wise mode) on the automatic choice built with them: scale_a and "
           "scale_b the device addresses of M and N float32 values, each with its element stride.")
      .def("run_batched", &Dispatcher::run_batched, nb::arg("A"), nb::arg("B"), nb::arg("D"), nb::arg("batches"), nb::arg("batch_a"),
           nb::arg("batch_b"), nb::arg("batch_d"), nb::arg("stream"), nb::arg("tf32") = false,
           "D_i = A_i @ B_i for i < batches: A, B, D the first matrices, the others batch_* elements apart.")
      .def("run_kernel", &Dispatcher::run_kernel, nb::arg("kernel"), nb::arg("A"), nb::arg("B"), nb::arg("C").none(), nb::arg("D"),
           nb::arg("alpha"), nb::arg("beta"), nb::arg("stream"))
      .def("run_block_scaled", &Dispatcher::run_block_scaled, nb::arg("kernel"), nb::arg("A"), nb::arg("B"), nb::arg("C").none(),
           nb::arg("D"), nb::arg("beta"), nb::arg("stream"), nb::arg("scale_a"), nb::arg("scale_a_strides"), nb::arg("scale_b"),
           nb::arg("scale_b_strides"),
           "Block-scaled FP8 on a block-scaled kernel (torch._scaled_mm's blockwise scales): scale_a and scale_b the device "
           "addresses of the f32 scales of A (per row and 128 of K) and of B (per 128 x 128 block), each with its element "
           "strides (over rows or row blocks, then K blocks); A row-major, B column-major and D row-major, never transposed.")
      .def("run_grouped", &Dispatcher::run_grouped, nb::arg("kernel"), nb::arg("A"), nb::arg("B"), nb::arg("D"), nb::arg("groups"),
           nb::arg("batch_a"), nb::arg("batch_b"), nb::arg("batch_d"), nb::arg("group_m"), nb::arg("masked"), nb::arg("stream"),
           nb::arg("scale_a") = 0, nb::arg("scale_b") = 0, nb::arg("scale_a_strides").none() = nb::none(),
           nb::arg("scale_b_strides").none() = nb::none(), nb::arg("bias") = 0, nb::arg("bias_stride") = 0,
           "Grouped GEMM on a grouped kernel (tessel.grouped_gemm's launch); FP8 A and B with the device addresses of "
           "their per-tensor f32 scales, or on a block-scaled or row-wise scaled kernel of their scales with element "
           "strides (row or row block, K block, group); `bias` the device address of N values of D's type per group, "
           "`bias_stride` elements apart (0: shared).")
      .def("select", &Dispatcher::select, nb::arg("A"), nb::arg("B"), nb::arg("C").none(), nb::arg("D"), nb::arg("epilogue"))
      .def("set_workspace_allocator", &Dispatcher::set_workspace_allocator, nb::arg("acquire").none(), nb::arg("release").none(),
           "acquire(bytes, device, stream) -> pointer and release(pointer): where stream-K launches get their fixup workspace.")
      .def("question", &Dispatcher::question, nb::arg("A"), nb::arg("B"), nb::arg("C").none(), nb::arg("D"),
           "(element_ab, element_c, a_row, b_row, device, tma_align, m, n, k, promoted): what the automatic choice is asked for "
           "these operands.")
      .def("gemm", &checked_gemm, nb::arg("A").none(), nb::arg("B").none(), nb::arg("C").none() = nb::none(), nb::kw_only(),
           nb::arg("alpha").none() = 1.0, nb::arg("beta").none() = 0.0, nb::arg("out_dtype").none() = nb::none(), nb::arg("epilogue").none() = nb::none(),
           nb::arg("config").none() = nb::none(), nb::arg("out").none() = nb::none(), nb::arg("stream").none() = nb::none(),
           R"(D = epilogue(alpha * A @ B + beta * C), returned (a new tensor, or `out`).

A (M, K) and B (K, N): float16, bfloat16, or on Hopper FP8 (float8_e4m3fn, float8_e5m2: A
row-major and B column-major), the same. C (M, N), optional, read when beta != 0, and D:
float32, float16 or bfloat16 (`out_dtype`; default C's type, else A's; FP8 A needs one). Every operand
row- or column-major (strides (ld, 1) or (1, ld)); C and D share a layout. All on one CUDA
device; the kernel runs on PyTorch's current stream there (or `stream`).

epilogue: None, 'relu', 'gelu' or 'silu' applied to alpha * A @ B + beta * C.
config:   a GemmConfig to run instead of the automatic choice (compiled on first use).
out:      write D here instead of allocating it (may be C itself).

Raises tessel.GemmError (a ValueError) naming the tessel Status for operands no kernel can
take (element types, shapes, layouts, alignment), and CompileError if a configuration does not
compile.)")
      .def(
          "operands_device", [](Dispatcher&, nb::handle a, nb::handle b, nb::handle c, nb::handle d) { return read_operands(a, b, c, d).device; },
          nb::arg("A"), nb::arg("B"), nb::arg("C").none(), nb::arg("D"))
      .def("clear", &Dispatcher::clear)
      .def("__len__", &Dispatcher::size);
}

}  // namespace tessel::py
