"""FP8 at decode: tessel.scaled_mm (the e4m3 small-N ring where it runs) against torch._scaled_mm
on the same operands, in turns in one process; per-tensor and row-wise scales, fast and promoted
accumulation (torch's use_fast_accum True and False). Beside them, the 128x64 fast tile on D^T's
problem, tessel's choice before the ring. e4m3 in, bf16 out, uniform random operands; each
provider's D checked against a float64 reference first; operand sets rotated past L2 (at least
256 MB of weights in turn), events around each call behind a held GPU, medians of 30.

    python3 bench/fp8_decode_ring.py [MxNxK ...]   (M tokens, N weight rows, K)"""
import statistics
import sys

import torch
from torch_timing import events_time

import tessel
from tessel.jit.config import GemmConfig

E4M3 = torch.float8_e4m3fn
DEFAULT_SHAPES = ((1, 4096, 4096), (1, 14336, 4096), (4, 4096, 14336), (16, 4096, 4096), (16, 14336, 4096), (16, 28672, 8192),
                  (8, 7168, 16384), (16, 6144, 4096))


def timed(fn, sets, reps=30):
    """Median microseconds of fn(*set) over rotated sets (torch_timing's events, the GPU held first)."""
    fn(*sets[0])
    torch.cuda.synchronize()
    return statistics.median(events_time(fn, sets, reps)) * 1e3


def operands(m, n, k, count):
    """count sets of (x, W, row scale of x, row scale of W, D^T buffer)."""
    def scales(rows):
        return torch.rand(rows, 1, device="cuda") * 0.01 + 0.001
    return [((torch.rand(m, k, device="cuda") * 2 - 1).mul(448).to(E4M3), (torch.rand(n, k, device="cuda") * 2 - 1).mul(448).to(E4M3),
             scales(m), scales(n).t(), torch.empty(n, m, device="cuda", dtype=torch.bfloat16)) for _ in range(count)]


def main():
    shapes = [tuple(int(v) for v in a.split("x")) for a in sys.argv[1:]] or DEFAULT_SHAPES
    one = torch.ones((), device="cuda")
    narrow = tessel.compile(GemmConfig(arch="sm90a", element="e4m3", out="bf16", tile=(128, 64, 128)))
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}, tessel {tessel.__version__}")
    print("| shape | scales | accumulation | torch._scaled_mm us | tessel.scaled_mm us | tessel / torch | 128x64 on D^T / torch | "
          "weights TB/s (tessel) | kernel | worst error / budget |")
    print("|---|---|---|---:|---:|---:|---:|---:|---|---|")
    for m, n, k in shapes:
        count = max(3, -(-256 * 2**20 // (n * k)))
        sets = operands(m, n, k, count)
        x, W, sx, sw, _ = sets[0]
        kernel = tessel.kernel_for(x, W.t(), out_dtype=torch.bfloat16).name
        for mode in ("per-tensor", "row-wise"):
            for fast in (True, False):
                def scale_of(sx, sw):
                    return (one, one) if mode == "per-tensor" else (sx, sw)

                def ours(x, W, sx, sw, dT):
                    return tessel.scaled_mm(x, W.t(), *scale_of(sx, sw), out_dtype=torch.bfloat16, use_fast_accum=fast)

                def theirs(x, W, sx, sw, dT):
                    return torch._scaled_mm(x, W.t(), *scale_of(sx, sw), out_dtype=torch.bfloat16, use_fast_accum=fast)
                sa, sb = scale_of(sx, sw)
                ref = (x.double() @ W.double().t()) * sa.double().reshape(-1, 1) * sb.double().reshape(1, -1)
                ab = (x.double().abs() @ W.double().abs().t()) * sa.double().reshape(-1, 1) * sb.double().reshape(1, -1)
                budget = (2.0**-10 if fast else 2.0**-13 + 8 * k**0.5 * 2.0**-23) * ab + 2.0**-8 * ref.abs() + 1e-30
                worst = ((ours(*sets[0]).double() - ref).abs() / budget).max().item()
                try:
                    t_torch = timed(theirs, sets)
                except RuntimeError as e:  # a shape or mode torch._scaled_mm refuses
                    print(f"| {m}x{n}x{k} | {mode} | {'fast' if fast else 'promoted'} | refused: {str(e).splitlines()[0][:60]} |||||||")
                    continue
                t_ours = timed(ours, sets)
                cell = "-"
                if mode == "per-tensor" and fast:
                    t_dt = timed(lambda x, W, sx, sw, dT: narrow(W, x.t(), out=dT), sets)
                    cell = f"{t_torch / t_dt:.3f}"
                print(f"| {m}x{n}x{k} | {mode} | {'fast' if fast else 'promoted'} | {t_torch:.1f} | {t_ours:.1f} | **{t_torch / t_ours:.3f}** | "
                      f"{cell} | {n * k / t_ours / 1e6:.2f} | `{kernel.removeprefix('tessel_sm90_gemm_')}` | {worst:.2f} |", flush=True)


if __name__ == "__main__":
    main()
