#pragma once
// Finding and running cuobjdump.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace tessel::sass {

struct CommandResult {
  int exit_code = -1;  // -1 when the program could not be started
  std::string output;  // stdout and stderr together
  bool output_too_large = false;  // stopped (and the program killed) past `max_output` bytes
};

// Runs `program` with `args`, without a shell, keeping at most `max_output` bytes of its output.
CommandResult run_command(const std::string& program, const std::vector<std::string>& args,
                          std::size_t max_output);

// cuobjdump's path, looked up in order: `explicit_path` (--cuobjdump), $TESSEL_CUOBJDUMP, the
// path found when tessel-sass was configured, PATH, $CUDA_HOME/bin, /usr/local/cuda/bin.
// `tried` lists where it looked.
std::optional<std::string> find_cuobjdump(const std::string& explicit_path,
                                          std::vector<std::string>& tried);

// The sentence for a missing cuobjdump, with the two ways to get it.
std::string missing_cuobjdump_message(const std::vector<std::string>& tried);

// Does `content` look like a binary (ELF, fatbin, object) rather than text?
bool looks_binary(const std::string& content);

}  // namespace tessel::sass
