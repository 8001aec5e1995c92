"""One rank of test_distributed.py's groups, started by torchrun (one process per GPU): the
overlapped tensor-parallel GEMMs of tessel.distributed against float64 references of the unsplit
GEMM, for ragged token counts with a rank that has none, bf16 and FP8 with per-rank scales.
Exits nonzero, naming the case, at the first mismatch."""

import os
import sys

import torch
import torch.distributed as dist

import tessel.distributed as tdist


def check(name, got, want, mag, tol_bits):
    bound = mag * 2.0 ** -tol_bits + 1e-3
    bad = ~((got.double() - want).abs() <= bound)
    if bad.any():
        i = bad.nonzero()[0].tolist()
        sys.exit(f"rank {dist.get_rank()}: {name}: element {i} is {got[tuple(i)].item()}, want {want[tuple(i)].item()}")


def main():
    local = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    rank, world = dist.get_rank(), dist.get_world_size()
    g = torch.Generator().manual_seed(0)  # the same operands on every rank
    rows = [0 if w == 1 else 700 + 331 * w for w in range(world)]
    m, k, n = sum(rows), 512, 256
    off = sum(rows[:rank])
    # Column-parallel: x split along tokens, the weight along its output features.
    x_full = (torch.rand(m, k, generator=g) * 2 - 1).to(torch.bfloat16)
    w_full = (torch.rand(n * world, k, generator=g) * 2 - 1).to(torch.bfloat16)
    x = x_full[off:off + rows[rank]].cuda()
    w = w_full[rank * n:(rank + 1) * n].cuda()
    want = x_full.double().cuda() @ w.double().t()
    mag = x_full.double().abs().cuda() @ w.double().abs().t()
    for chunks in (0, 1, 3):
        y, gathered = tdist.all_gather_gemm(x, w, rows_per_rank=rows if chunks != 1 else None, chunks=chunks,
                                            return_gathered=True)
        check(f"all_gather_gemm bf16, chunks {chunks}", y, want, mag, 7)
        assert torch.equal(gathered.cpu(), x_full), "the gathered activations differ from every rank's x"
    # FP8: each rank quantizes its rows with a scale of its own.
    scale_a = torch.tensor([0.5 + rank], device="cuda")
    scale_b = torch.tensor([0.25], device="cuda")
    x8 = (x.float() / scale_a).to(torch.float8_e4m3fn)
    w8 = (w.float() / scale_b).to(torch.float8_e4m3fn)
    y8 = tdist.all_gather_gemm(x8, w8, rows_per_rank=rows, scale_a=scale_a, scale_b=scale_b)
    x8_all = torch.empty(m, k, dtype=torch.float64, device="cuda")
    scales = [0.5 + q for q in range(world)]
    deq = torch.cat([(x_full[sum(rows[:q]):sum(rows[:q + 1])].float().cuda() / scales[q]).to(torch.float8_e4m3fn).double() * scales[q]
                     for q in range(world)])
    x8_all.copy_(deq)
    want8 = x8_all @ (w8.double() * 0.25).t()
    check("all_gather_gemm e4m3", y8, want8, x8_all.abs() @ (w8.double().abs() * 0.25).t(), 7)
    # Row-parallel: x split along its features, the weight along its input features.
    xr_full = (torch.rand(m, k * world, generator=g) * 2 - 1).to(torch.bfloat16)
    wr_full = (torch.rand(n, k * world, generator=g) * 2 - 1).to(torch.bfloat16)
    xr = xr_full[:, rank * k:(rank + 1) * k].contiguous().cuda()
    wr = wr_full[:, rank * k:(rank + 1) * k].contiguous().cuda()
    want_r = (xr_full.double() @ wr_full.double().t())[off:off + rows[rank]].cuda()
    mag_r = (xr_full.double().abs() @ wr_full.double().abs().t())[off:off + rows[rank]].cuda()
    for chunks in (0, 2):
        z = tdist.gemm_reduce_scatter(xr, wr, rows_per_rank=rows, chunks=chunks)
        check(f"gemm_reduce_scatter bf16, chunks {chunks}", z, want_r, mag_r, 6)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
