#!/usr/bin/env python3
"""Two trees of tessel's headers against each other, call by call in one process, through the
JIT: does a change to the kernel headers make a configuration faster or slower?

    python bench/header_ab.py OLD_INCLUDE NEW_INCLUDE 'SHAPE=CFG,CFG;SHAPE=CFG' [--reps 20] [--rounds 3]

SHAPE is M x N x K (bf16, D = x @ W.t(), uniform [-1, 1) operands rotated past L2); CFG is
BMxBN with optional parts :cMxN (cluster), :sS (stages), :ping (ping-pong), :sk (stream-K), e.g.
128x64:c1x2. Each configuration is compiled twice through NVRTC, once with TESSEL_INCLUDE_DIR set
to each tree (the JIT's cache key holds the headers' hash, so the two never share a cubin); each
is checked on a NaN-poisoned D against float64, then torch.matmul and both builds are timed call
by call (bench/torch_timing.py's interleaved_times). Reports each provider's median, its ratio to
torch, and new / old, each the median of paired calls.
"""

import argparse
import os
import statistics

import torch

import tessel
from config_sweep import hopper_config
from front_door import operands, sets_for, verify
from torch_timing import interleaved_times, paired_ratio


def parse(spec, dtype="bf16"):
    """A Hopper GemmConfig for x @ W.t() from 'BMxBN[:cMxN][:sS][:ping][:sk]'."""
    parts = spec.split(":")
    bm, bn = (int(v) for v in parts[0].split("x"))
    kw = {}
    for p in parts[1:]:
        if p.startswith("c"):
            kw["cluster"] = tuple(int(v) for v in p[1:].split("x")) + (1,)
        elif p.startswith("s") and p[1:].isdigit():
            kw["stages"] = int(p[1:])
        elif p == "ping":
            kw["schedule"] = "pingpong"
        elif p == "sk":
            kw["scheduler"] = "stream_k"
        else:
            raise SystemExit(f"header_ab: unknown configuration part {p!r} in {spec!r}")
    return hopper_config(dtype, (bm, bn, 64), **kw)


def shape_lines(m, n, k, specs, trees, reps, rounds):
    sets = operands(m, n, k, torch.bfloat16, sets_for(m, n, k))
    x, Wt, D = sets[0]
    runs = {"torch": lambda A, B, D: torch.matmul(A, B, out=D)}
    for spec in specs:
        config = parse(spec)
        for tag, inc in trees.items():
            os.environ["TESSEL_INCLUDE_DIR"] = inc
            kernel = tessel.compile(config)
            D.fill_(float("nan"))
            kernel(x, Wt, out=D)
            torch.cuda.synchronize()
            err = verify(x, Wt, D)
            if not err <= 1:
                raise SystemExit(f"{m}x{n}x{k} {spec} ({tag}): WRONG, worst error {err:.2f} of the budget")
            runs[f"{spec} {tag}"] = lambda A, B, D, kernel=kernel: kernel(A, B, out=D)
    times = interleaved_times(runs, sets, reps, rounds)
    lines = [f"### {m}x{n}x{k}", "", "| provider | median | TFLOP/s | / torch | new / old |", "|---|---:|---:|---:|---:|"]
    for name in runs:
        med = statistics.median(times[name])
        vs = paired_ratio(times, name[:-4] + " old", name) if name.endswith(" new") else None
        lines.append(f"| {name} | {med * 1e3:.2f} us | {2 * m * n * k / med / 1e9:.1f} | {paired_ratio(times, 'torch', name):.3f} | "
                     f"{'' if vs is None else f'{vs:.3f}'} |")
    return lines + [""]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old_include")
    ap.add_argument("new_include")
    ap.add_argument("cases", help="'SHAPE=CFG,CFG;SHAPE=CFG'")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("header_ab: no CUDA device")
    trees = {"old": os.path.abspath(args.old_include), "new": os.path.abspath(args.new_include)}
    for item in args.cases.split(";"):
        shape, specs = item.split("=")
        m, n, k = (int(v) for v in shape.split("x"))
        print("\n".join(shape_lines(m, n, k, specs.split(","), trees, args.reps, args.rounds)), flush=True)


if __name__ == "__main__":
    main()
