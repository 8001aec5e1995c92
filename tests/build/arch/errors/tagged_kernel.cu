// A kernel templated on an arch tag, the way every tessel kernel is written. Compiled with
// -DTAG=Sm80 or -DTAG=Sm90 and various architecture lists:
//   * no architecture in the list runs the tag -> the build fails, naming what to add;
//   * 90 without the "a" for an Sm90 kernel -> the build fails, asking for 90a;
//   * otherwise it compiles, the body present only in the passes that can run it.
#include "tessel/arch/mma_sm80.hpp"
#include "tessel/arch/tags.hpp"

template <class Tag>
__global__ void tagged(float* d) {
  static_assert(tessel::arch::require_compiled_target<Tag>());
  if constexpr (tessel::arch::device_pass_supports<Tag>()) {
    float acc[4] = {1.f, 2.f, 3.f, 4.f};
    const std::uint32_t a[4] = {threadIdx.x, 0, 0, 0}, b[2] = {threadIdx.x, 0};
    tessel::arch::Mma16x8x16F32F16F16F32::fma(acc, a, b, acc);
    d[threadIdx.x] = acc[0];
  }
}

template __global__ void tagged<tessel::arch::TAG>(float*);
