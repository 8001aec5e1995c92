#pragma once
// Reading one input of tessel-sass within bounds: a directory, a device (/dev/zero never ends)
// or a file or pipe larger than any listing is refused with a sentence instead of
// exhausting memory.

#include <cstddef>
#include <optional>
#include <string>

namespace tessel::sass {

// The most bytes tessel-sass reads from one input file or one cuobjdump run. A listing of
// 100,000 kernels is a few tens of MiB; this leaves room for the largest real binaries while
// keeping memory bounded (README.md states it).
inline constexpr std::size_t kMaxInputBytes = std::size_t{256} << 20;

// The contents of `path`, or nothing with `error` set to a sentence (without the tool's name)
// that says what is wrong and what to pass instead.
std::optional<std::string> read_input(const std::string& path, std::string& error);

// "256 MiB": a byte count for messages.
std::string mebibytes(std::size_t bytes);

}  // namespace tessel::sass
