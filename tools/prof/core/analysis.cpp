#include "core/analysis.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "core/error.hpp"

namespace tessel::prof {

namespace {
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
}  // namespace

std::string fixed2(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", x);
  return buf;
}

Analysis analyze(const AnalysisInput& in) {
  const GemmShape& s = in.shape;
  if (in.sm_count <= 0) throw std::invalid_argument("analysis needs a positive SM count");
  if (in.ctas_per_sm <= 0) throw std::invalid_argument("analysis needs at least one CTA per SM");
  if (in.tile.m <= 0 || in.tile.n <= 0) throw std::invalid_argument("analysis needs a positive tile");
  if (s.m <= 0 || s.n <= 0 || s.k <= 0 || s.batch <= 0) throw std::invalid_argument("analysis needs a positive problem size");
  const int cm = std::max(1, in.cluster.m), cn = std::max(1, in.cluster.n);

  Analysis a;
  // A cluster launches whole: the tile grid is padded to a multiple of the cluster shape.
  a.tiles_m = ceil_div(ceil_div(s.m, in.tile.m), cm) * cm;
  a.tiles_n = ceil_div(ceil_div(s.n, in.tile.n), cn) * cn;
  // Extents of 2^31 each on a 1x1 tile are 2^93 tiles: refuse what an int64 cannot count.
  if (__builtin_mul_overflow(a.tiles_m, a.tiles_n, &a.tiles) || __builtin_mul_overflow(a.tiles, s.batch, &a.tiles)) {
    throw usage_error(to_string(s) + " on a " + std::to_string(in.tile.m) + "x" + std::to_string(in.tile.n) +
                      " tile has more than 2^63 output tiles; analyze a smaller problem or a larger tile");
  }
  const std::int64_t cluster_size = std::int64_t(cm) * cn;
  a.slots = (std::int64_t(in.sm_count) * in.ctas_per_sm / cluster_size) * cluster_size;
  if (a.slots <= 0) throw std::invalid_argument("the cluster is larger than the GPU's CTA slots");

  a.waves = double(a.tiles) / double(a.slots);
  a.full_waves = a.tiles / a.slots;
  const std::int64_t rest = a.tiles % a.slots;
  a.last_wave_ctas = rest == 0 ? a.slots : rest;
  // The block scheduler spreads a partial wave over distinct SMs before doubling up.
  a.last_wave_sms = std::min<std::int64_t>(a.last_wave_ctas, in.sm_count);
  const std::int64_t whole_waves = ceil_div(a.tiles, a.slots);
  a.wave_efficiency = a.waves / double(whole_waves);
  a.tile_efficiency = double(s.m) * double(s.n) * double(s.batch) /
                      (double(a.tiles) * double(in.tile.m) * double(in.tile.n));

  a.flops = gemm_flops(s);
  a.bytes = gemm_bytes(s, in.operands, in.reads_c);
  a.intensity = a.flops / a.bytes;

  if (in.matrix_tflops) {
    a.compute_floor_us = a.flops / (*in.matrix_tflops * 1e12) * 1e6;
    // Every wave costs one tile on every slot; a CTA's K extent is padded to whole K tiles.
    const double k_padded = in.tile.k > 0 ? double(ceil_div(s.k, in.tile.k) * in.tile.k) : double(s.k);
    const double slot_flops = 2.0 * in.tile.m * in.tile.n * k_padded;
    a.quantized_floor_us = double(whole_waves) * double(a.slots) * slot_flops / (*in.matrix_tflops * 1e12) * 1e6;
  }
  if (in.bandwidth_gbps) a.memory_floor_us = a.bytes / (*in.bandwidth_gbps * 1e9) * 1e6;
  if (a.compute_floor_us && a.memory_floor_us) {
    a.floor_us = std::max(*a.compute_floor_us, *a.memory_floor_us);
    a.bound = *a.compute_floor_us >= *a.memory_floor_us ? "compute" : "memory";
    a.quantized_floor_us = std::max(*a.quantized_floor_us, *a.memory_floor_us);
  }
  return a;
}

}  // namespace tessel::prof
