#!/usr/bin/env python3
"""tessel.gemm against the cuBLAS users get (torch.matmul, PyTorch's cuBLASLt with a workspace), in
turns in one process, on the calls models make: D = x @ W.t() with x (tokens x K) and W (N x K)
row-major, D row-major, as torch.nn.Linear computes it.

    python bench/front_door.py [--out FILE.md] [--reps 20] [--rounds 3] [--only REGEX]

For every shape of SHAPES:
1. With --tune, tessel.tune(shapes) first; then tessel.warmup(shapes), timed; afterwards the JIT's memo must not grow (no compilation or
   tuning on the hot path).
2. Correctness: tessel.gemm and every kernel of the registry for the shape's kind, each on a
   NaN-poisoned D, against float64 within include/tessel/verify/tolerance.hpp's budget.
3. Time, on uniform random operands in [-1, 1), rotated over as many sets as take at least three
   times the L2 cache: torch.matmul, tessel.gemm (the dispatcher's choice) and the same kernel
   launched from C++ (tessel._core.time_launches: no Python between launches), then each registry
   candidate from C++ (the oracle: what a perfect heuristic would have run). torch.matmul and
   tessel.gemm run call by call (torch_timing.interleaved_times), the C++ launches in turns round
   by round; each launch timed with events, the GPU held up first so that the events time the
   kernels; medians. TFLOP/s = 2MNK / median; the ratio is the median over calls of torch's time
   beside tessel's over tessel's, which a clock that moves under both cancels out of.
4. Fused activations: tessel.gemm(..., epilogue=act) against torch's unfused act(x @ W.t()).
5. Host time per call at a decode shape (the GPU held up, N calls only enqueue).
Ratios are tessel / torch (higher is better for tessel).
"""

import argparse
import importlib
import math
import re
import statistics
import sys
import time

import torch
import torch.nn.functional as F

import tessel
from tessel import _core
from tessel.jit import compiler, prebuilt, registry
from torch_timing import cpp_time, interleaved_times, paired_ratio, worst_error_share

# (tokens M, out features N, in features K, dtype): LLM projections at decode and prefill token
# counts (Llama-3 8B/70B, Mixtral, Qwen2 sizes), ragged sizes, a short K.
SHAPES = [
    (1, 4096, 4096, "bf16"), (16, 4096, 4096, "bf16"), (16, 28672, 8192, "bf16"), (32, 14336, 4096, "bf16"),
    (64, 8192, 8192, "bf16"), (1, 14336, 4096, "f16"), (64, 4096, 14336, "f16"),
    (128, 6144, 4096, "bf16"), (512, 4096, 14336, "bf16"), (512, 28672, 8192, "bf16"),
    (2048, 6144, 4096, "bf16"), (2048, 8192, 28672, "bf16"), (4096, 4096, 4096, "bf16"), (4096, 28672, 4096, "bf16"),
    (4096, 14336, 4096, "f16"), (8192, 8192, 8192, "f16"), (8192, 18432, 7168, "bf16"), (8192, 7168, 18432, "bf16"),
    (16384, 4096, 4096, "bf16"), (16384, 1024, 4096, "bf16"),
    (3000, 5120, 1536, "bf16"), (1000, 1000, 1000, "bf16"), (6144, 3000, 4096, "bf16"), (8192, 8192, 256, "bf16"),
]
FUSED = [(4096, 14336, 4096, "bf16"), (8192, 18432, 7168, "bf16"), (512, 14336, 4096, "bf16")]
ACTIVATIONS = {"relu": F.relu, "gelu": F.gelu, "silu": F.silu}
DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16}
_DISPATCHER = importlib.import_module("tessel.gemm")._dispatcher  # the module's (tessel.gemm the attribute is the call)


def operands(m, n, k, dtype, sets):
    out = []
    for s in range(sets):
        g = torch.Generator(device="cuda").manual_seed(1000 + s)
        x = (torch.rand(m, k, device="cuda", generator=g) * 2 - 1).to(dtype)
        W = (torch.rand(n, k, device="cuda", generator=g) * 2 - 1).to(dtype)
        D = torch.empty(m, n, device="cuda", dtype=dtype)
        out.append((x, W.t(), D))
    return out


def verify(A, B, D, act=None):
    """Worst error as a share of the budget (<= 1 passes): 16-bit D against float64."""
    return worst_error_share(A, B, D, 2.0**-7, ACTIVATIONS[act] if act is not None else None)


def sets_for(m, n, k):
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    per_set = 2 * (m * k + k * n + m * n)
    return max(2, min(32, math.ceil(3 * l2 / per_set)))


def shape_row(m, n, k, dt, reps, rounds, oracle):
    dtype = DTYPES[dt]
    sets = operands(m, n, k, dtype, sets_for(m, n, k))
    x, Wt, D = sets[0]
    kernel, reason = tessel.kernel_for(x, Wt, out=D, explain=True)
    _, transposed = _DISPATCHER.select(x, Wt, None, D, 0)  # whether it runs on D^T's problem
    checks = {}
    D.fill_(float("nan"))
    tessel.gemm(x, Wt, out=D)
    torch.cuda.synchronize()
    checks["tessel.gemm"] = verify(x, Wt, D)
    # Candidates (name, kernel, on D^T): every registry kernel of the kind, on the problem as given
    # and, where M is short of a tile, on D^T's (x @ W.t()'s D^T = W x^T is the same kind).
    candidates = []
    if oracle and (kernel.hopper or kernel.small_n):
        for config in registry.hopper_configs(dt, dt, "row", "col"):
            k_ = prebuilt.find(config, 90)
            if k_ is None:
                continue
            for t in (False, True) if m < 128 else (False,):
                D.fill_(float("nan"))
                _core.time_launches(k_, [(x, Wt, D)], 1, torch.cuda.current_stream().cuda_stream, t)
                torch.cuda.synchronize()
                name = k_.name + (" on D^T" if t else "")
                checks[name] = verify(x, Wt, D)
                candidates.append((name, k_, t))
    worst = max(checks.values())
    if worst > 1:
        raise SystemExit(f"{m}x{n}x{k} {dt}: verification failed: " + ", ".join(f"{k} {v:.2f}" for k, v in checks.items()))
    runs = {"torch": lambda A, B, D: torch.matmul(A, B, out=D),
            "tessel": lambda A, B, D: tessel.gemm(A, B, out=D)}
    steps = interleaved_times(runs, sets, reps, rounds)  # torch's call and tessel's side by side
    times = {**steps, **{name: [] for name in ["cpp", *[c[0] for c in candidates]]}}
    for _ in range(rounds):
        times["cpp"] += cpp_time(kernel, sets, reps, transpose_d=transposed)
        for name, k_, t in candidates:
            times[name] += cpp_time(k_, sets, reps, transpose_d=t)
    flop = 2 * m * n * k
    tflops = {name: flop / (statistics.median(v) * 1e-3) / 1e12 for name, v in times.items()}
    chosen = kernel.name + (" on D^T" if transposed else "")
    best = max((c[0] for c in candidates), key=lambda name: tflops[name]) if candidates else chosen
    del sets
    return dict(shape=f"{m}x{n}x{k}", dtype=dt, kernel=chosen, reason=reason, torch=tflops["torch"], tessel=tflops["tessel"],
                ratio=paired_ratio(steps, "torch", "tessel"),
                cpp=tflops["cpp"], best=best, best_tflops=tflops.get(best, tflops["cpp"]), worst=worst,
                candidates={c[0]: tflops[c[0]] for c in candidates})


def fused_row(m, n, k, dt, act, reps, rounds):
    dtype = DTYPES[dt]
    sets = operands(m, n, k, dtype, sets_for(m, n, k))
    x, Wt, D = sets[0]
    fn = ACTIVATIONS[act]
    kernel = tessel.kernel_for(x, Wt, out=D, epilogue=act)
    D.fill_(float("nan"))
    tessel.gemm(x, Wt, out=D, epilogue=act)
    torch.cuda.synchronize()
    worst = verify(x, Wt, D, act)
    if worst > 1:
        raise SystemExit(f"{m}x{n}x{k} {act}: verification failed ({worst:.2f})")
    runs = {"torch": lambda A, B, D: fn(torch.matmul(A, B, out=D)),
            "tessel": lambda A, B, D: tessel.gemm(A, B, out=D, epilogue=act)}
    steps = interleaved_times(runs, sets, reps, rounds)
    del sets
    return dict(shape=f"{m}x{n}x{k}", dtype=dt, act=act, kernel=kernel.name, torch_us=statistics.median(steps["torch"]) * 1e3,
                tessel_us=statistics.median(steps["tessel"]) * 1e3, ratio=paired_ratio(steps, "torch", "tessel"), worst=worst)


def host_time(calls=400, rounds=5):
    x = torch.rand(1, 4096, device="cuda").bfloat16()
    Wt = torch.rand(4096, 4096, device="cuda").bfloat16().t()
    calls_by_name = {"tessel.gemm": lambda: tessel.gemm(x, Wt), "torch.matmul": lambda: torch.matmul(x, Wt)}
    for call in calls_by_name.values():
        call()
    torch.cuda.synchronize()
    out = {}
    for name, call in calls_by_name.items():
        best = float("inf")
        for _ in range(rounds):
            torch.cuda._sleep(1_000_000_000)
            start = time.perf_counter()
            for _ in range(calls):
                call()
            best = min(best, (time.perf_counter() - start) / calls)
            torch.cuda.synchronize()
        out[name] = best * 1e6
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="also write the tables (markdown) here")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default=".", help="regular expression on 'MxNxK dtype'")
    ap.add_argument("--no-oracle", action="store_true", help="skip timing every registry candidate")
    ap.add_argument("--tune", action="store_true", help="tessel.tune every shape first (the tuned choice is timed)")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("front_door: no CUDA device: nothing to measure", file=sys.stderr)
        return 2
    props = torch.cuda.get_device_properties(0)
    shapes = [s for s in SHAPES if re.search(args.only, f"{s[0]}x{s[1]}x{s[2]} {s[3]}")]
    lines = [f"GPU: {props.name} ({props.multi_processor_count} SMs), torch {torch.__version__}, CUDA {torch.version.cuda}, "
             f"tessel {tessel.__version__}; {args.rounds} rounds x {args.reps} launches per provider, medians; torch and "
             "tessel.gemm call by call, the ratio the median of tessel's call against torch's beside it", ""]
    if args.tune:
        start = time.perf_counter()
        for dt in DTYPES:
            tessel.tune([s[:3] for s in shapes if s[3] == dt], dtype=dt)
        lines.append(f"tessel.tune of every shape: {time.perf_counter() - start:.2f} s (the choices below are the tuned ones)")
        print(lines[-1], flush=True)
    start = time.perf_counter()
    for dt in DTYPES:
        tessel.warmup([s[:3] for s in shapes if s[3] == dt], dtype=dt)
        for act in ACTIVATIONS:
            tessel.warmup([s[:3] for s in FUSED if s[3] == dt], dtype=dt, epilogue=act)
    memo = len(compiler._memo)
    lines.append(f"tessel.warmup of every shape below: {time.perf_counter() - start:.2f} s; JIT compilations held: {memo}")
    print(lines[-1], flush=True)
    lines += ["", "| shape (tokens x N x K) | dtype | torch.matmul TFLOP/s | tessel.gemm TFLOP/s | ratio | C++ launch TFLOP/s | "
              "kernel chosen | best candidate (C++) | best / chosen | verified (worst share) |",
              "|---|---|---:|---:|---:|---:|---|---|---:|---|"]
    print("\n".join(lines[-2:]), flush=True)
    ratios, reasons = [], []
    for m, n, k, dt in shapes:
        r = shape_row(m, n, k, dt, args.reps, args.rounds, not args.no_oracle)
        ratio = r["ratio"]
        ratios.append(ratio)
        short = lambda name: name.replace("tessel_sm90_gemm_", "").replace("tessel_sm80_gemm_", "sm80 ")  # noqa: E731
        lines.append(f"| {r['shape']} | {r['dtype']} | {r['torch']:.1f} | {r['tessel']:.1f} | {ratio:.3f} | {r['cpp']:.1f} | "
                     f"`{short(r['kernel'])}` | `{short(r['best'])}` | {r['best_tflops'] / r['cpp']:.3f} | passed ({r['worst']:.2f}) |")
        reasons.append(f"- {r['shape']} {r['dtype']}: {r['reason']}; candidates " +
                       ", ".join(f"{short(n)} {t:.1f}" for n, t in r["candidates"].items()))
        print(lines[-1], flush=True)
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
    lines += ["", f"Geomean tessel.gemm / torch.matmul over {len(ratios)} shapes: {geo:.3f}; lowest {min(ratios):.3f}; "
              f"{sum(r < 0.9 for r in ratios)} below 0.9", ""]
    print(lines[-2], flush=True)
    if memo != len(compiler._memo):
        lines.append(f"NOTE: the JIT compiled {len(compiler._memo) - memo} configuration(s) after warmup")
    lines += ["The dispatcher's reasons and every candidate's TFLOP/s (C++ launches):", "", *reasons, ""]
    lines += ["| shape | dtype | activation | torch unfused us | tessel fused us | speed-up | kernel | verified |",
              "|---|---|---|---:|---:|---:|---|---|"]
    for m, n, k, dt in FUSED:
        for act in ACTIVATIONS:
            r = fused_row(m, n, k, dt, act, args.reps, args.rounds)
            lines.append(f"| {r['shape']} | {dt} | {act} | {r['torch_us']:.1f} | {r['tessel_us']:.1f} | "
                         f"{r['ratio']:.3f} | `{r['kernel']}` | passed ({r['worst']:.2f}) |")
            print(lines[-1], flush=True)
    host = host_time()
    lines += ["", "Host time per call at 1x4096x4096 bf16 (x @ W.t(), output allocated): " +
              ", ".join(f"{k} {v:.1f} us" for k, v in host.items()), ""]
    print(lines[-2], flush=True)
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
