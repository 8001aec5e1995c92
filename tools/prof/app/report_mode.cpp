// --mode=report: the outputs of a profile run, regenerated from its CSV (a new plot, the markdown
// table, the winners) without the GPU.
#include "app/modes.hpp"
#include "app/outputs.hpp"
#include "core/report.hpp"
#include "core/text_file.hpp"

namespace tessel::prof {

int run_report(const Options& opt, std::ostream& out) {
  const auto rows = parse_profile_csv(read_text_file(opt.input, "--input", "a CSV written by --mode=profile --output=FILE.csv"), opt.input);
  out << profile_table(rows);
  RunInfo info;
  info.fields = {{"source", opt.input}};
  write_profile_outputs(opt, rows, info, out);
  return 0;
}

}  // namespace tessel::prof
