"""FP8 quantization with per-block scales on PyTorch tensors: the input side of the block-scaled
GEMM (tessel.scaled_mm with torch._scaled_mm's blockwise scales).

    q, scale = tessel.quantize_fp8_1x128(x)        # x (M, K) bfloat16 or float16, row-major, CUDA
    # q (M, K) float8_e4m3fn; scale (M, ceil(K/128)) float32, strides (1, M): x ~= q * scale per block

Each block of 128 consecutive elements of a row of x becomes 128 e4m3 values and one scale,
amax / 448 (1 for a block of zeros), so that every block uses e4m3's whole range. The kernel is
tessel::quant::quantize_fp8_1x128_kernel (quant/fp8_quantize.hpp), compiled by nvcc when the
package was built (jit/quantize.py); it is launched here through the driver, on PyTorch's current
stream. torch.ops.tessel.quantize_fp8_1x128 (tessel/ops.py) is the same as a custom op with a
fake kernel.
"""

from __future__ import annotations

import struct

import torch
from torch import Tensor

from . import _core
from .jit import prebuilt, quantize

_INPUTS = {torch.bfloat16: "bf16", torch.float16: "f16"}
_OP = "tessel.quantize_fp8_1x128"
_kernels: dict = {}  # (input element, device) -> _core.RawKernel


def check_quantize_input(x: Tensor, op: str = _OP) -> None:
    """The argument rules of the quantize kernel (shared by the eager call and the fake kernel);
    ValueError or TypeError naming what is wrong and how to fix it."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: x must be a torch.Tensor, not {type(x).__name__}")
    if x.dim() != 2:
        raise ValueError(f"{op}: x has {x.dim()} dimensions, {tuple(x.shape)}; give an (M, K) matrix (reshape a batch "
                         "of rows to (-1, K) first)")
    if x.dtype not in _INPUTS:
        raise TypeError(f"{op}: x is {x.dtype}; the kernel quantizes torch.bfloat16 or torch.float16 (cast with .to())")
    if x.shape[1] % quantize.VECTOR:
        raise ValueError(f"{op}: K = {x.shape[1]} is not a multiple of {quantize.VECTOR} (the kernel loads "
                         f"{quantize.VECTOR} elements at a time); pad K with zeros, which change no block's scale")
    m, k = x.shape
    # An empty x has nothing to read: its strides (PyTorch's (1, 1) for (M, 0)) do not matter.
    if m and k and ((k > 1 and x.stride(1) != 1) or (m > 1 and x.stride(0) % quantize.VECTOR)):
        raise ValueError(f"{op}: x must be row-major (K contiguous) with a row stride that is a multiple of "
                         f"{quantize.VECTOR}; got strides {x.stride()}: pass x.contiguous()")


def empty_outputs(x: Tensor) -> tuple:
    """q (M, K) float8_e4m3fn and the scales (M, ceil(K/128)) float32 with strides (1, M), as
    torch._scaled_mm takes a blockwise scale_a (each K block's column of scales contiguous)."""
    m, k = x.shape
    blocks = -(-k // quantize.BLOCK)
    q = torch.empty((m, k), dtype=torch.float8_e4m3fn, device=x.device)
    scales = torch.empty((blocks, m), dtype=torch.float32, device=x.device).t()  # (M,KB):(1,M)
    return q, scales


def _kernel(element: str, device: int):
    key = (element, device)
    kernel = _kernels.get(key)
    if kernel is None:
        cc = _core.compute_capability(device)
        found = prebuilt.find_quantize(element, cc)
        if found is None:
            raise RuntimeError(f"{_OP}: this package has no quantize kernel for compute capability {cc // 10}.{cc % 10}; it "
                               "runs a kernel nvcc compiles when the package is built: rebuild with nvcc on PATH and this GPU's "
                               "architecture in TESSEL_PYTHON_KERNEL_ARCHS (e.g. 90a)")
        data, symbol, target = found
        p = quantize.PARAMS_LAYOUT
        offsets = [p[name] for name in ("x", "ldx", "m", "k", "q", "ldq", "scales", "ds")]
        kernel = _kernels[key] = _core.RawKernel(data, symbol, target, 0, offsets)
    return kernel


def quantize_fp8_1x128(x: Tensor) -> tuple:
    """(q, scale) for x (M, K) bfloat16 or float16, row-major, on a CUDA device: q (M, K)
    float8_e4m3fn and scale (M, ceil(K/128)) float32 with strides (1, M), so that
    x[m, k] ~= q[m, k] * scale[m, k // 128], each scale amax / 448 over its block of 128 (1 for a
    block of zeros). K must be a multiple of 4; a last block shorter than 128 is scaled by its own
    amax. (q, scale) are tessel.scaled_mm's (and torch._scaled_mm's) a and blockwise scale_a."""
    check_quantize_input(x)
    if not x.is_cuda:
        raise ValueError(f"{_OP}: x is on {x.device}; the kernel runs on a CUDA device: pass x.cuda()")
    q, scales = empty_outputs(x)
    m, k = x.shape
    if m == 0 or k == 0:
        return q, scales
    if x.data_ptr() % (quantize.VECTOR * x.element_size()):
        # A view that starts mid-vector: the kernel loads 4 elements at once from an aligned base.
        x = torch.empty_like(x, memory_format=torch.contiguous_format).copy_(x)
    blocks = m * scales.shape[1]
    grid = -(-blocks // quantize.WARPS)
    if grid >= 2 ** 31:
        raise ValueError(f"{_OP}: {m} x {k} has {blocks} blocks of 128, more than the launch's grid holds; quantize it in "
                         "slices of rows")
    device = x.device.index
    kernel = _kernel(_INPUTS[x.dtype], device)
    ldx = x.stride(0) if m > 1 else k
    # ds = (1, M, 0): the scales' strides over (row, K block, batch).
    params = struct.pack(quantize.PACKING, x.data_ptr(), ldx, m, k, q.data_ptr(), k, scales.data_ptr(), 1, m, 0)
    stream = torch.cuda.current_stream(x.device).cuda_stream
    kernel.launch(grid, 1, 1, quantize.THREADS, 1, 1, 0, stream, device, params)
    return q, scales
