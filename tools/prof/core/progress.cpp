#include "core/progress.hpp"

#include <algorithm>
#include <cstdio>

namespace tessel::prof {

std::string progress_line(std::size_t done, std::size_t total, double elapsed_s, const std::string& label,
                          std::size_t width) {
  constexpr std::size_t kBar = 24;
  const double frac = total ? std::min(1.0, double(done) / double(total)) : 1.0;
  const auto filled = std::size_t(frac * kBar + 1e-9);
  std::string line(1, '[');
  line.append(filled, '#').append(kBar - filled, '.').append(1, ']');
  char buf[96];
  std::snprintf(buf, sizeof buf, "  %zu/%zu  %3d%%", done, total, int(frac * 100 + 1e-9));
  line += buf;
  if (done > 0 && done < total) {
    const long eta = long(elapsed_s / double(done) * double(total - done) + 0.5);
    std::snprintf(buf, sizeof buf, "  eta %ld:%02ld", eta / 60, eta % 60);
    line += buf;
  }
  if (!label.empty()) line += "  " + label;
  if (line.size() > width) line = line.substr(0, width - 3) + "...";
  return line;
}

Progress::Progress(std::size_t total, bool enabled, std::ostream& out, double delay_s)
    : total_(total), enabled_(enabled), out_(out), delay_s_(delay_s) {}

void Progress::step(const std::string& label) {
  const auto now = Clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const std::size_t done = done_++;
  if (!enabled_ || elapsed < delay_s_) return;
  if (drawn_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  out_ << "\r" << progress_line(done, total_, elapsed, label) << "\x1b[K" << std::flush;
  drawn_ = true;
  last_draw_ = now;
}

void Progress::finish() {
  if (drawn_) out_ << "\r\x1b[K" << std::flush;
  drawn_ = false;
}

}  // namespace tessel::prof
