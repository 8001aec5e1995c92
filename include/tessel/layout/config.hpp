#pragma once
// Portability macros shared by every layout header: the algebra is usable from host code,
// device code and constant expressions alike.

#if defined(__CUDACC__)
#define TESSEL_HD __host__ __device__
#define TESSEL_DEVICE __device__
#else
#define TESSEL_HD
#define TESSEL_DEVICE
#endif

// `#pragma unroll` where a CUDA compiler reads it; nothing for a host compiler, which would warn.
#if defined(__CUDACC__)
#define TESSEL_UNROLL _Pragma("unroll")
#else
#define TESSEL_UNROLL
#endif


#if defined(__CUDA_ARCH__)
#define TESSEL_UNREACHABLE() __builtin_unreachable()
#else
#define TESSEL_UNREACHABLE() __builtin_unreachable()
#endif

// Generic host-device templates (printing, tuple traversal) are instantiated with host-only
// callables too; this tells nvcc not to warn about the host-only instantiations.
#if defined(__CUDACC__) && !defined(__CUDACC_RTC__)
#define TESSEL_NO_HD_CHECK _Pragma("nv_exec_check_disable")
#else
#define TESSEL_NO_HD_CHECK
#endif

// A namespace-scope constant usable from host and device code alike (device code cannot name a
// host constexpr variable by reference, so device compilation gets a __device__ copy).
#if defined(__CUDA_ARCH__)
#define TESSEL_INLINE_CONSTANT static const __device__
#else
#define TESSEL_INLINE_CONSTANT static constexpr
#endif
