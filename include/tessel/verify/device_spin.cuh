#pragma once
// A kernel that holds the GPU for a given time, for timing: launches queued behind it start back
// to back, so no timed launch's events enclose a wait for the host.

#include <cuda_runtime_api.h>

namespace tessel::verify {

/// One thread reads the global timer until `ns` nanoseconds have passed. (A template only so that
/// the header can be included by several translation units.)
template <int = 0>
__global__ void spin_kernel(unsigned long long ns) {
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

/// Queue a spin of `ns` nanoseconds on `stream`; the launch's error, if any.
inline cudaError_t spin(unsigned long long ns, cudaStream_t stream = nullptr) {
  spin_kernel<><<<1, 1, 0, stream>>>(ns);
  return cudaGetLastError();
}

}  // namespace tessel::verify
