#pragma once
// FP8 with per-block scales (the DeepSeek-V3 recipe), as the Hopper kernel applies them:
//
//   D(m, n) = sum_kb  scale_A(m, kb) * scale_B(n / 128, kb) * sum_{k in block kb} A(m, k) B(n, k)
//
// A (activations, M x K) carries one f32 scale per row and 128 of K (1 x 128 blocks), B (weights,
// N x K) one per 128 x 128 block. Each K tile of the kernel is one block of K (BK = 128 for 8-bit
// types): its wgmma starts from zero, and the consumer adds the partial sum, times the two
// scales, into f32 registers (promoted accumulation). The scales sit in global memory with any
// element strides:
//
//   scale_A(m, kb, l)  = sfa[m * row + kb * k + l * batch]      torch._scaled_mm's 1x128: (1, M)
//   scale_B(nb, kb, l) = sfb[nb * row + kb * k + l * batch]     its 128x128: (ceil(K/128), 1)
//
// Worked example: M = 3, K = 256 (two blocks), torch's layout (row 1, k 3): the scales of row 2
// are sfa[2] (k in [0, 128)) and sfa[5] (k in [128, 256)).

#include <cstdint>

#include "tessel/config.hpp"

namespace tessel::gemm::kernel {

inline constexpr int kBlockScaleK = 128;  // elements of K per scale, for A and B
inline constexpr int kBlockScaleN = 128;  // rows of B (N) per scale

/// Where one operand's scales are: base and element strides over (row or row block, K block, batch).
struct BlockScaleTensor {
  float const* ptr = nullptr;
  std::int64_t row = 0, k = 0, batch = 0;
  TESSEL_HD float const* at(int r, int kb, int l) const { return ptr + r * row + kb * k + l * batch; }
};

struct Sm90BlockScales {
  BlockScaleTensor a;  // per row of A and 128 of K
  BlockScaleTensor b;  // per 128 rows of B (columns of D) and 128 of K
};

#if defined(__CUDACC__)
/// The scales one consumer thread multiplies its accumulators by for one K tile: the
/// accumulator layout (wgmma_sm90.hpp) gives each thread two rows per 64 (h = 0, 1: registers
/// 4c+2h and 4c+2h+1), and a tile of BN <= 128 columns lies in one block of B.
template <int MmaM>
struct Sm90ThreadScales {
  float s[MmaM][2];
  /// row0: the thread's first row (h = 0 of the first 64); rows at or past m_end get 0.
  __device__ __forceinline__ void load(Sm90BlockScales const& p, int row0, int m_end, int n_block, int kb, int l_a, int l_b) {
    float const b = __ldg(p.b.at(n_block, kb, l_b));
#pragma unroll
    for (int i = 0; i < MmaM; ++i)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        int const r = row0 + 64 * i + 8 * h;
        s[i][h] = r < m_end ? __ldg(p.a.at(r, kb, l_a)) * b : 0.f;
      }
  }
  /// The scale of accumulator register v of the i-th 64 rows.
  __device__ __forceinline__ float operator()(int i, int v) const { return s[i][(v >> 1) & 1]; }
};
#endif

}  // namespace tessel::gemm::kernel
