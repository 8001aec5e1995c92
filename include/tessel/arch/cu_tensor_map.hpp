#pragma once
// CUtensorMap, the TMA descriptor a kernel takes by value: <cuda.h>'s, or a stand-in of the same
// size, alignment and tag name where <cuda.h> cannot be included: under NVRTC (which has no C
// library for <cuda.h> to include), and in host code that declares the driver's entry points
// itself (the Python extension defines TESSEL_NO_CUDA_H: <cuda.h> renames cuMemAlloc and its
// kin by macro). A kernel taking it mangles alike under nvcc and NVRTC; the kernel only passes its
// address to TMA instructions, and the contents are encoded on the host.
//
// cuda.h aligns it to 64 bytes before CUDA 13 and to 128 from then on; the stand-in follows the
// toolkit NVRTC belongs to, and 128 (CUDA 13, the toolkit tessel builds with) in host code.
// kernel/sm90_params.hpp asserts the size and alignment wherever the parameter block is built.

#if defined(__CUDACC_RTC__) || defined(TESSEL_NO_CUDA_H)
#if defined(__CUDACC_RTC__)
#define TESSEL_CU_TENSOR_MAP_ALIGN (__CUDACC_VER_MAJOR__ >= 13 ? 128 : 64)
#else
#define TESSEL_CU_TENSOR_MAP_ALIGN 128
#endif
typedef struct CUtensorMap_st {
  alignas(TESSEL_CU_TENSOR_MAP_ALIGN) unsigned long long opaque[16];
} CUtensorMap;
#undef TESSEL_CU_TENSOR_MAP_ALIGN
#else
#include <cuda.h>
#endif
