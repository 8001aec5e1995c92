#pragma once
// CUtensorMap, the TMA descriptor a kernel takes by value: <cuda.h>'s, or under NVRTC (which has
// no C library for <cuda.h> to include) a stand-in of the same size, alignment and tag name, so
// that a kernel taking it mangles alike under nvcc and NVRTC. The kernel only passes its address
// to TMA instructions; the contents are encoded on the host.
//
// cuda.h aligns it to 64 bytes before CUDA 13 and to 128 from then on; the stand-in follows the
// toolkit NVRTC belongs to, so that a struct holding a map is laid out as host code sees it.

#if defined(__CUDACC_RTC__)
typedef struct CUtensorMap_st {
  alignas(__CUDACC_VER_MAJOR__ >= 13 ? 128 : 64) unsigned long long opaque[16];
} CUtensorMap;
#else
#include <cuda.h>
#endif
