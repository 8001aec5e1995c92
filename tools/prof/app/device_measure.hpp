#pragma once
// The ceilings analyze mode divides by, measured: copy bandwidth (a device-to-device copy of a
// buffer far larger than L2, counting the bytes read and written) and the matrix rate (cuBLAS on
// 8192^3, per input type: the best dense rate a library reaches on this GPU, not the datasheet).

#include <cuda_runtime_api.h>

#include "core/device_profile.hpp"
#include "device/cublas_gemm.hpp"
#include "device/device_info.hpp"

namespace tessel::prof {

DeviceProfile measure_device(const DeviceInfo& info, Cublas& cublas, cudaStream_t stream, std::uint64_t seed);

}  // namespace tessel::prof
