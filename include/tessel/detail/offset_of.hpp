#pragma once
// offsetof for the parameter-block asserts, in headers that NVRTC compiles too: NVRTC has no
// standard library (no <cstddef>), and its front end spells the builtin differently from the host
// compilers'. A constant expression usable in a static_assert at namespace scope.
#if defined(__CUDACC_RTC__)
#define TESSEL_OFFSETOF(T, m) __INTADDR__(&((T*)0)->m)
#else
#define TESSEL_OFFSETOF(T, m) __builtin_offsetof(T, m)
#endif
