#!/usr/bin/env python3
"""tessel.gemm from Python on the GPU: what issue 8 asks to be measured.

    python bench/python_gemm.py [--out FILE.md] [--reps 30]

1. Throughput at 4096^3 and 8192^3, bf16, TN with D column-major (bench/gemm_bench.cu's
   convention): the three tile configurations gemm_bench times, run through tessel.gemm with
   config=..., and the automatic choice. TFLOP/s = 2MNK / median time, CUDA events, 5 warm-up
   launches, operands rotated over enough sets to exceed 4x the L2 cache, as gemm_bench does.
   The C++ numbers for the same kernels are gemm_bench's rows in bench/RESULTS.md.
2. Host overhead per call at 256^3 (f16, TN): the GPU is held up first (torch.cuda._sleep), so
   that N calls only enqueue; host time / N is the cost of a call, for tessel.gemm and for
   torch.matmul, both allocating their output.
3. JIT: one configuration compiled cold for this GPU (empty cache), then loaded from the cache
   by a fresh compile.
Every timed configuration is first checked against torch.matmul in float64.
"""

import argparse
import statistics
import sys
import tempfile
import time

import torch

import tessel
from tessel.jit import compiler

CONFIGS = [dict(tile=(128, 128, 32), warp=(64, 64, 32), stages=3),
           dict(tile=(128, 256, 32), warp=(64, 64, 32), stages=3),
           dict(tile=(256, 128, 32), warp=(64, 64, 32), stages=4)]


def operands(m, n, k, sets):
    out = []
    for s in range(sets):
        g = torch.Generator(device="cuda").manual_seed(s)
        A = (torch.rand(m, k, device="cuda", generator=g) * 2 - 1).bfloat16()                # row-major
        B = (torch.rand(n, k, device="cuda", generator=g) * 2 - 1).bfloat16().t()            # (k, n) column-major
        D = torch.empty(n, m, device="cuda", dtype=torch.bfloat16).t()                      # (m, n) column-major
        out.append((A, B, D))
    return out


def verify(A, B, D):
    """bf16 D against float64, within include/tessel/verify/tolerance.hpp's budget."""
    ref = A.double() @ B.double()
    ab = A.double().abs() @ B.double().abs()
    eps = 2.0**-23
    budget = 8 * A.shape[1]**0.5 * eps * ab + eps * ab + 2.0**-8 * ref.abs() + 2.0**-126
    worst = ((D.double() - ref).abs() / budget).max().item()
    if worst > 1:
        raise SystemExit(f"verification failed: worst error share {worst:.2f}")
    return worst


def time_gemm(run, sets, reps):
    for i in range(5):
        run(*sets[i % len(sets)])
    times = []
    for i in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        A, B, D = sets[i % len(sets)]
        start.record()
        run(A, B, D)
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1e-3)
    return statistics.median(times)


def throughput(reps):
    rows = []
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    for size in (4096, 8192):
        m = n = k = size
        per_set = 2 * (m * k + k * n + m * n)
        sets = operands(m, n, k, max(2, -(-4 * l2 // per_set)))
        runs = [("auto: " + tessel.kernel_for(*sets[0][:2], out=sets[0][2]).name,
                 lambda A, B, D: tessel.gemm(A, B, out=D))]
        for c in CONFIGS:
            config = tessel.GemmConfig(element="bf16", out="bf16", layout_a="row", layout_b="col", layout_c="col", **c)
            runs.append((config.name, lambda A, B, D, config=config: tessel.gemm(A, B, out=D, config=config)))
        for name, run in runs:
            A, B, D = sets[0]
            D.fill_(float("nan"))
            run(A, B, D)
            torch.cuda.synchronize()
            worst = verify(A, B, D)
            t = time_gemm(run, sets, reps)
            rows.append(f"| {m}x{n}x{k} | bf16 | {name} | {2 * m * n * k / t / 1e12:.1f} | {t * 1e3:.3f} | passed ({worst:.2f}) |")
            print(rows[-1], flush=True)
    return rows


def host_overhead(calls=500, rounds=5):
    A = torch.randn(256, 256, device="cuda").half()
    B = torch.randn(256, 256, device="cuda").half().t()
    tessel.gemm(A, B)  # resolve and load the kernel before timing
    torch.matmul(A, B)
    torch.cuda.synchronize()
    result = {}
    for name, call in (("tessel.gemm", lambda: tessel.gemm(A, B)), ("torch.matmul", lambda: torch.matmul(A, B))):
        per_call = []
        for _ in range(rounds):
            torch.cuda._sleep(200_000_000)  # the GPU is busy: the calls below only enqueue
            start = time.perf_counter()
            for _ in range(calls):
                call()
            per_call.append((time.perf_counter() - start) / calls)
            torch.cuda.synchronize()
        result[name] = min(per_call)
    return result


def jit_timing():
    config = tessel.GemmConfig(element="bf16", out="bf16", tile=(128, 256, 32), warp=(64, 64, 32), stages=3, epilogue="relu")
    with tempfile.TemporaryDirectory() as d:
        import os
        os.environ["TESSEL_CACHE_DIR"] = d
        compiler._memo.clear()
        cold = tessel.compile(config)
        compiler._memo.clear()
        start = time.perf_counter()
        warm = tessel.compile(config)
        warm.kernel.load(torch.cuda.current_device())  # into the GPU too
        cached = time.perf_counter() - start
        del os.environ["TESSEL_CACHE_DIR"]
    assert not cold.cache_hit and warm.cache_hit
    return config.name, cold.target, cold.seconds, cached


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="also write the results (markdown) here")
    ap.add_argument("--reps", type=int, default=30)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("python_gemm: no CUDA device", file=sys.stderr)
        return 2
    props = torch.cuda.get_device_properties(0)
    lines = [f"GPU: {props.name} (compute capability {props.major}.{props.minor}), torch {torch.__version__}, "
             f"CUDA {torch.version.cuda}, tessel {tessel.__version__}", ""]
    name, target, cold, cached = jit_timing()
    lines += [f"JIT {name} for {target}: cold compile {cold:.2f} s, cached load (disk + module load) {cached * 1e3:.1f} ms", ""]
    print("\n".join(lines), flush=True)
    overhead = host_overhead()
    lines += ["Host time per call at 256x256x256 f16 (output allocated by the call): " +
              ", ".join(f"{k} {v * 1e6:.1f} us" for k, v in overhead.items()), ""]
    print(lines[-2], flush=True)
    lines += ["| shape | dtype | kernel | TFLOP/s | median ms | verification |", "|---|---|---|---:|---:|---|"]
    lines += throughput(args.reps)
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
