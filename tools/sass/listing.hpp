#pragma once
// What tessel-sass knows about a binary: per kernel and architecture, a histogram of SASS opcodes
// (with their modifiers: HMMA.16816.F32, LDSM.16.M88.4) and the resource figures that reveal
// spills. It is filled from text: `cuobjdump -sass`, `cuobjdump -res-usage` and
// `nvcc -Xptxas -v` output, in any mix and order.

#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tessel::sass {

struct Kernel {
  std::string name;       // as in the binary (mangled)
  std::string demangled;  // readable, or the name itself when it is not mangled
  std::string arch;       // "sm_80", "sm_90a"; empty when the text did not say
  std::map<std::string, std::int64_t> opcodes;
  std::int64_t instructions = 0;
  std::int64_t registers = -1;       // -1: not reported
  std::int64_t local_bytes = -1;     // cuobjdump -res-usage LOCAL
  std::int64_t stack_bytes = -1;     // res-usage STACK or ptxas "bytes stack frame"
  std::int64_t spill_stores = -1;    // ptxas "bytes spill stores"
  std::int64_t spill_loads = -1;     // ptxas "bytes spill loads"

  // Instructions whose opcode is `key` or starts with `key` followed by a dot: "HMMA" counts
  // every HMMA, "HMMA.16816" every m16n8k16 HMMA, "HMMA.16816.F32.BF16" only that form.
  std::int64_t count(std::string_view key) const;
  // The opcodes `count(key)` adds up, formatted "HMMA.1688.F32 x4, HMMA.16816.F32 x2".
  std::string breakdown(std::string_view key) const;
  // Evidence of local-memory traffic: LDL/STL instructions, LOCAL bytes, ptxas spill bytes.
  bool spills() const;
  std::string spill_evidence() const;
};

struct Listing {
  std::vector<Kernel> kernels;  // in order of first appearance
  // The record for (name, arch), created on first use. Looked up by hash: a listing of many
  // kernels stays linear overall.
  Kernel& get(std::string_view name, std::string_view arch);

 private:
  std::unordered_map<std::string, std::size_t> index_;  // key(name, arch) -> position in kernels
};

// A text that holds a figure tessel-sass cannot represent (a count past 2^63): refused rather
// than truncated. what() names the line and the figure.
class ListingError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parse one text; adds to `out`. Lines that are none of the known forms are ignored, so a log
// with other output mixed in is fine. Returns how many facts about kernels the text held
// (instructions, resource lines, ptxas entries): 0 means it was not such a text.
// @throws ListingError for a number that does not fit in 64 bits.
std::size_t parse_text(std::string_view text, Listing& out);

// The opcode of one cuobjdump -sass instruction line ("/*0080*/  @!P0 HMMA.1688.F32 R8, ..."),
// or empty when the line is not an instruction.
std::string opcode_of_line(std::string_view line);

std::string demangle(const std::string& name);

}  // namespace tessel::sass
