"""Grouped GEMM on mixture-of-experts shapes: tessel.grouped_gemm against torch._grouped_mm and
a loop of torch.matmul over the experts, call by call in one process on the same operands (uniform
[-1, 1) bf16, two sets rotated), each provider verified first against a float32 reference (TF32
off), its D poisoned with NaN.

    python3 bench/grouped_bench.py [--out FILE] [--rounds 5] [--reps 10] [--quick] [--fp8] [--mma-sync]

--fp8: e4m3 operands instead, tessel.grouped_gemm with per-tensor scales (fast accumulation)
against the same with per-block scales (1 x 128 of A, 128 x 128 of each expert's B; the goal
is >= 0.9x the per-tensor kernel), and tessel.grouped_gemm with row-wise scales (one per token
of A, one per column of each expert's B) against torch._scaled_grouped_mm's, which takes the same
scales, where the installed PyTorch has it; each verified first against float64 over the
dequantized operands.

--tiles: also tessel.grouped_gemm on each Hopper grouped tile it did not choose (128x128, 128x192,
128x256, given as config), verified and timed beside the others, to check the tile rule
(dispatch/grouped_tile.hpp).

--mma-sync: also the grouped walk on the mma.sync kernel (the path of GPUs without wgmma, forced
with config=), verified and timed beside the others; on Hopper it shows what that path costs
against the wgmma kernel, not what it reaches on an Ampere GPU.

Token counts per expert are drawn skewed (a power of uniform draws, normalised), some zero where
experts are many; decode rows give each expert 1-64 tokens. TFLOP/s count the routed tokens'
2 * tokens * N * K only.
"""

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

# (name, experts, K, N, routed tokens, skew); skew 0: equal counts; decode rows give counts in 1..64.
SHAPES = [
    ("8x 4096->14336", 8, 4096, 14336, 4096, 1.0),
    ("8x 4096->14336", 8, 4096, 14336, 16384, 1.0),
    ("8x 4096->14336", 8, 4096, 14336, 32768, 1.0),
    ("8x 14336->4096", 8, 14336, 4096, 16384, 1.0),
    ("32x 7168->2048", 32, 7168, 2048, 16384, 2.0),
    ("128x 7168->2048", 128, 7168, 2048, 32768, 3.0),
    ("256x 2048->7168", 256, 2048, 7168, 32768, 3.0),
    ("decode 8x 4096->14336", 8, 4096, 14336, "decode", 0),
    ("decode 64x 7168->2048", 64, 7168, 2048, "decode", 0),
    ("decode 256x 2048->7168", 256, 2048, 7168, "decode", 0),
]


def counts_for(torch, experts, tokens, skew, seed):
    g = torch.Generator().manual_seed(seed)
    if tokens == "decode":
        return torch.randint(1, 65, (experts,), generator=g).tolist()
    w = torch.rand(experts, generator=g) ** (1 + skew * 2)
    if experts >= 32:
        w[torch.rand(experts, generator=g) < 0.1] = 0  # some experts get no token
    c = (w / w.sum() * tokens).floor().long()
    c[0] += tokens - c.sum()
    return c.tolist()


def routed(torch, args):
    """The table's shapes with their token counts: (name, experts, K, N, counts, routed tokens,
    offs on the GPU, the groups' row bounds)."""
    shapes = [SHAPES[0], SHAPES[7]] if args.quick else SHAPES
    for idx, (name, experts, k, n, tokens, skew) in enumerate(shapes):
        counts = counts_for(torch, experts, tokens, skew, 100 + idx)
        offs = torch.tensor(counts, device="cuda").cumsum(0).to(torch.int32)
        yield name, experts, k, n, counts, sum(counts), offs, [0] + torch.tensor(counts).cumsum(0).tolist()


def timed(providers, sets, args):
    """(each provider's median milliseconds, speed(anchor, label)): the providers call by call
    (torch_timing.interleaved_times); speed is the median over calls of anchor's time beside
    label's over label's."""
    from torch_timing import interleaved_times, paired_ratio
    steps = interleaved_times(dict(providers), sets, args.reps, args.rounds)
    return ({label: statistics.median(t) for label, t in steps.items()},
            lambda anchor, label: paired_ratio(steps, anchor, label))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--quick", action="store_true", help="the first shape and one decode shape")
    ap.add_argument("--fp8", action="store_true", help="e4m3: per-tensor against per-block scales")
    ap.add_argument("--mma-sync", action="store_true", help="also the mma.sync grouped kernel (config=)")
    ap.add_argument("--tiles", action="store_true", help="also the Hopper grouped tiles not chosen (config=)")
    args = ap.parse_args()
    import torch
    import tessel
    from torch_timing import write_report
    if args.fp8:
        return fp8_main(args, torch, tessel, write_report)

    torch.backends.cuda.matmul.allow_tf32 = False
    has_gmm = hasattr(torch, "_grouped_mm")
    lines = [f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}, bf16 in and out, uniform [-1, 1), "
             f"2 operand sets rotated, medians of {args.rounds} rounds x {args.reps} calls, call by call (ratios: median of paired calls)",
             "shape | tokens (min-max per expert) | tessel kernel | tessel TFLOP/s | torch._grouped_mm | matmul loop | "
             "tessel / _grouped_mm | tessel / loop | worst error (tessel, _grouped_mm, loop)"
             + (" | mma.sync TFLOP/s | mma.sync / tessel" if args.mma_sync else "")
             + (" | other tiles: TFLOP/s (tile / tessel's choice)" if args.tiles else "")]
    for name, experts, k, n, counts, total, offs, bounds in routed(torch, args):
        sets = []
        for s in range(2):
            a = torch.rand(total, k, device="cuda", dtype=torch.bfloat16) * 2 - 1
            w = torch.rand(experts, n, k, device="cuda", dtype=torch.bfloat16) * 2 - 1  # (E, N, K): nn.Linear's weight
            sets.append((a, w.transpose(1, 2), torch.empty(total, n, device="cuda", dtype=torch.bfloat16)))

        def run_tessel(a, b, d):
            tessel.grouped_gemm(a, b, offs, out=d)

        def run_gmm(a, b, d):  # allocates its D, as its callers get it
            return torch._grouped_mm(a, b, offs=offs)

        def run_loop(a, b, d):
            for e in range(experts):
                if bounds[e + 1] > bounds[e]:
                    torch.matmul(a[bounds[e]:bounds[e + 1]], b[e], out=d[bounds[e]:bounds[e + 1]])

        mma_sync = tessel.grouped.mma_sync_config("bfloat16", "bfloat16", True, 80)

        def run_mma_sync(a, b, d):
            tessel.grouped_gemm(a, b, offs, out=d, config=mma_sync)

        chosen = tessel.grouped.kernel_for(sets[0][0], sets[0][1], offs)
        others = [tessel.grouped.config_for("bfloat16", "bfloat16", True, bn) for bn in (128, 192, 256)] if args.tiles else []
        others = [c for c in others if c.tile != chosen.tile]

        def run_config(c):
            return lambda a, b, d: tessel.grouped_gemm(a, b, offs, out=d, config=c)

        other_labels = [f"{c.tile[0]}x{c.tile[1]}" for c in others]
        providers = [("tessel", run_tessel), ("loop", run_loop)] + ([("grouped_mm", run_gmm)] if has_gmm else []) + \
            ([("mma_sync", run_mma_sync)] if args.mma_sync else []) + \
            [(label, run_config(c)) for label, c in zip(other_labels, others)]
        # Verify first: a float32 reference per expert (TF32 off), each provider's D poisoned.
        a, b, d = sets[0]
        errs = {}
        for label, fn in providers:
            d.fill_(float("nan"))
            out = fn(a, b, d)
            out = d if out is None else out
            torch.cuda.synchronize()
            worst = 0.0
            for e in range(experts):
                s, t = bounds[e], bounds[e + 1]
                if t > s:
                    ref = a[s:t].float() @ b[e].float()
                    err = ((out[s:t].float() - ref).abs() / (ref.abs() + 1.0)).max().item()
                    worst = max(worst, err if err == err else float("inf"))
            errs[label] = worst
            if worst > 2e-2:
                raise SystemExit(f"{name}: {label} fails verification (worst relative error {worst:.3g})")
        med, speed = timed(providers, sets, args)
        tf = lambda ms: 2.0 * total * n * k / (ms * 1e-3) / 1e12  # noqa: E731
        cfg = chosen
        gmm = f"{tf(med['grouped_mm']):.0f}" if has_gmm else "n/a"
        ratio_gmm = f"{speed('grouped_mm', 'tessel'):.3f}" if has_gmm else "n/a"
        lines.append(f"{name} | {total} ({min(counts)}-{max(counts)}) | {cfg.tile[0]}x{cfg.tile[1]} | {tf(med['tessel']):.0f} | "
                     f"{gmm} | {tf(med['loop']):.0f} | {ratio_gmm} | {speed('loop', 'tessel'):.3f} | "
                     f"{errs['tessel']:.2e}, {errs.get('grouped_mm', float('nan')):.2e}, {errs['loop']:.2e}"
                     + (f" | {tf(med['mma_sync']):.0f} | {speed('tessel', 'mma_sync'):.3f}" if args.mma_sync else "")
                     + "".join(f" | {label} {tf(med[label]):.0f} ({speed('tessel', label):.3f})" for label in other_labels))
        print(lines[-1], flush=True)
        del sets
        torch.cuda.empty_cache()
    write_report(lines, args.out)


def fp8_main(args, torch, tessel, write_report):
    """The --fp8 table: per-tensor (fast and promoted accumulation), per-block and row-wise scales
    on the same e4m3 operands, call by call. Per-block accumulation is always promoted: its like-for-
    like ratio is against per-tensor promoted."""
    has_sgmm = hasattr(torch, "_scaled_grouped_mm")
    e4m3 = torch.float8_e4m3fn
    from tessel.grouped import block_scaled_config
    wide = block_scaled_config(192)  # the per-block kernel on 128x192 tiles, whatever the wave rule chooses
    lines = [f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}, e4m3 in, bf16 out, uniform [-1, 1) "
             f"quantized, 2 operand sets rotated, medians of {args.rounds} rounds x {args.reps} calls, call by call (ratios: median of paired calls)",
             "shape | tokens | per-tensor TFLOP/s | per-tensor promoted | per-block | tessel row-wise | "
             "torch._scaled_grouped_mm (row-wise) | per-block / per-tensor | per-block / per-tensor promoted | "
             "tessel / torch row-wise | worst error vs float64 (per-tensor, per-tensor promoted, per-block, tessel row-wise, "
             "torch row-wise) | per-block on 128x192 TFLOP/s | per-block 128x192 / per-tensor"]
    for name, experts, k, n, counts, total, offs, bounds in routed(torch, args):
        kb, nb = -(-k // 128), -(-n // 128)
        sets = []
        for _ in range(2):
            a = (torch.rand(total, k, device="cuda") * 2 - 1).to(e4m3)
            w = (torch.rand(experts, n, k, device="cuda") * 2 - 1).to(e4m3)  # (E, N, K)
            # torch._scaled_mm's blockwise layouts, which TMA carries: A's scales row-contiguous, each
            # expert's B scales K-contiguous ((G, NB, KB) storage seen as (G, KB, NB)).
            blocks = (torch.rand(kb, total, device="cuda").t() + 0.5, torch.rand(experts, nb, kb, device="cuda").transpose(1, 2) + 0.5)
            rows = (torch.rand(total, device="cuda") + 0.5, torch.rand(experts, n, device="cuda") + 0.5)
            sets.append((a, w.transpose(1, 2), torch.empty(total, n, device="cuda", dtype=torch.bfloat16), blocks, rows))
        one = torch.ones(1, device="cuda")

        def per_tensor(a, b, d, blocks, rows):
            tessel.grouped_gemm(a, b, offs, out=d, scale_a=one, scale_b=one)

        def per_tensor_promoted(a, b, d, blocks, rows):
            tessel.grouped_gemm(a, b, offs, out=d, scale_a=one, scale_b=one, use_fast_accum=False)

        def per_block(a, b, d, blocks, rows):
            tessel.grouped_gemm(a, b, offs, out=d, scale_a=blocks[0], scale_b=blocks[1])

        def per_block_wide(a, b, d, blocks, rows):
            tessel.grouped_gemm(a, b, offs, out=d, scale_a=blocks[0], scale_b=blocks[1], config=wide)

        def tessel_rows(a, b, d, blocks, rows):
            tessel.grouped_gemm(a, b, offs, out=d, scale_a=rows[0], scale_b=rows[1])

        def row_wise(a, b, d, blocks, rows):
            return torch._scaled_grouped_mm(a, b, rows[0], rows[1], offs=offs, out_dtype=torch.bfloat16)

        def reference(label, e, a, b, blocks, rows):
            s, t = bounds[e], bounds[e + 1]
            ad, bd = a[s:t].double(), b[e].double()  # (rows,K), (K,N)
            if label.startswith("per-block"):
                ad = ad * blocks[0][s:t].double().repeat_interleave(128, 1)[:, :k]
                bd = bd * blocks[1][e].double().repeat_interleave(128, 0)[:k].repeat_interleave(128, 1)[:, :n]
            elif label in ("row-wise", "tessel row-wise"):
                ad, bd = ad * rows[0][s:t, None].double(), bd * rows[1][e][None, :].double()
            return ad @ bd

        providers = [("per-tensor", per_tensor), ("per-tensor promoted", per_tensor_promoted), ("per-block", per_block),
                     ("tessel row-wise", tessel_rows), ("per-block 128x192", per_block_wide)] + \
            ([("row-wise", row_wise)] if has_sgmm else [])
        a, b, d, blocks, rows = sets[0]
        errs, live = {}, []
        for label, fn in providers:
            d.fill_(float("nan"))
            try:
                out = fn(a, b, d, blocks, rows)
            except (RuntimeError, ValueError, TypeError) as exc:  # torch's row-wise path may not take these shapes
                if label != "row-wise":
                    raise
                print(f"{name}: torch._scaled_grouped_mm refused: {exc}", flush=True)
                continue
            out = d if out is None else out
            torch.cuda.synchronize()
            worst = 0.0
            for e in sorted({0, experts // 2, experts - 1}):  # three experts: float64 references are slow
                if bounds[e + 1] > bounds[e]:
                    ref = reference(label, e, a, b, blocks, rows)
                    err = ((out[bounds[e]:bounds[e + 1]].double() - ref).norm() / ref.norm()).item()
                    worst = max(worst, err if err == err else float("inf"))
            errs[label] = worst
            if worst > 2e-2:
                raise SystemExit(f"{name}: {label} fails verification (relative error {worst:.3g})")
            live.append((label, fn))
        med, speed = timed(live, sets, args)
        tf = lambda label: f"{2.0 * total * n * k / (med[label] * 1e-3) / 1e12:.0f}" if label in med else "n/a"  # noqa: E731
        vs_torch = f"{speed('row-wise', 'tessel row-wise'):.3f}" if "row-wise" in med else "n/a"
        lines.append(f"{name} | {total} | {tf('per-tensor')} | {tf('per-tensor promoted')} | {tf('per-block')} | "
                     f"{tf('tessel row-wise')} | {tf('row-wise')} | {speed('per-tensor', 'per-block'):.3f} | "
                     f"{speed('per-tensor promoted', 'per-block'):.3f} | {vs_torch} | "
                     + ", ".join(f"{errs.get(label, float('nan')):.2e}" for label in ("per-tensor", "per-tensor promoted",
                                                                                     "per-block", "tessel row-wise", "row-wise"))
                     + f" | {tf('per-block 128x192')} | {speed('per-tensor', 'per-block 128x192'):.3f}")
        print(lines[-1], flush=True)
        del sets
        torch.cuda.empty_cache()
    write_report(lines, args.out)


if __name__ == "__main__":
    main()
