"""Which kernel tessel.gemm would choose on a Hopper GPU for each shape, and why; no GPU needed.

    python -m tessel.explain [--sms 132] [--dtype bf16] [--layout-b col] [--epilogue relu] MxNxK ...
    python -m tessel.explain --dtype e4m3 [--fast-accum] MxNxK ...

Each shape is D = A @ B with A row-major M x K, B as --layout-b ("col": B = W.t() for a row-major
N x K weight, as torch.nn.Linear computes; "row": B is K x N row-major) and D row-major, with no C
(a decode shape may then run as D^T = B^T A^T, "on D^T"), dense (rows K elements apart, or N for
B row-major: where that is an odd multiple of 16 bytes the tiles that have one run their cluster
twins, registry.cluster_twin). FP8 (e4m3, e5m2) is tessel.scaled_mm's
call with per-tensor or row-wise scales: B column-major, D bfloat16, --fast-accum as
torch._scaled_mm's use_fast_accum (without it, the promoted-accumulation kernel). The
answer is the registry heuristic's (tessel/jit/registry.py) on a GPU with --sms SMs; a tuning
cache entry (tessel.tune) can override it on the machine that measured it.
"""

from __future__ import annotations

import argparse
import re
import sys

from . import _core
from .gemm import _shape as _shape_triple
from .gemm import dense_alignment
from .jit import registry, small_n
from .jit.config import EPILOGUES, element_name
from .jit.sm90_rules import FP8
from .jit.status import ConfigError, is_integer


def _shape(text: str) -> tuple:
    m = re.fullmatch(r"(\d+)x(\d+)x(\d+)", text.strip())
    if not m or min(map(int, m.groups())) <= 0:
        raise argparse.ArgumentTypeError(f"shape {text!r}: write M x N x K as three positive integers, e.g. 4096x4096x4096")
    return tuple(map(int, m.groups()))


def _sm_count(sms, name: str = "sms") -> int:
    if not is_integer(sms) or sms.__index__() < 1:
        raise ValueError(f"{name} {sms!r}: give the GPU's SM count, a positive integer")
    return sms.__index__()


def explain(shapes, dtype: str = "bf16", layout_b: str = "col", epilogue: str = "linear", sms: int = 132,
            fast_accum: bool = False) -> list[tuple]:
    """(shape, kernel name, reason) for each shape. FP8 dtypes: tessel.scaled_mm's choice (bf16
    out; fast_accum as torch._scaled_mm's use_fast_accum)."""
    sms = _sm_count(sms)
    shapes = [_shape_triple(shape) for shape in shapes]
    element = element_name(dtype)
    fp8 = element in FP8
    if fast_accum and not fp8:
        raise ConfigError("kErrorInvalidProblem", f"--fast-accum is FP8's (torch._scaled_mm's use_fast_accum); {element} "
                                                  "always accumulates in f32: leave it out or give --dtype e4m3 or e5m2")
    if fp8 and (layout_b != "col" or epilogue != "linear"):
        raise ConfigError("kErrorInvalidLayout", f"FP8 ({element}) reads B column-major (B = W.t()) with the linear "
                                                 "combination: leave --layout-b and --epilogue at their defaults")
    out_element = "bf16" if fp8 else element
    promoted = fp8 and not fast_accum
    candidates = registry.hopper_configs(element, out_element, "row", layout_b, epilogue, promoted)
    # D^T = B^T A^T (no C): A^T is column-major, B^T row-major where B is column-major.
    flipped = ("row" if layout_b == "col" else "col", "col")
    transposed = registry.hopper_configs(element, out_element, *flipped, epilogue, promoted)
    out = []
    for shape in shapes:
        if not candidates:
            out.append((shape, "-", "no Hopper kernel is shipped"))
            continue
        m, n, k = shape
        rings = small_n.takes(element, out_element, flipped, epilogue, promoted)
        plan = _core.small_n_plan(n, m, k, sms, small_n.element_bytes(element), promoted) if rings else None
        if plan is not None:  # a package built with the rings (nvcc, sm_90a) runs this one
            ring = small_n.Ring(element, *plan)
            out.append((shape, ring.name + " on D^T", small_n.reason(ring, m, n, k, sms)))
            continue
        straddle = dense_alignment(element, layout_b, shape) == 16
        choice = registry.refine(registry.choose_oriented(candidates, transposed, *shape, sms, straddle), straddle, m, n, sms)
        out.append((shape, choice.config.name + (" on D^T" if choice.transpose_d else ""), choice.reason))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tessel.explain", description=__doc__.splitlines()[0])
    ap.add_argument("shapes", nargs="+", type=_shape, metavar="MxNxK")
    ap.add_argument("--sms", type=int, default=132, help="the GPU's SM count (H100 SXM and H200: 132)")
    ap.add_argument("--dtype", default="bf16", help="A's, B's and D's element type: bf16 or f16; or e4m3 or e5m2 (A and B, "
                                                    "D bf16: tessel.scaled_mm)")
    ap.add_argument("--fast-accum", action="store_true", help="FP8: torch._scaled_mm's use_fast_accum=True (else promoted)")
    ap.add_argument("--layout-b", choices=("col", "row"), default="col")
    ap.add_argument("--epilogue", choices=EPILOGUES, default="linear")
    args = ap.parse_args(argv)
    try:
        _sm_count(args.sms, "--sms")
    except ValueError as e:
        ap.error(str(e))
    try:
        rows = explain(args.shapes, args.dtype, args.layout_b, args.epilogue, args.sms, args.fast_accum)
    except ConfigError as e:
        print(f"tessel.explain: {e}", file=sys.stderr)
        return 2
    for (m, n, k), name, reason in rows:
        print(f"{m}x{n}x{k}: {name}\n    {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
