#include "report.hpp"

#include <cstdio>
#include <map>

namespace tessel::sass {

namespace {

std::string pad(std::string s, std::size_t width, bool right) {
  if (s.size() >= width) return s;
  const std::string fill(width - s.size(), ' ');
  return right ? fill + s : s + fill;
}

std::string shorten(const std::string& s, std::size_t width) {
  return s.size() <= width ? s : s.substr(0, width - 3) + "...";
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string number_or_null(long long v) { return v < 0 ? "null" : std::to_string(v); }

}  // namespace

std::string format_table(const std::vector<const Kernel*>& kernels) {
  constexpr std::size_t kNameWidth = 44;
  std::string out = pad("kernel", kNameWidth, false) + "  " + pad("arch", 7, false) +
                    pad("regs", 5, true) + pad("instr", 7, true);
  for (const auto& f : table_families()) out += pad(f, f.size() + 2 > 6 ? f.size() + 2 : 6, true);
  out += "\n";
  for (const Kernel* k : kernels) {
    out += pad(shorten(k->demangled, kNameWidth), kNameWidth, false) + "  " +
           pad(k->arch.empty() ? "?" : k->arch, 7, false) +
           pad(k->registers < 0 ? "-" : std::to_string(k->registers), 5, true) +
           pad(std::to_string(k->instructions), 7, true);
    for (const auto& f : table_families()) {
      out += pad(std::to_string(k->count(f)), f.size() + 2 > 6 ? f.size() + 2 : 6, true);
    }
    out += "\n";
    // The forms behind the tensor-core and async-copy counts, which are what the arch tag
    // changes: HMMA.1688.F32 vs HMMA.16816.F32, LDGSTS present or not.
    std::string forms;
    for (const char* f : {"HMMA", "HGMMA", "LDSM", "LDGSTS", "UTMALDG"}) {
      const std::string b = k->breakdown(f);
      if (!b.empty()) forms += (forms.empty() ? "" : ", ") + b;
    }
    if (!forms.empty()) out += "    " + forms + "\n";
  }
  return out;
}

std::string format_histogram(const Kernel& kernel) {
  std::string out = kernel.demangled + " [" + (kernel.arch.empty() ? "?" : kernel.arch) + "]\n";
  for (const auto& [op, n] : kernel.opcodes) {
    out += "  " + pad(std::to_string(n), 6, true) + "  " + op + "\n";
  }
  return out;
}

std::string format_json(const std::vector<const Kernel*>& kernels) {
  std::string out = "{\"kernels\": [";
  bool first_kernel = true;
  for (const Kernel* k : kernels) {
    out += first_kernel ? "\n  " : ",\n  ";
    first_kernel = false;
    out += "{\"name\": " + json_string(k->name) + ", \"demangled\": " + json_string(k->demangled) +
           ", \"arch\": " + json_string(k->arch) +
           ", \"registers\": " + number_or_null(k->registers) +
           ", \"local_bytes\": " + number_or_null(k->local_bytes) +
           ", \"spill_store_bytes\": " + number_or_null(k->spill_stores) +
           ", \"spill_load_bytes\": " + number_or_null(k->spill_loads) +
           ", \"instructions\": " + std::to_string(k->instructions) + ", \"opcodes\": {";
    bool first = true;
    for (const auto& [op, n] : k->opcodes) {
      out += (first ? "" : ", ") + json_string(op) + ": " + std::to_string(n);
      first = false;
    }
    out += "}, \"families\": {";
    std::map<std::string, long long> families;
    for (const auto& [op, n] : k->opcodes) families[op.substr(0, op.find('.'))] += n;
    first = true;
    for (const auto& [f, n] : families) {
      out += (first ? "" : ", ") + json_string(f) + ": " + std::to_string(n);
      first = false;
    }
    out += "}}";
  }
  out += "\n]}\n";
  return out;
}

}  // namespace tessel::sass
