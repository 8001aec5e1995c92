#pragma once
// A kernel that keeps the GPU busy for a number of clock cycles, so that the launches queued
// behind it start back to back and events around them time the kernels, not the host.
#include <cuda_runtime_api.h>

namespace tessel::bench {
void hold_gpu(cudaStream_t stream, long long cycles);
}
