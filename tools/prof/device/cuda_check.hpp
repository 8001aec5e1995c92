#pragma once
// CUDA errors as ProfError sentences, and an owning, untyped device allocation.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>

#include "core/error.hpp"

namespace tessel::prof {

inline void check_cuda(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess) {
    // Clear a non-sticky error (a failed allocation), or the next launch check would report it.
    (void)cudaGetLastError();
    throw ProfError(kExitFailed, what + " failed: " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
  }
}

class DeviceAllocation {
 public:
  DeviceAllocation() = default;
  explicit DeviceAllocation(std::size_t bytes, const std::string& what) : bytes_(bytes) {
    if (bytes_ != 0) check_cuda(cudaMalloc(&ptr_, bytes_), "cudaMalloc of " + std::to_string(bytes_) + " bytes for " + what);
  }
  DeviceAllocation(DeviceAllocation&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceAllocation& operator=(DeviceAllocation&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  DeviceAllocation(const DeviceAllocation&) = delete;
  DeviceAllocation& operator=(const DeviceAllocation&) = delete;
  ~DeviceAllocation() {
    if (ptr_) (void)cudaFree(ptr_);
  }
  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace tessel::prof
