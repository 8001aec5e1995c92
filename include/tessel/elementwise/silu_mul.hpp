#pragma once
// SiLU-and-multiply, the gate of a SwiGLU MLP block (Llama's down(silu(gate(x)) * up(x))), and its
// gradient, each as one pass over memory:
//
//   forward:   h = silu(g) * u                       silu(g) = g * sigmoid(g)
//   backward:  dg = dh * u * silu'(g),  du = dh * silu(g)
//              silu'(g) = sigmoid(g) * (1 + g * (1 - sigmoid(g)))
//
// g, u, h, dh, dg, du are n elements each, contiguous, of one type T (float, half_t or bfloat16_t);
// every value is computed in f32 and rounded once to T.
//
// NOTES: unfused, a framework runs the forward as two kernels (silu, then the product: five tensor
// passes, and s = silu(g) saved for the backward) and the backward as three (ds = dh * u,
// du = dh * s, dg = ds * silu'(g): nine passes). Fused, the forward reads g and u and writes h
// (three passes) and the backward reads dh, g and u and writes dg and du (five), recomputing the
// sigmoid instead of saving it. At 4096 tokens x 14336 bf16 a pass is 117 MB, about 40 us of HBM.
//
// This header needs no host API, so NVRTC compiles it (tessel/jit/elementwise.py).

#include <cstdint>

#include "tessel/epilogue/fusion/activation_fn.hpp"
#include "tessel/numeric.hpp"

namespace tessel::elementwise {

/// Threads per CTA of both kernels; the launcher reads it from tessel.jit.elementwise.THREADS.
inline constexpr int kThreads = 256;

namespace detail {
TESSEL_HD inline float to_f32(float x) { return x; }
TESSEL_HD inline float to_f32(half_t x) { return __half2float(x); }
TESSEL_HD inline float to_f32(bfloat16_t x) { return __bfloat162float(x); }

template <class T>
TESSEL_HD inline T from_f32(float x) {
  if constexpr (std::is_same_v<T, float>) {
    return x;
  } else if constexpr (std::is_same_v<T, half_t>) {
    return __float2half_rn(x);
  } else {
    return __float2bfloat16_rn(x);
  }
}

/// Vec consecutive elements, loaded and stored as one access (16 bytes when Vec * sizeof(T) is).
template <class T, int Vec>
struct alignas(sizeof(T) * Vec) Pack {
  T v[Vec];
};

/// The element range [first, first + count) of the thread's step: Vec elements from a multiple of
/// Vec, or, for the one thread past the last whole pack, the n % Vec elements left.
TESSEL_DEVICE inline std::int64_t thread_pack() {
  return std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
}

TESSEL_HD inline float sigmoid(float x) {
  return epilogue::fusion::detail::fast_divide(1.f, 1.f + epilogue::fusion::detail::fast_exp(-x));
}
}  // namespace detail

/// h = silu(g) * u over n elements. One thread per Vec elements: launch ceil(n / Vec) + 1 threads
/// (the extra thread takes the last n % Vec elements one at a time).
/// @pre g, u and h are aligned to Vec * sizeof(T) bytes.
template <class T, int Vec>
__global__ void __launch_bounds__(kThreads) silu_mul_kernel(T const* g, T const* u, T* h, std::int64_t n) {
  using P = detail::Pack<T, Vec>;
  std::int64_t const i = detail::thread_pack(), whole = n / Vec;
  if (i < whole) {
    P const gv = reinterpret_cast<P const*>(g)[i], uv = reinterpret_cast<P const*>(u)[i];
    P hv;
#pragma unroll
    for (int e = 0; e < Vec; ++e) {
      float const x = detail::to_f32(gv.v[e]);
      hv.v[e] = detail::from_f32<T>(x * detail::sigmoid(x) * detail::to_f32(uv.v[e]));
    }
    reinterpret_cast<P*>(h)[i] = hv;
  } else if (i == whole) {
    for (std::int64_t e = whole * Vec; e < n; ++e) {
      float const x = detail::to_f32(g[e]);
      h[e] = detail::from_f32<T>(x * detail::sigmoid(x) * detail::to_f32(u[e]));
    }
  }
}

/// dg = dh * u * silu'(g) and du = dh * silu(g) over n elements; launched as silu_mul_kernel.
/// @pre dh, g, u, dg and du are aligned to Vec * sizeof(T) bytes.
template <class T, int Vec>
__global__ void __launch_bounds__(kThreads)
    silu_mul_backward_kernel(T const* dh, T const* g, T const* u, T* dg, T* du, std::int64_t n) {
  using P = detail::Pack<T, Vec>;
  auto grads = [](float d, float x, float y, T& out_g, T& out_u) {
    float const s = detail::sigmoid(x);
    out_u = detail::from_f32<T>(d * x * s);
    out_g = detail::from_f32<T>(d * y * s * (1.f + x * (1.f - s)));
  };
  std::int64_t const i = detail::thread_pack(), whole = n / Vec;
  if (i < whole) {
    P const dv = reinterpret_cast<P const*>(dh)[i], gv = reinterpret_cast<P const*>(g)[i],
            uv = reinterpret_cast<P const*>(u)[i];
    P gout, uout;
#pragma unroll
    for (int e = 0; e < Vec; ++e)
      grads(detail::to_f32(dv.v[e]), detail::to_f32(gv.v[e]), detail::to_f32(uv.v[e]), gout.v[e], uout.v[e]);
    reinterpret_cast<P*>(dg)[i] = gout;
    reinterpret_cast<P*>(du)[i] = uout;
  } else if (i == whole) {
    for (std::int64_t e = whole * Vec; e < n; ++e)
      grads(detail::to_f32(dh[e]), detail::to_f32(g[e]), detail::to_f32(u[e]), dg[e], du[e]);
  }
}

}  // namespace tessel::elementwise
