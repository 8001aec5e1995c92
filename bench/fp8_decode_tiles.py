"""FP8 decode: torch._scaled_mm and tessel.scaled_mm (its choice today: 128x256 on the problem as
given) against the 128 x 64 FP8 tile on D^T's problem, run as a configuration (not yet shipped:
bench/NOTES.md, "FP8 at decode"). Unit scales, e4m3, bf16 out; events around each call behind a
held GPU, medians of 30; the relative error of D^T against torch's D is printed with each tile.

    python3 bench/fp8_decode_tiles.py"""
import statistics
import torch
import tessel
from tessel.jit.config import GemmConfig

def timed(fn, reps=30):
    fn(); torch.cuda.synchronize()
    ev = [torch.cuda.Event(enable_timing=True) for _ in range(reps + 1)]
    torch.cuda._sleep(20_000_000); ev[0].record()
    for i in range(reps):
        fn(); ev[i + 1].record()
    ev[-1].synchronize()
    return statistics.median(ev[i].elapsed_time(ev[i + 1]) for i in range(reps)) * 1e3

one = torch.ones((), device="cuda")
for m, n, k in ((16, 14336, 4096), (64, 8192, 8192), (128, 4096, 14336)):
    x = (torch.rand(m, k, device="cuda") * 2 - 1).to(torch.float8_e4m3fn)
    W = (torch.rand(n, k, device="cuda") * 2 - 1).to(torch.float8_e4m3fn)
    ref = torch._scaled_mm(x, W.t(), one, one, out_dtype=torch.bfloat16, use_fast_accum=True)
    row = {"torch": timed(lambda: torch._scaled_mm(x, W.t(), one, one, out_dtype=torch.bfloat16, use_fast_accum=True)),
           "tessel.scaled_mm": timed(lambda: tessel.scaled_mm(x, W.t(), one, one, out_dtype=torch.bfloat16))}
    for s in ("persistent", "stream_k"):
        c = tessel.compile(GemmConfig(arch="sm90a", element="e4m3", out="bf16", tile=(128, 64, 128), scheduler=s))
        dT = torch.empty(n, m, device="cuda", dtype=torch.bfloat16)
        c(W, x.t(), out=dT)
        err = ((dT.t().double() - ref.double()).norm() / ref.double().norm()).item()
        row[f"128x64 {s} on D^T (rel err {err:.1e})"] = timed(lambda: c(W, x.t(), out=dT))
    print(f"{m}x{n}x{k}: " + ", ".join(f"{k_} {v:.1f} us ({row['torch'] / v:.2f}x torch)" for k_, v in row.items()), flush=True)
