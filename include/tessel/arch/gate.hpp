#pragma once
// The run-time architecture gate, as a pure decision over numbers: can a kernel tagged `Tag`
// run on a device of compute capability `device_cc`, given the virtual architecture of the image
// the device would load? arch/runtime.hpp feeds it from the CUDA runtime; keeping the decision
// free of CUDA calls lets host tests cover every case without a GPU.
//
// Compute capabilities are written major*10 + minor (75, 80, 86, 90); image architectures in
// the same units (cudaFuncAttributes::ptxVersion: 75 for an image compiled from compute_75).

#include <string>
#include <string_view>

#include "tessel/arch/tags.hpp"
#include "tessel/status.hpp"

namespace tessel::arch {

namespace detail {
inline std::string cc_string(int cc) {
  return std::to_string(cc / 10) + "." + std::to_string(cc % 10);
}
template <class Tag>
std::string tag_string() {
  if constexpr (std::is_same_v<Tag, Sm75>) return "arch::Sm75";
  else if constexpr (std::is_same_v<Tag, Sm80>) return "arch::Sm80";
  else return "arch::Sm90";
}
}  // namespace detail

// Can a device of compute capability `device_cc` execute the tag's instructions at all?
template <class Tag>
constexpr bool device_runs_tag(int device_cc) {
  return arch_runs_tag<Tag>(device_cc * 10);
}

// `device` names the device in messages ("device 0 (Tesla T4)"). `image_arch` is the virtual
// architecture of the kernel image the device would run, or 0 when not known.
template <class Tag>
StatusInfo arch_gate(int device_cc, std::string_view device, int image_arch) {
  const std::string tag = detail::tag_string<Tag>();
  const int need = Tag::kMinComputeCapability;
  if (!device_runs_tag<Tag>(device_cc)) {
    std::string why = Tag::kArchSpecific
                          ? "which runs only on compute capability " + detail::cc_string(need)
                          : "which needs compute capability " + detail::cc_string(need) +
                                " or newer";
    return {Status::kErrorArchMismatch,
            "the kernel is built for " + tag + " (" + Tag::kName + "), " + why + ", but " +
                std::string(device) + " has compute capability " + detail::cc_string(device_cc) +
                ": run it on such a GPU, or pick a kernel whose arch tag this GPU has"};
  }
  if (image_arch != 0 && !arch_runs_tag<Tag>(image_arch * 10)) {
    return {Status::kErrorArchMismatch,
            std::string(device) + " would run the kernel's image compiled for compute_" +
                std::to_string(image_arch) + ", in which the " + tag +
                " code is compiled out: the build has no image for this GPU's architecture "
                "that can hold it; add " +
                std::to_string(device_cc) + (Tag::kArchSpecific ? "a" : "") +
                " to CMAKE_CUDA_ARCHITECTURES (or a -gencode for it)"};
  }
  return {};
}

}  // namespace tessel::arch
