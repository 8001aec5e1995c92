#!/usr/bin/env python3
"""Tensor-parallel GEMMs against what users run today, in turns in one run:

    torchrun --standalone --nproc-per-node=TP bench/tp_bench.py [--tokens 4096,8192,16384] [--reps 10]

For Llama-70B-like projections (hidden 8192, intermediate 28672) at TP ranks, each rank times:
  AllGather + GEMM (the MLP's up projection, column-parallel):
    tessel      tessel.distributed.all_gather_gemm (exchanges overlapped with tessel GEMMs)
    nccl+torch  dist.all_gather_into_tensor, then torch.matmul
    comm        the all-gather alone;  gemm  torch.matmul on the gathered tokens alone
  GEMM + ReduceScatter (the down projection, row-parallel): the same four with
    dist.reduce_scatter_tensor.
Each result is checked against the unsplit product first. Providers run in turns, round after
round; a time is the slowest rank's (the step ends when every rank is done), median over rounds.
Reports tessel / (nccl+torch) and tessel / max(comm, gemm): the goal is >= 1.3x the first and
within 1.15x of the second. NVLink multicast stays off (NCCL_NVLS_ENABLE=0 is set here).
"""

import argparse
import os
import statistics

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

import tessel.distributed as tdist  # noqa: E402

HIDDEN, INTERMEDIATE = 8192, 28672


def timed(fn, reps):
    """The slowest rank's median of `reps` timings of fn() (each between a barrier and events)."""
    times = []
    for _ in range(reps):
        dist.barrier()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        t = torch.tensor([start.elapsed_time(end)], device="cuda")
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        times.append(t.item())
    return statistics.median(times)


def close(name, got, want):
    err = ((got.float() - want.float()).abs().max() / want.float().abs().max().clamp_min(1e-6)).item()
    if err > 2e-2:
        raise SystemExit(f"rank {dist.get_rank()}: {name} differs from the reference (max relative error {err:.3g})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokens", default="4096,8192,16384")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    local = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    rank, tp = dist.get_rank(), dist.get_world_size()
    bf16 = dict(device="cuda", dtype=torch.bfloat16)
    rows = []
    for tokens in (int(t) for t in args.tokens.split(",")):
        torch.manual_seed(rank)
        m_local = tokens // tp
        rows_each = [m_local] * tp  # given, so that no call gathers the counts (a host synchronisation)
        # Column-parallel up projection: x (tokens/TP, hidden) gathered, weight shard (intermediate/TP, hidden).
        x = torch.rand(m_local, HIDDEN, **bf16) * 2 - 1
        w_up = torch.rand(INTERMEDIATE // tp, HIDDEN, **bf16) * 2 - 1
        gathered = torch.empty(tokens, HIDDEN, **bf16)
        # Row-parallel down projection: h (tokens, intermediate/TP), weight shard (hidden, intermediate/TP).
        h = torch.rand(tokens, INTERMEDIATE // tp, **bf16) * 2 - 1
        w_down = torch.rand(HIDDEN, INTERMEDIATE // tp, **bf16) * 2 - 1
        partial = torch.empty(tokens, HIDDEN, **bf16)
        scattered = torch.empty(m_local, HIDDEN, **bf16)

        def ag_torch():
            dist.all_gather_into_tensor(gathered, x)
            return gathered @ w_up.t()

        def rs_torch():
            torch.matmul(h, w_down.t(), out=partial)
            dist.reduce_scatter_tensor(scattered, partial)
            return scattered

        providers = {
            "ag": {"tessel": lambda: tdist.all_gather_gemm(x, w_up, rows_per_rank=rows_each), "nccl+torch": ag_torch,
                   "comm": lambda: dist.all_gather_into_tensor(gathered, x), "gemm": lambda: gathered @ w_up.t()},
            "rs": {"tessel": lambda: tdist.gemm_reduce_scatter(h, w_down, rows_per_rank=rows_each), "nccl+torch": rs_torch,
                   "comm": lambda: dist.reduce_scatter_tensor(scattered, partial),
                   "gemm": lambda: torch.matmul(h, w_down.t(), out=partial)},
        }
        close(f"all_gather_gemm at {tokens} tokens", tdist.all_gather_gemm(x, w_up, rows_per_rank=rows_each), ag_torch())
        close(f"gemm_reduce_scatter at {tokens} tokens", tdist.gemm_reduce_scatter(h, w_down, rows_per_rank=rows_each),
              rs_torch().clone())
        for kind, ps in providers.items():
            for fn in ps.values():
                fn()  # warm: NCCL's channels, the dispatcher's choices
            samples = {name: [] for name in ps}
            names = list(ps)
            for r in range(args.rounds):
                for name in names[r % len(names):] + names[:r % len(names)]:  # each provider first in turn
                    samples[name].append(timed(ps[name], args.reps))
            t = {name: statistics.median(v) for name, v in samples.items()}
            rows.append((kind, tokens, t))
    if rank == 0:
        print("| op | TP | tokens | tessel ms | nccl+torch ms | comm ms | gemm ms | vs nccl+torch | vs max(comm, gemm) |")
        print("|---|---|---|---|---|---|---|---|---|")
        for kind, tokens, t in rows:
            floor = max(t["comm"], t["gemm"])
            print(f"| {kind} | {tp} | {tokens} | {t['tessel']:.3f} | {t['nccl+torch']:.3f} | {t['comm']:.3f} | {t['gemm']:.3f} | "
                  f"{t['nccl+torch'] / t['tessel']:.2f}x | {t['tessel'] / floor:.2f} |")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
