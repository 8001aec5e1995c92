#include "core/text_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace tessel::prof {

std::string read_text_file(const std::string& path, const std::string& flag) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw usage_error(flag + "=" + path + ": cannot read the file (" + std::strerror(errno) + ")");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_text_file(const std::string& path, const std::string& content, const std::string& flag) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw ProfError(kExitFailed, flag + "=" + path + ": cannot write the file (" + std::strerror(errno) + ")");
  out << content;
  if (!out.flush()) throw ProfError(kExitFailed, flag + "=" + path + ": writing the file failed");
}

}  // namespace tessel::prof
