#!/usr/bin/env python3
"""The unfused FP8 training epilogue as a PyTorch user writes it: the comparison of issue 6.

    python bench/torch_fusion_chain.py [--out FILE.md] [--runs 30] [--warmup 5]

The chain (bf16 in, TN: activations A of M x K, weights W of N x K, bias of N):

    y = F.gelu(F.linear(A, W, bias))                      cuBLAS(Lt) GEMM with the bias, then GELU
    amax = y.abs().amax()                                 the statistic of delayed scaling
    q = (y.float() * scale).clamp(-448, 448).to(e4m3)     the saturating cast

for GELU in both forms (approximate="none" is erf, "tanh" the tanh form), against the plain GEMM
`A @ W.T` (cuBLAS, bf16 out) timed in the same loop. bench/fusion_bench.cu times tessel's fused
kernel against cuBLAS's plain GEMM on the same shapes; the plain GEMM is the common anchor, so
unfused-PyTorch / tessel-fused = (chain / matmul here) * (cuBLAS / fused there).

Timing: CUDA events around each step, the steps interleaved launch by launch, operand sets
rotated so that together they exceed four times the L2 (no step finds its inputs in L2), warm-up
first, then the median. The chain is checked once against float64 on a sample before timing.
"""

import argparse
import statistics
import sys

import torch
import torch.nn.functional as F

SCALE = 3.0
E4M3_MAX = 448.0


def chain(a, w, bias, approximate):
    y = F.gelu(F.linear(a, w, bias), approximate=approximate)
    amax = y.abs().amax()
    q = (y.float() * SCALE).clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn)
    return q, amax


def check(a, w, bias, approximate):
    q, amax = chain(a, w, bias, approximate)
    rows = torch.arange(0, a.shape[0], max(1, a.shape[0] // 64), device=a.device)
    z = a[rows].double() @ w.double().T + bias.double()
    y = F.gelu(z, approximate=approximate)
    want = (y * SCALE).clamp(-E4M3_MAX, E4M3_MAX)
    got = q[rows].double()
    # e4m3 keeps 3 mantissa bits: one rounding of bf16 y, one of the cast, both under 2^-3.
    bad = ((got - want).abs() > want.abs() * 0.135 + 2.0 ** -9).sum().item()
    if bad:
        sys.exit(f"torch_fusion_chain: {bad} sampled elements of the {approximate} chain are wrong")
    return amax.item()


def bench(m, n, k, runs, warmup):
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    set_bytes = 2 * (m * k + n * k + m * n) + m * n
    sets = max(2, -(-4 * l2 // set_bytes))
    ops = []
    for s in range(sets):
        g = torch.Generator(device="cuda").manual_seed(100 + s)
        a = (torch.rand(m, k, device="cuda", generator=g) * 2 - 1).bfloat16()
        w = (torch.rand(n, k, device="cuda", generator=g) * 2 - 1).bfloat16()
        bias = (torch.rand(n, device="cuda", generator=g) * 8 - 4).bfloat16()
        ops.append((a, w, bias))
    amax = {f: check(*ops[0], f) for f in ("none", "tanh")}
    steps = {
        "matmul": lambda a, w, b: a @ w.T,
        "chain_erf": lambda a, w, b: chain(a, w, b, "none"),
        "chain_tanh": lambda a, w, b: chain(a, w, b, "tanh"),
    }
    times = {name: [] for name in steps}
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in steps]
    turn = 0
    for i in range(warmup + runs):
        for (name, fn), (start, stop) in zip(steps.items(), events):
            a, w, b = ops[turn % sets]
            turn += 1
            start.record()
            fn(a, w, b)
            stop.record()
        torch.cuda.synchronize()
        if i >= warmup:
            for name, (start, stop) in zip(steps, events):
                times[name].append(start.elapsed_time(stop))
    med = {name: statistics.median(t) for name, t in times.items()}
    return med, sets, amax


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", help="also write the table to this markdown file")
    p.add_argument("--runs", type=int, default=30)
    p.add_argument("--warmup", type=int, default=5)
    args = p.parse_args()
    if not torch.cuda.is_available():
        sys.exit("torch_fusion_chain: no CUDA GPU visible to PyTorch")
    props = torch.cuda.get_device_properties(0)
    lines = [
        f"{props.name}, PyTorch {torch.__version__}, CUDA {torch.version.cuda}; median of {args.runs} after {args.warmup} warm-up",
        "",
        "| shape (MxNxK) | sets | matmul ms | chain erf ms | chain tanh ms | chain erf / matmul | chain tanh / matmul | amax erf |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for m, n, k in ((8192, 8192, 8192), (8192, 28672, 8192)):
        med, sets, amax = bench(m, n, k, args.runs, args.warmup)
        lines.append(
            f"| {m}x{n}x{k} | {sets} | {med['matmul']:.3f} | {med['chain_erf']:.3f} | {med['chain_tanh']:.3f} | "
            f"{med['chain_erf'] / med['matmul']:.3f} | {med['chain_tanh'] / med['matmul']:.3f} | {amax['none']:.4f} |"
        )
        print(lines[-1], flush=True)
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
