#!/usr/bin/env python3
"""16-bit tiles at 32-128 tokens: tessel.gemm's choice (named) against torch.matmul and against
Hopper tiles run as configurations, on the problem as given (D = x @ W.t()) and on D^T's
(D^T = W @ x.t(), the layout the dispatcher runs decode calls in), so that a change of the
dispatcher's choice is measured against the one it replaces in the same process.

    python bench/decode_tiles.py [--out FILE.md] [--shapes 64x8192x8192,...] [--reps 20] [--rounds 3]

bf16, uniform [-1, 1) operands rotated past L2; each provider's D checked against float64 within
the 16-bit budget (NaN-poisoned first), then all timed call by call (torch_timing.interleaved_times:
events between the calls behind a held GPU, every provider once per step). Ratios are the median
over steps of torch's call over the provider's beside it (higher is better for tessel).
"""

import argparse
import statistics
import time

import torch

import tessel
from front_door import operands, sets_for, verify
from torch_timing import interleaved_times, paired_ratio, write_report

SHAPES = ("32x14336x4096,48x4096x4096,64x4096x4096,64x14336x4096,64x8192x8192,64x28672x8192,64x4096x14336,"
          "96x14336x4096,96x4096x14336,128x4096x4096,128x14336x4096,128x4096x14336,128x8192x8192")


def config(tile, schedule, scheduler="persistent"):
    return tessel.GemmConfig(arch="sm90a", element="bf16", out="bf16", layout_a="row", layout_b="col", layout_c="row",
                             tile=tile, schedule=schedule, scheduler=scheduler)


GIVEN = {"64x64 ping": config((64, 64, 64), "pingpong"), "64x128 ping": config((64, 128, 64), "pingpong"),
         "128x64 coop": config((128, 64, 64), "cooperative"),
         "128x128 ping": config((128, 128, 64), "pingpong"), "128x256 coop": config((128, 256, 64), "cooperative"),
         "128x64 stream-K": config((128, 64, 64), "cooperative", "stream_k"),
         "128x128 stream-K": config((128, 128, 64), "cooperative", "stream_k")}
ON_DT = {"128x64 coop on D^T": config((128, 64, 64), "cooperative"),
         "128x64 stream-K on D^T": config((128, 64, 64), "cooperative", "stream_k"),
         "64x64 ping on D^T": config((64, 64, 64), "pingpong")}


def shape_rows(m, n, k, reps, rounds):
    sets = [(x, Wt, D, torch.empty(n, m, device="cuda", dtype=D.dtype)) for x, Wt, D in
            operands(m, n, k, torch.bfloat16, sets_for(m, n, k))]
    x, Wt, D, Dt = sets[0]
    runs = {"torch": lambda x, Wt, D, Dt: torch.matmul(x, Wt, out=D),
            "tessel.gemm": lambda x, Wt, D, Dt: tessel.gemm(x, Wt, out=D)}
    for label, c in GIVEN.items():
        runs[label] = lambda x, Wt, D, Dt, c=c: tessel.gemm(x, Wt, out=D, config=c)
    for label, c in ON_DT.items():  # W @ x.t(): A = W row-major, B = x.t() column-major, D^T row-major
        runs[label] = lambda x, Wt, D, Dt, c=c: tessel.gemm(Wt.t(), x.t(), out=Dt, config=c)
    checked = {}
    for label, run in runs.items():
        D.fill_(float("nan"))
        Dt.fill_(float("nan"))
        run(*sets[0])
        torch.cuda.synchronize()
        got = Dt.t() if label.endswith("D^T") else D
        checked[label] = verify(x, Wt, got)
    chosen = tessel.kernel_for(x, Wt, out=D).name
    steps = interleaved_times({label: run for label, run in runs.items() if checked[label] <= 1}, sets, reps, rounds)
    med = {label: statistics.median(t) for label, t in steps.items()}
    flop = 2 * m * n * k
    lines = [f"### {m}x{n}x{k} bf16 (tessel.gemm chose {chosen})", "",
             "| provider | us (median) | TFLOP/s | torch / provider, call by call | worst error (share of budget) |", "|---|---:|---:|---:|---:|"]
    for label in sorted(runs, key=lambda name: med.get(name, float("inf"))):
        if label not in med:
            lines.append(f"| {label} | - | - | WRONG | {checked[label]:.2f} |")
            continue
        lines.append(f"| {label} | {med[label] * 1e3:.1f} | {flop / (med[label] * 1e-3) / 1e12:.1f} | "
                     f"{paired_ratio(steps, 'torch', label):.3f} | {checked[label]:.2f} |")
    return lines + [""]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out")
    ap.add_argument("--shapes", default=SHAPES)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("decode_tiles: no CUDA device")
    lines = [f"# decode_tiles, {torch.cuda.get_device_name(0)}, {time.strftime('%Y-%m-%d %H:%MZ', time.gmtime())}", ""]
    with torch.no_grad():
        for s in args.shapes.split(","):
            m, n, k = (int(v) for v in s.split("x"))
            lines += shape_rows(m, n, k, args.reps, args.rounds)
            write_report(lines, args.out)


if __name__ == "__main__":
    main()
