#pragma once
// The front door's activations (gemm::Activation) in double, for the host references of tests and
// benchmarks: GELU in its erf form, as the kernels' GeluErf computes it.
#include <cmath>

#include "tessel/gemm/front_door.hpp"

namespace tessel::verify {

inline double reference_activation(gemm::Activation act, double x) {
  switch (act) {
    case gemm::Activation::kReLU: return x < 0 ? 0 : x;
    case gemm::Activation::kGeLU: return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    case gemm::Activation::kSiLU: return x / (1 + std::exp(-x));
    default: return x;
  }
}

}  // namespace tessel::verify
