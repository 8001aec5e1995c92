#pragma once
// The files a run writes besides the terminal table: --output (CSV), --json, --plot, --markdown
// and --emit-best, for profile rows and for analysis rows.

#include <ostream>
#include <vector>

#include "core/options.hpp"
#include "core/report.hpp"
#include "core/rows.hpp"

namespace tessel::prof {

/// Writes every file the options ask for and names each on `out`.
void write_profile_outputs(const Options& opt, const std::vector<ProfileRow>& rows, const RunInfo& info,
                           std::ostream& out);
void write_analysis_outputs(const Options& opt, const std::vector<AnalysisRow>& rows, const RunInfo& info,
                            std::ostream& out);

}  // namespace tessel::prof
