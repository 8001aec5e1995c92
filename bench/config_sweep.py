#!/usr/bin/env python3
"""Configurations outside the registry, timed against torch.matmul on the shapes where the
registry's best misses: what a new registry entry would buy, before it is shipped.

    python bench/config_sweep.py [--out FILE.md] [--shapes 1000x1000x1000,...] [--dtype bf16|f16] [--reps 20] [--rounds 3] [--only REGEX]

Each shape (M x N x K, D = x @ W.t(), bf16 or f16, uniform [-1, 1)) runs tessel.gemm's own choice, then
every configuration of CONFIGS that can run it, each checked against float64 first (D poisoned
with NaN), then all timed call by call in one process with torch.matmul on the same rotated operands
(bench/torch_timing.py's interleaved_times: events between the calls, the GPU held up first; the
ratio to torch is the median of each call's against torch's call beside it). Compile seconds are
reported per configuration (NVRTC on this host; the disk cache makes a second run free).
"""

import argparse
import re
import statistics
import sys
import time

import torch

import tessel
from front_door import DTYPES, operands, sets_for, verify
from torch_timing import interleaved_times, paired_ratio, write_report

DEFAULT_SHAPES = "1000x1000x1000,128x6144x4096,3000x5120x1536,2048x2048x2048,4096x6144x4096,8192x8192x8192"
LARGE = 2 * 4096**3  # FLOP from which only the wide tiles are tried (issue 21's shapes)


def hopper_config(dtype, tile, **kw):
    """A Hopper GemmConfig of `dtype` in and out for x @ W.t(): A row-major, B column-major, D row-major."""
    return tessel.GemmConfig(arch="sm90a", element=dtype, out=dtype, layout_a="row", layout_b="col", layout_c="row",
                             tile=tile, **kw)


def configs(dtype="bf16"):
    """(label, GemmConfig): tiles and schedules the registry does not ship, beside two it does."""
    def hopper(tile, **kw):
        return hopper_config(dtype, tile, **kw)
    out = []
    for tile, stages in (((64, 64, 64), None), ((64, 128, 64), None), ((128, 64, 64), None), ((128, 64, 64), 4),
                         ((128, 128, 64), None), ((128, 192, 64), None), ((128, 256, 64), None)):
        for schedule in ("cooperative", "pingpong"):
            if schedule == "pingpong" and tile[1] > 128:  # one consumer holds 128 x BN accumulators: BN <= 128
                continue
            if schedule == "cooperative" and tile[0] < 128:  # two consumers split BM: 128 rows at least
                continue
            for scheduler in ("persistent", "stream_k"):
                if scheduler == "stream_k" and schedule == "pingpong":
                    continue
                label = f"{tile[0]}x{tile[1]}x{tile[2]}{'' if stages is None else f' {stages}st'} {schedule[:4]} {scheduler}"
                try:
                    out.append((label, hopper(tile, stages=stages, schedule=schedule, scheduler=scheduler)))
                except (ValueError, TypeError) as e:
                    print(f"skip {label}: {e}", file=sys.stderr)
    # Clusters: 2x1 shares B's loads between the CTAs along M, 1x2 A's along N, 2x2 both.
    for tile in ((128, 64, 64), (128, 128, 64), (128, 192, 64), (128, 256, 64)):
        for cluster in ((2, 1, 1), (1, 2, 1), (2, 2, 1)):
            label = f"{tile[0]}x{tile[1]}x{tile[2]} coop {cluster[0]}x{cluster[1]} cluster"
            try:
                out.append((label, hopper(tile, cluster=cluster)))
            except (ValueError, TypeError) as e:
                print(f"skip {label}: {e}", file=sys.stderr)
    out.append(("128x128x64 ping 1x2 cluster", hopper((128, 128, 64), schedule="pingpong", cluster=(1, 2, 1))))
    return out


def shape_configs(m, n, k, only=None, dtype="bf16"):
    """The configurations tried on a shape: all of them, or on large shapes the wide tiles only;
    `only`: a regular expression the labels must match."""
    every = [(label, c) for label, c in configs(dtype) if only is None or re.search(only, label)]
    if 2 * m * n * k < LARGE:
        return every
    return [(label, c) for label, c in every if c.tile[1] >= 192]


def shape_rows(m, n, k, reps, rounds, only=None, dtype="bf16"):
    sets = operands(m, n, k, DTYPES[dtype], sets_for(m, n, k))
    x, Wt, D = sets[0]
    runs = {"torch": lambda A, B, D: torch.matmul(A, B, out=D),
            "tessel.gemm": lambda A, B, D: tessel.gemm(A, B, out=D)}
    compile_s = {}
    for label, config in shape_configs(m, n, k, only, dtype):
        start = time.perf_counter()
        try:
            D.fill_(float("nan"))
            tessel.gemm(x, Wt, out=D, config=config)
            torch.cuda.synchronize()
        except (ValueError, TypeError, RuntimeError) as e:
            print(f"{m}x{n}x{k} {label}: not run: {str(e).splitlines()[0][:160]}", file=sys.stderr)
            continue
        compile_s[label] = time.perf_counter() - start
        err = verify(x, Wt, D)
        if not err <= 1:
            print(f"{m}x{n}x{k} {label}: WRONG (worst error {err:.2f} of the budget); not timed", file=sys.stderr)
            continue
        runs[label] = lambda A, B, D, c=config: tessel.gemm(A, B, out=D, config=c)
    D.fill_(float("nan"))
    tessel.gemm(x, Wt, out=D)
    torch.cuda.synchronize()
    if not verify(x, Wt, D) <= 1:
        raise SystemExit(f"{m}x{n}x{k}: tessel.gemm's own choice is wrong")
    chosen = tessel.kernel_for(x, Wt, out=D).name
    steps = interleaved_times(runs, sets, reps, rounds)
    med = {name: statistics.median(t) for name, t in steps.items()}
    flop = 2 * m * n * k
    lines = [f"### {m}x{n}x{k} {dtype} (tessel.gemm chose {chosen})", "",
             "| provider | TFLOP/s (median) | / torch, call by call (median) | compile s |", "|---|---:|---:|---:|"]
    for name in sorted(med, key=med.get):
        c = compile_s.get(name)
        lines.append(f"| {name} | {flop / (med[name] * 1e-3) / 1e12:.1f} | {paired_ratio(steps, 'torch', name):.3f} | "
                     f"{'' if c is None else f'{c:.1f}'} |")
    del sets
    return lines + [""]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out")
    ap.add_argument("--shapes", default=DEFAULT_SHAPES)
    ap.add_argument("--dtype", default="bf16", choices=sorted(DTYPES), help="A's, B's and D's element type")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", help="a regular expression: time only the configurations whose label matches")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("config_sweep: no CUDA device")
    lines = [f"# config_sweep, {torch.cuda.get_device_name(0)}, {time.strftime('%Y-%m-%d %H:%MZ', time.gmtime())}", ""]
    for s in args.shapes.split(","):
        m, n, k = (int(v) for v in s.split("x"))
        lines += shape_rows(m, n, k, args.reps, args.rounds, args.only, args.dtype)
        write_report(lines, args.out)


if __name__ == "__main__":
    main()
