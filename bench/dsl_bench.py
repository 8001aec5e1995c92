"""The kernel DSL on the device: cold compile time, host cost of a compiled call and of a direct
@jit call, and the vectorized add's bandwidth against torch's copy, in one process.

    python3 bench/dsl_bench.py [--out FILE]
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / "python"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    args = ap.parse_args()
    import torch
    import tessel
    from tessel.jit import cache
    from elementwise_add import add, add_kernel
    from vectorized_add import vadd, vadd_kernel
    lines = [f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}"]
    a = torch.rand(2048, 2048, device="cuda", dtype=torch.float16)
    b, c = torch.rand_like(a), torch.empty_like(a)
    ts = [tessel.from_dlpack(t) for t in (a, b, c)]
    cache.clear()
    # NOTES: the first use of NVRTC in a process loads its library; on a machine's first use that
    # read from disk took 0.22 s (bench/RESULTS.md, 2026-12-06), once in the page cache under 0.01 s.
    # The two are reported apart, so that the compile's own time is not hidden under the disk's.
    from tessel.jit import nvrtc
    t0 = time.perf_counter()
    nvrtc.toolkit()
    loaded = time.perf_counter() - t0
    t0 = time.perf_counter()
    compiled = tessel.compile(add, *ts)
    lines.append(f"seed add cold compile (trace + NVRTC, empty disk cache): {time.perf_counter() - t0:.3f} s, "
                 f"after {loaded:.3f} s loading NVRTC's library")
    compiled(*ts)
    torch.cuda.synchronize()
    assert torch.equal(c, a + b)
    # Host cost: a small add (256 x 256, a few us of GPU time) so that the GPU never sets the pace,
    # and each sample's 200 launches queued behind a sleeping kernel, far below the launch queue's
    # depth: the host never waits for the GPU.
    small = [torch.rand(256, 256, device="cuda", dtype=torch.float16) for _ in range(3)]
    sts = [tessel.from_dlpack(t) for t in small]
    scompiled = tessel.compile(add, *sts)
    for name, call in (("compiled(*tensors)", lambda: scompiled(*sts)), ("add(*tensors) direct", lambda: add(*sts)),
                       ("add(a, b, c) torch tensors", lambda: add(*small)),
                       ("torch.add(a, b, out=c), for reference", lambda: torch.add(small[0], small[1], out=small[2]))):
        for _ in range(20):
            call()
        samples = []
        for _ in range(7):
            torch.cuda.synchronize()
            torch.cuda._sleep(20_000_000)  # about 10 ms: longer than the 200 launches take to enqueue
            t0 = time.perf_counter()
            for _ in range(200):
                call()
            samples.append((time.perf_counter() - t0) / 200 * 1e6)
        lines.append(f"host cost of {name}: median {statistics.median(samples):.1f} us")
    torch.cuda.synchronize()
    # Bandwidth: vectorized add vs copy, 8192 x 8192 f16 (three 128 MiB streams), rotated sets.
    sets = []
    for _ in range(3):
        x = torch.rand(8192, 8192, device="cuda", dtype=torch.float16)
        y, z = torch.rand_like(x), torch.empty_like(x)
        sets.append((x, y, z, [tessel.from_dlpack(t) for t in (x, y, z)]))
    vcomp = tessel.compile(vadd, *sets[0][3])
    for x, y, z, tt in sets:
        vcomp(*tt)
        torch.cuda.synchronize()
        assert torch.equal(z, x + y)
    times = {"dsl vadd": [], "torch add": [], "torch copy": []}
    for rep in range(30):
        for name in times:
            x, y, z, tt = sets[rep % 3]
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            if name == "dsl vadd":
                vcomp(*tt)
            elif name == "torch add":
                torch.add(x, y, out=z)
            else:
                z.copy_(x)
            e.record()
            e.synchronize()
            times[name].append(s.elapsed_time(e))
    nbytes = sets[0][0].numel() * 2
    med = {k: statistics.median(v) for k, v in times.items()}
    bw = {"dsl vadd": 3 * nbytes / med["dsl vadd"] / 1e6, "torch add": 3 * nbytes / med["torch add"] / 1e6,
          "torch copy": 2 * nbytes / med["torch copy"] / 1e6}
    for k in times:
        lines.append(f"{k}: median {med[k] * 1e3:.1f} us, {bw[k]:.0f} GB/s")
    lines.append(f"dsl vadd / torch copy bandwidth: {bw['dsl vadd'] / bw['torch copy']:.3f}; / torch add: {bw['dsl vadd'] / bw['torch add']:.3f}")
    text = "\n".join(lines)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")


if __name__ == "__main__":
    main()
