#pragma once
// Whole-file reads and writes that fail with a sentence naming the flag the path came from.

#include <string>

namespace tessel::prof {

/// The whole of a text file of at most kMaxInputFileBytes (core/limits.hpp). A directory, a file
/// with a NUL byte (binary data, /dev/zero) or a larger one (/dev/urandom) throws usage_error
/// naming `flag` and the path and ending in "pass `expected`" ("a CSV written by ...").
std::string read_text_file(const std::string& path, const std::string& flag, const std::string& expected);

/// Writes `content` to `path`, replacing it; a path that cannot be opened or a write that fails
/// (a full disk, /dev/full) throws ProfError(kExitUnwritable) naming `flag`.
void write_text_file(const std::string& path, const std::string& content, const std::string& flag);

}  // namespace tessel::prof
