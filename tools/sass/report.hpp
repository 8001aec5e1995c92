#pragma once
// tessel-sass output: a short table per kernel, an optional full histogram, and JSON.

#include <string>
#include <vector>

#include "listing.hpp"

namespace tessel::sass {

// The opcode families the table always shows: the tensor-core math, the loads that feed it, and
// local memory.
inline const std::vector<std::string>& table_families() {
  static const std::vector<std::string> kFamilies = {"HMMA", "HGMMA", "LDSM", "LDGSTS",
                                                     "UTMALDG", "LDL", "STL"};
  return kFamilies;
}

std::string format_table(const std::vector<const Kernel*>& kernels);
std::string format_histogram(const Kernel& kernel);
std::string format_json(const std::vector<const Kernel*>& kernels);

}  // namespace tessel::sass
