#include "device/device_info.hpp"

#include <cuda_runtime_api.h>

#include <ctime>
#include <sstream>

#include "device/cublas_gemm.hpp"
#include "device/cuda_check.hpp"

namespace tessel::prof {

int visible_device_count(std::string& why) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    why = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
    (void)cudaGetLastError();
    return 0;
  }
  if (count == 0) why = "cudaGetDeviceCount reports 0 devices";
  return count;
}

std::string cuda_version_string(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

DeviceInfo query_device(int index) {
  std::string why;
  const int count = visible_device_count(why);
  if (index >= count) {
    throw ProfError(kExitFailed, "--device=" + std::to_string(index) + ": only " + std::to_string(count) +
                                     " CUDA device(s) are visible");
  }
  cudaDeviceProp p{};
  check_cuda(cudaGetDeviceProperties(&p, index), "cudaGetDeviceProperties");
  DeviceInfo d;
  d.index = index;
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.l2_bytes = p.l2CacheSize;
  d.global_bytes = static_cast<long long>(p.totalGlobalMem);
  d.smem_per_block_optin = static_cast<long long>(p.sharedMemPerBlockOptin);
  d.bus_width_bits = p.memoryBusWidth;
  (void)cudaDeviceGetAttribute(&d.sm_clock_khz, cudaDevAttrClockRate, index);
  (void)cudaDeviceGetAttribute(&d.mem_clock_khz, cudaDevAttrMemoryClockRate, index);
  (void)cudaDriverGetVersion(&d.driver_version);
  (void)cudaRuntimeGetVersion(&d.runtime_version);
  return d;
}

std::string describe(const DeviceInfo& d) {
  std::ostringstream o;
  char bw[32];
  std::snprintf(bw, sizeof bw, "%.0f", d.theoretical_bandwidth_gbps());
  o << "device " << d.index << ": " << d.name << "\n"
    << "  compute capability      " << d.compute_capability() << "\n"
    << "  SMs                     " << d.sm_count << "\n"
    << "  SM clock                " << d.sm_clock_khz / 1000 << " MHz\n"
    << "  L2 cache                " << d.l2_bytes / (1024 * 1024) << " MiB (" << d.l2_bytes << " bytes)\n"
    << "  global memory           " << d.global_bytes / (1024ll * 1024 * 1024) << " GiB\n"
    << "  shared memory per CTA   " << d.smem_per_block_optin / 1024 << " KiB (opt-in)\n"
    << "  memory bus              " << d.bus_width_bits << " bits at " << d.mem_clock_khz / 1000 << " MHz, "
    << bw << " GB/s theoretical\n"
    << "  driver / runtime        CUDA " << cuda_version_string(d.driver_version) << " / "
    << cuda_version_string(d.runtime_version) << "\n"
    << "  cuBLAS                  " << Cublas::version() << "\n";
  return o.str();
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

RunInfo run_info(const DeviceInfo& d, const std::string& command_line) {
  RunInfo r;
  r.fields = {{"date", utc_now()},
              {"device", d.name},
              {"compute_capability", d.compute_capability()},
              {"sm_count", std::to_string(d.sm_count)},
              {"l2_bytes", std::to_string(d.l2_bytes)},
              {"driver", "CUDA " + cuda_version_string(d.driver_version)},
              {"runtime", "CUDA " + cuda_version_string(d.runtime_version)},
              {"cublas", Cublas::version()},
              {"command", command_line}};
  return r;
}

}  // namespace tessel::prof
