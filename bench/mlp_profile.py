"""Where the MLP block's fwd+bwd time goes, torch's block (torch.nn.Linear x 3, silu(g) * u)
against tessel.nn.GatedMLP, on torch_ops.py --only mlp's setup (4096 tokens, 4096 -> 14336 ->
4096, bf16, uniform weights of unit scale after the projection):

    python3 bench/mlp_profile.py trace    # one step's kernels (torch.profiler): GPU time, idle gaps
    python3 bench/mlp_profile.py host     # the host's time to issue one step, the GPU held busy
    python3 bench/mlp_profile.py clocks   # torch_ops' timing loop for the two blocks, with the SM
                                          # clock and power sampled by nvidia-smi during each turn

NOTES: torch_ops.py's ratio for this block moved between 0.977 and 1.054 on one H100 within
minutes (bench/RESULTS.md, 2026-12-06), with the SM clock falling from 1980 MHz to 1440-1725 over
the runs; the trace and the clocks are what tell a slower kernel from a slower clock.
"""

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import tessel  # noqa: E402
from torch_ops import MLP, stepper  # noqa: E402
from torch_timing import events_time  # noqa: E402

HIDDEN, INTERMEDIATE, TOKENS = 4096, 14336, 4096


def blocks():
    """{name: block} sharing one set of bf16 projections, and two inputs that require grad."""
    torch.manual_seed(0)
    ref = [torch.nn.Linear(HIDDEN, INTERMEDIATE, bias=False), torch.nn.Linear(HIDDEN, INTERMEDIATE, bias=False),
           torch.nn.Linear(INTERMEDIATE, HIDDEN, bias=False)]
    ref = [layer.to("cuda", torch.bfloat16) for layer in ref]
    with torch.no_grad():
        for layer in ref:
            layer.weight.uniform_(-1, 1).mul_(layer.in_features ** -0.5)
    xs = [(torch.rand(TOKENS, HIDDEN, device="cuda") * 2 - 1).to(torch.bfloat16).requires_grad_() for _ in range(2)]
    return {"torch": MLP(ref), "GatedMLP": tessel.nn.GatedMLP.from_projections(*ref)}, xs


def trace(models, xs):
    for name, model in models.items():
        step = stepper(model)
        for _ in range(3):
            step(xs[0])
        torch.cuda.synchronize()
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]) as prof:
            for _ in range(2):
                step(xs[0])
            torch.cuda.synchronize()
        path = tempfile.mktemp(suffix=".json")
        prof.export_chrome_trace(path)
        kernels = sorted((e for e in json.load(open(path))["traceEvents"] if e.get("cat") == "kernel"), key=lambda e: e["ts"])
        kernels = kernels[len(kernels) // 2:]  # the second step
        busy = sum(e["dur"] for e in kernels)
        span = kernels[-1]["ts"] + kernels[-1]["dur"] - kernels[0]["ts"]
        print(f"\n## {name}: {len(kernels)} kernels, span {span:.0f} us, GPU busy {busy:.0f} us, idle {span - busy:.0f} us")
        gaps = sorted(((b["ts"] - a["ts"] - a["dur"], a["name"][:60], b["name"][:60]) for a, b in zip(kernels, kernels[1:])),
                      reverse=True)
        for gap, before, after in gaps[:4]:
            print(f"  gap {gap:.0f} us after {before} before {after}")
        for e in kernels:
            print(f"  {e['dur']:8.1f} us  {e['name'][:110]}")


def host(models, xs):
    for name, model in models.items():
        step = stepper(model)
        for _ in range(3):
            step(xs[0])
        samples = []
        for _ in range(7):
            torch.cuda.synchronize()
            torch.cuda._sleep(200_000_000)  # ~0.1 s of GPU: the step's launches queue behind it
            t0 = time.perf_counter()
            step(xs[0])
            samples.append((time.perf_counter() - t0) * 1e3)
        torch.cuda.synchronize()
        print(f"{name}: host time of one fwd+bwd step {statistics.median(samples):.3f} ms (min {min(samples):.3f})")


def clocks(models, xs):
    smi = subprocess.Popen(["nvidia-smi", "--query-gpu=timestamp,clocks.sm,power.draw", "--format=csv,noheader,nounits",
                            "-lms", "50"], stdout=subprocess.PIPE, text=True)
    turns, times = [], {name: [] for name in models}
    for _ in range(5):
        for name, model in models.items():
            step = stepper(model)
            step(xs[0])
            t0 = time.time()
            times[name] += events_time(step, [(x,) for x in xs], 10)
            turns.append((name, t0, time.time()))
    torch.cuda.synchronize()
    time.sleep(0.2)
    smi.terminate()
    samples = []
    for line in smi.stdout.read().splitlines():
        try:
            stamp, clock, power = (v.strip() for v in line.split(","))
            whole, frac = stamp.split(".")
            samples.append((time.mktime(time.strptime(whole, "%Y/%m/%d %H:%M:%S")) + float("0." + frac), float(clock), float(power)))
        except ValueError:
            continue  # a line nvidia-smi did not finish
    for name, v in times.items():
        print(f"{name}: median {statistics.median(v):.3f} ms, min {min(v):.3f}, max {max(v):.3f}")
        mine = [(c, p) for s, c, p in samples for who, a, b in turns if who == name and a <= s <= b]
        if mine:
            print(f"   SM clock median {statistics.median(c for c, _ in mine):.0f} MHz (min {min(c for c, _ in mine):.0f}), "
                  f"power median {statistics.median(p for _, p in mine):.0f} W, {len(mine)} samples")
    print(f"torch / GatedMLP: {statistics.median(times['torch']) / statistics.median(times['GatedMLP']):.3f}")
    for name, v in times.items():
        print(f"per-step ms, {name}:", " ".join(f"{x:.2f}" for x in v[:20]))


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    parts = {"trace": trace, "host": host, "clocks": clocks}
    if what not in parts:
        print(f"usage: {sys.argv[0]} trace|host|clocks", file=sys.stderr)
        return 2
    models, xs = blocks()
    parts[what](models, xs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
