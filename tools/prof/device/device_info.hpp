#pragma once
// The GPU's identity and the numbers the profiler sizes its work by (SM count, L2 size), for
// --device-info, the reports' metadata and the device profile file.

#include <string>

#include "core/report.hpp"

namespace tessel::prof {

struct DeviceInfo {
  int index = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  long long l2_bytes = 0;
  long long global_bytes = 0;
  long long smem_per_block_optin = 0;
  int sm_clock_khz = 0, mem_clock_khz = 0, bus_width_bits = 0;
  int driver_version = 0, runtime_version = 0;

  /// 2 transfers per clock over the bus: the datasheet bandwidth, not a measurement.
  double theoretical_bandwidth_gbps() const { return 2.0 * mem_clock_khz * 1e3 * (bus_width_bits / 8.0) / 1e9; }
  std::string compute_capability() const { return std::to_string(cc_major) + "." + std::to_string(cc_minor); }
};

/// Visible CUDA devices; 0 with `why` set when there is none or the driver cannot be used.
int visible_device_count(std::string& why);
/// Throws ProfError for an index out of range.
DeviceInfo query_device(int index);
/// "12080" -> "12.8"
std::string cuda_version_string(int v);
/// Multi-line text for --device-info.
std::string describe(const DeviceInfo& d);
/// Metadata for JSON and markdown: date, device, driver, runtime, cuBLAS.
RunInfo run_info(const DeviceInfo& d, const std::string& command_line);
/// The current UTC time, ISO 8601.
std::string utc_now();

}  // namespace tessel::prof
