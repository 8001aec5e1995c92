// tessel._core.RawKernel: a cubin's kernel launched with a parameter buffer the caller packed.
//
// The Python kernel DSL (tessel/dsl) generates a kernel, packs its parameters with struct (each at
// its natural alignment) and launches through here: one call, no per-parameter conversion, so that
// a compiled call costs a few microseconds of host time.
// NOTES: the launch passes one pointer per parameter into the packed buffer (cuLaunchKernel's
// kernelParams), not the buffer itself (its `extra` form): the driver then places each parameter
// where the kernel reads it. A 64-byte-aligned __grid_constant__ parameter (a TMA descriptor) is
// aligned within the constant bank, whose parameter area does not start 64-byte aligned, so a
// buffer copied there whole lands 48 bytes early and the kernel reads its pointers as zero.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <tessel/arch/tma_encode.hpp>

#include "bindings.hpp"
#include "cuda_driver.hpp"
#include "gemm_kernel.hpp"
#include "gemm_types.hpp"

namespace tessel::py {

namespace {

[[noreturn]] void failed(cuda::CUresult r, std::string const& what) {
  Status s = r == cuda::CUDA_ERROR_NO_BINARY_FOR_GPU ? Status::kErrorArchMismatch : Status::kErrorInternal;
  throw StatusError{{s, what + ": " + cuda::error_text(r)}};
}

class RawKernel {
 public:
  RawKernel(nb::bytes cubin, std::string symbol, std::string target, int smem, std::vector<int> offsets)
      : cubin_(cubin.c_str(), cubin.size()), symbol_(std::move(symbol)), target_(std::move(target)), smem_(smem),
        offsets_(std::move(offsets)) {}

  // Launches on `stream` of CUDA device `device`; `smem` bytes of dynamic shared memory (at least
  // what the kernel declared when it was built), `cluster` CTAs per cluster along x, y, z.
  void launch(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, int smem, std::uintptr_t stream,
              int device, nb::bytes params, unsigned cx, unsigned cy, unsigned cz) {
    launch_buffer({gx, gy, gz, bx, by, bz, smem, cx, cy, cz}, stream, device, const_cast<char*>(params.c_str()), params.size());
  }

  // The grid, block, dynamic shared memory and cluster of a launch.
  struct Geometry {
    unsigned gx, gy, gz, bx, by, bz;
    int smem;
    unsigned cx, cy, cz;
  };

  // launch() on a buffer of `size` parameter bytes the caller owns until the launch is enqueued.
  void launch_buffer(Geometry const& g, std::uintptr_t stream, int device, char* buffer, std::size_t size) {
    auto [gx, gy, gz, bx, by, bz, smem, cx, cy, cz] = g;
    cuda::Driver const* d = cuda::driver();
    if (!d) {
      std::string why;
      cuda::driver(&why);
      throw StatusError{{Status::kErrorNotSupported, "no CUDA driver to launch " + symbol_ + ": " + why}};
    }
    // NOTES: the last device's function and context are kept outside the lock: a compiled call
    // costs a few microseconds, and two lock round trips are a noticeable share of them.
    Loaded const* last = last_.load(std::memory_order_acquire);
    if (!last || last->device != device) {
      cuda::DeviceInfo const& info = device_info(device);
      cuda::CUfunction f = function(*d, info, device);
      std::lock_guard<std::mutex> lock(mutex_);
      last = nullptr;
      for (auto const& e : loaded_)
        if (e->device == device) last = e.get();
      if (!last) {  // one entry per device, so alternating devices does not grow the list
        loaded_.push_back(std::make_unique<Loaded>(Loaded{device, f, info.context}));
        last = loaded_.back().get();
      }
      last_.store(last, std::memory_order_release);
    }
    cuda::CUfunction fn = last->fn;
    cuda::CUcontext context = last->context;
    if (smem < smem_) smem = smem_;
    void* args[kMaxParams];
    if (offsets_.size() > kMaxParams) throw StatusError{{Status::kErrorInvalidProblem, symbol_ + " has more than 512 parameters"}};
    for (std::size_t i = 0; i < offsets_.size(); ++i) {
      if (offsets_[i] < 0 || static_cast<std::size_t>(offsets_[i]) >= size)
        throw StatusError{{Status::kErrorInvalidProblem, "the parameter buffer of " + symbol_ + " is shorter than its plan"}};
      args[i] = buffer + offsets_[i];
    }
    cuda::ScopedContext scope(*d, context);
    auto s = reinterpret_cast<cuda::CUstream>(stream);
    cuda::CUresult r;
    if (cx * cy * cz > 1) {
      if (!d->cuLaunchKernelEx) throw StatusError{{Status::kErrorNotSupported, "this CUDA driver cannot launch clusters (cuLaunchKernelEx)"}};
      cuda::CUlaunchAttribute attr{};
      attr.id = cuda::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      attr.value.cluster_dim = {cx, cy, cz};
      cuda::CUlaunchConfig config{gx, gy, gz, bx, by, bz, static_cast<unsigned>(smem), s, &attr, 1};
      r = d->cuLaunchKernelEx(&config, fn, args, nullptr);
    } else {
      r = d->cuLaunchKernel(fn, gx, gy, gz, bx, by, bz, static_cast<unsigned>(smem), s, args, nullptr);
    }
    if (r != cuda::CUDA_SUCCESS) failed(r, "launching " + symbol_ + " (grid " + dims(gx, gy, gz) + ", block " + dims(bx, by, bz) + ")");
  }

  std::string const& symbol() const { return symbol_; }
  std::string const& target() const { return target_; }
  static constexpr std::size_t kMaxParamBytes = 4096;  // the parameter bytes a replayed launch holds (the DSL's plans stay far below)

 private:
  static std::string dims(unsigned x, unsigned y, unsigned z) {
    return "(" + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z) + ")";
  }

  static cuda::DeviceInfo const& device_info(int device) {
    try {
      return cuda::device_info(device);
    } catch (cuda::CudaFailure const& f) {
      throw StatusError{{Status::kErrorNotSupported, "CUDA device " + std::to_string(device) + " cannot be used: " + f.message}};
    }
  }

  cuda::CUfunction function(cuda::Driver const& d, cuda::DeviceInfo const& info, int device) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (device < static_cast<int>(functions_.size()) && functions_[device]) return functions_[device];
    if (!target_runs_on(target_, info.compute_capability)) {
      throw StatusError{{Status::kErrorArchMismatch, "the kernel " + symbol_ + " is compiled for " + target_ + ", which CUDA device " +
                                                         std::to_string(device) + " (compute capability " +
                                                         std::to_string(info.compute_capability / 10) + "." +
                                                         std::to_string(info.compute_capability % 10) +
                                                         ") cannot run: compile it for this device's target"}};
    }
    cuda::ScopedContext scope(d, info.context);
    cuda::CUmodule module = nullptr;
    cuda::CUfunction fn = nullptr;
    if (auto r = d.cuModuleLoadData(&module, cubin_.data()); r != cuda::CUDA_SUCCESS) failed(r, "loading " + symbol_);
    if (auto r = d.cuModuleGetFunction(&fn, module, symbol_.c_str()); r != cuda::CUDA_SUCCESS) failed(r, "looking up " + symbol_);
    // Above 48 KiB of dynamic shared memory a kernel opts in, once per function; the most a launch
    // may then ask for is what the device allows, which the launch itself checks.
    if (auto r = d.cuFuncSetAttribute(fn, cuda::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, kOptInBytes);
        r != cuda::CUDA_SUCCESS && smem_ > 48 * 1024)
      failed(r, "asking for " + std::to_string(smem_) + " bytes of shared memory for " + symbol_);
    if (static_cast<int>(functions_.size()) <= device) functions_.resize(device + 1, nullptr);
    functions_[device] = fn;
    return fn;
  }

  static constexpr int kOptInBytes = 227 * 1024;  // sm_90's largest per-block opt-in
  static constexpr std::size_t kMaxParams = 512;     // 4 KiB of parameters, 8 bytes at the least each
  std::string cubin_, symbol_, target_;
  int smem_;
  std::vector<int> offsets_;  // each parameter's byte offset in the packed buffer
  // The function and context of the device launched on last, published whole (an entry is never
  // changed or freed while the kernel lives), so that a launch reads them without the lock.
  struct Loaded {
    int device;
    cuda::CUfunction fn;
    cuda::CUcontext context;
  };
  std::vector<std::unique_ptr<Loaded>> loaded_;
  std::atomic<Loaded const*> last_{nullptr};
  std::mutex mutex_;
  std::vector<cuda::CUfunction> functions_;
};

// One recorded launch of a RawKernel, replayed with new addresses (the DSL's compiled calls): the
// geometry and the parameter bytes that do not depend on the arguments are kept here, and a call
// passes only the stream, the device and each pointer parameter's new value.
// NOTES: packing the pointers into a copy of the bytes in Python (bytearray, struct.pack_into,
// bytes) and passing 13 launch arguments took 0.7 us of a compiled call's 2.0 on the build host;
// here a call converts three kinds of integer and copies the bytes on the stack.
class ReplayLaunch {
 public:
  ReplayLaunch(RawKernel& kernel, nb::bytes params, std::vector<int> pointer_offsets, RawKernel::Geometry const& g)
      : kernel_(kernel), params_(params.c_str(), params.size()), pointers_(std::move(pointer_offsets)), geometry_(g) {
    if (params_.size() > RawKernel::kMaxParamBytes)
      throw StatusError{{Status::kErrorInvalidProblem, kernel.symbol() + ": more than 4 KiB of parameters"}};
    for (int offset : pointers_)
      if (offset < 0 || static_cast<std::size_t>(offset) + sizeof(std::uint64_t) > params_.size())
        throw StatusError{{Status::kErrorInvalidProblem, kernel.symbol() + ": a pointer parameter lies past the parameter bytes"}};
  }

  void call(std::uintptr_t stream, int device, nb::args pointers) {
    if (pointers.size() != pointers_.size())
      throw StatusError{{Status::kErrorInvalidProblem, kernel_.symbol() + ": " + std::to_string(pointers.size()) +
                                                           " pointers for " + std::to_string(pointers_.size()) + " pointer parameters"}};
    alignas(16) char buffer[RawKernel::kMaxParamBytes];
    std::memcpy(buffer, params_.data(), params_.size());
    for (std::size_t i = 0; i < pointers_.size(); ++i) {
      auto const value = nb::cast<std::uint64_t>(pointers[i]);
      std::memcpy(buffer + pointers_[i], &value, sizeof(value));
    }
    kernel_.launch_buffer(geometry_, stream, device, buffer, params_.size());
  }

 private:
  RawKernel& kernel_;  // kept alive by the Python object (keep_alive in the binding)
  std::string params_;
  std::vector<int> pointers_;
  RawKernel::Geometry geometry_;
};

// A TMA descriptor (CUtensorMap, 128 bytes) of `inner` x `outer` x `batches` elements of
// `elem_bytes` bytes at `base` (strides `ld` and `batch_stride` in elements), read in boxes of
// box_inner x box_outer with a `swizzle_bytes` swizzle (0, 32, 64 or 128): the DSL's tma_load reads it.
nb::bytes encode_tma_map(std::uintptr_t base, int elem_bytes, std::uint64_t inner, std::uint64_t outer, std::uint64_t batches,
                         std::uint64_t ld, std::uint64_t batch_stride, std::uint32_t box_inner, std::uint32_t box_outer,
                         int swizzle_bytes) {
  std::string why;
  cuda::Driver const* d = cuda::driver(&why);
  if (!d) throw StatusError{{Status::kErrorNotSupported, "no CUDA driver to encode a TMA descriptor: " + why}};
  if (!d->cuTensorMapEncodeTiled)
    throw StatusError{{Status::kErrorInsufficientDriver, "the CUDA driver lacks cuTensorMapEncodeTiled: update it (CUDA 12 or newer)"}};
  alignas(64) unsigned char map[128] = {};
  arch::TmaView const v{reinterpret_cast<void const*>(base), inner, outer, batches, ld, batch_stride, box_inner, box_outer};
  if (StatusInfo s = arch::encode_tma_map(d->cuTensorMapEncodeTiled, map, arch::tma_data_type_code(elem_bytes), elem_bytes, v,
                                          arch::tma_swizzle_code(swizzle_bytes), "the tensor");
      !s.ok())
    throw StatusError{s};
  return nb::bytes(reinterpret_cast<char const*>(map), sizeof(map));
}

}  // namespace

void bind_raw_kernel(nb::module_& m) {
  m.def("encode_tma_map", &encode_tma_map, nb::arg("base"), nb::arg("elem_bytes"), nb::arg("inner"), nb::arg("outer"),
        nb::arg("batches"), nb::arg("ld"), nb::arg("batch_stride"), nb::arg("box_inner"), nb::arg("box_outer"),
        nb::arg("swizzle_bytes"), "The 128 bytes of a TMA descriptor (cuTensorMapEncodeTiled), for a DSL kernel's argument.");
  nb::class_<RawKernel>(m, "RawKernel", "A generated kernel (cubin and entry name) launched with a packed parameter buffer.")
      .def(nb::init<nb::bytes, std::string, std::string, int, std::vector<int>>(), nb::arg("cubin"), nb::arg("symbol"),
           nb::arg("target"), nb::arg("smem"), nb::arg("offsets"))
      .def("launch", &RawKernel::launch, nb::arg("gx"), nb::arg("gy"), nb::arg("gz"), nb::arg("bx"), nb::arg("by"), nb::arg("bz"),
           nb::arg("smem"), nb::arg("stream"), nb::arg("device"), nb::arg("params"), nb::arg("cx") = 1, nb::arg("cy") = 1,
           nb::arg("cz") = 1, "Launch with the parameters packed as the kernel's parameter list lays them out.")
      .def(
          "replay",
          [](RawKernel& k, nb::bytes params, std::vector<int> pointer_offsets, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
             unsigned by, unsigned bz, int smem, unsigned cx, unsigned cy, unsigned cz) {
            return new ReplayLaunch(k, params, std::move(pointer_offsets), {gx, gy, gz, bx, by, bz, smem, cx, cy, cz});
          },
          nb::arg("params"), nb::arg("pointer_offsets"), nb::arg("gx"), nb::arg("gy"), nb::arg("gz"), nb::arg("bx"), nb::arg("by"),
          nb::arg("bz"), nb::arg("smem"), nb::arg("cx") = 1, nb::arg("cy") = 1, nb::arg("cz") = 1, nb::keep_alive<0, 1>(),
          "A launch kept with its geometry and parameter bytes; call it with (stream, device, *pointers) to launch it again "
          "with each pointer parameter (at pointer_offsets) replaced.")
      .def_prop_ro("symbol", &RawKernel::symbol)
      .def_prop_ro("target", &RawKernel::target);
  nb::class_<ReplayLaunch>(m, "ReplayLaunch", "RawKernel.replay's launch: call(stream, device, *pointers).")
      .def("__call__", &ReplayLaunch::call);
}

}  // namespace tessel::py
