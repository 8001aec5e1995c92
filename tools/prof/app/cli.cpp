#include "app/cli.hpp"

#include <exception>

#include "app/modes.hpp"
#include "core/error.hpp"
#include "core/options.hpp"

namespace tessel::prof {

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
      case Mode::kReport: return run_report(opt, out);
      case Mode::kProfile: return run_profile(opt, command_line, out, err);
    }
    return kExitOk;
  } catch (const ProfError& e) {
    out.flush();
    err << "tessel-prof: " << e.what() << "\n";
    return e.exit_code();
  } catch (const std::exception& e) {
    out.flush();
    err << "tessel-prof: " << e.what() << "\n";
    return kExitFailed;
  }
}

}  // namespace tessel::prof
