"""tessel from Python: the layout algebra, and tensor-core GEMMs on PyTorch tensors.

    import torch, tessel
    A = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    B = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    D = tessel.gemm(A, B.t())                  # a transposed view: no copy
    kernel = tessel.compile(tessel.GemmConfig(element="bf16", out="bf16", tile=(128, 256, 32)))
    D = kernel(A, B.t())

tessel.layout holds the algebra (Layout, composition, logical_divide, ...).
"""

from . import layout
from ._core import CudaError, GemmError
from .gemm import gemm, kernel_for, tune, warmup
from .jit.compiler import CompiledGemm, compile, target_for  # noqa: A004 (tessel.compile is the API)
from .jit.config import GemmConfig
from .jit.nvrtc import CompileError

__version__ = "0.1.0"

__all__ = ["CompileError", "CompiledGemm", "CudaError", "GemmConfig", "GemmError", "compile", "gemm", "kernel_for", "layout", "target_for", "tune", "warmup"]
