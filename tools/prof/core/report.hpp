#pragma once
// Rows to text: the terminal table, CSV and JSON of each mode, and the CSV read back.

#include <string>
#include <vector>

#include "core/rows.hpp"

namespace tessel::prof {

/// Run metadata written at the top of the JSON and the markdown (device, driver, date, ...).
struct RunInfo {
  std::vector<std::pair<std::string, std::string>> fields;
  std::string get(const std::string& key) const;
};

// ---- profile mode ------------------------------------------------------------------------------
std::string profile_table(const std::vector<ProfileRow>& rows);
std::string profile_csv(const std::vector<ProfileRow>& rows);
std::string profile_json(const std::vector<ProfileRow>& rows, const RunInfo& info);
/// The inverse of profile_csv; throws usage_error naming `source` when a column is missing or a
/// value malformed.
std::vector<ProfileRow> parse_profile_csv(const std::string& text, const std::string& source);

// ---- analyze mode ------------------------------------------------------------------------------
std::string analysis_table(const std::vector<AnalysisRow>& rows);
std::string analysis_csv(const std::vector<AnalysisRow>& rows);
std::string analysis_json(const std::vector<AnalysisRow>& rows, const RunInfo& info);

// ---- enumerate mode ----------------------------------------------------------------------------
std::string kernel_table(const std::vector<KernelDescription>& kernels);
std::string kernel_csv(const std::vector<KernelDescription>& kernels);
std::string kernel_json(const std::vector<KernelDescription>& kernels, const RunInfo& info);

/// "%.6g": the precision every number in the CSV is written with.
std::string number(double x);

}  // namespace tessel::prof
