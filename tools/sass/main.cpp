// tessel-sass: count SASS instruction families per kernel and gate on them.
//
//   tessel-sass FILE [--kernel=GLOB] [--arch=sm_80] [--expect 'HMMA>=1'] ... [--no-spills]
//
// Exit status: 0 when every gate holds, 1 when one fails (each failure is a sentence on stderr),
// 2 when the input cannot be checked at all (bad option, unreadable file, no cuobjdump, no
// kernel matching the selection).

#include <fnmatch.h>

#include <algorithm>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cli_main.hpp"
#include "disassemble.hpp"
#include "gate.hpp"
#include "input.hpp"
#include "listing.hpp"
#include "report.hpp"

namespace {

using namespace tessel::sass;

constexpr const char* kUsage =
    "usage: tessel-sass [options] FILE...\n"
    "\n"
    "Counts SASS opcodes per kernel and checks gates on them.\n"
    "\n"
    "  FILE               executable, object, cubin or fatbin (disassembled with cuobjdump), or a\n"
    "                     text file of `cuobjdump -sass`, `cuobjdump -res-usage` or\n"
    "                     `nvcc -Xptxas -v` output\n"
    "  --kernel=GLOB      only kernels whose mangled or demangled name matches GLOB\n"
    "  --arch=SM          only code for one architecture (sm_75, sm_80, sm_90a)\n"
    "  --expect=GATE      a gate every selected kernel must meet, e.g. 'HMMA>=1', 'LDGSTS==0',\n"
    "                     'HMMA.16816.F32==64'; a key matches an opcode or a dotted prefix of it\n"
    "                     (repeatable)\n"
    "  --no-spills        fail when a selected kernel uses local memory (LDL/STL instructions,\n"
    "                     LOCAL bytes in -res-usage, spill bytes in a ptxas log)\n"
    "  --wgmma-pipelined  fail when a selected kernel waits for each of its wgmma alone (as many\n"
    "                     WARPGROUP.DEPBAR as wgmma: ptxas serialized them)\n"
    "  --histogram        also print every opcode of every selected kernel\n"
    "  --json             print JSON instead of the table\n"
    "  --quiet            print nothing but failures\n"
    "  --cuobjdump=PATH   the cuobjdump to run\n"
    "\n"
    "Exit status: 0 all gates hold, 1 a gate failed, 2 the input could not be checked.\n";

// `s` without control characters, so that a sentence echoing a hostile argument or file name
// stays one line.
std::string one_line(std::string s) {
  for (char& c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == '\x7f') c = ' ';
  }
  return s;
}

// Every refusal is one line: the sentence, then where the options are listed.
int usage_error(const std::string& sentence) {
  std::cerr << "tessel-sass: " << one_line(sentence) << " (tessel-sass --help lists the options)\n";
  return 2;
}

// One line on stderr and the status for an input that cannot be checked.
int input_error(const std::string& sentence) {
  std::cerr << "tessel-sass: " << one_line(sentence) << "\n";
  return 2;
}

// The first non-empty line of a program's output, shortened: enough to say why it failed
// while keeping the refusal one line.
std::string first_line(const std::string& output) {
  constexpr std::size_t kShown = 300;
  std::size_t begin = output.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "no output";
  std::size_t end = output.find_first_of("\r\n", begin);
  if (end == std::string::npos) end = output.size();
  const std::string line = output.substr(begin, std::min(end - begin, kShown));
  return end - begin > kShown ? line + "..." : line;
}

struct Options {
  std::vector<std::string> files;
  std::string kernel_glob;
  std::string arch;
  std::vector<Gate> gates;
  bool no_spills = false;
  bool wgmma_pipelined = false;
  bool histogram = false;
  bool json = false;
  bool quiet = false;
  std::string cuobjdump;
};

// Returns 0 on success, else the exit status to use.
int parse_options(int argc, char** argv, Options& o) {
  std::vector<std::string> args(argv + 1, argv + argc);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    // "--name=value" or "--name value".
    auto value_of = [&](const std::string& name, std::string& out) -> int {
      if (a.rfind(name + "=", 0) == 0) {
        out = a.substr(name.size() + 1);
      } else if (a == name) {
        if (i + 1 >= args.size()) return usage_error(name + " needs a value");
        out = args[++i];
      } else {
        return -1;
      }
      if (out.empty()) return usage_error(name + " needs a non-empty value");
      return 0;
    };
    std::string v;
    int r;
    if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      std::exit(0);
    } else if ((r = value_of("--kernel", o.kernel_glob)) >= 0) {
      if (r) return r;
    } else if ((r = value_of("--arch", o.arch)) >= 0) {
      if (r) return r;
      if (o.arch.rfind("sm_", 0) != 0) {
        return usage_error("--arch takes an architecture such as sm_80 or sm_90a, not '" + o.arch +
                           "'");
      }
    } else if ((r = value_of("--expect", v)) >= 0) {
      if (r) return r;
      std::string error;
      auto g = parse_gate(v, error);
      if (!g) return usage_error(error);
      o.gates.push_back(*g);
    } else if ((r = value_of("--cuobjdump", o.cuobjdump)) >= 0) {
      if (r) return r;
    } else if (a == "--no-spills") {
      o.no_spills = true;
    } else if (a == "--wgmma-pipelined") {
      o.wgmma_pipelined = true;
    } else if (a == "--histogram") {
      o.histogram = true;
    } else if (a == "--json") {
      o.json = true;
    } else if (a == "--quiet") {
      o.quiet = true;
    } else if (a.size() > 1 && a[0] == '-') {
      return usage_error("unknown option '" + a + "'");
    } else {
      o.files.push_back(a);
    }
  }
  if (o.files.empty()) return usage_error("no input file given");
  return 0;
}

// Adds the kernels of `text` (from `file`) to `listing`; returns how many facts it held, or
// nothing after reporting a figure it cannot represent.
std::optional<std::size_t> parse_listing(const std::string& text, const std::string& file,
                                         Listing& listing) {
  try {
    return parse_text(text, listing);
  } catch (const ListingError& e) {
    input_error("'" + file + "' " + e.what());
    return std::nullopt;
  }
}

// Runs cuobjdump on a binary in both modes and parses what it prints; returns the facts found,
// or nothing after reporting why it could not.
std::optional<std::size_t> disassemble(const std::string& file, const Options& o,
                                       Listing& listing) {
  std::vector<std::string> tried;
  const auto tool = find_cuobjdump(o.cuobjdump, tried);
  if (!tool) {
    std::cerr << missing_cuobjdump_message(tried) << "\n";
    return std::nullopt;
  }
  std::size_t facts = 0;
  for (const char* mode : {"-sass", "-res-usage"}) {
    const CommandResult r = run_command(*tool, {mode, file}, kMaxInputBytes);
    const std::string command = "`" + *tool + " " + mode + " " + file + "`";
    if (r.output_too_large) {
      input_error(command + " printed more than " + mebibytes(kMaxInputBytes) +
                  "; select fewer kernels, e.g. with cuobjdump -sass -fun NAME into a text file");
      return std::nullopt;
    }
    if (r.exit_code != 0) {
      input_error(command + " failed" +
                  (r.exit_code < 0 ? " to start" : " with status " + std::to_string(r.exit_code)) +
                  ": " + first_line(r.output) +
                  " (is it a binary with device code? a text listing is read directly)");
      return std::nullopt;
    }
    const auto found = parse_listing(r.output, file, listing);
    if (!found) return std::nullopt;
    facts += *found;
  }
  return facts;
}

// Adds the file's kernels to `listing`; returns 0 or the exit status.
int load(const std::string& file, const Options& o, Listing& listing) {
  std::string error;
  const auto content = read_input(file, error);
  if (!content) return input_error(error);
  const auto facts =
      looks_binary(*content) ? disassemble(file, o, listing) : parse_listing(*content, file, listing);
  if (!facts) return 2;
  if (*facts == 0) {
    return input_error("'" + file +
                       "' holds no kernel: it is neither a binary with device code nor a text of "
                       "cuobjdump or ptxas output");
  }
  return 0;
}

// "a [sm_80], b [sm_80] and 99998 more": the kernels to choose from, on one line and at most a
// screenful however large the listing.
std::string present_kernels(const Listing& listing) {
  constexpr std::size_t kShown = 20;
  std::string s;
  const std::size_t n = listing.kernels.size();
  for (std::size_t i = 0; i < n && i < kShown; ++i) {
    s += (i ? "; " : " ") + kernel_label(listing.kernels[i]);
  }
  if (n > kShown) s += "; and " + std::to_string(n - kShown) + " more";
  return s;
}

bool selected(const Kernel& k, const Options& o) {
  if (!o.arch.empty() && k.arch != o.arch) return false;
  if (o.kernel_glob.empty()) return true;
  return fnmatch(o.kernel_glob.c_str(), k.name.c_str(), 0) == 0 ||
         fnmatch(o.kernel_glob.c_str(), k.demangled.c_str(), 0) == 0;
}

int run(int argc, char** argv) {
  Options o;
  if (const int r = parse_options(argc, argv, o); r != 0) return r;

  Listing listing;
  for (const auto& f : o.files) {
    if (const int r = load(f, o, listing); r != 0) return r;
  }

  std::vector<const Kernel*> chosen;
  for (const Kernel& k : listing.kernels) {
    if (selected(k, o)) chosen.push_back(&k);
  }
  if (chosen.empty()) {
    return input_error("no kernel matches" + (o.kernel_glob.empty() ? "" : " --kernel=" + o.kernel_glob) +
                       (o.arch.empty() ? "" : " --arch=" + o.arch) +
                       "; the input holds:" + present_kernels(listing));
  }

  if (o.json) {
    std::cout << format_json(chosen);
  } else if (!o.quiet) {
    std::cout << format_table(chosen);
    if (o.histogram) {
      for (const Kernel* k : chosen) std::cout << "\n" << format_histogram(*k);
    }
  }

  std::vector<std::string> failures;
  for (const Kernel* k : chosen) {
    for (const Gate& g : o.gates) {
      if (auto f = check_gate(g, *k)) failures.push_back(*f);
    }
    if (o.no_spills) {
      if (auto f = check_no_spills(*k)) failures.push_back(*f);
    }
    if (o.wgmma_pipelined) {
      if (auto f = check_wgmma_pipelined(*k)) failures.push_back(*f);
    }
  }
  for (const auto& f : failures) std::cerr << "tessel-sass: FAIL: " << one_line(f) << "\n";
  const std::size_t checks = chosen.size() * (o.gates.size() + (o.no_spills ? 1 : 0) + (o.wgmma_pipelined ? 1 : 0));
  if (checks != 0 && !o.quiet && !o.json) {
    std::cout << "tessel-sass: " << checks << " checks on " << chosen.size() << " kernel"
              << (chosen.size() == 1 ? "" : "s") << ": "
              << (failures.empty() ? "all hold" : std::to_string(failures.size()) + " failed")
              << "\n";
  }
  return failures.empty() ? 0 : 1;
}
}  // namespace

int main(int argc, char** argv) {
  return tessel::tools::guarded_main("tessel-sass", [&] { return run(argc, argv); });
}
