#pragma once
// What profile mode measured about a GPU, kept in a small text file so that analyze mode can use
// the same ceilings on a machine without one:
//
//   # tessel-prof device profile
//   device = NVIDIA H200
//   compute_capability = 9.0
//   sm_count = 132
//   l2_bytes = 62914560
//   copy_bandwidth_gbps = 4312.5
//   matrix_tflops_f16 = 745.1
//   matrix_tflops_bf16 = 751.9
//
// One `key = value` per line; '#' starts a comment; unknown keys are kept and ignored.

#include <map>
#include <optional>
#include <string>

#include "core/types.hpp"

namespace tessel::prof {

struct DeviceProfile {
  std::string device;
  std::string compute_capability;
  int sm_count = 0;
  long long l2_bytes = 0;
  double copy_bandwidth_gbps = 0;
  std::map<std::string, double> matrix_tflops;  // by input element type: "f16", "bf16"
  std::string measured;                           // date, for the reader's information

  /// The matrix rate for kernels reading `e`, if measured.
  std::optional<double> matrix_rate(Element e) const;
};

std::string format_device_profile(const DeviceProfile& p);
/// Throws usage_error naming the file and line when a line is malformed or a number is not one.
DeviceProfile parse_device_profile(const std::string& text, const std::string& source_name);

DeviceProfile read_device_profile(const std::string& path);
void write_device_profile(const std::string& path, const DeviceProfile& p);

}  // namespace tessel::prof
