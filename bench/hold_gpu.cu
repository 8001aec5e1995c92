#include "hold_gpu.hpp"

namespace tessel::bench {
namespace {
__global__ void hold_gpu_kernel(long long cycles) {
  long long const start = clock64();
  while (clock64() - start < cycles) {
  }
}
}  // namespace

void hold_gpu(cudaStream_t stream, long long cycles) { hold_gpu_kernel<<<1, 1, 0, stream>>>(cycles); }
}  // namespace tessel::bench
