"""tessel from Python: the layout algebra, and tensor-core GEMMs on PyTorch tensors.

    import torch, tessel
    A = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    B = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    D = tessel.gemm(A, B.t())                  # a transposed view: no copy
    kernel = tessel.compile(tessel.GemmConfig(element="bf16", out="bf16", tile=(128, 256, 32)))
    D = kernel(A, B.t())

tessel.layout holds the algebra (Layout, composition, logical_divide, ...). tessel.matmul,
tessel.linear, tessel.bmm, tessel.scaled_mm, tessel.scaled_grouped_mm, tessel.quantize_fp8_1x128,
tessel.silu_mul, tessel.nn.Linear and tessel.nn.GatedMLP are the PyTorch-facing layer
(tessel/ops.py: the torch.library operators torch.ops.tessel.mm, bmm, grouped_mm, with autograd,
scaled_mm, with per-tensor, row-wise or blockwise FP8 scales, scaled_grouped_mm, with row-wise
ones, quantize_fp8_1x128, and silu_mul, the fused SwiGLU gate with autograd); they
import torch on first use, and `import tessel` alone does not (after `import torch` it registers
the operators). tessel.distributed holds the
tensor-parallel GEMMs on torch.distributed process groups (all_gather_gemm, gemm_reduce_scatter).

tessel.kernel, tessel.jit, tessel.compile(fn, *args), tessel.from_dlpack and tessel.arch are the
kernel DSL (tessel/dsl): kernels written in Python with the CuTe DSL's names.
"""

from . import layout
from ._core import CudaError, GemmError
from .gemm import gemm, kernel_for, tune, warmup
from .grouped import grouped_gemm
from .jit.compiler import CompiledGemm, target_for
from .jit.compiler import compile as _compile_gemm
from .jit.config import GemmConfig
from .jit.nvrtc import CompileError
from . import dsl
from .dsl import (  # noqa: F401 (the kernel DSL, with the CuTe DSL's names)
    BFloat16, Boolean, CompiledFunction, Constexpr, DSLError, Float8E4M3, Float8E5M2, Float16, Float32, Float64, Int8, Int16,
    Int32, Int64, SmemAllocator, Tensor, TensorSSA, Uint8, Uint32, Uint64, arch, blocked_product, coalesce, complement,
    composition, const_expr, fake_tensor, flat_divide, from_dlpack, jit, kernel, left_inverse, local_partition, local_tile,
    logical_divide, logical_product, make_fragment, make_fragment_like, make_layout, make_layout_tv, raked_product,
    range_constexpr, right_inverse, runtime, select, tiled_divide, tiled_product, zipped_divide, zipped_product, assume,
    make_tensor, make_tma_descriptor, draw_tv_layout, torch_op, make_swizzle, make_tiled_copy_tv, copy, MmaAtom,
    MmaF16BF16Op, WgmmaF16BF16Op, TiledMma, make_tiled_mma, LdMatrix8x8x16bOp, make_copy_atom, make_tiled_copy_A, make_tiled_copy_B,
    make_identity_tensor, elem_less, draw_tiled_mma,
)
from .dsl import math, pipeline  # noqa: F401,E402 (tessel.math: device float functions; tessel.pipeline)
from .dsl import range as range  # noqa: A004,PLC0414


def compile(obj, *args, **kwargs):  # noqa: A001 (tessel.compile is the API)
    """tessel.compile(GemmConfig, target=None): a GEMM configuration compiled with NVRTC (see
    tessel.jit.compiler). tessel.compile(jit_fn, *args, target=None): a @tessel.jit function
    traced and compiled for these arguments (see tessel.dsl)."""
    if isinstance(obj, GemmConfig):
        return _compile_gemm(obj, *args, **kwargs)
    if isinstance(obj, dsl.JitFunction):
        return dsl.compile(obj, *args, **kwargs)
    raise TypeError(f"tessel.compile takes a GemmConfig or a @tessel.jit function, not {type(obj).__name__}")

__version__ = "0.1.0"

_TORCH_NAMES = {"matmul": "ops", "linear": "ops", "bmm": "ops", "scaled_mm": "ops", "grouped_mm": "ops", "scaled_grouped_mm": "ops",
                "quantize_fp8_1x128": "ops", "silu_mul": "ops", "ops": None, "nn": None, "distributed": None}


def __getattr__(name):
    """tessel.ops, tessel.nn and their functions, imported (with torch) on first use."""
    if name not in _TORCH_NAMES:
        raise AttributeError(f"module 'tessel' has no attribute {name!r}")
    import importlib
    module = importlib.import_module(f".{_TORCH_NAMES[name] or name}", __name__)
    return module if _TORCH_NAMES[name] is None else getattr(module, name)


__all__ = ["distributed", "dsl", "kernel", "jit", "from_dlpack", "fake_tensor", "arch", "Tensor", "DSLError", "bmm", "linear", "matmul", "nn", "ops", "quantize_fp8_1x128", "scaled_grouped_mm", "scaled_mm", "silu_mul", "CompileError", "CompiledGemm", "CudaError", "GemmConfig", "GemmError", "compile", "gemm", "grouped_gemm", "kernel_for", "layout", "target_for", "tune", "warmup"]

# A program that has imported torch gets the torch.ops.tessel operators with `import tessel`; one
# that has not keeps `import tessel` free of torch, and registers them on first use of a
# torch-facing name (tessel.ops, tessel.nn, tessel.matmul, ...). A torch tessel.ops cannot load
# with (too old for torch.library.custom_op) fails there, with its own error, not here.
import sys as _sys  # noqa: E402

if "torch" in _sys.modules:
    try:
        from . import ops as _ops  # noqa: F401
    except (ImportError, AttributeError):
        pass
