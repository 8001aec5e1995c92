"""The small-N ring's row blocks: 32 rows against 16, and the dispatcher's choice against torch, at
decode (bf16: torch.matmul; e4m3: torch._scaled_mm with fast accumulation and unit scales).

For each shape (M tokens x N weight rows x K): torch and tessel (tessel.gemm / tessel.scaled_mm, its
own choice) timed in turns on rotated operands (at least 256 MB of weights in turn), events around
each call behind a held GPU, medians of 30; then the 32-row and 16-row rings of the same N8 run
directly on D^T's problem (tessel._core.time_launches, the same events), each checked first against
torch's D. kernel/small_n_rules.hpp's small_n_tma_rows is what the dispatcher applies.

    python3 bench/decode_ring_rows.py [bf16|e4m3:MxNxK ...]"""
import statistics
import sys

import torch
from torch_timing import cpp_time, events_time

import tessel
from tessel import _core
from tessel.jit import prebuilt, small_n

DEFAULT = ("bf16:1x14336x4096", "bf16:16x14336x4096", "bf16:16x6144x4096", "bf16:16x10240x8192", "bf16:16x4096x4096",
           "e4m3:1x14336x4096", "e4m3:16x14336x4096", "e4m3:16x6144x4096", "e4m3:16x10240x8192", "e4m3:16x4096x4096",
           "e4m3:8x7168x16384")
DTYPES = {"bf16": torch.bfloat16, "e4m3": torch.float8_e4m3fn}


def timed(fn, sets, reps=30):
    """Median microseconds of fn(*set) over rotated sets (torch_timing's events, the GPU held first)."""
    fn(*sets[0])
    torch.cuda.synchronize()
    return statistics.median(events_time(fn, sets, reps)) * 1e3


def ring_us(kernel, sets, reps=30):
    """Median microseconds of a ring launched from C++ on D^T's problem of each (x, W, D) set."""
    triples = [(x, W.t(), d) for x, W, d in sets]
    cpp_time(kernel, triples, 3, transpose_d=True)
    torch.cuda.synchronize()
    return 1e3 * statistics.median(cpp_time(kernel, triples, reps, transpose_d=True))


def main():
    one = torch.ones((), device="cuda")
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    print(f"GPU: {torch.cuda.get_device_name()} ({sms} SMs), torch {torch.__version__}")
    print("| element | shape | torch us | tessel us | tessel / torch | 32-row ring us | 16-row ring us | 16 / 32 time | "
          "chosen rows | weights TB/s (tessel) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for spec in sys.argv[1:] or DEFAULT:
        element, shape = spec.split(":")
        m, n, k = (int(v) for v in shape.split("x"))
        dtype, nbytes = DTYPES[element], small_n.element_bytes(element)
        count = max(3, -(-256 * 2**20 // (n * k * nbytes)))
        sets = [((torch.rand(m, k, device="cuda") * 2 - 1).to(dtype), (torch.rand(n, k, device="cuda") * 2 - 1).to(dtype),
                 torch.empty(m, n, device="cuda", dtype=torch.bfloat16)) for _ in range(count)]
        if element == "bf16":
            def theirs(x, W, d):
                return torch.matmul(x, W.t())

            def ours(x, W, d):
                return tessel.gemm(x, W.t(), out=d)
        else:
            def theirs(x, W, d):
                return torch._scaled_mm(x, W.t(), one, one, out_dtype=torch.bfloat16, use_fast_accum=True)

            def ours(x, W, d):
                return tessel.scaled_mm(x, W.t(), one, one, out_dtype=torch.bfloat16, use_fast_accum=True)
        x, W, d = sets[0]
        want = theirs(x, W, d).float()
        plan = _core.small_n_plan(n, m, k, sms, nbytes)
        n8 = plan[0] if plan else (1 if m <= 8 else 2)
        long_rows = k * nbytes >= 16384
        rings = {32: (element, n8, 8 if long_rows else 4, 3 if long_rows else 0, 32), 16: (element, n8, 8, 0, 16)}
        us = {}
        for rows, key in rings.items():
            kernel = prebuilt.find_small_n(key, 90)
            d.fill_(float("nan"))
            _core.time_launches(kernel, [(x, W.t(), d)], 1, torch.cuda.current_stream().cuda_stream, True)
            err = ((d.float() - want).norm() / want.norm()).item()
            assert err < 1e-2, f"{spec}: the {rows}-row ring is off torch by {err:.2e}"
            us[rows] = ring_us(kernel, sets)
        got = ours(x, W, d).float()
        err = ((got - want).norm() / want.norm()).item()
        assert err < 1e-2, f"{spec}: tessel is off torch by {err:.2e}"
        t_torch, t_ours = timed(theirs, sets), timed(ours, sets)
        print(f"| {element} | {m}x{n}x{k} | {t_torch:.1f} | {t_ours:.1f} | **{t_torch / t_ours:.3f}** | {us[32]:.1f} | {us[16]:.1f} | "
              f"{us[16] / us[32]:.3f} | {plan[3] if plan else '-'} | {n * k * nbytes / t_ours / 1e6:.2f} |", flush=True)


if __name__ == "__main__":
    main()
