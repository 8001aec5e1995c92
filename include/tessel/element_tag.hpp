#pragma once
// Short names of element types, as kernel and fusion names spell them: "f32", "f16", "bf16",
// "e4m3", ... (host only).

#include <cstdint>
#include <string>
#include <type_traits>

#include "tessel/numeric.hpp"

namespace tessel {

template <class T>
std::string element_tag() {
  if constexpr (std::is_same_v<T, float>) return "f32";
  else if constexpr (std::is_same_v<T, double>) return "f64";
#if TESSEL_HAS_CUDA_FP16
  else if constexpr (std::is_same_v<T, half_t>) return "f16";
  else if constexpr (std::is_same_v<T, bfloat16_t>) return "bf16";
#endif
#if TESSEL_HAS_CUDA_FP8
  else if constexpr (std::is_same_v<T, float_e4m3_t>) return "e4m3";
  else if constexpr (std::is_same_v<T, float_e5m2_t>) return "e5m2";
#endif
  else if constexpr (std::is_same_v<T, std::int32_t>) return "s32";
  else if constexpr (std::is_same_v<T, std::int8_t>) return "s8";
  else if constexpr (std::is_same_v<T, std::uint8_t>) return "u8";
  else return "elem" + std::to_string(sizeof_bits_v<T>);
}

}  // namespace tessel
