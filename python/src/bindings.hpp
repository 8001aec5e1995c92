#pragma once
// The parts of the tessel._core extension module, each bound by its own file.
#include <nanobind/nanobind.h>

namespace tessel::py {

namespace nb = nanobind;

void bind_layout(nb::module_& m);  // layout_module.cpp: tessel::rt
void bind_calc(nb::module_& m);    // calc_module.cpp: the layout calculator
void bind_gemm(nb::module_& m);    // gemm_module.cpp: kernels, argument checks, launches
void bind_timing(nb::module_& m);  // timing.cpp: a kernel launched and timed from C++
void bind_raw_kernel(nb::module_& m);  // raw_kernel.cpp: the kernel DSL's generated kernels
void bind_dispatch(nb::module_& m);    // dispatch_module.cpp: the dispatcher's heuristic
void bind_distributed(nb::module_& m);  // distributed_module.cpp: the tensor-parallel schedules

}  // namespace tessel::py
