#pragma once
// Device counterparts of random.hpp and poison.hpp: the same values as the host fill, element for
// element, and the same poison pattern.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "tessel/verify/device_buffer.cuh"
#include "tessel/verify/poison.hpp"
#include "tessel/verify/random.hpp"

namespace tessel::verify {

template <class T>
__global__ void fill_random_kernel(T* data, std::size_t count, std::uint64_t seed,
                                   Distribution d) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    data[i] = random_element<T>(seed, i, d);
  }
}

// Fill `count` contiguous device elements; identical to fill_random on the host.
template <class T>
void fill_random_device(T* data, std::size_t count, std::uint64_t seed, Distribution d,
                        cudaStream_t stream = nullptr) {
  validate(d);
  if (count == 0) return;
  const std::size_t blocks = (count + 255) / 256;
  const unsigned grid = static_cast<unsigned>(blocks < 65535 ? blocks : 65535);
  fill_random_kernel<T><<<grid, 256, 0, stream>>>(data, count, seed, d);
  check_cuda(cudaGetLastError(), "fill_random_kernel launch");
}

template <class T>
void poison_device(T* data, std::size_t count, cudaStream_t stream = nullptr) {
  check_cuda(cudaMemsetAsync(data, kPoisonByte, count * sizeof(T), stream), "cudaMemsetAsync");
}

}  // namespace tessel::verify
