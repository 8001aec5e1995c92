#include "core/text_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/limits.hpp"

namespace tessel::prof {

namespace {

std::string errno_text(int e) { return e ? std::string(" (") + std::strerror(e) + ")" : ""; }

}  // namespace

std::string read_text_file(const std::string& path, const std::string& flag, const std::string& expected) {
  const std::string where = flag + "=" + path;
  std::error_code ec;
  // A directory opens as a stream on Linux and then reads as empty: name it instead.
  if (std::filesystem::is_directory(path, ec)) throw usage_error(where + ": is a directory; pass " + expected);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw usage_error(where + ": cannot read the file" + errno_text(errno) + "; pass " + expected);
  // Read in chunks so that an endless device (/dev/zero, /dev/urandom) stops at the first NUL or
  // at the size limit instead of filling the memory.
  std::string text;
  char chunk[1 << 16];
  while (in) {
    in.read(chunk, sizeof chunk);
    const std::size_t got = std::size_t(in.gcount());
    if (const void* nul = std::memchr(chunk, '\0', got)) {
      const std::size_t at = text.size() + std::size_t(static_cast<const char*>(nul) - chunk);
      throw usage_error(where + ": is not a text file (byte " + std::to_string(at) + " is NUL); pass " + expected);
    }
    if (text.size() + got > kMaxInputFileBytes) {
      throw usage_error(where + ": is larger than " + std::to_string(kMaxInputFileBytes >> 20) +
                        " MiB, the limit for an input file; pass " + expected + " of at most that size");
    }
    text.append(chunk, got);
  }
  if (in.bad()) throw usage_error(where + ": reading the file failed" + errno_text(errno) + "; pass " + expected);
  return text;
}

void write_text_file(const std::string& path, const std::string& content, const std::string& flag) {
  const std::string where = flag + "=" + path;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    throw ProfError(kExitUnwritable, where + ": cannot open the file for writing" + errno_text(errno) +
                                         "; pass a path in an existing, writable directory");
  }
  errno = 0;
  out << content;
  out.close();  // the last buffered bytes are written here, and may fail here
  if (out.fail()) {
    throw ProfError(kExitUnwritable, where + ": writing the file failed" + errno_text(errno) +
                                         "; pass a path on a disk with room for it");
  }
}

}  // namespace tessel::prof
