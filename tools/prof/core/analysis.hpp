#pragma once
// Wave quantization and roofline arithmetic for one (problem, tile) pair, without a GPU.
//
// A data-parallel GEMM launches one CTA per output tile. With S SMs each holding c CTAs, the
// tiles run in waves of S*c; the last wave is partial unless the tile count divides evenly, and
// the SMs it leaves idle are time the GPU cannot get back. The seed's example: 4096^3 on 128x128
// tiles is 32*32 = 1024 tiles, 1024/132 = 7.76 waves on 132 SMs, and 1024 - 7*132 = 100 SMs
// busy in the last wave.
//
// The roofline floor is the larger of FLOPs over the matrix rate and the minimal traffic over
// the copy bandwidth. The quantized floor charges every wave a whole tile on every SM, which is
// what a data-parallel kernel at the matrix rate would take.

#include <cstdint>
#include <optional>
#include <string>

#include "core/problem.hpp"
#include "core/types.hpp"

namespace tessel::prof {

struct AnalysisInput {
  GemmShape shape;
  OperandSet operands;
  bool reads_c = false;
  Extent3 tile;                 // k == 0: unknown (no K padding assumed)
  Extent3 cluster{1, 1, 1};
  int sm_count = 0;
  int ctas_per_sm = 1;
  std::optional<double> matrix_tflops;   // peak dense matrix rate, TFLOP/s
  std::optional<double> bandwidth_gbps;  // copy bandwidth, GB/s
};

struct Analysis {
  std::int64_t tiles_m = 0, tiles_n = 0, tiles = 0;  // over all batches
  std::int64_t slots = 0;            // CTAs resident at once: SMs * CTAs per SM, whole clusters
  double waves = 0;                  // tiles / slots
  std::int64_t full_waves = 0;
  std::int64_t last_wave_ctas = 0;   // CTAs in the last wave (slots when it is full)
  std::int64_t last_wave_sms = 0;    // SMs with work in the last wave
  double tile_efficiency = 0;        // M N over the area the tiles cover
  double wave_efficiency = 0;        // waves over whole waves
  double flops = 0, bytes = 0;
  double intensity = 0;              // FLOP per byte
  std::optional<double> compute_floor_us, memory_floor_us, floor_us, quantized_floor_us;
  std::string bound;                 // "compute", "memory", or "" when a ceiling is unknown
};

/// Throws std::invalid_argument for a nonpositive SM count, tile or problem extent, and
/// usage_error for a tile count past 2^63.
Analysis analyze(const AnalysisInput& in);

/// "7.76": waves and other ratios are printed with two decimals.
std::string fixed2(double x);

}  // namespace tessel::prof
