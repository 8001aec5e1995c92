#pragma once
// The timing loop: warm-up runs, then each timed run between its own pair of CUDA events, and the
// median of those times (robust to the odd run that shares the GPU with something else).
//
// Before the timed runs a spin kernel holds the stream for a moment, long enough for the host to
// queue every launch behind it. The runs then start back to back on the GPU: without it a short
// kernel (a few microseconds, as decode shapes are) would be timed together with the host's
// launch latency, because its start event fires as soon as it is queued.

#include <cuda_runtime_api.h>

#include <functional>
#include <vector>

namespace tessel::prof {

struct Timing {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int iterations = 0;
};

/// `launch(i)` enqueues run i on `stream` (i counts warm-up runs first) and throws on failure.
Timing time_runs(const std::function<void(int)>& launch, int warmup, int iterations, cudaStream_t stream);

/// Several contenders timed in turns, run by run: round r launches contender 0, 1, ... each
/// between its own events, so that every contender meets the GPU's clocks and temperature of the
/// same minute (timed one after the other, a contender that draws the full power budget runs
/// slower after another has warmed the chip: 12% apart for one cuBLAS call at 8192^3 bf16 on an
/// H200). `launches[c](i)` enqueues run i of contender c; i counts the runs of all contenders
/// (i = round * launches.size() + c), so that consecutive runs can take consecutive buffer sets.
std::vector<Timing> time_interleaved(const std::vector<std::function<void(int)>>& launches, int warmup, int iterations,
                                     cudaStream_t stream);

/// The median of a sample; the mean of the middle two for an even count.
double median(std::vector<double> values);

}  // namespace tessel::prof
