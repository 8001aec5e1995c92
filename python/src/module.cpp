// tessel._core, the extension module behind the tessel package.
#include <nanobind/nanobind.h>

#include "bindings.hpp"

NB_MODULE(_core, m) {
  m.doc() = "tessel's C++ core: the run-time layout algebra with its expression evaluator, and the GEMM launcher.";
  tessel::py::bind_layout(m);
  tessel::py::bind_calc(m);
  tessel::py::bind_gemm(m);
  tessel::py::bind_timing(m);
  tessel::py::bind_raw_kernel(m);
  tessel::py::bind_dispatch(m);
  tessel::py::bind_distributed(m);
  // NOTES: a DSL function registered as a torch.library op (tessel.torch_op) is held by torch's
  // operator registry until the process ends, after this module's objects are checked for
  // leaks; nanobind would then report the kernels it holds as leaked on every exit.
  nanobind::set_leak_warnings(false);
}
