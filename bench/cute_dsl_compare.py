"""The DSL's Hopper GEMM (examples/python/hopper_gemm.py) against the CuTe DSL's persistent Hopper
GEMM example (NVIDIA/cutlass examples/python/CuTeDSL/hopper/dense_gemm_persistent.py) and
torch.matmul, as issue 22 asks: the same configuration (128x256 tile; 1x1 and 2x1 clusters, the
CuTe DSL's 2x1 being the one the issue names), the same operands (uniform [-1, 1), rotated past
L2), providers in turns in one process, each verified first against float64 with D poisoned with
NaN, then timed with CUDA events (medians). Also both DSLs' cold compile and first call.

f16 in and out, f32 accumulation, for every provider: the CuTe DSL example's 16-bit inputs are
Float16 only (its is_valid_dtypes), tessel's example takes f16 or bf16; the issue used f16 too.

    PYTHONPATH=$PWD/cutedsl-site/nvidia_cutlass_dsl/dsl_packages:$PYTHONPATH \
        python3 bench/cute_dsl_compare.py --example cutedsl-b/dense_gemm_persistent.py [--out FILE] [--rounds 5] [--reps 10]

D = A @ B^T with A (M, K) and B (N, K) row-major and D (M, N) row-major is the example's
C[m, n, l] = sum_k A[m, k, l] B[n, k, l] with its "k"-major A and B and "n"-major C: each matrix
passed as a (rows, cols, 1) view with strides (cols, 1, rows * cols) and a dynamic layout, as its
run() builds them (cutlass.torch.matrix, cute_tensor_like). Exits 0 with a message when the CuTe
DSL cannot be imported, nonzero with one line when a provider fails verification.
"""

import argparse
import hashlib
import importlib.util
import os
import statistics
import sys
import time
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "examples" / "python"))
sys.path.insert(0, str(HERE))

SHAPES = [(8192, 8192, 8192), (4096, 6144, 4096), (8192, 18432, 7168)]
TILE = (128, 256)
F16_RELATIVE = 2.0**-9  # one rounding to f16 (2^-11) with room for cuBLAS's f16 reductions


def load_example(path):
    """The example imported by path (the CuTe DSL must import), or exit 0 saying why not."""
    os.environ.setdefault("CUTE_DSL_DISABLE_FILE_CACHING", "1")  # every compile cold, also on a warm machine
    try:
        import cutlass.cute as cute
    except ImportError as e:
        print(f"CuTe DSL not importable ({e}): skipped; set PYTHONPATH to cutedsl-site/nvidia_cutlass_dsl/dsl_packages")
        sys.exit(0)
    if not hasattr(cute.arch, "ProxyKind"):
        # The example's epilogue names cute.arch.ProxyKind.async_shared and SharedSpace.shared_cta;
        # 4.8.1 no longer exports them, and its fence_proxy takes the strings they stood for.
        cute.arch.ProxyKind = types.SimpleNamespace(async_shared="async.shared")
        cute.arch.SharedSpace = types.SimpleNamespace(shared_cta="cta")
    spec = importlib.util.spec_from_file_location("dense_gemm_persistent", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def as_mnl(t):
    """A row-major (rows, cols) torch matrix as the example's (rows, cols, 1) cute tensor."""
    from cutlass.cute.runtime import from_dlpack
    return from_dlpack(t.unsqueeze(0).permute(1, 2, 0), assumed_align=16).mark_layout_dynamic(leading_dim=1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--example", required=True, help="path to dense_gemm_persistent.py")
    ap.add_argument("--out")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=10)
    args = ap.parse_args()
    import torch  # before the CuTe DSL, in the example's order
    ex = load_example(args.example)
    import cuda.bindings.driver as cuda
    import cutlass
    import cutlass.cute as cute
    import tessel
    from tessel.jit import cache
    from front_door import operands, sets_for
    from torch_timing import events_time, worst_error_share, write_report
    import hopper_gemm as hg

    digest = hashlib.sha256(Path(args.example).read_bytes()).hexdigest()[:12]
    lines = [f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}, CuTe DSL {cutlass.__version__}, "
             f"example {args.example} (sha256 {digest}...); f16 in and out (the CuTe DSL example's 16-bit type), "
             "f32 accumulation, uniform [-1, 1), D poisoned with NaN",
             f"Tile {TILE[0]}x{TILE[1]} for all; CuTe DSL kernels: HopperWgmmaGemmPersistentKernel(Float32, {TILE}, "
             "cluster, swizzle_size=1, raster_along_m=True), max_active_clusters from HardwareInfo"]
    stream = cuda.CUstream(torch.cuda.current_stream().cuda_stream)
    max_clusters = {c: cutlass.utils.HardwareInfo().get_max_active_clusters(c) for c in (1, 2)}
    cold = {}

    def cute_compile(cluster, tensors):
        kernel = ex.HopperWgmmaGemmPersistentKernel(cutlass.Float32, TILE, (cluster, 1), 1, True)
        t0 = time.perf_counter()
        fn = cute.compile(kernel, *tensors, max_clusters[cluster], stream)
        fn(*tensors, stream)
        torch.cuda.synchronize()
        cold.setdefault(f"CuTe DSL {cluster}x1 compile + first call (trace, MLIR, cubin; no file cache)",
                        time.perf_counter() - t0)
        return fn

    def shape_row(m, n, k):
        """One shape: every provider verified on two operand sets, then timed in turns; the table's row."""
        sets = operands(m, n, k, torch.float16, sets_for(m, n, k))  # (A, B^T view, D)
        bias = torch.zeros(n, device="cuda", dtype=torch.float16)
        dsl_sets = [[tessel.from_dlpack(t) for t in (A, Bt.t(), D, bias)] for A, Bt, D in sets]
        cute_sets = [[as_mnl(t) for t in (A, Bt.t(), D)] for A, Bt, D in sets]
        if not cold:
            cache.clear()
            t0 = time.perf_counter()
        compiled = tessel.compile(hg.gemm, *dsl_sets[0], "none", False)
        if not cold:
            compiled(*dsl_sets[0])
            torch.cuda.synchronize()
            cold["tessel DSL compile + first call (trace + NVRTC, empty disk cache)"] = time.perf_counter() - t0
        clustered = tessel.compile(hg.gemm, *dsl_sets[0], "none", False, 2)
        cute1, cute2 = cute_compile(1, cute_sets[0]), cute_compile(2, cute_sets[0])
        index = {id(s[0]): i for i, s in enumerate(sets)}
        runs = {"torch": lambda A, B, D: torch.matmul(A, B, out=D),
                "dsl": lambda A, B, D: compiled(*dsl_sets[index[id(A)]]),
                "dsl2": lambda A, B, D: clustered(*dsl_sets[index[id(A)]]),
                "cute1": lambda A, B, D: cute1(*cute_sets[index[id(A)]], stream),
                "cute2": lambda A, B, D: cute2(*cute_sets[index[id(A)]], stream)}
        errors = {}
        for name, run in runs.items():
            for A, Bt, D in sets[:2]:  # two operand sets: each call must take its own set's tensors
                D.fill_(float("nan"))
                run(A, Bt, D)
                torch.cuda.synchronize()
                errors[name] = max(errors.get(name, 0.0), worst_error_share(A, Bt, D, F16_RELATIVE))
            if not errors[name] <= 1:
                write_report(lines, args.out)
                raise SystemExit(f"{m}x{n}x{k}: {name} failed verification (worst error {errors[name]:.3g} of the budget)")
        times = {name: [] for name in runs}
        for _ in range(args.rounds):
            for name, run in runs.items():
                times[name] += events_time(run, sets, args.reps)
        tf = {name: 2 * m * n * k / (statistics.median(v) * 1e-3) / 1e12 for name, v in times.items()}
        return (f"{m}x{n}x{k} | {tf['torch']:.0f} | {tf['dsl']:.0f} | {tf['dsl2']:.0f} | {tf['cute1']:.0f} | "
                f"{tf['cute2']:.0f} | {tf['dsl'] / tf['cute1']:.3f} | {tf['dsl2'] / tf['cute2']:.3f} | "
                f"{tf['dsl'] / tf['torch']:.3f} | {tf['cute2'] / tf['torch']:.3f} | "
                + ", ".join(f"{name} {e:.2f}" for name, e in errors.items()))

    lines.append("shape | torch TFLOP/s | DSL | DSL 2x1 | CuTe 1x1 | CuTe 2x1 | DSL / CuTe 1x1 | DSL 2x1 / CuTe 2x1 | "
                 "DSL / torch | CuTe 2x1 / torch | worst error share (of the f16 budget)")
    for m, n, k in SHAPES:
        lines.append(shape_row(m, n, k))
        print(lines[-1], flush=True)
        torch.cuda.empty_cache()
    lines += [f"{what}: {s:.2f} s" for what, s in cold.items()]
    write_report(lines, args.out)


if __name__ == "__main__":
    main()
