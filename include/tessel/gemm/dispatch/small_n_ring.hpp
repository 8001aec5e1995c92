#pragma once
// Whether a decode call runs on the small-N TMA ring (kernel/sm90_gemm_small_n_tma.hpp) on D^T's
// problem, its name and why, in one place for tessel::gemm::gemm, tessel-prof --mode=dispatch and
// tessel.gemm (python/tessel/jit/small_n.py asks through tessel._core). The plan itself is
// kernel/small_n_rules.hpp's. Host code; the caller checks the kind of problem the ring computes:
// bf16 in and out (f16 in and out, and FP8 in with bf16 out, too from Python), the plain linear
// combination, no C.

#include <cstdint>
#include <string>

#include "tessel/gemm/kernel/small_n_rules.hpp"

namespace tessel::gemm::dispatch {

/// Whether D = x W^T, `tokens` rows of x against `weights` rows of W, takes the ring on D^T's
/// problem: at most kernel::kSmallNTmaAutoMaxN tokens, and enough weight rows for `sms` SMs
/// (kernel::small_n_tma_takes).
inline bool small_n_ring_takes(std::int64_t tokens, std::int64_t weights, int sms) {
  return tokens >= 1 && tokens <= kernel::kSmallNTmaAutoMaxN && weights <= INT32_MAX &&
         kernel::small_n_tma_takes(int(weights), int(tokens), sms);
}

/// The ring a decode call of `tokens` against `weights` rows and K takes on `sms` SMs
/// (kernel::small_n_tma_ring, in the bytes of `element`'s rows).
inline kernel::SmallNTmaRing small_n_ring_of(std::int64_t tokens, std::int64_t weights, std::int64_t k, int sms,
                                             std::string const& element) {
  int const element_bytes = element == "e4m3" || element == "e5m2" ? 1 : 2;
  return kernel::small_n_tma_ring(k > INT32_MAX ? INT32_MAX : int(k), kernel::small_n_tma_n8(int(tokens)), element_bytes, weights, sms);
}

/// tessel_sm90_gemm_small_n_tma_<element>_n<8|16>_<boxes>box[_<stages>stage][_16row]: the ring a
/// call takes, named as the package's prebuilt cubins are (python/tessel/jit/small_n.py; a Python
/// test holds the two spellings together). `element`: "bf16" or "f16", or the FP8 "e4m3" or
/// "e5m2" (whose rows of K elements are half as many bytes: the ring follows the bytes).
inline std::string small_n_ring_name(std::int64_t tokens, std::int64_t weights, std::int64_t k, int sms,
                                     std::string const& element = "bf16") {
  auto const ring = small_n_ring_of(tokens, weights, k, sms, element);
  std::string name = "tessel_sm90_gemm_small_n_tma_" + element + "_n" + std::to_string(8 * kernel::small_n_tma_n8(int(tokens)));
  name += "_" + std::to_string(ring.boxes) + "box";
  if (ring.stages) name += "_" + std::to_string(ring.stages) + "stage";
  if (ring.rows != 32) name += "_" + std::to_string(ring.rows) + "row";
  return name;
}

/// Why a call runs on the ring, in a sentence.
inline std::string small_n_ring_reason(std::int64_t tokens, std::int64_t weights, std::int64_t k, int sms,
                                       std::string const& element = "bf16") {
  int const rows = small_n_ring_of(tokens, weights, k, sms, element).rows;
  std::int64_t const blocks = (weights + rows - 1) / rows;
  return "D^T = B^T A^T (" + std::to_string(weights) + "x" + std::to_string(tokens) + "x" + std::to_string(k) +
         ", D^T column-major): the small-N TMA ring " + small_n_ring_name(tokens, weights, k, sms, element) + ", " +
         std::to_string(blocks) + " row blocks of " + std::to_string(rows) + " weight rows over " +
         std::to_string(blocks < sms ? blocks : sms) + " persistent CTAs, no K split (device::GemmSmallN's variant 11)";
}

}  // namespace tessel::gemm::dispatch
