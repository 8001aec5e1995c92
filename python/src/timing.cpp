// The reference the Python benchmark compares tessel.gemm with: the same kernel launched from C++
// in a loop, with no Python between launches, timed with CUDA events exactly as the benchmark
// times tessel.gemm (an event before the first launch and after each, on one stream).
#include <nanobind/nanobind.h>
#include <nanobind/stl/vector.h>

#include <vector>

#include "bindings.hpp"
#include "cuda_driver.hpp"
#include "dispatcher.hpp"

namespace tessel::py {

namespace {

// Milliseconds of each of `reps` launches of `kernel`, launch i on operand set i % len(sets), each
// set an (A, B, D) triple; alpha 1, beta 0. The GPU should be held up (torch.cuda._sleep) before
// the call, so that the launches queue and the events time the kernels, not the host.
// transpose_d: run D^T = B^T A^T with D^T stored column-major (a Hopper kernel, D row-major).
std::vector<float> time_launches(Kernel& kernel, nb::sequence sets, int reps, std::uintptr_t stream, bool transpose) {
  std::vector<Problem> problems;
  for (nb::handle set : sets) {
    nb::sequence abd = nb::borrow<nb::sequence>(set);
    if (nb::len(abd) != 3) throw nb::value_error("time_launches: each operand set is (A, B, D)");
    if (!transpose) {
      problems.push_back(problem_for(kernel.traits(), abd[0], abd[1], nb::none(), abd[2]));
      continue;
    }
    Problem const p = natural(read_operands(abd[0], abd[1], nb::none(), abd[2]));
    KernelTraits const& t = kernel.traits();
    if (!d_transposable(p) || !(t.hopper || t.small_n.n8))
      throw nb::value_error("time_launches: transpose_d needs a Hopper kernel and one matrix with D row-major");
    Problem const q = transpose_d(p);
    if (t.a_row != q.a_row || t.b_row != q.b_row || t.ab != q.ab || t.c != q.c)
      throw nb::value_error(("time_launches: the kernel " + t.name + " does not take D^T's problem (" +
                             describe_layouts(q.a_row, q.b_row, false) + ")")
                                .c_str());
    problems.push_back(q);
  }
  if (problems.empty() || reps <= 0) throw nb::value_error("time_launches: give at least one operand set and one launch");
  std::string why;
  cuda::Driver const* d = cuda::driver(&why);
  if (!d) throw StatusError{{Status::kErrorNotSupported, why}};
  if (!d->cuEventCreate || !d->cuEventRecord || !d->cuEventSynchronize || !d->cuEventElapsedTime || !d->cuEventDestroy)
    throw StatusError{{Status::kErrorInsufficientDriver, "time_launches needs the CUDA driver's event calls"}};
  cuda::ScopedContext scope(*d, cuda::device_info(problems[0].device).context);
  auto s = reinterpret_cast<cuda::CUstream>(stream);
  std::vector<cuda::CUevent> events(reps + 1, nullptr);
  auto check = [](cuda::CUresult r, char const* what) {
    if (r != cuda::CUDA_SUCCESS) throw StatusError{{Status::kErrorInternal, std::string(what) + ": " + cuda::error_text(r)}};
  };
  std::vector<float> ms(reps, 0.f);
  try {
    for (auto& e : events) check(d->cuEventCreate(&e, 0), "cuEventCreate");
    check(d->cuEventRecord(events[0], s), "cuEventRecord");
    for (int i = 0; i < reps; ++i) {
      kernel.launch(problems[i % problems.size()], 1.f, 0.f, stream);
      check(d->cuEventRecord(events[i + 1], s), "cuEventRecord");
    }
    check(d->cuEventSynchronize(events[reps]), "cuEventSynchronize");
    for (int i = 0; i < reps; ++i) check(d->cuEventElapsedTime(&ms[i], events[i], events[i + 1]), "cuEventElapsedTime");
  } catch (...) {
    for (auto e : events)
      if (e) d->cuEventDestroy(e);
    throw;
  }
  for (auto e : events) d->cuEventDestroy(e);
  return ms;
}

}  // namespace

void bind_timing(nb::module_& m) {
  m.def("time_launches", &time_launches, nb::arg("kernel"), nb::arg("sets"), nb::arg("reps"), nb::arg("stream"),
        nb::arg("transpose_d") = false,
        "Milliseconds of each of `reps` launches of a kernel from C++ (no Python between launches), launch i on operand "
        "set i % len(sets), each (A, B, D), timed with CUDA events on `stream`: the reference for tessel.gemm's own timing. "
        "transpose_d=True runs D^T = B^T A^T with D^T stored column-major, as the dispatcher does for decode shapes.");
}

}  // namespace tessel::py
