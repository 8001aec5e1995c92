// --mode=enumerate: the compiled kernels and what the registry knows about each.
#include "app/modes.hpp"
#include "app/outputs.hpp"
#include "core/report.hpp"
#include "core/selection.hpp"
#include "core/text_file.hpp"
#include "kernels/registry.hpp"

namespace tessel::prof {

std::vector<KernelDescription> compiled_kernels() {
  std::vector<KernelDescription> out;
  for (const GemmOperation* op : registry().operations()) out.push_back(op->description());
  return out;
}

int run_enumerate(const Options& opt, std::ostream& out) {
  const auto kernels = select_kernels(compiled_kernels(), opt, catalogue_names());
  out << kernel_table(kernels);
  out << kernels.size() << " of " << registry().operations().size() << " compiled kernels ("
      << catalogue_names().size() << " in the catalogue)\n";
  RunInfo info;
  info.fields = {{"compiled_kernels", std::to_string(registry().operations().size())}};
  if (!opt.output.empty()) {
    write_text_file(opt.output, kernel_csv(kernels), "--output");
    out << "wrote " << opt.output << "\n";
  }
  if (!opt.json.empty()) {
    write_text_file(opt.json, kernel_json(kernels, info), "--json");
    out << "wrote " << opt.json << "\n";
  }
  return 0;
}

}  // namespace tessel::prof
