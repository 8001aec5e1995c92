#pragma once
// Small pieces every benchmark program here uses: the median of a run's times, printf-style
// formatting of one number, option values as integers, and the check that a CUDA device answers
// before anything is timed.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tessel/arch/runtime.hpp"

namespace tessel::bench {

inline double median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  std::size_t const n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (double(v[n / 2 - 1]) + v[n / 2]);
}

inline std::string fmt(char const* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

/// An option's value as one integer in [lo, hi]. False, with `out` untouched, for anything else:
/// trailing characters ("12x"), an empty value, or a number out of range.
inline bool parse_int(char const* v, long lo, long hi, int& out) {
  char* end = nullptr;
  long const x = std::strtol(v, &end, 10);
  if (end == v || *end != '\0' || x < lo || x > hi) return false;
  out = int(x);
  return true;
}

/// A comma-separated list of integers, each in [lo, hi], at least one ("0,2,4"). False for an
/// empty list or any malformed or out-of-range entry.
inline bool parse_int_list(char const* v, long lo, long hi, std::vector<int>& out) {
  out.clear();
  for (char const* p = v; *p;) {
    char* end = nullptr;
    long const x = std::strtol(p, &end, 10);
    if (end == p || x < lo || x > hi || (*end != ',' && *end != '\0')) return false;
    out.push_back(int(x));
    p = *end == ',' ? end + 1 : end;
  }
  return !out.empty();
}

/// 0 when a CUDA device answers (described in `dev`); otherwise a sentence on stderr, "<tool>: no
/// CUDA device; <needs>", and 2, the benchmarks' exit status for "no usable GPU".
inline int require_cuda_device(char const* tool, char const* needs, arch::DeviceArch& dev) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    (void)cudaGetLastError();
    std::fprintf(stderr, "%s: no CUDA device; %s\n", tool, needs);
    return 2;
  }
  if (StatusInfo const s = arch::query_device_arch(-1, dev); !s.ok()) {
    std::fprintf(stderr, "%s: %s\n", tool, s.what().c_str());
    return 2;
  }
  return 0;
}

}  // namespace tessel::bench
