#pragma once
// Portability macros for code that compiles both as CUDA and as plain C++.
// The definitions are token-for-token those of tessel/layout/config.hpp, so either header may
// come first (an identical redefinition of a macro is well-formed).

#if defined(__CUDACC__)
#define TESSEL_HD __host__ __device__
#define TESSEL_DEVICE __device__
#else
#define TESSEL_HD
#define TESSEL_DEVICE
#endif
