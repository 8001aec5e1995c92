#include "core/device_profile.hpp"

#include <cstdio>
#include <sstream>

#include "core/error.hpp"
#include "core/int_list.hpp"
#include "core/limits.hpp"
#include "core/text_file.hpp"

namespace tessel::prof {

namespace {
// An L2 of 1 TiB: a thousand times an H200's, and far from overflowing the buffer plan's sums.
constexpr std::int64_t kMaxL2Bytes = std::int64_t(1) << 40;
}  // namespace

std::optional<double> DeviceProfile::matrix_rate(Element e) const {
  auto it = matrix_tflops.find(std::string(to_string(e)));
  if (it == matrix_tflops.end()) return std::nullopt;
  return it->second;
}

std::string format_device_profile(const DeviceProfile& p) {
  std::ostringstream out;
  char num[64];
  out << "# tessel-prof device profile: written by --mode=profile --device-profile=FILE,\n"
      << "# read by --mode=analyze --device-profile=FILE\n";
  out << "device = " << p.device << "\n";
  out << "compute_capability = " << p.compute_capability << "\n";
  out << "sm_count = " << p.sm_count << "\n";
  out << "l2_bytes = " << p.l2_bytes << "\n";
  std::snprintf(num, sizeof num, "%.1f", p.copy_bandwidth_gbps);
  out << "copy_bandwidth_gbps = " << num << "\n";
  for (const auto& [type, rate] : p.matrix_tflops) {
    std::snprintf(num, sizeof num, "%.1f", rate);
    out << "matrix_tflops_" << type << " = " << num << "\n";
  }
  if (!p.measured.empty()) out << "measured = " << p.measured << "\n";
  return out.str();
}

DeviceProfile parse_device_profile(const std::string& text, const std::string& source) {
  DeviceProfile p;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const auto eq = line.find('=');
    if (eq == std::string::npos) {
      throw usage_error(source + ":" + std::to_string(number) + ": expected 'key = value', got '" + line + "'");
    }
    auto trim = [](std::string s) {
      s.erase(0, s.find_first_not_of(" \t\r"));
      s.erase(s.find_last_not_of(" \t\r") + 1);
      return s;
    };
    const std::string key = trim(line.substr(0, eq)), value = trim(line.substr(eq + 1));
    const std::string where = source + ":" + std::to_string(number) + ": " + key;
    if (key == "device") p.device = value;
    else if (key == "compute_capability") p.compute_capability = value;
    else if (key == "measured") p.measured = value;
    else if (key == "sm_count") p.sm_count = int(parse_int(where, value, 1, kMaxSmCount));
    else if (key == "l2_bytes") p.l2_bytes = parse_int(where, value, 0, kMaxL2Bytes);
    else if (key == "copy_bandwidth_gbps") p.copy_bandwidth_gbps = parse_rate(where, value);
    else if (key.rfind("matrix_tflops_", 0) == 0) p.matrix_tflops[key.substr(14)] = parse_rate(where, value);
  }
  return p;
}

DeviceProfile read_device_profile(const std::string& path) {
  return parse_device_profile(read_text_file(path, "--device-profile", "a device profile written by --mode=profile --device-profile=FILE"), path);
}

void write_device_profile(const std::string& path, const DeviceProfile& p) {
  write_text_file(path, format_device_profile(p), "--device-profile");
}

}  // namespace tessel::prof
