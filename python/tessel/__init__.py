"""tessel from Python: the layout algebra, and tensor-core GEMMs on PyTorch tensors.

    import torch, tessel
    A = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    B = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    D = tessel.gemm(A, B.t())                  # a transposed view: no copy
    kernel = tessel.compile(tessel.GemmConfig(element="bf16", out="bf16", tile=(128, 256, 32)))
    D = kernel(A, B.t())

tessel.layout holds the algebra (Layout, composition, logical_divide, ...). tessel.matmul,
tessel.linear, tessel.bmm, tessel.scaled_mm and tessel.nn.Linear are the PyTorch-facing layer
(tessel/ops.py: the torch.library operators torch.ops.tessel.mm, bmm, with autograd, and
scaled_mm); they import torch on first use, and `import tessel` alone does not.
"""

from . import layout
from ._core import CudaError, GemmError
from .gemm import gemm, kernel_for, tune, warmup
from .jit.compiler import CompiledGemm, compile, target_for  # noqa: A004 (tessel.compile is the API)
from .jit.config import GemmConfig
from .jit.nvrtc import CompileError

__version__ = "0.1.0"

_TORCH_NAMES = {"matmul": "ops", "linear": "ops", "bmm": "ops", "scaled_mm": "ops", "ops": None, "nn": None}


def __getattr__(name):
    """tessel.ops, tessel.nn and their functions, imported (with torch) on first use."""
    if name not in _TORCH_NAMES:
        raise AttributeError(f"module 'tessel' has no attribute {name!r}")
    import importlib
    module = importlib.import_module(f".{_TORCH_NAMES[name] or name}", __name__)
    return module if _TORCH_NAMES[name] is None else getattr(module, name)


__all__ = ["bmm", "linear", "matmul", "nn", "ops", "scaled_mm", "CompileError", "CompiledGemm", "CudaError", "GemmConfig", "GemmError", "compile", "gemm", "kernel_for", "layout", "target_for", "tune", "warmup"]
