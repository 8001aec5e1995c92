#include "listing.hpp"

#include <cxxabi.h>

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <memory>

namespace tessel::sass {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// The first whitespace-separated token of `s`.
std::string_view first_token(std::string_view s) {
  s = trim(s);
  std::size_t end = 0;
  while (end < s.size() && !std::isspace(static_cast<unsigned char>(s[end]))) ++end;
  return s.substr(0, end);
}

// The decimal figure at the start of `s` ("16" in "16 STACK:0"), or -1 when `s` does not start
// with a digit. A figure past 2^63 is refused: truncating it would report a wrong count.
std::int64_t figure_at(std::string_view s, std::size_t line_no) {
  std::size_t end = 0;
  while (end < s.size() && std::isdigit(static_cast<unsigned char>(s[end]))) ++end;
  if (end == 0) return -1;
  std::int64_t v = -1;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + end, v);
  if (ec != std::errc()) {
    constexpr std::size_t kShown = 24;
    const std::string digits = end <= kShown ? std::string(s.substr(0, end))
                                             : std::string(s.substr(0, kShown)) + "...";
    throw ListingError("line " + std::to_string(line_no) + ": the figure " + digits +
                       " does not fit in 64 bits; the text is damaged or not cuobjdump or ptxas "
                       "output, so regenerate it");
  }
  return v;
}

// The figure right after `key` in `s` ("REG:" in "REG:16 STACK:0"), or -1.
std::int64_t number_after(std::string_view s, std::string_view key, std::size_t line_no) {
  const std::size_t at = s.find(key);
  if (at == std::string_view::npos) return -1;
  return figure_at(s.substr(at + key.size()), line_no);
}

// The figure just before `suffix` in `s` ("16 bytes spill stores"), or -1.
std::int64_t number_before(std::string_view s, std::string_view suffix, std::size_t line_no) {
  const std::size_t at = s.find(suffix);
  if (at == std::string_view::npos) return -1;
  std::size_t begin = at;
  while (begin > 0 && s[begin - 1] == ' ') --begin;
  const std::size_t end = begin;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(s[begin - 1]))) --begin;
  if (begin == end) return -1;
  return figure_at(s.substr(begin, end - begin), line_no);
}

// "sm_80" from "sm_80", "sm_90a", "'sm_80'".
std::string arch_token(std::string_view s) {
  s = first_token(s);
  while (!s.empty() && (s.front() == '\'' || s.front() == '"')) s.remove_prefix(1);
  std::size_t end = 0;
  while (end < s.size() && (std::isalnum(static_cast<unsigned char>(s[end])) || s[end] == '_')) ++end;
  return std::string(s.substr(0, end));
}

// Case-insensitive: gates are typed in upper case, but shape modifiers carry a lower-case x
// (HGMMA.64x128x16.F32).
bool matches_key(std::string_view opcode, std::string_view key) {
  if (opcode.size() < key.size() || (opcode.size() > key.size() && opcode[key.size()] != '.')) return false;
  for (std::size_t i = 0; i < key.size(); ++i)
    if (std::toupper(static_cast<unsigned char>(opcode[i])) != std::toupper(static_cast<unsigned char>(key[i]))) return false;
  return true;
}

}  // namespace

std::string demangle(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : name;
}

std::int64_t Kernel::count(std::string_view key) const {
  std::int64_t n = 0;
  for (const auto& [op, c] : opcodes) {
    if (matches_key(op, key)) n += c;
  }
  return n;
}

std::string Kernel::breakdown(std::string_view key) const {
  std::string out;
  for (const auto& [op, c] : opcodes) {
    if (!matches_key(op, key)) continue;
    if (!out.empty()) out += ", ";
    out += op + " x" + std::to_string(c);
  }
  return out;
}

bool Kernel::spills() const {
  return count("LDL") > 0 || count("STL") > 0 || local_bytes > 0 || spill_stores > 0 ||
         spill_loads > 0;
}

std::string Kernel::spill_evidence() const {
  std::string out;
  auto add = [&](const std::string& s) { out += (out.empty() ? "" : ", ") + s; };
  if (const auto n = count("STL"); n > 0) add(std::to_string(n) + " STL");
  if (const auto n = count("LDL"); n > 0) add(std::to_string(n) + " LDL");
  if (local_bytes > 0) add(std::to_string(local_bytes) + " bytes of local memory (res-usage)");
  if (spill_stores > 0) add(std::to_string(spill_stores) + " bytes spill stores (ptxas)");
  if (spill_loads > 0) add(std::to_string(spill_loads) + " bytes spill loads (ptxas)");
  return out;
}

Kernel& Listing::get(std::string_view name, std::string_view arch) {
  // A newline cannot occur in either part: the text is split into lines before.
  std::string key = std::string(name) + '\n' + std::string(arch);
  const auto [it, added] = index_.try_emplace(std::move(key), kernels.size());
  if (!added) return kernels[it->second];
  Kernel k;
  k.name = std::string(name);
  k.demangled = demangle(k.name);
  k.arch = std::string(arch);
  kernels.push_back(std::move(k));
  return kernels.back();
}

std::string opcode_of_line(std::string_view line) {
  std::string_view s = trim(line);
  // "/*0080*/": a hex address; the encoding lines read "/* 0x... */" and are skipped.
  if (!starts_with(s, "/*")) return {};
  const std::size_t close = s.find("*/");
  if (close == std::string_view::npos || close == 2) return {};
  for (std::size_t i = 2; i < close; ++i) {
    if (!std::isxdigit(static_cast<unsigned char>(s[i]))) return {};
  }
  s = trim(s.substr(close + 2));
  if (!s.empty() && s.front() == '{') s = trim(s.substr(1));  // dual-issue braces
  if (!s.empty() && s.front() == '@') {                        // predicate guard
    s = trim(s.substr(first_token(s).size()));
  }
  std::string_view op = first_token(s);
  while (!op.empty() && (op.back() == ';' || op.back() == '}')) op.remove_suffix(1);
  if (op.empty() || !std::isupper(static_cast<unsigned char>(op.front()))) return {};
  return std::string(op);
}

std::size_t parse_text(std::string_view text, Listing& out) {
  std::size_t facts = 0;
  std::string arch;
  // Indices rather than references: `get` may grow the vector.
  long sass_kernel = -1, res_kernel = -1, ptxas_kernel = -1;
  auto index_of = [&](std::string_view name, std::string_view a) {
    Kernel& k = out.get(name, a);
    return static_cast<long>(&k - out.kernels.data());
  };

  std::size_t pos = 0, line_no = 0;
  while (pos <= text.size()) {
    ++line_no;
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    const std::string_view raw = text.substr(pos, eol - pos);
    pos = eol + 1;
    const std::string_view line = trim(raw);
    if (line.empty()) continue;

    if (starts_with(line, "arch =")) {
      arch = arch_token(line.substr(6));
    } else if (starts_with(line, "code for ")) {
      arch = arch_token(line.substr(9));
    } else if (starts_with(line, ".target")) {
      arch = arch_token(line.substr(7));
    } else if (starts_with(line, "Function : ")) {
      sass_kernel = index_of(trim(line.substr(11)), arch);
    } else if (starts_with(line, "Function ") && line.back() == ':') {
      // cuobjdump -res-usage: " Function _Z3fooPf:"
      res_kernel = index_of(trim(line.substr(9, line.size() - 10)), arch);
    } else if (line.find("REG:") != std::string_view::npos &&
               line.find("STACK:") != std::string_view::npos) {
      if (res_kernel < 0) continue;
      Kernel& k = out.kernels[static_cast<std::size_t>(res_kernel)];
      k.registers = number_after(line, "REG:", line_no);
      k.stack_bytes = number_after(line, "STACK:", line_no);
      k.local_bytes = number_after(line, "LOCAL:", line_no);
      ++facts;
    } else if (line.find("Compiling entry function '") != std::string_view::npos) {
      // ptxas -v: "ptxas info : Compiling entry function '_Z3fooPf' for 'sm_80'"
      const std::size_t a = line.find('\'') + 1;
      const std::size_t b = line.find('\'', a);
      if (b == std::string_view::npos) continue;
      const std::size_t f = line.find(" for ", b);
      const std::string kernel_arch = f == std::string_view::npos ? arch : arch_token(line.substr(f + 5));
      ptxas_kernel = index_of(line.substr(a, b - a), kernel_arch);
      ++facts;
    } else if (line.find("Function properties for ") != std::string_view::npos) {
      // Properties of a non-entry function follow without a "Compiling entry" line; they are
      // not the kernel's, so stop attributing until the next entry.
      const std::string_view name = trim(line.substr(line.find("Function properties for ") + 24));
      if (ptxas_kernel >= 0 && out.kernels[static_cast<std::size_t>(ptxas_kernel)].name != name) {
        ptxas_kernel = -1;
      }
    } else if (line.find("bytes spill stores") != std::string_view::npos) {
      if (ptxas_kernel < 0) continue;
      Kernel& k = out.kernels[static_cast<std::size_t>(ptxas_kernel)];
      k.stack_bytes = number_before(line, "bytes stack frame", line_no);
      k.spill_stores = number_before(line, "bytes spill stores", line_no);
      k.spill_loads = number_before(line, "bytes spill loads", line_no);
      ++facts;
    } else if (line.find("Used ") != std::string_view::npos &&
               line.find(" registers") != std::string_view::npos && ptxas_kernel >= 0) {
      out.kernels[static_cast<std::size_t>(ptxas_kernel)].registers =
          number_after(line, "Used ", line_no);
    } else if (sass_kernel >= 0) {
      const std::string op = opcode_of_line(line);
      if (op.empty()) continue;
      Kernel& k = out.kernels[static_cast<std::size_t>(sass_kernel)];
      ++k.opcodes[op];
      ++k.instructions;
      ++facts;
    }
  }
  return facts;
}

}  // namespace tessel::sass
