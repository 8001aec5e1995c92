#pragma once
// Skip, with the reason, when the machine has no CUDA device or one too old for an arch tag.

#include <gtest/gtest.h>

#include "tessel/arch/runtime.hpp"
#include "tessel/verify/device_buffer.cuh"

#define TESSEL_SKIP_WITHOUT_DEVICE()                                                        \
  do {                                                                                      \
    if (tessel::verify::cuda_device_count() == 0) {                                         \
      GTEST_SKIP() << "no CUDA device is visible: this test runs only on a GPU machine"; \
    }                                                                                       \
  } while (0)

// Skips unless the current device runs `Tag`.
#define TESSEL_SKIP_UNLESS_DEVICE_RUNS(Tag)                                                     \
  do {                                                                                          \
    TESSEL_SKIP_WITHOUT_DEVICE();                                                               \
    if (const auto tessel_gate_ = tessel::arch::check_device_arch<Tag>(); !tessel_gate_.ok()) { \
      GTEST_SKIP() << tessel_gate_.message;                                                     \
    }                                                                                           \
  } while (0)
