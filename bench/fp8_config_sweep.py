#!/usr/bin/env python3
"""FP8 configurations outside the registry, timed against torch._scaled_mm on prefill shapes:
clusters (B multicast along M, 2x1; A along N, 1x2) on the fast, promoted and block-scaled
kernels, beside the registry's own tiles. e4m3 x (M, K) row-major, W (N, K) row-major as b = W.t(),
bf16 out, uniform [-1, 1) quantized. Per-tensor kernels run with unit scales against torch's with
unit scales (fast or slow accumulation as the kernel's); block-scaled ones against torch's
blockwise mode on the same scales. Each provider's D is checked against float64 first, then each
configuration is timed call by call beside torch on rotated operand sets
(torch_timing.interleaved_times); tessel / torch is the median of torch's call over tessel's beside it.

    python bench/fp8_config_sweep.py [--shapes 4096x7168x4096,...] [--only REGEX] [--rounds 3] [--reps 10]
"""

import argparse
import re
import statistics
import sys

import torch

import tessel
from tessel.gemm import gemm_block_scaled
from torch_timing import interleaved_times, paired_ratio

E4M3 = torch.float8_e4m3fn
SHAPES = "4096x7168x4096,8192x7168x7168,4096x18432x7168"


def configs():
    """(label, mode, GemmConfig); mode is 'fast', 'promoted' or 'block'."""
    def fp8(tile, schedule="cooperative", cluster=(1, 1, 1)):
        return tessel.GemmConfig(arch="sm90a", element="e4m3", out="bf16", layout_a="row", layout_b="col", layout_c="row",
                                 tile=tile, schedule=schedule, cluster=cluster)
    out = []
    for c in ((1, 1, 1), (2, 1, 1), (1, 2, 1)):
        name = f"c{c[0]}x{c[1]}"
        out.append((f"fast 128x256 {name}", "fast", fp8((128, 256, 128), cluster=c)))
        out.append((f"promoted 128x128 {name}", "promoted", fp8((128, 128, 128), "cooperative_promoted", c)))
        out.append((f"promoted 128x192 {name}", "promoted", fp8((128, 192, 128), "cooperative_promoted", c)))
        out.append((f"block 128x192 {name}", "block", fp8((128, 192, 128), "cooperative_blockscaled", c)))
    out.append(("block 128x128 c1x1", "block", fp8((128, 128, 128), "cooperative_blockscaled")))
    # The fast kernel's other schedules: ping-pong hides each consumer's epilogue under the
    # other's mainloop, at 64 or 128 rows per consumer tile.
    out.append(("fast 128x128 pingpong", "fast", fp8((128, 128, 128), "pingpong")))
    out.append(("fast 64x256 pingpong", "fast", fp8((64, 256, 128), "pingpong")))
    out.append(("fast 128x192 c1x1", "fast", fp8((128, 192, 128))))
    return out


def operands(m, n, k, count):
    kb, nb = -(-k // 128), -(-n // 128)
    return [((torch.rand(m, k, device="cuda") * 2 - 1).to(E4M3), (torch.rand(n, k, device="cuda") * 2 - 1).to(E4M3).t(),
             (torch.rand(kb, m, device="cuda") + 0.5).t(), (torch.rand(nb, kb, device="cuda") + 0.5).t()) for _ in range(count)]


def reference(mode, a, b, sa, sb):
    if mode != "block":
        return a.double() @ b.double()
    k = a.shape[1]
    ea = sa.double().repeat_interleave(128, dim=1)[:, :k]
    eb = sb.double().repeat_interleave(128, dim=0)[:k].repeat_interleave(128, dim=1)[:, :b.shape[1]]
    return (a.double() * ea) @ (b.double() * eb)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shapes", default=SHAPES)
    ap.add_argument("--only", help="a regular expression over the labels")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=10)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("fp8_config_sweep.py: no CUDA device", file=sys.stderr)
        return 2
    chosen = [c for c in configs() if not args.only or re.search(args.only, c[0])]
    one = torch.ones((), device="cuda")
    torch_fn = {"fast": lambda a, b, sa, sb: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16, use_fast_accum=True),
                "promoted": lambda a, b, sa, sb: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16),
                "block": lambda a, b, sa, sb: torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16)}
    print(f"# FP8 configurations against torch._scaled_mm, {torch.cuda.get_device_name()}, torch {torch.__version__}\n")
    print("| shape | configuration | torch TFLOP/s | tessel TFLOP/s | tessel / torch | rel. error |\n|---|---|---:|---:|---:|---:|")
    for shape in args.shapes.split(","):
        m, n, k = (int(v) for v in shape.split("x"))
        sets = operands(m, n, k, 3)
        flop = 2.0 * m * n * k
        refs = {}  # float64 reference per mode, on the first operand set
        with torch.no_grad():
            for label, mode, config in chosen:
                if mode == "block":
                    fn = lambda a, b, sa, sb, c=config: gemm_block_scaled(a, b, scale_a=sa, scale_b=sb, config=c)  # noqa: E731
                else:
                    kernel = tessel.compile(config)
                    fn = lambda a, b, sa, sb, kern=kernel: kern(a, b)  # noqa: E731
                try:
                    got = fn(*sets[0])
                except (RuntimeError, ValueError) as exc:
                    print(f"| {shape} | {label} | - | - | refused: {str(exc)[:120]} | - |", flush=True)
                    continue
                ref = refs[mode] if mode in refs else refs.setdefault(mode, reference(mode, *sets[0]))
                rel = ((got.double() - ref).norm() / ref.norm()).item()
                if not rel < 2e-2:
                    print(f"| {shape} | {label} | - | - | WRONG | {rel:.2e} |", flush=True)
                    continue
                steps = interleaved_times({"torch": torch_fn[mode], "tessel": fn}, sets, args.reps, args.rounds)
                t_torch, t_tessel = statistics.median(steps["torch"]), statistics.median(steps["tessel"])
                print(f"| {shape} | {label} | {flop / t_torch / 1e9:.0f} | {flop / t_tessel / 1e9:.0f} | "
                      f"**{paired_ratio(steps, 'torch', 'tessel'):.3f}** | {rel:.1e} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
