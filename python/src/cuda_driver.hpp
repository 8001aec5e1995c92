#pragma once
// The CUDA driver API, loaded at run time from libcuda.so.1.
//
// The extension links nothing of CUDA: it must import (and the layout algebra work) on machines
// without a GPU or a toolkit, and a kernel launch goes through the same driver the process's
// PyTorch already initialised. Only the entry points the GEMM launcher needs are resolved.
#include <cstddef>
#include <cstdint>
#include <string>

namespace tessel::py::cuda {

// Opaque driver handles and the few enumerators used, as the driver's ABI defines them.
using CUresult = int;
using CUdevice = int;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;
using CUdeviceptr = unsigned long long;

inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr CUresult CUDA_ERROR_NO_BINARY_FOR_GPU = 209;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
inline constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
inline constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
inline constexpr int CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4;

// cuLaunchKernelEx's configuration, laid out as cuda.h lays it out (an attribute is its id, padded
// to 8 bytes, and a 64-byte union whose cluster member is three unsigned ints).
struct CUlaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    void* align;
    struct {
      unsigned x, y, z;
    } cluster_dim;
  } value;
};
struct CUlaunchConfig {
  unsigned grid_x, grid_y, grid_z, block_x, block_y, block_z;
  unsigned shared_mem_bytes;
  CUstream stream;
  CUlaunchAttribute* attrs;
  unsigned num_attrs;
};

struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int*);
  CUresult (*cuDeviceGetCount)(int*);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuCtxGetCurrent)(CUcontext*);
  CUresult (*cuCtxPushCurrent)(CUcontext);
  CUresult (*cuCtxPopCurrent)(CUcontext*);
  CUresult (*cuModuleLoadData)(CUmodule*, void const*);
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, char const*);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                             void**, void**);
  CUresult (*cuGetErrorName)(CUresult, char const**);
  CUresult (*cuGetErrorString)(CUresult, char const**);
  // CUDA 12 and newer (Hopper kernels, timing); nullptr where the driver lacks them.
  int (*cuTensorMapEncodeTiled)(void*, int, unsigned, void*, std::uint64_t const*, std::uint64_t const*, unsigned const*,
                                unsigned const*, int, int, int, int);
  CUresult (*cuLaunchKernelEx)(CUlaunchConfig const*, CUfunction, void**, void**);
  CUresult (*cuOccupancyMaxActiveClusters)(int*, CUfunction, CUlaunchConfig const*);
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int*, CUfunction, int, std::size_t);
  CUresult (*cuEventCreate)(CUevent*, unsigned);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent);
  CUresult (*cuEventDestroy)(CUevent);
  // The stream-K kernels' workspace: device memory, cleared on the stream; never during capture.
  CUresult (*cuMemAlloc)(CUdeviceptr*, std::size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, std::size_t, CUstream);
  CUresult (*cuStreamIsCapturing)(CUstream, int*);
  CUresult (*cuStreamSynchronize)(CUstream);
};

// The loaded and initialised driver, or nullptr with `why` set ("libcuda.so.1: cannot open
// shared object file", "cuInit failed: CUDA_ERROR_NO_DEVICE ...").
Driver const* driver(std::string* why = nullptr);

// "CUDA_ERROR_NO_BINARY_FOR_GPU (no kernel image is available for execution on the device)".
std::string error_text(CUresult r);

// Makes the primary context of `device` current for the scope, when it is not already.
class ScopedContext {
 public:
  ScopedContext(Driver const& d, CUcontext ctx);
  ~ScopedContext();
  ScopedContext(ScopedContext const&) = delete;
  ScopedContext& operator=(ScopedContext const&) = delete;

 private:
  Driver const& d_;
  bool pushed_ = false;
};

// The retained primary context of a device ordinal (the one the CUDA runtime, and so PyTorch,
// uses), and the device's compute capability as major*10 + minor.
struct DeviceInfo {
  CUdevice device = 0;
  CUcontext context = nullptr;
  int compute_capability = 0;
  int sm_count = 0;
};
// @throws CudaFailure
DeviceInfo const& device_info(int ordinal);

// A failed driver call, with the call's name and the driver's explanation.
struct CudaFailure {
  CUresult code;
  std::string message;
};

}  // namespace tessel::py::cuda
