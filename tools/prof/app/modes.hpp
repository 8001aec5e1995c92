#pragma once
// One function per --mode; each returns the exit status and throws ProfError for a failure that
// ends the run.

#include <ostream>
#include <string>
#include <vector>

#include "core/kernel_description.hpp"
#include "core/options.hpp"

namespace tessel::prof {

int run_enumerate(const Options& opt, std::ostream& out);
int run_analyze(const Options& opt, std::ostream& out);
int run_dispatch(const Options& opt, std::ostream& out);
int run_profile(const Options& opt, const std::string& command_line, std::ostream& out, std::ostream& err);
int run_report(const Options& opt, std::ostream& out);
int run_device_info(const Options& opt, std::ostream& out);

/// Every compiled kernel's description, sorted by name.
std::vector<KernelDescription> compiled_kernels();

/// The sentence profile mode (and --device-info) give where no GPU is visible.
std::string no_gpu_sentence(const std::string& why);

}  // namespace tessel::prof
