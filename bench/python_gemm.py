#!/usr/bin/env python3
"""tessel.gemm from Python on the GPU: what issue 8 asks to be measured.

    python bench/python_gemm.py [--out FILE.md] [--reps 30] [--rounds 3]

1. JIT: one Hopper configuration (on compute capability 9.0; an Sm80 one elsewhere) compiled
   cold for this GPU (empty cache), then loaded from the cache by a fresh compile.
2. Host time per call at 256^3 (f16, TN): the GPU is held up first (torch.cuda._sleep), so that
   N calls only enqueue; host time / N is the cost of a call, for tessel.gemm and torch.matmul,
   each allocating its output, and for the parts of a call (tessel.gemm with `out`, torch.empty).
3. Throughput at 4096^3 and 8192^3, bf16, TN with D column-major (bench/gemm_bench.cu's
   convention), through tessel.gemm (the automatic choice, and explicit configurations) and the
   same kernel launched from C++ in this process (tessel._core.time_launches: no Python between
   launches). Both timed alike: the GPU held up, then an event before the first launch and after
   each, so the events time the kernels; R launches per round, rounds alternating between the
   two, the median of all; operands rotated over at least four sets that together exceed four
   times the L2 cache, each launch taking the next. TFLOP/s = 2MNK / median time.
Every timed configuration is first checked against torch.matmul in float64.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time

import torch

import tessel
from tessel.jit import compiler
from torch_timing import cpp_time, events_time, worst_error_share

HOLD_CYCLES = 50_000_000  # about 25 ms at 2 GHz: longer than enqueueing a round


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
    worst = worst_error_share(A, B, D)
    if worst > 1:
        raise SystemExit(f"verification failed: worst error share {worst:.2f}")
    return worst


def throughput(reps, rounds):
    rows = []
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    hopper = torch.cuda.get_device_capability() == (9, 0)
    configs = [tessel.GemmConfig(arch="sm90a", element="bf16", out="bf16", cluster=(2, 1, 1)),
               tessel.GemmConfig(arch="sm90a", element="bf16", out="bf16", tile=(128, 128, 64))] if hopper else \
              [tessel.GemmConfig(element="bf16", out="bf16", tile=(128, 256, 32), stages=3)]
    for size in (4096, 8192):
        m = n = k = size
        per_set = 2 * (m * k + k * n + m * n)
        sets = operands(m, n, k, max(4, -(-4 * l2 // per_set)))
        runs = [("auto", None)] + [(c.name, c) for c in configs]
        for label, config in runs:
            kernel = tessel.kernel_for(*sets[0][:2], out=sets[0][2], config=config)
            run = (lambda A, B, D: tessel.gemm(A, B, out=D)) if config is None else \
                  (lambda A, B, D, config=config: tessel.gemm(A, B, out=D, config=config))
            A, B, D = sets[0]
            D.fill_(float("nan"))
            run(A, B, D)
            torch.cuda.synchronize()
            worst = verify(A, B, D)
            for i in range(5):  # warm-up, both ways
                run(*sets[i % len(sets)])
            tessel._core.time_launches(kernel, sets, 5, torch.cuda.current_stream().cuda_stream)
            torch.cuda.synchronize()
            py, cpp = [], []
            for _ in range(rounds):
                py += events_time(run, sets, reps, HOLD_CYCLES)
                cpp += cpp_time(kernel, sets, reps, HOLD_CYCLES)
            t_py, t_cpp = statistics.median(py) * 1e-3, statistics.median(cpp) * 1e-3
            flop = 2 * m * n * k
            name = f"{kernel.name}" + (" (auto)" if config is None else "")
            rows.append(f"| {m}x{n}x{k} | bf16 | `{name}` | {flop / t_py / 1e12:.1f} | {flop / t_cpp / 1e12:.1f} | "
                        f"{t_cpp / t_py:.3f} | {t_py * 1e3:.3f} | passed ({worst:.2f}) |")
            print(rows[-1], flush=True)
        del sets
        torch.cuda.empty_cache()
    return rows


def host_overhead(calls=500, rounds=5):
    A = torch.randn(256, 256, device="cuda").half()
    B = torch.randn(256, 256, device="cuda").half().t()
    D = torch.empty(256, 256, device="cuda", dtype=torch.float16)
    calls_by_name = {
        "tessel.gemm": lambda: tessel.gemm(A, B),
        "torch.matmul": lambda: torch.matmul(A, B),
        "tessel.gemm(out=D)": lambda: tessel.gemm(A, B, out=D),
        "torch.matmul(out=D)": lambda: torch.matmul(A, B, out=D),
        "torch.empty (the allocation alone)": lambda: torch.empty((256, 256), dtype=torch.float16, device=A.device),
    }
    for call in calls_by_name.values():  # resolve and load the kernels before timing
        call()
    torch.cuda.synchronize()
    result = {}
    for name, call in calls_by_name.items():
        per_call = []
        for _ in range(rounds):
            torch.cuda._sleep(400_000_000)  # the GPU is busy: the calls below only enqueue
            start = time.perf_counter()
            for _ in range(calls):
                call()
            per_call.append((time.perf_counter() - start) / calls)
            torch.cuda.synchronize()
        result[name] = min(per_call)
    return result, tessel.kernel_for(A, B).name


def jit_timing():
    hopper = torch.cuda.get_device_capability() == (9, 0)
    config = tessel.GemmConfig(arch="sm90a", element="bf16", out="f32", layout_a="col", tile=(128, 128, 64), cluster=(2, 1, 1)) \
        if hopper else tessel.GemmConfig(element="bf16", out="bf16", tile=(128, 256, 32), stages=3, epilogue="relu")
    saved = os.environ.get("TESSEL_CACHE_DIR")
    with tempfile.TemporaryDirectory() as d:
        os.environ["TESSEL_CACHE_DIR"] = d
        try:
            compiler._memo.clear()
            cold = tessel.compile(config)
            compiler._memo.clear()
            start = time.perf_counter()
            warm = tessel.compile(config)
            warm.kernel.load(torch.cuda.current_device())  # into the GPU too
            cached = time.perf_counter() - start
        finally:
            if saved is None:
                del os.environ["TESSEL_CACHE_DIR"]
            else:
                os.environ["TESSEL_CACHE_DIR"] = saved
    assert not cold.cache_hit and warm.cache_hit
    return config.name, cold.target, cold.seconds, cached


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="also write the results (markdown) here")
    ap.add_argument("--reps", type=int, default=30, help="timed launches per round (>= 20)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds, alternating Python and C++")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("python_gemm: no CUDA device", file=sys.stderr)
        return 2
    props = torch.cuda.get_device_properties(0)
    lines = [f"GPU: {props.name} (compute capability {props.major}.{props.minor}, {props.multi_processor_count} SMs), "
             f"torch {torch.__version__}, CUDA {torch.version.cuda}, tessel {tessel.__version__}", ""]
    name, target, cold, cached = jit_timing()
    lines += [f"JIT {name} for {target}: cold compile {cold:.2f} s, cached load (disk + module load) {cached * 1e3:.1f} ms", ""]
    print("\n".join(lines), flush=True)
    overhead, kernel = host_overhead()
    lines += [f"Host time per call at 256x256x256 f16, TN (tessel.gemm runs `{kernel}`): " +
              ", ".join(f"{k} {v * 1e6:.1f} us" for k, v in overhead.items()), ""]
    print(lines[-2], flush=True)
    lines += [f"Throughput: median of {args.reps * args.rounds} launches each way; C++ is the same kernel launched by "
              "tessel._core.time_launches", "",
              "| shape | dtype | kernel | tessel.gemm TFLOP/s | C++ TFLOP/s | tessel.gemm / C++ | tessel.gemm median ms | verification |",
              "|---|---|---|---:|---:|---:|---:|---|"]
    print("\n".join(lines[-4:]), flush=True)
    lines += throughput(args.reps, args.rounds)
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
