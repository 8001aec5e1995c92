"""tessel's PyTorch layer (tessel.nn.Linear, tessel.bmm, tessel.linear) against torch's own, call by
call in one process (the MLP block also in turns), on the same operands, verified before timing.

1. A Llama-style MLP block, forward and backward: gate and up projections, SiLU-and-multiply,
   down projection (hidden 4096, intermediate 14336, bf16), with torch.nn.Linear, with
   tessel.nn.Linear, and as tessel.nn.GatedMLP (tessel's Linears and the fused SiLU-and-multiply),
   all sharing the same parameters. Same loss within 1e-2 relative first.
2. Batched matmul: tessel.bmm against torch.bmm.
3. Linear with bias and a fused activation against torch's linear then the activation.
4. FP8: tessel.scaled_mm against torch._scaled_mm (per-tensor scales, bf16 out), fast and
   promoted accumulation; with row-wise scales (one per row of a, one per column of b: the
   row-wise recipe), decode rows included; with per-block scales (1 x 128 of a, 128 x 128 of b); TF32:
   tessel.matmul against torch.matmul on float32 with TF32 allowed.

    python3 bench/torch_ops.py --out results.md [--tokens 4096] [--rounds 5] [--only fp8,fp8rowwise,fp8block,tf32]
"""

import argparse
import statistics
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import tessel  # noqa: E402
from tessel.gemm import gemm_block_scaled  # noqa: E402 (the module, beside the function tessel.gemm)
from torch_timing import interleaved_times, medians_in_turns, paired_ratio  # noqa: E402


class MLP(torch.nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.gate, self.up, self.down = layers

    def forward(self, x):
        return self.down(torch.nn.functional.silu(self.gate(x)) * self.up(x))


def rel(a, b):
    return ((a.double() - b.double()).norm() / b.double().norm()).item()


def mlp_step(model, x):
    loss = model(x).float().square().mean()
    loss.backward()
    return loss


def stepper(model):
    """One timed training step of `model` on x: its gradients and x's cleared, then mlp_step."""
    def step(x):
        for p in model.parameters():
            p.grad = None
        x.grad = None
        mlp_step(model, x)
    return step


def bench_mlp(args, lines):
    torch.manual_seed(0)
    h, f = args.hidden, args.intermediate
    ref = [torch.nn.Linear(h, f, bias=False), torch.nn.Linear(h, f, bias=False), torch.nn.Linear(f, h, bias=False)]
    ref = [layer.to("cuda", torch.bfloat16) for layer in ref]
    with torch.no_grad():
        for layer in ref:  # uniform random weights of unit scale after the projection
            layer.weight.uniform_(-1, 1).mul_(layer.in_features ** -0.5)
    models = {"torch": MLP(ref), "tessel": MLP([tessel.nn.Linear.from_linear(layer) for layer in ref]),
              "tessel GatedMLP": tessel.nn.GatedMLP.from_projections(*ref)}
    xs = [(torch.rand(args.tokens, h, device="cuda") * 2 - 1).to(torch.bfloat16).requires_grad_() for _ in range(2)]

    # Correct first: loss and every gradient against the torch block's, same parameters.
    results = {}
    for name, model in models.items():
        for p in model.parameters():
            p.grad = None
        xs[0].grad = None
        loss = mlp_step(model, xs[0])
        results[name] = (loss.item(), xs[0].grad.clone(), [p.grad.clone() for p in model.parameters()])
    lt, gxt, gwt = results["torch"]
    for name in ("tessel", "tessel GatedMLP"):
        lx, gxx, gwx = results[name]
        loss_rel = abs(lx - lt) / abs(lt)
        grad_rel = max([rel(gxx, gxt)] + [rel(a, b) for a, b in zip(gwx, gwt)])
        ok = loss_rel <= 1e-2 and grad_rel <= 2e-2
        lines.append(f"MLP block {args.tokens} tokens, hidden {h}, intermediate {f}, bf16, {name}: loss torch {lt:.6g} "
                     f"{name} {lx:.6g} (relative {loss_rel:.2e}), worst gradient relative error {grad_rel:.2e}: "
                     f"{'ok' if ok else 'FAILED'}")
        if not ok:
            return False

    flops = 6 * 3 * 2 * args.tokens * h * f / 2  # forward 2*M*N*K per GEMM, backward twice that
    times = medians_in_turns({k: stepper(m) for k, m in models.items()}, [(x,) for x in xs], args.reps, args.rounds)
    for name in ("tessel", "tessel GatedMLP"):
        lines.append(f"  forward+backward median, {name}: torch {times['torch']:.3f} ms "
                     f"({flops / times['torch'] / 1e9:.0f} TFLOP/s), {name} {times[name]:.3f} ms "
                     f"({flops / times[name] / 1e9:.0f} TFLOP/s): {name}/torch speed {times['torch'] / times[name]:.3f}")
    # The same steps interleaved: step i of every block back to back, so that all see the clock
    # of that moment; each block's step against torch's step beside it.
    steps = interleaved_times({k: stepper(m) for k, m in models.items()}, [(x,) for x in xs], args.reps, args.rounds)
    for name in ("tessel", "tessel GatedMLP"):
        lines.append(f"  forward+backward interleaved ({len(steps[name])} steps each), {name}: medians torch "
                     f"{statistics.median(steps['torch']):.3f} ms, {name} {statistics.median(steps[name]):.3f} ms; "
                     f"{name}/torch speed, step by step: median {paired_ratio(steps, 'torch', name):.3f}")
    # The same block's forward alone, without autograd (inference).
    with torch.no_grad():
        times = medians_in_turns({k: (lambda x, m=m: m(x)) for k, m in models.items()}, [(x,) for x in xs],
                                 args.reps, args.rounds)
    lines.append("  forward only (no_grad) median: " + ", ".join(f"{k} {v:.3f} ms" for k, v in times.items()) + ": "
                 + ", ".join(f"{k}/torch speed {times['torch'] / times[k]:.3f}" for k in models if k != "torch"))
    return True


def bench_pairs(title, cases, args, lines):
    """cases: (label, flops, tessel_fn, torch_fn, operand sets[, reference]). Verified against
    reference(*sets[0]) (default: torch_fn on float64 copies), then timed call by call
    (torch_timing.interleaved_times); tessel/torch is the median over steps of torch's call against
    tessel's beside it."""
    lines.append(f"\n{title}\n\n| case | TFLOP/s torch | TFLOP/s tessel | tessel/torch | check |\n|---|---|---|---|---|")
    ok = True
    for label, flops, tessel_fn, torch_fn, sets, *reference in cases:
        want = reference[0](*sets[0]) if reference else torch_fn(*[t.double() for t in sets[0]])
        err = rel(tessel_fn(*sets[0]), want)
        good = err <= 1e-2
        ok &= good
        if not good:
            lines.append(f"| {label} | | | | FAILED: relative error {err:.2e} |")
            continue
        steps = interleaved_times({"torch": torch_fn, "tessel": tessel_fn}, sets, args.reps, args.rounds)
        tt, tx = statistics.median(steps["torch"]), statistics.median(steps["tessel"])
        lines.append(f"| {label} | {flops / tt / 1e9:.0f} | {flops / tx / 1e9:.0f} | {paired_ratio(steps, 'torch', 'tessel'):.3f} "
                     f"| rel {err:.1e} |")
        print(lines[-1], flush=True)  # as it comes: a run cut short keeps its rows
    return ok


def uniform(*shape, dtype=torch.bfloat16):
    return (torch.rand(*shape, device="cuda") * 2 - 1).to(dtype)


def bmm_cases():
    cases = []
    for l, m, n, k in ((8, 4096, 4096, 4096), (32, 1024, 1024, 1024), (64, 512, 512, 512), (32, 2048, 2048, 128),
                       (32, 2048, 128, 2048)):
        sets = [(uniform(l, m, k), uniform(l, k, n)) for _ in range(3)]
        cases.append((f"bmm {l} x {m}x{n}x{k}", 2 * l * m * n * k, tessel.bmm, torch.bmm, sets))
    return cases


def mlp_gemm_cases(t, h, f):
    """The MLP block's nine GEMMs as its forward and backward run them (six distinct): the
    operands are views of row-major activations, gradients and (out, in) weights."""
    cases = []
    for label, m, n, k, a_col, b_col in (
            ("fwd gate/up x @ W.t()", t, f, h, False, True), ("fwd down h @ W.t()", t, h, f, False, True),
            ("bwd dX gate/up dY @ W", t, h, f, False, False), ("bwd dX down dY @ W", t, f, h, False, False),
            ("bwd dW gate/up dY.t() @ x", f, h, t, True, False), ("bwd dW down dY.t() @ h", h, f, t, True, False)):
        sets = []
        for _ in range(3):
            a = uniform(k, m).t() if a_col else uniform(m, k)
            b = uniform(n, k).t() if b_col else uniform(k, n)
            sets.append((a, b))
        cases.append((f"{label} {m}x{n}x{k}", 2 * m * n * k, lambda a, b: tessel.gemm(a, b), torch.matmul, sets))
    return cases


def linear_cases():
    cases = []
    for m, n, k in ((4096, 14336, 4096), (8192, 4096, 4096)):
        for act, fn in (("gelu", torch.nn.functional.gelu), ("silu", torch.nn.functional.silu)):
            sets = [(uniform(m, k), uniform(n, k) * k ** -0.5, uniform(n)) for _ in range(3)]
            cases.append((f"linear+bias+{act} {m}x{n}x{k}", 2 * m * n * k,
                          lambda x, w, b, a=act: tessel.linear(x, w, b, a),
                          lambda x, w, b, f=fn: f(torch.nn.functional.linear(x, w, b)), sets))
    return cases


def fp8_cases():
    """e4m3 x (M, K) row-major, W (N, K) row-major as b = W.t(), one-element scales, bf16 out; and
    the promoted kernel's 128 x 128 tile alone run as a configuration (unit scales) against torch's
    slow accumulation, beside tessel.scaled_mm's choice (128 x 192 where the waves
    say so: registry.promoted_width)."""
    cases = []
    e4m3 = torch.float8_e4m3fn
    narrow = tessel.compile(tessel.GemmConfig(arch="sm90a", element="e4m3", out="bf16", tile=(128, 128, 128),
                                              schedule="cooperative_promoted"))
    for m, n, k in ((4096, 4096, 4096), (4096, 14336, 4096), (8192, 18432, 7168), (8192, 7168, 18432)):
        sets = [(uniform(m, k).to(e4m3), uniform(n, k).to(e4m3).t(), torch.tensor(0.75, device="cuda"),
                 torch.tensor(0.5, device="cuda")) for _ in range(3)]
        for fast in (True, False):
            cases.append((f"e4m3 {m}x{n}x{k} {'fast' if fast else 'promoted'} accumulation", 2 * m * n * k,
                          lambda a, b, sa, sb, f=fast: tessel.scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16, use_fast_accum=f),
                          lambda a, b, sa, sb, f=fast: torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16, use_fast_accum=f),
                          sets, lambda a, b, sa, sb: (a.double() @ b.double()) * (sa.double() * sb.double())))
        one = torch.ones((), device="cuda")
        cases.append((f"e4m3 {m}x{n}x{k} promoted accumulation, 128x128 tile alone", 2 * m * n * k,
                      lambda a, b, sa, sb: narrow(a, b),
                      lambda a, b, sa, sb: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16, use_fast_accum=False),
                      sets, lambda a, b, sa, sb: a.double() @ b.double()))
    # e5m2: tessel multiplies e5m2 by e5m2; cuBLASLt does not take two e5m2 operands, so torch's
    # row is its nearest call, the same a against b in e4m3 (the same bytes and flops).
    e5m2 = torch.float8_e5m2
    for m, n, k in ((4096, 14336, 4096), (8192, 18432, 7168)):
        sets = []
        for _ in range(3):
            b = uniform(n, k)
            sets.append((uniform(m, k).to(e5m2), b.to(e5m2).t(), b.to(e4m3).t(), torch.tensor(0.75, device="cuda"),
                         torch.tensor(0.5, device="cuda")))
        for fast in (True, False):
            cases.append((f"e5m2 {m}x{n}x{k} {'fast' if fast else 'promoted'} accumulation (torch: e5m2 x e4m3)", 2 * m * n * k,
                          lambda a, b, b4, sa, sb, f=fast: tessel.scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16,
                                                                            use_fast_accum=f),
                          lambda a, b, b4, sa, sb, f=fast: torch._scaled_mm(a, b4, sa, sb, out_dtype=torch.bfloat16,
                                                                             use_fast_accum=f),
                          sets, lambda a, b, b4, sa, sb: (a.double() @ b.double()) * (sa.double() * sb.double())))
    # Decode and mid-sized token counts, fast accumulation: the 128 x 64 tile on D^T's problem and
    # the 128 x 128 and 128 x 192 ones (registry.FP8_FAST_TILES) where the dispatcher takes them.
    for m, n, k in ((16, 14336, 4096), (64, 8192, 8192), (128, 4096, 14336), (512, 4096, 4096), (768, 4096, 4096),
                    (1536, 4096, 4096)):
        sets = [(uniform(m, k).to(e4m3), uniform(n, k).to(e4m3).t(), torch.tensor(0.75, device="cuda"),
                 torch.tensor(0.5, device="cuda")) for _ in range(3)]
        cases.append((f"e4m3 {m}x{n}x{k} fast accumulation", 2 * m * n * k,
                      lambda a, b, sa, sb: tessel.scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16, use_fast_accum=True),
                      lambda a, b, sa, sb: torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16, use_fast_accum=True),
                      sets, lambda a, b, sa, sb: (a.double() @ b.double()) * (sa.double() * sb.double())))
    return cases


def fp8_rowwise_cases():
    """e4m3 with torch._scaled_mm's row-wise scales: scale_a (M, 1), scale_b (1, N), bf16 out, fast
    accumulation (what torch's row-wise path runs); prefill and decode token counts against LLM
    projections. Reference: float64 of the scaled product."""
    cases = []
    e4m3 = torch.float8_e4m3fn
    for m, n, k in ((4096, 4096, 4096), (4096, 14336, 4096), (8192, 18432, 7168), (8192, 7168, 18432), (16, 14336, 4096),
                    (128, 4096, 14336)):
        sets = [(uniform(m, k).to(e4m3), uniform(n, k).to(e4m3).t(), torch.rand(m, 1, device="cuda") + 0.5,
                 torch.rand(1, n, device="cuda") + 0.5) for _ in range(3)]
        cases.append((f"e4m3 row-wise {m}x{n}x{k} fast accumulation", 2 * m * n * k,
                      lambda a, b, sa, sb: tessel.scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16, use_fast_accum=True),
                      lambda a, b, sa, sb: torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16, use_fast_accum=True),
                      sets, lambda a, b, sa, sb: (a.double() @ b.double()) * (sa.double() * sb.double())))
    return cases


def fp8_block_cases():
    """e4m3 with torch._scaled_mm's blockwise scales (the DeepSeek-V3 recipe): a (M, K) with one
    f32 scale per row and 128 of K, strides (1, M); W (N, K) with one per 128 x 128 block, as
    b = W.t() with scale_b (K/128, N/128), strides (1, K/128); bf16 out. Reference: float64 over
    the dequantized operands."""
    cases = []
    e4m3 = torch.float8_e4m3fn

    def dequantized(a, b, sa, sb):
        k = a.shape[1]
        ea = sa.double().repeat_interleave(128, dim=1)[:, :k]                       # (M,K)
        eb = sb.double().repeat_interleave(128, dim=0)[:k].repeat_interleave(128, dim=1)[:, :b.shape[1]]  # (K,N)
        return (a.double() * ea) @ (b.double() * eb)

    # Beside tessel.scaled_mm's kernel, the 128 x 192 tile (two blocks of B's scales per tile).
    wide = tessel.GemmConfig(arch="sm90a", element="e4m3", out="bf16", tile=(128, 192, 128), schedule="cooperative_blockscaled")
    for m, n, k in ((4096, 7168, 4096), (8192, 7168, 7168), (4096, 18432, 7168), (4096, 7168, 16384)):
        kb, nb = -(-k // 128), -(-n // 128)
        sets = [(uniform(m, k).to(e4m3), uniform(n, k).to(e4m3).t(),
                 (torch.rand(kb, m, device="cuda") + 0.5).t(), (torch.rand(nb, kb, device="cuda") + 0.5).t())
                for _ in range(3)]
        cases.append((f"e4m3 block-scaled {m}x{n}x{k}", 2 * m * n * k,
                      lambda a, b, sa, sb: tessel.scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16),
                      lambda a, b, sa, sb: torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16),
                      sets, dequantized))
        cases.append((f"e4m3 block-scaled {m}x{n}x{k}, 128x192 tile", 2 * m * n * k,
                      lambda a, b, sa, sb: gemm_block_scaled(a, b, scale_a=sa, scale_b=sb, config=wide),
                      lambda a, b, sa, sb: torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16),
                      sets, dequantized))
    return cases


def tf32_cases():
    cases = []
    for m, n, k in ((4096, 4096, 4096), (4096, 14336, 4096), (8192, 8192, 8192)):
        sets = [(uniform(m, k, dtype=torch.float32), uniform(n, k, dtype=torch.float32).t()) for _ in range(3)]
        cases.append((f"tf32 {m}x{n}x{k}", 2 * m * n * k, tessel.matmul, torch.matmul, sets))
    return cases


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True)
    p.add_argument("--tokens", type=int, default=4096)
    p.add_argument("--hidden", type=int, default=4096)
    p.add_argument("--intermediate", type=int, default=14336)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--only", default="mlp,gemms,bmm,linear,fp8,fp8rowwise,fp8block,tf32",
                   help="the sections to run, comma-separated")
    args = p.parse_args()
    only = set(args.only.split(","))
    if not torch.cuda.is_available():
        print("torch_ops.py: no CUDA device", file=sys.stderr)
        return 2
    lines = [f"# tessel's PyTorch layer against torch, {torch.cuda.get_device_name()}, torch {torch.__version__}\n"]
    ok = bench_mlp(args, lines) if "mlp" in only else True
    sections = (
        ("gemms", "The MLP block's GEMMs one by one (tessel.gemm against torch.matmul on the same views), bf16",
         lambda: mlp_gemm_cases(args.tokens, args.hidden, args.intermediate)),
        ("bmm", "Batched matmul (tessel.bmm against torch.bmm), bf16", bmm_cases),
        ("linear", "Linear with bias and activation (tessel.linear fused against torch's linear then the activation), "
                   "bf16, inference", linear_cases),
        ("fp8", "FP8 (tessel.scaled_mm against torch._scaled_mm, per-tensor scales, bf16 out)", fp8_cases),
        ("fp8rowwise", "FP8 with row-wise scales (tessel.scaled_mm against torch._scaled_mm, scale_a (M, 1), scale_b "
                       "(1, N), bf16 out)", fp8_rowwise_cases),
        ("fp8block", "FP8 with per-block scales (tessel.scaled_mm against torch._scaled_mm, 1 x 128 scales of a, "
                     "128 x 128 of b, bf16 out)", fp8_block_cases),
        ("tf32", "float32 on TF32 tensor cores (tessel.matmul against torch.matmul, allow_tf32 on)", tf32_cases),
    )
    with torch.no_grad():
        for key, title, cases in sections:
            if key in only:
                torch.backends.cuda.matmul.allow_tf32 = key == "tf32"
                ok &= bench_pairs(title, cases(), args, lines)
    text = "\n".join(lines) + "\n"
    Path(args.out).write_text(text)
    print(text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
