#include "input.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace tessel::sass {

namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

std::string too_large(const std::string& path) {
  return "'" + path + "' is larger than " + mebibytes(kMaxInputBytes) +
         ", more than any cuobjdump listing; pass a binary or a listing of fewer kernels "
         "(cuobjdump -sass -fun NAME prints one)";
}

}  // namespace

std::string mebibytes(std::size_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

std::optional<std::string> read_input(const std::string& path, std::string& error) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    error = "cannot read '" + path + "': " + std::strerror(errno);
    return std::nullopt;
  }
  if (S_ISDIR(st.st_mode)) {
    error = "'" + path + "' is a directory; pass a binary or a text file of cuobjdump output in it";
    return std::nullopt;
  }
  // A device (/dev/zero, /dev/urandom, a terminal) is never a listing, and may never end. Pipes
  // stay accepted (`<(cuobjdump -sass app)`), bounded by the read limit below.
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
    error = "'" + path + "' is a device, not a file; pass a binary or a text file of cuobjdump output";
    return std::nullopt;
  }
  if (S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) > kMaxInputBytes) {
    error = too_large(path);
    return std::nullopt;
  }
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (!f) {
    error = "cannot read '" + path + "': " + std::strerror(errno);
    return std::nullopt;
  }
  // Read in chunks up to the limit: devices and pipes have no size to check beforehand.
  std::string content;
  if (S_ISREG(st.st_mode)) content.reserve(static_cast<std::size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    const std::size_t n = std::fread(buf, 1, sizeof buf, f.get());
    if (n == 0) break;
    if (content.size() + n > kMaxInputBytes) {
      error = too_large(path);
      return std::nullopt;
    }
    content.append(buf, n);
  }
  if (std::ferror(f.get())) {
    error = "cannot read '" + path + "': " + std::strerror(errno);
    return std::nullopt;
  }
  return content;
}

}  // namespace tessel::sass
