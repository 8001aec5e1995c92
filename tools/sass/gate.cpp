#include "gate.hpp"

#include <cctype>
#include <charconv>

namespace tessel::sass {

bool Gate::holds(std::int64_t count) const {
  switch (op) {
    case Comparison::kEq: return count == value;
    case Comparison::kNe: return count != value;
    case Comparison::kGe: return count >= value;
    case Comparison::kLe: return count <= value;
    case Comparison::kGt: return count > value;
    case Comparison::kLt: return count < value;
  }
  return false;
}

std::optional<Gate> parse_gate(std::string_view text, std::string& error) {
  Gate g;
  g.text = std::string(text);
  std::size_t i = 0;
  auto skip_space = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  };
  skip_space();
  const std::size_t key_begin = i;
  while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '.' ||
                             text[i] == '_')) {
    g.key += static_cast<char>(std::toupper(static_cast<unsigned char>(text[i])));
    ++i;
  }
  if (i == key_begin || g.key.front() == '.' || g.key.back() == '.') {
    error = "gate '" + std::string(text) +
            "' does not start with an opcode or opcode prefix such as HMMA or HMMA.16816";
    return std::nullopt;
  }
  skip_space();
  static constexpr std::pair<std::string_view, Comparison> kOps[] = {
      {"==", Comparison::kEq}, {"!=", Comparison::kNe}, {">=", Comparison::kGe},
      {"<=", Comparison::kLe}, {">", Comparison::kGt},  {"<", Comparison::kLt},
      {"=", Comparison::kEq}};
  bool found = false;
  for (const auto& [sym, op] : kOps) {
    if (text.substr(i, sym.size()) == sym) {
      g.op = op;
      i += sym.size();
      found = true;
      break;
    }
  }
  if (!found) {
    error = "gate '" + std::string(text) + "' needs a comparison after " + g.key +
            ": one of ==, !=, >=, <=, >, <";
    return std::nullopt;
  }
  skip_space();
  const char* begin = text.data() + i;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, g.value);
  if (ec != std::errc() || ptr == begin) {
    error = "gate '" + std::string(text) + "' needs a whole number after the comparison";
    return std::nullopt;
  }
  i = static_cast<std::size_t>(ptr - text.data());
  skip_space();
  if (i != text.size()) {
    error = "gate '" + std::string(text) + "' has trailing text '" +
            std::string(text.substr(i)) + "'";
    return std::nullopt;
  }
  return g;
}

std::string kernel_label(const Kernel& kernel) {
  return kernel.demangled + " [" + (kernel.arch.empty() ? "arch unknown" : kernel.arch) + "]";
}

std::optional<std::string> check_gate(const Gate& gate, const Kernel& kernel) {
  const std::int64_t n = kernel.count(gate.key);
  if (gate.holds(n)) return std::nullopt;
  std::string s = "kernel " + kernel_label(kernel) + ": expected " + gate.text + ", found " +
                  std::to_string(n) + " " + gate.key;
  // Show what the family does hold, which usually explains the miss (HMMA.1688 vs HMMA.16816).
  const std::string family = gate.key.substr(0, gate.key.find('.'));
  const std::string seen = kernel.breakdown(family);
  s += seen.empty() ? " (no " + family + " at all)" : " (" + family + ": " + seen + ")";
  return s;
}

std::optional<std::string> check_no_spills(const Kernel& kernel) {
  if (!kernel.spills()) return std::nullopt;
  return "kernel " + kernel_label(kernel) + " uses local memory: " + kernel.spill_evidence() +
         " (register spills, or a local array the compiler could not keep in registers)";
}

std::optional<std::string> check_wgmma_pipelined(const Kernel& kernel) {
  const std::int64_t wgmma = kernel.count("HGMMA") + kernel.count("QGMMA") + kernel.count("IGMMA");
  const std::int64_t waits = kernel.count("WARPGROUP.DEPBAR");
  if (wgmma == 0 || waits < wgmma) return std::nullopt;
  return "kernel " + kernel_label(kernel) + " waits for each wgmma alone: " + std::to_string(waits) +
         " WARPGROUP.DEPBAR for " + std::to_string(wgmma) +
         " wgmma (ptxas serialized them, its warning C7511: usually wgmma of two shapes writing the same accumulators)";
}

}  // namespace tessel::sass
