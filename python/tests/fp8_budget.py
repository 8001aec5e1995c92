"""The FP8 GEMM's accumulation error per element, shared by the FP8 tests (test_fp8_tf32,
test_rowwise): the operands are exact FP8 values, so the error is the accumulation's, as a share
of the absolute products' sum `ab` (scaled as the result is).

- Fast accumulation: the tensor core keeps fewer bits of its running sum over the whole of K; the
  worst element measured was 2^-12.6 of `ab` at K = 4096 on the H200: budget 2^-10.
- Promoted: the kernel adds each K tile's partial (128 deep, four wgmma) into f32 registers, but
  inside a tile the tensor core sums with the same short accumulator (about 14 bits, as DeepSeek-V3
  reports for Hopper): 2^-13 of each tile's share of `ab`, plus f32's own rounding over K. An
  element near a bf16 rounding midpoint shows it (H100, 2026-12-05: 4096x8x256, 2^-8 relative
  missed by a hair under the f32-only budget)."""

import math


def accumulation_budget(ab, k: int, fast: bool):
    return (2.0**-10 if fast else 2.0**-13 + 8 * math.sqrt(k) * 2.0**-23) * ab
