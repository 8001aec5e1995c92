#!/usr/bin/env python3
"""torch.matmul on the standard problem set: the cuBLAS that PyTorch users get, as a check of
tessel-prof's cuBLAS column (cuBLASLt with a workspace, best of both orientations).

    python bench/torch_matmul.py [--shapes bench/shapes.txt] [--reps 20]

Per problem M x N x K, bf16 and f16, the TN problem of tessel-prof (A row-major, B column-major,
D column-major): D^T = B^T A^T through torch.matmul, which writes D^T row-major, that is D
column-major. Inputs uniform in [-1, 1); operand sets rotated so that the sets between two uses of
one exceed twice the L2; each run between its own pair of CUDA events; the median reported.
Prints one markdown row per problem and type: TFLOP/s and the median time.
"""

import argparse
import os
import statistics

import torch


def read_shapes(path):
    shapes = []
    with open(path) as f:
        for line in f:
            line = line.split("#")[0].strip()
            if line:
                shapes.append(tuple(int(x) for x in line.split("x")))
    return shapes


def time_matmul(m, n, k, dtype, reps):
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    set_bytes = (m * k + n * k) * 2
    sets = max(2, -(-2 * l2 // set_bytes) + 1)
    ops = []
    for s in range(sets):
        g = torch.Generator(device="cuda").manual_seed(s)
        A = torch.rand(m, k, device="cuda", generator=g).mul_(2).sub_(1).to(dtype)  # row-major
        Bt = torch.rand(n, k, device="cuda", generator=g).mul_(2).sub_(1).to(dtype)  # B^T row-major = B column-major
        ops.append((Bt, A.t()))
    for i in range(3):
        torch.matmul(*ops[i % sets])
    times = []
    start = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    stop = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for r in range(reps):
        x, y = ops[r % sets]
        start[r].record()
        torch.matmul(x, y)
        stop[r].record()
    torch.cuda.synchronize()
    times = [a.elapsed_time(b) for a, b in zip(start, stop)]
    ms = statistics.median(times)
    return 2.0 * m * n * k / (ms * 1e-3) / 1e12, ms


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser()
    p.add_argument("--shapes", default=os.path.join(here, "shapes.txt"))
    p.add_argument("--reps", type=int, default=20)
    a = p.parse_args()
    print(f"# torch {torch.__version__}, {torch.cuda.get_device_name(0)}")
    print("| problem | type | torch.matmul TFLOP/s | median ms |")
    print("| --- | --- | ---: | ---: |")
    for m, n, k in read_shapes(a.shapes):
        for name, dtype in (("bf16", torch.bfloat16), ("f16", torch.float16)):
            tflops, ms = time_matmul(m, n, k, dtype, a.reps)
            print(f"| {m}x{n}x{k} | {name} | {tflops:.1f} | {ms:.4f} |")


if __name__ == "__main__":
    main()
