#pragma once
// Shared by GPU tests: skip cleanly where no CUDA device exists, and fail loudly on CUDA errors.

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#define TESSEL_SKIP_WITHOUT_GPU()                                                   \
  do {                                                                              \
    int tessel_devices_ = 0;                                                        \
    if (cudaGetDeviceCount(&tessel_devices_) != cudaSuccess || tessel_devices_ == 0) { \
      cudaGetLastError();                                                           \
      GTEST_SKIP() << "no CUDA device: GPU test skipped";                           \
    }                                                                               \
  } while (0)

#define TESSEL_CUDA_CHECK(expr)                                                          \
  do {                                                                                   \
    cudaError_t tessel_err_ = (expr);                                                    \
    ASSERT_EQ(tessel_err_, cudaSuccess) << #expr << ": " << cudaGetErrorString(tessel_err_); \
  } while (0)
