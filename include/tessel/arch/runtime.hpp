#pragma once
// Host-side architecture checks through the CUDA runtime: which compute capability the device
// has, which image of a kernel it would run, and the Status a handle returns before it allocates
// or launches anything when the two do not fit the kernel's arch tag.

#include <cuda_runtime_api.h>

#include <map>
#include <mutex>
#include <string>

#include "tessel/arch/gate.hpp"
#include "tessel/status.hpp"

namespace tessel::arch {

// A CUDA error as a Status and a sentence; `what` says which call failed.
inline StatusInfo status_from_cuda(cudaError_t error, const std::string& what) {
  if (error == cudaSuccess) return {};
  const std::string detail = std::string(cudaGetErrorName(error)) + ": " + cudaGetErrorString(error);
  switch (error) {
    case cudaErrorInsufficientDriver:
      return {Status::kErrorInsufficientDriver,
              what + " failed (" + detail +
                  "): the installed driver is older than this CUDA runtime; update the driver"};
    case cudaErrorNoDevice:
      return {Status::kErrorNotSupported,
              what + " failed (" + detail +
                  "): no CUDA device is visible; check the driver and CUDA_VISIBLE_DEVICES"};
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorUnsupportedPtxVersion:
      return {Status::kErrorArchMismatch,
              what + " failed (" + detail +
                  "): the build holds no image of this kernel for this GPU; add its architecture "
                  "to CMAKE_CUDA_ARCHITECTURES"};
    case cudaErrorMemoryAllocation:
      return {Status::kErrorMemoryAllocation, what + " failed (" + detail + ")"};
    default:
      return {Status::kErrorInternal, what + " failed (" + detail + ")"};
  }
}

struct DeviceArch {
  int device = 0;
  int compute_capability = 0;  // major*10 + minor
  std::string name;            // "NVIDIA H200"

  std::string describe() const { return "device " + std::to_string(device) + " (" + name + ")"; }
};

// The device's compute capability and name; `device` < 0 means the current device.
// NOTES: cudaGetDeviceProperties fills every property, some through driver calls, and took
// hundreds of microseconds a call; every handle's can_implement asks this, so each device is
// asked once per process (its name and compute capability never change).
inline StatusInfo query_device_arch(int device, DeviceArch& out) {
  if (device < 0) {
    if (auto s = status_from_cuda(cudaGetDevice(&device), "cudaGetDevice"); !s.ok()) return s;
  }
  static std::mutex mutex;
  static std::map<int, DeviceArch> known;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = known.find(device); it != known.end()) {
      out = it->second;
      return {};
    }
  }
  cudaDeviceProp prop{};
  if (auto s = status_from_cuda(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
      !s.ok()) {
    return s;
  }
  out.device = device;
  out.compute_capability = prop.major * 10 + prop.minor;
  out.name = prop.name;
  std::lock_guard<std::mutex> lock(mutex);
  known[device] = out;
  return {};
}

// Can the device (current when < 0) run kernels tagged `Tag`? False also when there is no device.
template <class Tag>
bool device_can_run(int device = -1) {
  DeviceArch arch;
  return query_device_arch(device, arch).ok() && device_runs_tag<Tag>(arch.compute_capability);
}

// kSuccess when the device (current when < 0) has a compute capability that runs `Tag`.
template <class Tag>
StatusInfo check_device_arch(int device = -1) {
  DeviceArch arch;
  if (auto s = query_device_arch(device, arch); !s.ok()) return s;
  return arch_gate<Tag>(arch.compute_capability, arch.describe(), 0);
}

// The full gate for one kernel on the current device: the device's compute capability, and the
// image of `kernel` the device would load (a 75;80 build run on a GPU with neither as its own
// architecture JIT-compiles the compute_75 PTX, whose Sm80 body is empty). Call it from
// can_implement or initialize, before any allocation.
template <class Tag>
StatusInfo check_kernel_arch(const void* kernel) {
  DeviceArch arch;
  if (auto s = query_device_arch(-1, arch); !s.ok()) return s;
  if (auto s = arch_gate<Tag>(arch.compute_capability, arch.describe(), 0); !s.ok()) return s;
  cudaFuncAttributes attributes{};
  if (auto s = status_from_cuda(cudaFuncGetAttributes(&attributes, kernel), "cudaFuncGetAttributes");
      !s.ok()) {
    return s;
  }
  return arch_gate<Tag>(arch.compute_capability, arch.describe(), attributes.ptxVersion);
}

}  // namespace tessel::arch
