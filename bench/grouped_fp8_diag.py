"""One grouped FP8 call of bench/grouped_bench.py --fp8's first shape (8 x 4096 -> 14336), alone:
which scales' kernel stopped that benchmark with an illegal instruction (H100, 2026-12-05b run 1).

    for w in tensor block rowwise rowwise-promoted; do
      CUDA_LAUNCH_BLOCKING=1 python3 bench/grouped_fp8_diag.py $w 4096; done

Each call in its own process (a fault ends the context): the kernel's name, then "ok" or the
error. `block`: torch._scaled_mm's blockwise layouts, both carried by TMA."""
import sys
import torch
import tessel

if len(sys.argv) != 3 or sys.argv[1] not in ("tensor", "block", "rowwise", "rowwise-promoted", "tensor-promoted"):
    sys.exit("usage: grouped_fp8_diag.py tensor|block|rowwise|rowwise-promoted|tensor-promoted TOKENS")
which = sys.argv[1]
total, experts, k, n = int(sys.argv[2]), 8, 4096, 14336
torch.manual_seed(0)
counts = torch.randint(0, 2 * total // experts, (experts,))
counts[-1] = total - counts[:-1].sum().clamp(max=total)
counts = counts.clamp(min=0)
offs = counts.cumsum(0).to(torch.int32).cuda()
e4m3 = torch.float8_e4m3fn
a = (torch.rand(total, k, device="cuda") * 2 - 1).to(e4m3)
w = (torch.rand(experts, n, k, device="cuda") * 2 - 1).to(e4m3)
kb, nb = -(-k // 128), -(-n // 128)
blocks = (torch.rand(kb, total, device="cuda").t() + 0.5, torch.rand(experts, nb, kb, device="cuda").transpose(1, 2) + 0.5)
rows = (torch.rand(total, device="cuda") + 0.5, torch.rand(experts, n, device="cuda") + 0.5)
one = torch.ones(1, device="cuda")
d = torch.empty(total, n, device="cuda", dtype=torch.bfloat16)
b = w.transpose(1, 2)
sa, sb = {"tensor": (one, one), "block": blocks, "rowwise": rows}[which.split("-")[0]]
fast = not which.endswith("-promoted")
print(which, "kernel:", tessel.grouped.kernel_for(a, b, offs, scale_a=sa, scale_b=sb, use_fast_accum=fast).name, flush=True)
tessel.grouped_gemm(a, b, offs, out=d, scale_a=sa, scale_b=sb, use_fast_accum=fast)
torch.cuda.synchronize()
print(which, "ok, NaN:", torch.isnan(d).any().item(), flush=True)
