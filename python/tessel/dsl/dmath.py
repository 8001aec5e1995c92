"""tessel.math: float functions inside a kernel (the CuTe DSL's cute.math), on Float32 values.

The fast forms (PTX's ex2.approx, rcp.approx) are what an epilogue's activation wants; each
function takes and returns Float32 (narrower inputs are widened first).
"""

from __future__ import annotations

from . import dtypes as T
from .ir import as_value, builder, convert

_LOG2E = 1.4426950408889634


def _f32(x):
    return convert(as_value(x, T.Float32), T.Float32)


def _call(fn: str, x):
    b = builder()
    b.features.add("math")
    return b.let(T.Float32, f"tessel_dsl::{fn}({_f32(x).expr})")


def exp2(x):
    """2^x (ex2.approx.ftz)."""
    return _call("ex2", x)


def exp(x):
    """e^x as 2^(x log2 e)."""
    return exp2(_f32(x) * _LOG2E)


def log2(x):
    return _call("lg2", x)


def rcp(x):
    """1 / x (rcp.approx.ftz)."""
    return _call("rcp", x)


def maximum(a, b):
    return builder().let(T.Float32, f"fmaxf({_f32(a).expr}, {_f32(b).expr})")


def minimum(a, b):
    return builder().let(T.Float32, f"fminf({_f32(a).expr}, {_f32(b).expr})")


def tanh(x):
    """tanh.approx.f32 (sm_75 and later)."""
    return builder().let(T.Float32, f"[&] {{ float y; asm(\"tanh.approx.f32 %0, %1;\" : \"=f\"(y) : \"f\"({_f32(x).expr})); return y; }}()")
