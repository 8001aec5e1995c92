#pragma once
// The one exception tessel-prof's code throws for a user-facing failure: a sentence saying what
// was wrong and what was expected, and the exit status the command line returns for it.

#include <stdexcept>
#include <string>

namespace tessel::prof {

enum ExitCode : int {
  kExitOk = 0,
  kExitFailed = 1,  // the run finished but something failed (verification, a CUDA call)
  kExitUsage = 2,   // the command line or an input file is malformed
  kExitUnwritable = 2,  // an output cannot be written (tools/common/cli_main.hpp's status for it)
  kExitNoGpu = 3,   // the mode needs a CUDA device and none is visible
};

class ProfError : public std::runtime_error {
 public:
  ProfError(int exit_code, const std::string& sentence)
      : std::runtime_error(sentence), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

inline ProfError usage_error(const std::string& sentence) { return ProfError(kExitUsage, sentence); }

}  // namespace tessel::prof
