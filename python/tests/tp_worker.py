"""One rank of test_distributed.py's groups, started by torchrun (one process per rank): the
tensor-parallel GEMMs of tessel.distributed against float64 references of the unsplit GEMM, for
ragged token counts with a rank that has none, several chunk counts, bf16 and FP8 with per-rank
scales. Exits nonzero, naming the case, at the first mismatch.

    torchrun --standalone --nproc-per-node=N tp_worker.py          one GPU per rank, NCCL, tessel's kernels
    torchrun --standalone --nproc-per-node=N tp_worker.py --cpu    CPU processes over gloo: the schedule,
                                                                   the exchanges and the reduction as
                                                                   tessel.distributed runs them, with
                                                                   the GEMMs in float64 on the host
"""

import os
import sys

import torch
import torch.distributed as dist

import tessel.distributed as tdist

CPU = "--cpu" in sys.argv


def _host_mm_into(out, a, weight, scale_a, scale_b, out_dtype):
    """The --cpu stand-in for the GEMMs: float64, scaled like the FP8 kernels."""
    if a.shape[0]:
        s = 1.0 if scale_a is None else scale_a.double().item() * scale_b.double().item()
        out.copy_((a.double() @ weight.double().t() * s).to(out.dtype))


def _model_nccl_first_collective():
    """--cpu: NCCL's rule that a group's first collective involves every rank (its communicator is
    made then; gloo has none, so a rank sitting out the first batch of isend/irecv passes here and
    hangs there). tessel.distributed keeps it by a collective of the whole group before the first
    exchange; a batch on a group that has seen no such collective yet fails the worker."""
    met = set()

    def collective(fn):
        def wrapped(*args, group=None, **kwargs):
            met.add(id(group if group is not None else dist.group.WORLD))
            return fn(*args, group=group, **kwargs)
        return wrapped

    for name in ("all_reduce", "all_gather_into_tensor", "broadcast", "barrier"):
        setattr(dist, name, collective(getattr(dist, name)))
    batch = dist.batch_isend_irecv

    def checked(ops):
        group = ops[0].group
        if id(group if group is not None else dist.group.WORLD) not in met:
            sys.exit(f"rank {dist.get_rank()}: batch_isend_irecv is the group's first collective, which NCCL needs every "
                     "rank to join; a rank with nothing to exchange makes no batch")
        return batch(ops)

    dist.batch_isend_irecv = checked


def check(name, got, want, mag, tol_bits):
    bound = mag * 2.0 ** -tol_bits + 1e-3
    bad = ~((got.double() - want).abs() <= bound)
    if bad.any():
        i = bad.nonzero()[0].tolist()
        sys.exit(f"rank {dist.get_rank()}: {name}: element {i} is {got[tuple(i)].item()}, want {want[tuple(i)].item()}")


def close(name, got, want):
    """Gradients: bf16 results of long sums, held to 1% of the largest reference value."""
    want = want.to(got.device)
    if got.shape != want.shape:
        sys.exit(f"rank {dist.get_rank()}: {name}: shape {tuple(got.shape)}, want {tuple(want.shape)}")
    if not want.numel():
        return
    err = (got.double() - want).abs().max().item()
    if not err <= 1e-2 * max(1.0, want.abs().max().item()):
        sys.exit(f"rank {dist.get_rank()}: {name}: max error {err}, reference max {want.abs().max().item()}")


def main():
    if CPU:
        tdist._require_cuda = lambda *args: None
        tdist._mm_into = _host_mm_into
        dist.init_process_group("gloo")
        _model_nccl_first_collective()
        device = torch.device("cpu")
    else:
        local = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(local)
        device = torch.device("cuda", local)
        dist.init_process_group("nccl", device_id=device)
    rank, world = dist.get_rank(), dist.get_world_size()
    g = torch.Generator().manual_seed(0)  # the same operands on every rank
    rows = [0 if w == 1 else 700 + 331 * w for w in range(world)]
    m, k, n = sum(rows), (64 if CPU else 512), (48 if CPU else 256)
    off = sum(rows[:rank])
    # Column-parallel: x split along tokens, the weight along its output features.
    x_full = (torch.rand(m, k, generator=g) * 2 - 1).to(torch.bfloat16)
    w_full = (torch.rand(n * world, k, generator=g) * 2 - 1).to(torch.bfloat16)
    x = x_full[off:off + rows[rank]].to(device)
    w = w_full[rank * n:(rank + 1) * n].to(device)
    want = x_full.double().to(device) @ w.double().t()
    mag = x_full.double().abs().to(device) @ w.double().abs().t()
    # First on a group of its own, tokens only on the last rank: a rank without tokens has nothing
    # to exchange in all steps but one (rank 1 of 3 sits out the first exchange, which rank 0
    # joins), and the group has seen no collective yet.
    rows_last = [0] * (world - 1) + [5]
    group = dist.new_group(list(range(world)))
    x_last = x_full[:5].to(device) if rank == world - 1 else x_full[:0].to(device)
    y = tdist.all_gather_gemm(x_last, w, group, rows_per_rank=rows_last, chunks=2)
    check("all_gather_gemm on a new group, tokens on the last rank", y, want[:5], mag[:5], 7)
    for chunks in (0, 1, 3):
        y, gathered = tdist.all_gather_gemm(x, w, rows_per_rank=rows if chunks != 1 else None, chunks=chunks,
                                            return_gathered=True)
        check(f"all_gather_gemm bf16, chunks {chunks}", y, want, mag, 7)
        assert torch.equal(gathered.cpu(), x_full), "the gathered activations differ from every rank's x"
    # FP8: each rank quantizes its rows with a scale of its own.
    scale_a = torch.tensor([0.5 + rank], device=device)
    scale_b = torch.tensor([0.25], device=device)
    x8 = (x.float() / scale_a).to(torch.float8_e4m3fn)
    w8 = (w.float() / scale_b).to(torch.float8_e4m3fn)
    y8 = tdist.all_gather_gemm(x8, w8, rows_per_rank=rows, chunks=2, scale_a=scale_a, scale_b=scale_b)
    scales = [0.5 + q for q in range(world)]
    x8_all = torch.cat([(x_full[sum(rows[:q]):sum(rows[:q + 1])].float() / scales[q]).to(torch.float8_e4m3fn).double() * scales[q]
                        for q in range(world)]).to(device)
    want8 = x8_all @ (w8.double() * 0.25).t()
    check("all_gather_gemm e4m3", y8, want8, x8_all.abs() @ (w8.double().abs() * 0.25).t(), 7)
    # Row-parallel: x split along its features, the weight along its input features.
    xr_full = (torch.rand(m, k * world, generator=g) * 2 - 1).to(torch.bfloat16)
    wr_full = (torch.rand(n, k * world, generator=g) * 2 - 1).to(torch.bfloat16)
    xr = xr_full[:, rank * k:(rank + 1) * k].contiguous().to(device)
    wr = wr_full[:, rank * k:(rank + 1) * k].contiguous().to(device)
    want_r = (xr_full.double() @ wr_full.double().t())[off:off + rows[rank]].to(device)
    mag_r = (xr_full.double().abs() @ wr_full.double().abs().t())[off:off + rows[rank]].to(device)
    for chunks in (0, 2):
        z = tdist.gemm_reduce_scatter(xr, wr, rows_per_rank=rows, chunks=chunks)
        check(f"gemm_reduce_scatter bf16, chunks {chunks}", z, want_r, mag_r, 6)
    even = tdist.gemm_reduce_scatter(xr, wr)  # rows split evenly, the first ranks one more
    split = [m // world + (1 if q < m % world else 0) for q in range(world)]
    lo = sum(split[:rank])
    full = (xr_full.double() @ wr_full.double().t()).to(device)
    check("gemm_reduce_scatter, even split", even, full[lo:lo + split[rank]],
          (xr_full.double().abs() @ wr_full.double().abs().t()).to(device)[lo:lo + split[rank]], 6)
    # Autograd: both ops against float64 autograd of the unsplit layers; the upstream gradients
    # are the same on every rank (this rank's slice of them).
    dy_full = torch.rand(m, n * world, generator=g) * 2 - 1
    xg, wg = x.clone().requires_grad_(), w.clone().requires_grad_()
    y = tdist.all_gather_gemm(xg, wg, rows_per_rank=rows, chunks=2)
    y.backward(dy_full[:, rank * n:(rank + 1) * n].to(device, torch.bfloat16))
    x64, w64 = x_full.double().requires_grad_(), w_full.double().requires_grad_()
    (x64 @ w64.t() * dy_full.to(torch.bfloat16).double()).sum().backward()
    close("all_gather_gemm dx", xg.grad, x64.grad[off:off + rows[rank]])
    close("all_gather_gemm dweight", wg.grad, w64.grad[rank * n:(rank + 1) * n])
    dz_full = torch.rand(m, n, generator=g) * 2 - 1
    xrg, wrg = xr.clone().requires_grad_(), wr.clone().requires_grad_()
    z = tdist.gemm_reduce_scatter(xrg, wrg, rows_per_rank=rows, chunks=3)
    z.backward(dz_full[off:off + rows[rank]].to(device, torch.bfloat16))
    xr64, wr64 = xr_full.double().requires_grad_(), wr_full.double().requires_grad_()
    (xr64 @ wr64.t() * dz_full.to(torch.bfloat16).double()).sum().backward()
    close("gemm_reduce_scatter dx", xrg.grad, xr64.grad[:, rank * k:(rank + 1) * k])
    close("gemm_reduce_scatter dweight", wrg.grad, wr64.grad[:, rank * k:(rank + 1) * k])
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
