"""FP8 tiles at decode and mid-sized token counts: torch._scaled_mm against tessel.scaled_mm (its
choice, named) and against fast FP8 tiles run as configurations: 128x256, 128x192, 128x128,
128x64, 128x64 stream-K, 64x64 and 64x128 ping-pong on the problem as given, 128x64 and 64x64 on
D^T's. Fast accumulation everywhere, unit scales, e4m3, bf16 out; three operand sets rotated
(past L2 for the larger weights), events around each call behind a held GPU, medians of 30; every
configuration's relative error against torch's D is printed.

    python3 bench/fp8_decode_tiles.py [MxNxK ...]   (default: decode and mid-sized shapes)"""
import statistics
import sys
import torch
import tessel
from tessel.jit.config import GemmConfig


def timed(fn, sets, reps=30):
    fn(*sets[0]); torch.cuda.synchronize()
    ev = [torch.cuda.Event(enable_timing=True) for _ in range(reps + 1)]
    torch.cuda._sleep(20_000_000); ev[0].record()
    for i in range(reps):
        fn(*sets[i % len(sets)]); ev[i + 1].record()
    ev[-1].synchronize()
    return statistics.median(ev[i].elapsed_time(ev[i + 1]) for i in range(reps)) * 1e3


one = torch.ones((), device="cuda")
e4m3 = torch.float8_e4m3fn
fast = lambda tile, scheduler="persistent", schedule="auto": tessel.compile(GemmConfig(  # noqa: E731
    arch="sm90a", element="e4m3", out="bf16", tile=tile, scheduler=scheduler, schedule=schedule))
tiles = {"128x256": fast((128, 256, 128)), "128x192": fast((128, 192, 128)), "128x128": fast((128, 128, 128)),
         "128x64": fast((128, 64, 128)),
         "128x64 stream-K": fast((128, 64, 128), "stream_k"),
         "64x64 ping-pong": fast((64, 64, 128), schedule="pingpong"), "64x128 ping-pong": fast((64, 128, 128), schedule="pingpong")}
DEFAULT_SHAPES = ((16, 14336, 4096), (64, 8192, 8192), (128, 4096, 14336), (256, 4096, 14336), (512, 4096, 4096), (1024, 4096, 4096))
shapes = [tuple(int(v) for v in a.split("x")) for a in sys.argv[1:]] or DEFAULT_SHAPES
for m, n, k in shapes:
    sets = [((torch.rand(m, k, device="cuda") * 2 - 1).to(e4m3), (torch.rand(n, k, device="cuda") * 2 - 1).to(e4m3),
             torch.empty(m, n, device="cuda", dtype=torch.bfloat16), torch.empty(n, m, device="cuda", dtype=torch.bfloat16))
            for _ in range(3)]
    x, W, d, dT = sets[0]
    ref = torch._scaled_mm(x, W.t(), one, one, out_dtype=torch.bfloat16, use_fast_accum=True).double()
    err = lambda got: ((got.double() - ref).norm() / ref.norm()).item()  # noqa: E731
    chosen = tessel.kernel_for(x, W.t(), out_dtype=torch.bfloat16, explain=True)
    row = {"torch": timed(lambda x, W, d, dT: torch._scaled_mm(x, W.t(), one, one, out_dtype=torch.bfloat16, use_fast_accum=True), sets)}
    label = f"tessel.scaled_mm (err {err(tessel.scaled_mm(x, W.t(), one, one, out_dtype=torch.bfloat16, use_fast_accum=True)):.0e})"
    row[label] = timed(lambda x, W, d, dT: tessel.scaled_mm(x, W.t(), one, one, out_dtype=torch.bfloat16, use_fast_accum=True), sets)
    for t, c in tiles.items():
        c(x, W.t(), out=d)
        row[f"{t} (err {err(d):.0e})"] = timed(lambda x, W, d, dT, c=c: c(x, W.t(), out=d), sets)
    for t in ("128x64", "64x64 ping-pong"):
        c = tiles[t]
        c(W, x.t(), out=dT)
        row[f"{t} on D^T (err {err(dT.t()):.0e})"] = timed(lambda x, W, d, dT, c=c: c(W, x.t(), out=dT), sets)
    print(f"{m}x{n}x{k} (tessel.scaled_mm ran {chosen[0].name}): "
          + ", ".join(f"{k_} {v:.1f} us ({row['torch'] / v:.3f}x torch)" for k_, v in row.items()), flush=True)
