#pragma once
// Did the device load an sm_90a image of this translation unit's kernels? A kernel built for
// plain sm_90 (without the `a` features that wgmma and setmaxnreg need) compiles to an empty
// body, and the runtime reports both images with the same version; this flag, compiled into the
// same module as the kernels, tells them apart without launching anything.

#include <cuda_runtime_api.h>

#include <atomic>

#include "tessel/arch/runtime.hpp"

namespace tessel::arch {

#if defined(__CUDACC__)
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
static __device__ int sm90a_image_flag = 1;
#else
static __device__ int sm90a_image_flag = 0;
#endif

/// kSuccess when the current device is compute capability 9.0 and runs this module's sm_90a code.
static inline StatusInfo check_sm90a_image(void const* kernel) {
  if (auto s = check_kernel_arch<Sm90>(kernel); !s.ok()) return s;
  DeviceArch arch;
  if (auto s = query_device_arch(-1, arch); !s.ok()) return s;
  if (arch.compute_capability != 90)
    return {Status::kErrorArchMismatch, arch.describe() + " has compute capability " + std::to_string(arch.compute_capability / 10) +
                                            "." + std::to_string(arch.compute_capability % 10) +
                                            ", but this kernel uses sm_90a instructions (wgmma, setmaxnreg), which exist only on "
                                            "compute capability 9.0: use the Sm80 kernels there"};
  // NOTES: reading the flag is a synchronous copy, which waits for all the device's work: read it
  // once per device (per translation unit, whose module the flag belongs to), never per launch.
  constexpr int kCachedDevices = 64;
  static std::atomic<int> known[kCachedDevices];  // zero (unknown) at start; 1 sm_90a, 2 not
  int flag = arch.device >= 0 && arch.device < kCachedDevices ? known[arch.device].load(std::memory_order_relaxed) : 0;
  if (flag == 0) {
    int value = 0;
    if (auto s = status_from_cuda(cudaMemcpyFromSymbol(&value, sm90a_image_flag, sizeof(int)), "reading the sm_90a image flag");
        !s.ok())
      return s;
    flag = value ? 1 : 2;
    if (arch.device >= 0 && arch.device < kCachedDevices) known[arch.device].store(flag, std::memory_order_relaxed);
  }
  if (flag != 1)
    return {Status::kErrorArchMismatch,
            "this kernel was compiled for sm_90 without the `a` features its wgmma and setmaxnreg instructions need, so its "
            "body is empty: compile with -gencode=arch=compute_90a,code=sm_90a (CMAKE_CUDA_ARCHITECTURES=90a)"};
  return {};
}
#endif

}  // namespace tessel::arch
