#pragma once
// A one-line progress bar on stderr for sweeps: drawn only when stderr is a terminal (or when
// asked), and only once the sweep has run for a couple of seconds, so short runs and redirected
// logs stay clean. The line is redrawn in place with '\r' and erased at the end.

#include <chrono>
#include <cstddef>
#include <ostream>
#include <string>

namespace tessel::prof {

/// "[#########...........]  12/40  30%  eta 0:45  label", at most `width` characters.
std::string progress_line(std::size_t done, std::size_t total, double elapsed_s, const std::string& label,
                          std::size_t width = 100);

class Progress {
 public:
  /// `enabled`: stderr is a terminal or --progress=always; `delay_s`: how long to stay quiet.
  Progress(std::size_t total, bool enabled, std::ostream& out, double delay_s = 2.0);
  ~Progress() { finish(); }
  /// Call before each unit of work; `label` says what it is.
  void step(const std::string& label);
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  std::size_t total_, done_ = 0;
  bool enabled_, drawn_ = false;
  std::ostream& out_;
  double delay_s_;
  Clock::time_point start_ = Clock::now(), last_draw_{};
};

}  // namespace tessel::prof
