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
  for (int i = 0; i < warmup; ++i) launch(i);
  check_cuda(cudaStreamSynchronize(stream), "the warm-up runs");

  std::vector<cudaEvent_t> events(std::size_t(2 * iterations), nullptr);
  struct Cleanup {
    std::vector<cudaEvent_t>& e;
    ~Cleanup() {
      for (auto ev : e)
        if (ev) (void)cudaEventDestroy(ev);
    }
  } cleanup{events};
  for (auto& ev : events) check_cuda(cudaEventCreate(&ev), "cudaEventCreate");

  // About 15 us of host work per queued run (two event records and a launch), plus slack.
  spin(200.0 + 15.0 * iterations, stream);
  for (int i = 0; i < iterations; ++i) {
    check_cuda(cudaEventRecord(events[2 * i], stream), "cudaEventRecord");
    launch(warmup + i);
    check_cuda(cudaEventRecord(events[2 * i + 1], stream), "cudaEventRecord");
  }
  check_cuda(cudaStreamSynchronize(stream), "the timed runs");

  std::vector<double> ms(static_cast<std::size_t>(iterations));
  for (int i = 0; i < iterations; ++i) {
    float t = 0;
    check_cuda(cudaEventElapsedTime(&t, events[2 * i], events[2 * i + 1]), "cudaEventElapsedTime");
    ms[i] = t;
  }
  Timing out;
  out.iterations = iterations;
  out.min_ms = *std::min_element(ms.begin(), ms.end());
  out.max_ms = *std::max_element(ms.begin(), ms.end());
  out.median_ms = median(ms);
  return out;
}

}  // namespace tessel::prof
