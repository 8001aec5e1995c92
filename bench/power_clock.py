#!/usr/bin/env python3
"""What the power limit leaves each GEMM: tessel.gemm and torch.matmul each run back to back for a
few seconds, in alternating phases, while nvidia-smi samples the SM clock and the board's power;
per phase, TFLOP/s from events and the mean clock and power over its samples (the first 0.5 s
dropped), so the two kernels' energy per flop and the clock they are held to can be compared.

    python bench/power_clock.py [--shape 8192x18432x7168] [--dtype bf16] [--phases 3] [--seconds 3]
        [--config 128x256x64:2x1 ...] [--out FILE.md]

--config adds a provider: tessel.gemm with that Hopper tile (BMxBNxBK) and cluster (MxN, default
1x1), to compare the energy per flop of two of tessel's configurations at the same shape.
"""

import argparse
import datetime
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import torch

import tessel
from config_sweep import hopper_config
from front_door import DTYPES, operands, sets_for, verify
from tessel.explain import _shape as parse_shape
from torch_timing import events_time, write_report


def phase(run, sets, seconds):
    """(start, end) wall times and the median milliseconds of run's calls over `seconds`, in
    batches of 20 back to back (no hold kernel between them: its spin would lower the mean power)."""
    times, start = [], time.time()
    while time.time() - start < seconds:
        times += events_time(run, sets, 20, hold_cycles=0)
    return start, time.time(), statistics.median(times)


def parse_config(text, dtype):
    """'128x256x64:2x1' (tile BMxBNxBK, then an optional cluster MxN) as config_sweep's Hopper
    GemmConfig; ValueError where the text or the configuration is not one."""
    match = re.fullmatch(r"(\d+)x(\d+)x(\d+)(?::(\d+)x(\d+))?", text)
    if match is None:
        raise ValueError("write the tile as BMxBNxBK and the cluster as MxN, e.g. 128x256x64:2x1")
    bm, bn, bk, cm, cn = (int(v) if v else 1 for v in match.groups())
    return hopper_config(dtype, (bm, bn, bk), cluster=(cm, cn, 1))


def samples(path):
    out = []
    for line in open(path):
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != 4:
            continue
        try:
            when = datetime.datetime.strptime(parts[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
            out.append((when, float(parts[1]), float(parts[2]), float(parts[3])))
        except ValueError:
            continue
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", default=(8192, 18432, 7168), type=parse_shape, help="M x N x K")
    ap.add_argument("--dtype", default="bf16", choices=sorted(DTYPES))
    ap.add_argument("--phases", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--config", action="append", default=[], help="also time tessel.gemm with this tile[:cluster]")
    ap.add_argument("--out")
    args = ap.parse_args()
    if args.phases < 1 or not args.seconds > 0:
        ap.error("--phases must be at least 1 and --seconds above 0")
    if not torch.cuda.is_available():
        raise SystemExit("power_clock: no CUDA device")
    m, n, k = args.shape
    shape = f"{m}x{n}x{k}"
    sets = operands(m, n, k, DTYPES[args.dtype], sets_for(m, n, k))
    x, Wt, D = sets[0]
    D.fill_(float("nan"))
    tessel.gemm(x, Wt, out=D)
    torch.cuda.synchronize()
    if not verify(x, Wt, D) <= 1:
        raise SystemExit(f"power_clock: tessel.gemm's D is wrong at {shape}")
    runs = {"torch.matmul": lambda A, B, D: torch.matmul(A, B, out=D), "tessel.gemm": lambda A, B, D: tessel.gemm(A, B, out=D)}
    for text in args.config:
        D.fill_(float("nan"))
        try:
            config = parse_config(text, args.dtype)
            tessel.gemm(x, Wt, out=D, config=config)  # a configuration the shape refuses says so here
        except (ValueError, TypeError) as e:
            raise SystemExit(f"power_clock: --config {text}: {str(e).splitlines()[0]}") from None
        torch.cuda.synchronize()
        if not verify(x, Wt, D) <= 1:
            raise SystemExit(f"power_clock: tessel.gemm with config {text} is wrong at {shape}")
        runs[f"tessel {text}"] = lambda A, B, D, c=config: tessel.gemm(A, B, out=D, config=c)
    log = tempfile.NamedTemporaryFile(suffix=".csv", delete=False).name
    try:
        smi = subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu",
                                "--format=csv,noheader,nounits", "-lms", "50", "-f", log])
    except FileNotFoundError:
        raise SystemExit("power_clock: nvidia-smi is not on the PATH; it samples the clock and power") from None
    time.sleep(1.0)
    phases = []
    try:
        for p in range(args.phases):
            for label in (list(runs) if p % 2 == 0 else list(runs)[::-1]):  # each provider first and last in turn
                phases.append((label, *phase(runs[label], sets, args.seconds)))
    finally:
        time.sleep(0.5)
        smi.terminate()
        smi.wait()
    got = samples(log)
    os.unlink(log)
    flop = 2.0 * m * n * k
    lines = [f"# power_clock {shape} {args.dtype}, {torch.cuda.get_device_name(0)}, "
             f"{time.strftime('%Y-%m-%d %H:%MZ', time.gmtime())}; tessel.gemm runs "
             f"`{tessel.kernel_for(x, Wt, out=D).name}`", "",
             "| phase | provider | TFLOP/s (median call) | SM MHz (mean) | W (mean) | GFLOP per J | samples |",
             "|---:|---|---:|---:|---:|---:|---:|"]
    for i, (label, start, end, ms) in enumerate(phases):
        inside = [s for s in got if start + 0.5 <= s[0] <= end]
        tflops = flop / (ms * 1e-3) / 1e12
        if inside:
            mhz, watts = statistics.mean(s[1] for s in inside), statistics.mean(s[2] for s in inside)
            lines.append(f"| {i} | {label} | {tflops:.1f} | {mhz:.0f} | {watts:.0f} | {tflops * 1e3 / watts:.0f} | {len(inside)} |")
        else:
            lines.append(f"| {i} | {label} | {tflops:.1f} | - | - | - | 0 |")
    write_report(lines, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
