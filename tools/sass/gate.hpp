#pragma once
// Gates: "HMMA>=1", "LDGSTS==0", "HMMA.16816.F32==64". Each is checked against every selected
// kernel; a failure is reported as a sentence naming the kernel, the rule and what was found.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "listing.hpp"

namespace tessel::sass {

enum class Comparison { kEq, kNe, kGe, kLe, kGt, kLt };

struct Gate {
  std::string key;  // opcode or opcode prefix, upper case
  Comparison op = Comparison::kEq;
  std::int64_t value = 0;
  std::string text;  // as written, for messages

  bool holds(std::int64_t count) const;
};

// Parses "KEY OP N"; on failure returns nothing and sets `error` to a sentence.
std::optional<Gate> parse_gate(std::string_view text, std::string& error);

// The sentence for a failed gate, or nothing when it holds.
std::optional<std::string> check_gate(const Gate& gate, const Kernel& kernel);

// The sentence for a kernel with local-memory traffic, or nothing.
std::optional<std::string> check_no_spills(const Kernel& kernel);

// The sentence for a kernel that waits for each of its wgmma alone (as many WARPGROUP.DEPBAR as
// HGMMA / QGMMA / IGMMA: ptxas serialized them, its warning C7511), or nothing. A kernel without
// wgmma holds.
std::optional<std::string> check_wgmma_pipelined(const Kernel& kernel);

std::string kernel_label(const Kernel& kernel);  // "foo(float*) [sm_80]"

}  // namespace tessel::sass
