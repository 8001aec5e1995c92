"""Tensor-parallel GEMMs on torch.distributed process groups (NCCL), the communication cut into
pieces that tessel's GEMMs consume as they arrive.

    import torch.distributed as dist, tessel.distributed as tdist
    dist.init_process_group("nccl")                      # one process per GPU, as torchrun starts them
    y = tdist.all_gather_gemm(x, w_up_shard)             # column-parallel: gather(x) @ w_up_shard.T
    z = tdist.gemm_reduce_scatter(h, w_down_shard)       # row-parallel: my rows of sum_r h_r @ w_down_r.T

Weights are in torch.nn.Linear's layout (out_features x in_features, this rank's shard). The
schedule is tessel/distributed/tp_plan.hpp's (through tessel._core.tp_plan): pairwise exchanges
of row pieces as batched isend/irecv on the group's NCCL streams, and tessel GEMMs on the current
stream, each waiting only for the exchange that brings its rows (all-gather) or waited for by the
exchange that sends its rows (reduce-scatter). The C++ side (tessel::distributed::TensorParallelGemm)
runs the same plan on an NCCL communicator.

Token counts may differ among ranks (rows_per_rank; None gathers them, which synchronises with
the host once). Every rank must make the same calls in the same order, as with any collective.
Both calls are differentiable for bf16 and f16: the backward of each runs the other (dX of the
column-parallel layer by GEMM + ReduceScatter, of the row-parallel one by AllGather + GEMM).
bf16 and f16 operands, or float8 (e4m3 / e5m2) with torch._scaled_mm's per-tensor scales: each
rank's scale_a travels with its rows, so ranks may quantize with scales of their own.
"""

from __future__ import annotations

from typing import Optional, Sequence

import torch
import torch.distributed as dist
from torch import Tensor

from . import _core
from .gemm import gemm as _gemm
from .ops import _FP8_DTYPES as _FP8
from .ops import _out_dtype
from .ops import scaled_mm as _scaled_mm

_DTYPES = (torch.float16, torch.bfloat16) + _FP8


def _group_info(group) -> tuple[int, int]:
    if not dist.is_initialized():
        raise ValueError("tessel.distributed: torch.distributed is not initialized: call dist.init_process_group('nccl') first")
    return dist.get_world_size(group), dist.get_rank(group)


def _peer(group, rank_in_group: int) -> int:
    return rank_in_group if group is None else dist.get_global_rank(group, rank_in_group)


_JOINED: dict = {}  # id(process group) -> the group, for groups whose ranks have all met in a collective


def _join(group, device) -> None:
    """batch_isend_irecv on NCCL: the group's first collective must involve every rank (the
    communicator is made then), but a rank with nothing to send or receive in an exchange makes no
    batch, so its first batch is not its peers' first; one all-reduce the first time a group is
    used here puts every rank in one collective before any exchange."""
    pg = group if group is not None else dist.group.WORLD
    if id(pg) not in _JOINED:
        dist.all_reduce(torch.zeros(1, device=device), group=group)
        _JOINED[id(pg)] = pg


def _rows_per_rank(n_local: int, device, group, world: int, given: Optional[Sequence[int]]) -> list[int]:
    if given is not None:
        rows = [int(r) for r in given]
        if len(rows) != world:
            raise ValueError(f"tessel.distributed: rows_per_rank has {len(rows)} entries for a group of {world} ranks")
        return rows
    counts = torch.zeros(world, dtype=torch.int64, device=device)
    dist.all_gather_into_tensor(counts, torch.tensor([n_local], dtype=torch.int64, device=device), group=group)
    return counts.tolist()


def _check(op: str, x: Tensor, weight: Tensor, scale_a, scale_b, out_dtype) -> None:
    if x.dim() != 2 or weight.dim() != 2:
        raise ValueError(f"{op}: x and weight must be 2-D (tokens x features, out_features x in_features); "
                         f"got {tuple(x.shape)} and {tuple(weight.shape)}")
    if x.dtype not in _DTYPES or weight.dtype != x.dtype:
        raise TypeError(f"{op}: x and weight must share one of float16, bfloat16, float8_e4m3fn, float8_e5m2; "
                        f"got {x.dtype} and {weight.dtype}")
    if x.shape[1] != weight.shape[1]:
        raise ValueError(f"{op}: x has {x.shape[1]} features and weight takes {weight.shape[1]} (its second extent)")
    fp8, given = x.dtype in _FP8, (scale_a is not None, scale_b is not None)
    if (fp8 and not all(given)) or (not fp8 and any(given)):
        raise ValueError(f"{op}: float8 operands take scale_a and scale_b (torch._scaled_mm's per-tensor scales), "
                         "and only they do")
    for scale, what in ((scale_a, "scale_a"), (scale_b, "scale_b")):
        if scale is not None and (not isinstance(scale, Tensor) or scale.numel() != 1 or scale.dtype != torch.float32
                                  or scale.device != x.device):
            raise ValueError(f"{op}: {what} must be a one-element float32 tensor on x's device (a per-tensor "
                             "dequantization scale)")
    if out_dtype is not None:
        _out_dtype(x, out_dtype)
    _require_cuda(op, x, weight)


def _require_cuda(op: str, x: Tensor, weight: Tensor) -> None:
    if not x.is_cuda or x.device != weight.device:
        raise ValueError(f"{op}: x and weight must be on this rank's CUDA device")


def _mm_into(out: Tensor, a: Tensor, weight: Tensor, scale_a, scale_b, out_dtype) -> None:
    """out = a @ weight.T (rows of a chunk), scaled for float8 operands."""
    if a.shape[0] == 0:
        return
    if a.dtype in _FP8:
        out.copy_(_scaled_mm(a, weight.t(), scale_a, scale_b, out_dtype=out_dtype, use_fast_accum=True))
    else:
        _gemm(a, weight.t(), out=out)


def _wait(works: list, i: int) -> None:
    """Makes the current stream wait for exchange i (the host does not wait), once: a second wait()
    on a finished receive blocks forever on some backends (gloo), so a waited exchange is cleared."""
    for w in works[i]:
        w.wait()
    works[i] = []


def _exchange(buf: Tensor, e, group, recv_buf: Optional[Tensor] = None, recv_offset: int = 0):
    """One exchange of the plan: the send and the receive as one batch (bytes, so float8 travels too)."""
    send_to, send_begin, send_count, recv_from, recv_begin, recv_count, _ = e
    ops = []
    if send_count:
        ops.append(dist.P2POp(dist.isend, buf[send_begin:send_begin + send_count].view(torch.uint8), _peer(group, send_to), group))
    if recv_count:
        target = buf if recv_buf is None else recv_buf
        start = recv_begin - recv_offset
        ops.append(dist.P2POp(dist.irecv, target[start:start + recv_count].view(torch.uint8), _peer(group, recv_from), group))
    return dist.batch_isend_irecv(ops) if ops else []


def all_gather_gemm(x: Tensor, weight: Tensor, group=None, *, rows_per_rank: Optional[Sequence[int]] = None,
                    chunks: int = 0, scale_a: Optional[Tensor] = None, scale_b: Optional[Tensor] = None,
                    out_dtype: Optional[torch.dtype] = None, return_gathered: bool = False):
    """Column-parallel linear: gather(x over the group, along tokens) @ weight.T.

    x (m_r, K): this rank's tokens; weight (N_r, K): this rank's shard of the layer's weight.
    Returns (M, N_r) with M the group's token count, rank-major (rank 0's tokens first); with
    return_gathered, also the gathered activations (M, K). Differentiable (bf16, f16): the
    backward runs gemm_reduce_scatter for x's gradient (each rank's rows of sum_r dY_r @ W_r)
    and one GEMM for weight's."""
    _check("all_gather_gemm", x, weight, scale_a, scale_b, out_dtype)
    grad = _needs_grad(x, weight)
    if grad:
        _no_fp8_grad("all_gather_gemm", x, out_dtype)
    world, rank = _group_info(group)
    rows = _rows_per_rank(x.shape[0], x.device, group, world, rows_per_rank)
    if rows[rank] != x.shape[0]:
        raise ValueError(f"all_gather_gemm: rows_per_rank[{rank}] is {rows[rank]} but this rank's x has {x.shape[0]} rows")
    if grad:
        out, gathered = _AllGatherGemm.apply(x, weight, group, rows, chunks)
    else:
        out, gathered = _all_gather_gemm(x, weight, group, rows, chunks, scale_a, scale_b, out_dtype)
    return (out, gathered) if return_gathered else out


def _all_gather_gemm(x, weight, group, rows, chunks, scale_a, scale_b, out_dtype):
    world, rank = _group_info(group)
    plan = _core.tp_plan("all_gather_gemm", world, rank, rows, chunks)
    fp8 = x.dtype in _FP8
    out_dtype = out_dtype or (torch.bfloat16 if fp8 else x.dtype)
    gathered = x.new_empty((plan["total_rows"], x.shape[1]))
    gathered[plan["offset"]:plan["offset"] + rows[rank]].copy_(x)
    scales = None
    if fp8:  # each rank's rows keep the scale they were quantized with
        scales = torch.empty(world, dtype=torch.float32, device=x.device)
        dist.all_gather_into_tensor(scales, scale_a.reshape(1).float(), group=group)
    out = torch.empty((plan["total_rows"], weight.shape[0]), dtype=out_dtype, device=x.device)
    if world > 1:
        _join(group, x.device)
    works = [_exchange(gathered, e, group) for e in plan["exchanges"]]  # all enqueued: none waits for another
    starts = [sum(rows[:w]) for w in range(world)]
    for begin, count, waits, _ in plan["gemms"]:
        if waits >= 0:
            _wait(works, waits)
        owner = max(w for w in range(world) if starts[w] <= begin) if fp8 else 0
        _mm_into(out[begin:begin + count], gathered[begin:begin + count], weight,
                 scales[owner:owner + 1] if fp8 else None, scale_b, out_dtype)
    for i in range(len(works)):  # the sends too, before x or gathered may be reused
        _wait(works, i)
    return out, gathered


def gemm_reduce_scatter(x: Tensor, weight: Tensor, group=None, *, rows_per_rank: Optional[Sequence[int]] = None,
                        chunks: int = 0, scale_a: Optional[Tensor] = None, scale_b: Optional[Tensor] = None,
                        out_dtype: Optional[torch.dtype] = None) -> Tensor:
    """Row-parallel linear: this rank's rows of sum over the group of x_r @ weight_r.T.

    x (M, K_r): every token, this rank's shard of the features; weight (N, K_r): this rank's
    shard. rows_per_rank: how many of the M rows each rank keeps (None: M split as evenly as
    possible, the first ranks one row more). Returns (rows_per_rank[rank], N), the partials
    summed in float32 and rounded once. Differentiable (bf16, f16): the backward runs
    all_gather_gemm for x's gradient (gather(dY) @ W_r) and one GEMM for weight's."""
    _check("gemm_reduce_scatter", x, weight, scale_a, scale_b, out_dtype)
    grad = _needs_grad(x, weight)
    if grad:
        _no_fp8_grad("gemm_reduce_scatter", x, out_dtype)
    world, rank = _group_info(group)
    m = x.shape[0]
    if rows_per_rank is None:
        rows_per_rank = [m // world + (1 if w < m % world else 0) for w in range(world)]
    rows = [int(r) for r in rows_per_rank]
    if len(rows) != world or sum(rows) != m:
        raise ValueError(f"gemm_reduce_scatter: rows_per_rank {rows} must have {world} entries summing to x's {m} rows")
    if grad:
        return _GemmReduceScatter.apply(x, weight, group, rows, chunks)
    return _gemm_reduce_scatter(x, weight, group, rows, chunks, scale_a, scale_b, out_dtype)


def _gemm_reduce_scatter(x, weight, group, rows, chunks, scale_a, scale_b, out_dtype):
    world, rank = _group_info(group)
    m = x.shape[0]
    plan = _core.tp_plan("gemm_reduce_scatter", world, rank, rows, chunks)
    out_dtype = out_dtype or (torch.bfloat16 if x.dtype in _FP8 else x.dtype)
    n, own = weight.shape[0], rows[rank]
    send = torch.empty((m, n), dtype=out_dtype, device=x.device)
    recv = torch.empty((max(world - 1, 0) * own, n), dtype=out_dtype, device=x.device)
    out = torch.empty((own, n), dtype=out_dtype, device=x.device)
    gemms, works, launched = plan["gemms"], [], 0
    if world > 1:
        _join(group, x.device)

    def launch_through(last: int) -> None:
        nonlocal launched
        while launched <= last:
            begin, count, _, feeds = gemms[launched]
            _mm_into(send[begin:begin + count] if feeds >= 0 else out, x[begin:begin + count], weight, scale_a, scale_b, out_dtype)
            launched += 1

    for i, e in enumerate(plan["exchanges"]):
        if e[6] >= 0:
            launch_through(e[6])  # the batch below is issued after its GEMM, so NCCL's stream waits for it
        slot = i // plan["chunks"]
        works.append(_exchange(send, e, group, recv_buf=recv, recv_offset=plan["offset"] - slot * own))
    launch_through(len(gemms) - 1)
    for i in range(len(works)):
        _wait(works, i)
    if world > 1 and own:
        out = (out.float() + recv.view(world - 1, own, n).float().sum(0)).to(out_dtype)
    return out


def _needs_grad(*tensors: Tensor) -> bool:
    return torch.is_grad_enabled() and any(t.requires_grad for t in tensors)


def _no_fp8_grad(op: str, x: Tensor, out_dtype) -> None:
    if x.dtype in _FP8:
        raise ValueError(f"{op}: float8 calls record no autograd graph: pass detached tensors (x.detach(), weight.detach())")
    if out_dtype is not None and out_dtype != x.dtype:
        raise ValueError(f"{op}: with autograd the output takes x's dtype ({x.dtype}); leave out_dtype as None")


def _weight_grad(d_out: Tensor, inputs: Tensor, like: Tensor) -> Tensor:
    """d_out.T @ inputs, the gradient of a weight in nn.Linear's layout (out x in)."""
    dw = torch.empty_like(like)
    _mm_into(dw, d_out.t(), inputs.t(), None, None, like.dtype)
    return dw


class _AllGatherGemm(torch.autograd.Function):
    """Y = gather(X) @ W_r.T. Backward: dX_r = my rows of sum_q dY_q @ W_q (GEMM + ReduceScatter),
    dW_r = dY_r.T @ gather(X)."""

    @staticmethod
    def forward(ctx, x, weight, group, rows, chunks):
        out, gathered = _all_gather_gemm(x, weight, group, rows, chunks, None, None, None)
        ctx.save_for_backward(gathered, weight)
        ctx.group, ctx.rows, ctx.chunks = group, rows, chunks
        ctx.mark_non_differentiable(gathered)
        return out, gathered

    @staticmethod
    def backward(ctx, d_out, _d_gathered):
        gathered, weight = ctx.saved_tensors
        d_out = d_out.contiguous()
        dx = dw = None
        if ctx.needs_input_grad[0]:  # weight.t(): (K, N_r), so that the GEMM is dY @ W_r
            dx = _gemm_reduce_scatter(d_out, weight.t(), ctx.group, ctx.rows, ctx.chunks, None, None, None)
        if ctx.needs_input_grad[1]:
            dw = _weight_grad(d_out, gathered, weight)
        return dx, dw, None, None, None


class _GemmReduceScatter(torch.autograd.Function):
    """Z_r = my rows of sum_q X_q @ W_q.T. Backward: dX_r = gather(dZ) @ W_r (AllGather + GEMM),
    dW_r = gather(dZ).T @ X_r."""

    @staticmethod
    def forward(ctx, x, weight, group, rows, chunks):
        ctx.save_for_backward(x, weight)
        ctx.group, ctx.rows, ctx.chunks = group, rows, chunks
        return _gemm_reduce_scatter(x, weight, group, rows, chunks, None, None, None)

    @staticmethod
    def backward(ctx, d_out):
        x, weight = ctx.saved_tensors
        dx, d_full = _all_gather_gemm(d_out.contiguous(), weight.t(), ctx.group, ctx.rows, ctx.chunks, None, None, None)
        dw = _weight_grad(d_full, x, weight) if ctx.needs_input_grad[1] else None
        return (dx if ctx.needs_input_grad[0] else None), dw, None, None, None
