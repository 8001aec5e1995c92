#include "app/cli.hpp"

#include <cstdio>
#include <exception>
#include <new>

#include "app/modes.hpp"
#include "core/error.hpp"
#include "core/options.hpp"

namespace tessel::prof {

namespace {

// A sentence quotes what the user gave, which may hold line breaks, terminal escapes or a whole
// binary file's line: the error is one printable line of bounded length whatever it quotes.
std::string one_line(const std::string& sentence) {
  constexpr std::size_t kKeep = 400;  // characters kept at either end of a long sentence
  std::string out;
  for (unsigned char c : sentence) {
    if (c < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += char(c);
    }
  }
  // Both ends matter: the start names the flag, the end says how to fix it.
  if (out.size() > 2 * kKeep) out = out.substr(0, kKeep) + " [...] " + out.substr(out.size() - kKeep);
  return out;
}

}  // namespace

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  try {
    const Options opt = parse_options(args);
    if (opt.help) {
      out << usage_text();
      return kExitOk;
    }
    if (opt.device_info) return run_device_info(opt, out);
    std::string command_line = "tessel-prof";
    for (const auto& a : args) command_line += " " + a;
    switch (opt.mode) {
      case Mode::kEnumerate: return run_enumerate(opt, out);
      case Mode::kAnalyze: return run_analyze(opt, out);
      case Mode::kDispatch: return run_dispatch(opt, out);
      case Mode::kReport: return run_report(opt, out);
      case Mode::kProfile: return run_profile(opt, command_line, out, err);
    }
    return kExitOk;
  } catch (const ProfError& e) {
    out.flush();
    err << "tessel-prof: " << one_line(e.what()) << "\n";
    return e.exit_code();
  } catch (const std::bad_alloc&) {
    throw;  // guarded_main's sentence for it says what to do
  } catch (const std::exception& e) {
    out.flush();
    err << "tessel-prof: " << one_line(e.what()) << "\n";
    return kExitFailed;
  }
}

}  // namespace tessel::prof
