#pragma once
// Whole-file reads and writes that fail with a sentence naming the flag the path came from.

#include <string>

namespace tessel::prof {

std::string read_text_file(const std::string& path, const std::string& flag);
void write_text_file(const std::string& path, const std::string& content, const std::string& flag);

}  // namespace tessel::prof
