#!/usr/bin/env python3
"""Two builds of the same Hopper kernels against each other, in turns in one process: does a
change to the kernel's code (a restructure, a new schedule) make any configuration slower?

    python bench/cubin_ab.py build TREE OUT_DIR       (no GPU: nvcc on PATH)
    python bench/cubin_ab.py time DIR_A DIR_B [--rounds 7] [--reps 20] [--out FILE.md]

`build` writes the sources of CASES's configurations with TREE's own code generator
(TREE/python/tessel/jit, as python/build_kernels.py loads it) and compiles each with TREE's
headers, with the flags of the package's prebuilt kernels (python/kernels.cmake), into
OUT_DIR/<name>.sm_90a.cubin. `time` needs the tessel package and PyTorch: for every case it
loads both cubins as tessel._core.Kernel objects (the launcher and the parameter block are the
installed package's, so both builds must take the same block: TESSEL_SM90_PARAMS_MATCH), checks
A on a NaN-poisoned D against float64 and B's D bit for bit against A's, then times A, B and
torch.matmul (torch._scaled_mm for FP8) on the same operands, rotated past L2, in turns, round
after round (each provider first, second and last in turn), each launch timed with events,
medians. Reports B / A per case with the spread over rounds.
"""

import argparse
import statistics
import subprocess
import sys
import types
from pathlib import Path

# (configuration keywords, shape M x N x K): the configurations tessel.gemm runs most, at shapes
# where each is the dispatcher's choice, and the FP8 and fused variants.
CASES = [
    (dict(element="bf16", out="bf16", tile=(128, 256, 64), stages=4), (8192, 8192, 8192)),
    (dict(element="bf16", out="bf16", tile=(128, 256, 64), stages=4), (4096, 6144, 4096)),
    (dict(element="bf16", out="bf16", tile=(128, 256, 64), stages=4), (8192, 18432, 7168)),
    (dict(element="bf16", out="bf16", tile=(128, 256, 64), stages=4, epilogue="gelu"), (4096, 14336, 4096)),
    (dict(element="bf16", out="bf16", tile=(128, 256, 64), stages=4, cluster=(2, 1, 1)), (8192, 8192, 8192)),
    (dict(element="bf16", out="bf16", tile=(128, 128, 64), stages=6, schedule="pingpong"), (8192, 8192, 256)),
    (dict(element="bf16", out="bf16", tile=(128, 64, 64), stages=8, scheduler="stream_k"), (1024, 1024, 32768)),
    (dict(element="f16", out="f16", tile=(128, 256, 64), stages=4), (4096, 14336, 4096)),
    (dict(element="e4m3", out="bf16", tile=(128, 256, 128), stages=4), (8192, 8192, 8192)),
    (dict(element="e4m3", out="bf16", tile=(128, 128, 128), stages=6, schedule="cooperative_promoted"), (8192, 8192, 8192)),
]


def _configs(tree: Path):
    stub = types.ModuleType("tessel")
    stub.__path__ = [str(tree / "python" / "tessel")]
    sys.modules["tessel"] = stub
    from tessel.jit import codegen_sm90  # noqa: E402
    from tessel.jit.config import GemmConfig  # noqa: E402
    return codegen_sm90, [GemmConfig(arch="sm90a", layout_c="row", **kw) for kw, _ in CASES]


def build(tree: Path, out: Path):
    if not (tree / "python" / "tessel" / "jit" / "codegen_sm90.py").is_file() or not (tree / "include" / "tessel").is_dir():
        sys.exit(f"cubin_ab: {tree} is not a tessel source tree (no python/tessel/jit/codegen_sm90.py or include/tessel)")
    codegen_sm90, configs = _configs(tree.resolve())
    out.mkdir(parents=True, exist_ok=True)
    for c in dict.fromkeys(configs):
        src = out / f"{c.name}.cu"
        src.write_text(codegen_sm90.source(c))
        subprocess.run(["nvcc", "-cubin", "-std=c++20", "-O3", "-DNDEBUG", "--expt-relaxed-constexpr", "-arch=sm_90a",
                        f"-I{tree.resolve() / 'include'}", "-o", str(out / f"{c.name}.sm_90a.cubin"), str(src)], check=True)
        print(f"built {c.name}", flush=True)


def time_ab(dir_a: Path, dir_b: Path, rounds: int, reps: int, out):
    try:
        import torch
        from tessel.jit import codegen, cubin, kernel
        from tessel.jit.config import GemmConfig
    except ImportError as e:
        sys.exit(f"cubin_ab: `time` needs PyTorch and the installed tessel package ({e})")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from torch_timing import cpp_time, events_time, worst_error_share, write_report

    missing = [str(d / f"{GemmConfig(arch='sm90a', layout_c='row', **kw).name}.sm_90a.cubin") for kw, _ in CASES
               for d in (dir_a, dir_b) if not (d / f"{GemmConfig(arch='sm90a', layout_c='row', **kw).name}.sm_90a.cubin").is_file()]
    if missing:
        sys.exit(f"cubin_ab: {missing[0]} is missing ({len(missing)} in all): run `cubin_ab.py build TREE DIR` for both first")
    if not torch.cuda.is_available():
        sys.exit("cubin_ab: no CUDA device: nothing to time")

    def load(c, d):
        data = (d / f"{c.name}.sm_90a.cubin").read_bytes()
        return kernel.load(c, data, cubin.kernel_symbol(data, codegen.symbol_prefix(c)), "sm_90a")

    dev = torch.cuda.get_device_properties(0)
    lines = [f"cubin_ab: {dev.name}, {dev.multi_processor_count} SMs, torch {torch.__version__}; A = {dir_a}, B = {dir_b}; "
             f"{rounds} rounds x {reps} launches per provider, medians", "",
             "| kernel | shape | A TFLOP/s | B TFLOP/s | torch TFLOP/s | B / A (min-max over rounds) | A's error / budget; B against A |",
             "|---|---|---|---|---|---|---|"]
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    for kw, (m, n, k) in CASES:
        c = GemmConfig(arch="sm90a", layout_c="row", **kw)
        ka, kb = load(c, dir_a), load(c, dir_b)
        fp8 = c.element == "e4m3"
        dt = {"bf16": torch.bfloat16, "f16": torch.float16}
        per_set = (m * k + n * k) * (1 if fp8 else 2)
        nsets = max(2, -(-3 * l2 // per_set))
        sets = []
        for _ in range(nsets):
            a = torch.rand(m, k, device="cuda") * 2 - 1
            w = torch.rand(n, k, device="cuda") * 2 - 1
            if fp8:
                a, w = a.to(torch.float8_e4m3fn), w.to(torch.float8_e4m3fn)
            else:
                a, w = a.to(dt[c.element]), w.to(dt[c.element])
            sets.append((a, w.t(), torch.empty(m, n, device="cuda", dtype=dt[c.out])))
        act = {"linear": None, "gelu": torch.nn.functional.gelu}[c.epilogue]
        outs = []
        for kern in (ka, kb):
            a, b, d = sets[0]
            d.fill_(float("nan"))
            cpp_time(kern, [(a, b, d)], 1)
            torch.cuda.synchronize()
            outs.append(d.clone())
        one = torch.ones((), device="cuda")
        if fp8:
            torch_run = lambda a, b, d: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16, use_fast_accum=True)  # noqa: E731
        else:
            torch_run = (lambda a, b, d: torch.matmul(a, b, out=d)) if act is None else (lambda a, b, d: act(torch.matmul(a, b)))
        # A against float64, B bit for bit against A (the same wgmma in the same order must give
        # the same D). FP8's fast accumulation keeps fewer bits in the tensor core than f32, so
        # there A may be off by up to twice what torch._scaled_mm's own fast mode is on the same
        # operands.
        a, b, _ = sets[0]
        share = worst_error_share(a.float(), b.float(), outs[0].float(), 2.0**-7, act)
        if fp8 and c.kernel_schedule != "cooperative_promoted":
            share /= max(1.0, 2 * worst_error_share(a.float(), b.float(), torch_run(a, b, None).float(), 2.0**-7))
        same = torch.equal(outs[0].view(torch.int16), outs[1].view(torch.int16))
        checks = f"{share:.2f}, {'B == A' if same else 'B != A'}"
        ok = share <= 1 and same
        med = {"a": [], "b": [], "t": []}
        timers = {"a": lambda: cpp_time(ka, sets, reps), "b": lambda: cpp_time(kb, sets, reps),
                  "t": lambda: events_time(torch_run, sets, reps)}
        for r in range(rounds if ok else 0):
            order = list(timers)[r % 3:] + list(timers)[:r % 3]  # each provider first, second and last in turn
            for p in order:
                med[p].append(statistics.median(timers[p]()))
        flop = 2 * m * n * k
        if ok:
            tf = {p: flop / statistics.median(v) / 1e9 for p, v in med.items()}
            ratios = [a / b for a, b in zip(med["a"], med["b"])]  # time A / time B = speed B / speed A
            lines.append(f"| {c.name} | {m}x{n}x{k} | {tf['a']:.1f} | {tf['b']:.1f} | {tf['t']:.1f} | "
                         f"**{statistics.median(ratios):.3f}** ({min(ratios):.3f}-{max(ratios):.3f}) | {checks} |")
        else:
            lines.append(f"| {c.name} | {m}x{n}x{k} | - | - | - | not timed: a check failed | {checks} |")
        print(lines[-1], flush=True)
        del sets
        torch.cuda.empty_cache()
    write_report(lines, out)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    b = sub.add_parser("build")
    b.add_argument("tree", type=Path)
    b.add_argument("out", type=Path)
    t = sub.add_parser("time")
    t.add_argument("dir_a", type=Path)
    t.add_argument("dir_b", type=Path)
    t.add_argument("--rounds", type=int, default=7)
    t.add_argument("--reps", type=int, default=20)
    t.add_argument("--out")
    args = ap.parse_args(argv)
    if args.mode == "build":
        return build(args.tree, args.out)
    return time_ab(args.dir_a, args.dir_b, args.rounds, args.reps, args.out)


if __name__ == "__main__":
    sys.exit(main())
