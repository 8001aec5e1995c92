#include "disassemble.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>

namespace tessel::sass {

namespace {
bool executable(const std::string& path) { return !path.empty() && access(path.c_str(), X_OK) == 0; }
}  // namespace

CommandResult run_command(const std::string& program, const std::vector<std::string>& args,
                          std::size_t max_output) {
  CommandResult result;
  int fds[2];
  if (pipe(fds) != 0) return result;
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return result;
  }
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    close(fds[0]);
    close(fds[1]);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(program.c_str()));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(program.c_str(), argv.data());
    _exit(127);
  }
  close(fds[1]);
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n > 0) {
      if (result.output.size() + static_cast<std::size_t>(n) > max_output) {
        result.output_too_large = true;
        kill(pid, SIGKILL);  // the rest would be thrown away: do not wait for it
        break;
      }
      result.output.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

std::optional<std::string> find_cuobjdump(const std::string& explicit_path,
                                          std::vector<std::string>& tried) {
  auto try_path = [&](const std::string& p) -> bool {
    if (p.empty()) return false;
    tried.push_back(p);
    return executable(p);
  };
  if (!explicit_path.empty()) {
    // An explicit choice is final: falling back elsewhere would hide a typo.
    if (try_path(explicit_path)) return explicit_path;
    return std::nullopt;
  }
  if (const char* env = std::getenv("TESSEL_CUOBJDUMP"); env != nullptr && try_path(env)) return env;
#ifdef TESSEL_SASS_CUOBJDUMP
  if (try_path(TESSEL_SASS_CUOBJDUMP)) return std::string(TESSEL_SASS_CUOBJDUMP);
#endif
  if (const char* path = std::getenv("PATH"); path != nullptr) {
    std::string dirs = path;
    std::size_t start = 0;
    while (start <= dirs.size()) {
      std::size_t end = dirs.find(':', start);
      if (end == std::string::npos) end = dirs.size();
      const std::string dir = dirs.substr(start, end - start);
      if (!dir.empty() && executable(dir + "/cuobjdump")) return dir + "/cuobjdump";
      start = end + 1;
    }
    tried.push_back("cuobjdump on PATH");
  }
  if (const char* home = std::getenv("CUDA_HOME"); home != nullptr) {
    if (try_path(std::string(home) + "/bin/cuobjdump")) return std::string(home) + "/bin/cuobjdump";
  }
  if (try_path("/usr/local/cuda/bin/cuobjdump")) return std::string("/usr/local/cuda/bin/cuobjdump");
  return std::nullopt;
}

std::string missing_cuobjdump_message(const std::vector<std::string>& tried) {
  std::string s = "tessel-sass: cuobjdump not found (looked at: ";
  for (std::size_t i = 0; i < tried.size(); ++i) s += (i ? ", " : "") + tried[i];
  s += "). It ships with the CUDA toolkit as bin/cuobjdump; without the full toolkit, "
       "`pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm` installs it under "
       "site-packages/nvidia/cu13/bin. Point tessel-sass at it with --cuobjdump=PATH or "
       "TESSEL_CUOBJDUMP, or give it a text file of `cuobjdump -sass` output instead.";
  return s;
}

bool looks_binary(const std::string& content) {
  if (content.size() >= 4 && std::memcmp(content.data(), "\x7f" "ELF", 4) == 0) return true;
  const std::size_t n = content.size() < 4096 ? content.size() : 4096;
  return std::memchr(content.data(), '\0', n) != nullptr;
}

}  // namespace tessel::sass
