#pragma once
// The run-time Element of a C++ element type, for the adaptors' descriptions.

#include <type_traits>

#include "core/types.hpp"
#include "tessel/numeric.hpp"

namespace tessel::prof::kernels {

template <class T>
constexpr Element element_of() {
  if constexpr (std::is_same_v<T, half_t>) return Element::kF16;
  else if constexpr (std::is_same_v<T, bfloat16_t>) return Element::kBF16;
  else if constexpr (std::is_same_v<T, float_e4m3_t>) return Element::kE4M3;
  else if constexpr (std::is_same_v<T, float_e5m2_t>) return Element::kE5M2;
  else {
    static_assert(std::is_same_v<T, float>, "element_of: f16, bf16, f32, e4m3 or e5m2");
    return Element::kF32;
  }
}

}  // namespace tessel::prof::kernels
