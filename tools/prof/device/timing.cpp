#include "device/timing.hpp"

#include <algorithm>

#include "device/cuda_check.hpp"
#include "device/gpu_ops.hpp"

namespace tessel::prof {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

Timing time_runs(const std::function<void(int)>& launch, int warmup, int iterations, cudaStream_t stream) {
  return time_interleaved({launch}, warmup, iterations, stream).front();
}

std::vector<Timing> time_interleaved(const std::vector<std::function<void(int)>>& launches, int warmup, int iterations,
                                     cudaStream_t stream) {
  const int n = int(launches.size());
  for (int r = 0; r < warmup; ++r)
    for (int c = 0; c < n; ++c) launches[std::size_t(c)](r * n + c);
  check_cuda(cudaStreamSynchronize(stream), "the warm-up runs");

  const std::size_t runs = std::size_t(iterations) * std::size_t(n);
  std::vector<cudaEvent_t> events(2 * runs, nullptr);
  struct Cleanup {
    std::vector<cudaEvent_t>& e;
    ~Cleanup() {
      for (auto ev : e)
        if (ev) (void)cudaEventDestroy(ev);
    }
  } cleanup{events};
  for (auto& ev : events) check_cuda(cudaEventCreate(&ev), "cudaEventCreate");

  // About 15 us of host work per queued run (two event records and a launch), plus slack.
  spin(200.0 + 15.0 * double(runs), stream);
  for (std::size_t run = 0; run < runs; ++run) {
    check_cuda(cudaEventRecord(events[2 * run], stream), "cudaEventRecord");
    launches[run % std::size_t(n)](warmup * n + int(run));
    check_cuda(cudaEventRecord(events[2 * run + 1], stream), "cudaEventRecord");
  }
  check_cuda(cudaStreamSynchronize(stream), "the timed runs");

  std::vector<Timing> out(static_cast<std::size_t>(n));
  for (int c = 0; c < n; ++c) {
    std::vector<double> ms(static_cast<std::size_t>(iterations));
    for (int i = 0; i < iterations; ++i) {
      const std::size_t run = std::size_t(i) * std::size_t(n) + std::size_t(c);
      float t = 0;
      check_cuda(cudaEventElapsedTime(&t, events[2 * run], events[2 * run + 1]), "cudaEventElapsedTime");
      ms[std::size_t(i)] = t;
    }
    Timing& o = out[std::size_t(c)];
    o.iterations = iterations;
    o.min_ms = *std::min_element(ms.begin(), ms.end());
    o.max_ms = *std::max_element(ms.begin(), ms.end());
    o.median_ms = median(ms);
  }
  return out;
}

}  // namespace tessel::prof
