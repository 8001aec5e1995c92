#include "cuda_driver.hpp"

#include <dlfcn.h>

#include <memory>
#include <mutex>
#include <type_traits>
#include <vector>

namespace tessel::py::cuda {

namespace {

template <class F>
bool resolve(void* lib, char const* name, F& fn, std::string& missing) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  if (!fn) missing = name;
  return fn != nullptr;
}

struct Loaded {
  Driver driver{};
  bool ok = false;
  std::string why;
};

Loaded load() {
  Loaded out;
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    char const* e = dlerror();
    out.why = std::string("the CUDA driver is not available (") + (e ? e : "libcuda.so.1 not found") + ")";
    return out;
  }
  Driver& d = out.driver;
  std::string missing;
  // The _v2 names are the current ABI of those calls; the unsuffixed ones are kept for old binaries.
  bool ok = resolve(lib, "cuInit", d.cuInit, missing) && resolve(lib, "cuDriverGetVersion", d.cuDriverGetVersion, missing) &&
            resolve(lib, "cuDeviceGetCount", d.cuDeviceGetCount, missing) && resolve(lib, "cuDeviceGet", d.cuDeviceGet, missing) &&
            resolve(lib, "cuDeviceGetAttribute", d.cuDeviceGetAttribute, missing) &&
            resolve(lib, "cuDevicePrimaryCtxRetain", d.cuDevicePrimaryCtxRetain, missing) &&
            resolve(lib, "cuCtxGetCurrent", d.cuCtxGetCurrent, missing) &&
            resolve(lib, "cuCtxPushCurrent_v2", d.cuCtxPushCurrent, missing) &&
            resolve(lib, "cuCtxPopCurrent_v2", d.cuCtxPopCurrent, missing) &&
            resolve(lib, "cuModuleLoadData", d.cuModuleLoadData, missing) &&
            resolve(lib, "cuModuleGetFunction", d.cuModuleGetFunction, missing) &&
            resolve(lib, "cuFuncSetAttribute", d.cuFuncSetAttribute, missing) &&
            resolve(lib, "cuLaunchKernel", d.cuLaunchKernel, missing) && resolve(lib, "cuGetErrorName", d.cuGetErrorName, missing) &&
            resolve(lib, "cuGetErrorString", d.cuGetErrorString, missing);
  if (!ok) {
    out.why = "the CUDA driver lacks " + missing + ": it is too old for tessel";
    return out;
  }
  // Optional: a driver without them runs the Sm80 kernels; the Hopper launch and the timing say
  // what is missing. A renamed entry point's current ABI (_v2) is preferred.
  auto optional = [&](auto& fn, char const* name, char const* v2 = nullptr) {
    fn = nullptr;
    if (v2) fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, v2));
    if (!fn) fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
  };
  optional(d.cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled");
  optional(d.cuLaunchKernelEx, "cuLaunchKernelEx");
  optional(d.cuOccupancyMaxActiveClusters, "cuOccupancyMaxActiveClusters");
  optional(d.cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  optional(d.cuEventCreate, "cuEventCreate");
  optional(d.cuEventRecord, "cuEventRecord");
  optional(d.cuEventSynchronize, "cuEventSynchronize");
  optional(d.cuEventElapsedTime, "cuEventElapsedTime", "cuEventElapsedTime_v2");
  optional(d.cuEventDestroy, "cuEventDestroy", "cuEventDestroy_v2");
  optional(d.cuMemAlloc, "cuMemAlloc", "cuMemAlloc_v2");
  optional(d.cuMemFree, "cuMemFree", "cuMemFree_v2");
  optional(d.cuMemsetD8Async, "cuMemsetD8Async");
  optional(d.cuStreamIsCapturing, "cuStreamIsCapturing");
  optional(d.cuStreamSynchronize, "cuStreamSynchronize");
  if (CUresult r = d.cuInit(0); r != CUDA_SUCCESS) {
    out.why = "cuInit failed: " + error_text(r);
    // error_text needs the driver; it was resolved above, so the message is complete.
    return out;
  }
  out.ok = true;
  return out;
}

Loaded const& loaded() {
  static Loaded const l = load();
  return l;
}

}  // namespace

Driver const* driver(std::string* why) {
  Loaded const& l = loaded();
  if (!l.ok && why) *why = l.why;
  return l.ok ? &l.driver : nullptr;
}

std::string error_text(CUresult r) {
  // Called while loading too, so it reads the function pointers without requiring success.
  static void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  using Fn = CUresult (*)(CUresult, char const**);
  auto name_fn = lib ? reinterpret_cast<Fn>(dlsym(lib, "cuGetErrorName")) : nullptr;
  auto text_fn = lib ? reinterpret_cast<Fn>(dlsym(lib, "cuGetErrorString")) : nullptr;
  char const* name = nullptr;
  char const* text = nullptr;
  if (name_fn) name_fn(r, &name);
  if (text_fn) text_fn(r, &text);
  std::string out = name ? name : "CUDA error " + std::to_string(r);
  if (text) out += std::string(" (") + text + ")";
  return out;
}

ScopedContext::ScopedContext(Driver const& d, CUcontext ctx) : d_(d) {
  CUcontext current = nullptr;
  d_.cuCtxGetCurrent(&current);
  if (current != ctx) {
    if (CUresult r = d_.cuCtxPushCurrent(ctx); r != CUDA_SUCCESS) throw CudaFailure{r, "cuCtxPushCurrent: " + error_text(r)};
    pushed_ = true;
  }
}

ScopedContext::~ScopedContext() {
  if (pushed_) {
    CUcontext popped = nullptr;
    d_.cuCtxPopCurrent(&popped);
  }
}

DeviceInfo const& device_info(int ordinal) {
  static std::mutex mutex;
  static std::vector<std::unique_ptr<DeviceInfo>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  if (ordinal >= 0 && ordinal < static_cast<int>(cache.size()) && cache[ordinal]) return *cache[ordinal];
  std::string why;
  Driver const* d = driver(&why);
  if (!d) throw CudaFailure{-1, why};
  int count = 0;
  if (CUresult r = d->cuDeviceGetCount(&count); r != CUDA_SUCCESS) throw CudaFailure{r, "cuDeviceGetCount: " + error_text(r)};
  if (ordinal < 0 || ordinal >= count)
    throw CudaFailure{-1, "CUDA device " + std::to_string(ordinal) + " does not exist (" + std::to_string(count) + " visible)"};
  auto info = std::make_unique<DeviceInfo>();
  auto check = [](CUresult r, char const* call) {
    if (r != CUDA_SUCCESS) throw CudaFailure{r, std::string(call) + ": " + error_text(r)};
  };
  check(d->cuDeviceGet(&info->device, ordinal), "cuDeviceGet");
  int major = 0, minor = 0;
  check(d->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, info->device), "cuDeviceGetAttribute");
  check(d->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, info->device), "cuDeviceGetAttribute");
  info->compute_capability = major * 10 + minor;
  check(d->cuDeviceGetAttribute(&info->sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, info->device), "cuDeviceGetAttribute");
  check(d->cuDevicePrimaryCtxRetain(&info->context, info->device), "cuDevicePrimaryCtxRetain");
  if (static_cast<int>(cache.size()) <= ordinal) cache.resize(ordinal + 1);
  cache[ordinal] = std::move(info);
  return *cache[ordinal];
}

}  // namespace tessel::py::cuda
