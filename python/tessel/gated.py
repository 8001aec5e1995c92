"""SiLU-and-multiply on PyTorch tensors: the gate of a SwiGLU MLP block, fused.

    h = tessel.silu_mul(g, u)                 # silu(g) * u, one pass: reads g and u, writes h
    dg, du = silu_mul_backward(dh, g, u)      # its gradient, one pass: reads dh, g, u

g and u are one shape and dtype (float32, float16 or bfloat16) on one CUDA device; each value is
computed in float32 and rounded once. The kernels are tessel::elementwise's (silu_mul.hpp),
compiled by NVRTC on first use (tessel/jit/elementwise.py) and launched through the driver on
PyTorch's current stream. torch.ops.tessel.silu_mul (tessel/ops.py) is the same as a custom op with
a fake kernel and this backward, and tessel.nn.GatedMLP uses it between its projections.
"""

from __future__ import annotations

import struct

import torch
from torch import Tensor

from . import _core
from .jit import compiler, elementwise

_ELEMENTS = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16"}
_kernels: dict = {}  # (kernel, element, vec, device) -> _core.RawKernel


def check_operands(op: str, names: tuple, tensors: tuple) -> None:
    """The rules every operand of the fused kernels follows (shared with the fake kernels):
    tensors of one shape, one floating dtype the kernels take, one device."""
    first_name, first = names[0], tensors[0]
    for name, t in zip(names, tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}: {name} must be a torch.Tensor, not {type(t).__name__}")
        if t.dtype not in _ELEMENTS:
            raise TypeError(f"{op}: {name} is {t.dtype}; the kernel takes float32, float16 or bfloat16 (cast with .to())")
        if t.dtype != first.dtype:
            raise TypeError(f"{op}: {name} is {t.dtype} and {first_name} {first.dtype}; give both one dtype")
        if t.shape != first.shape:
            raise ValueError(f"{op}: {name} has shape {tuple(t.shape)} and {first_name} {tuple(first.shape)}; they are "
                             "multiplied elementwise, so give them one shape (no broadcasting)")
        if t.device != first.device:
            raise ValueError(f"{op}: {name} is on {t.device} and {first_name} on {first.device}; move them to one device")


def _kernel(name: str, element: str, vec: int, device: int):
    key = (name, element, vec, device)
    kernel = _kernels.get(key)
    if kernel is None:
        target = compiler.target_for(_core.compute_capability(device))
        cubin, symbol = elementwise.compile_kernels(element, target)[(name, vec)]
        layout = elementwise.PARAMS_LAYOUT[name]
        offsets = [offset for param, offset in layout.items() if param != "size"]
        kernel = _kernels[key] = _core.RawKernel(cubin, symbol, target, 0, offsets)
    return kernel


def _launch(name: str, inputs: tuple, outputs: tuple) -> None:
    """Launch `name` over contiguous `inputs` into the fresh `outputs` (same shape and dtype)."""
    first = inputs[0]
    n = first.numel()
    if n == 0:
        return
    element = _ELEMENTS[first.dtype]
    aligned = all(t.data_ptr() % 16 == 0 for t in inputs + outputs)
    vec = elementwise.vector(element, aligned)
    threads = n // vec + 1  # one per whole pack, and one for the n % vec elements left
    grid = -(-threads // elementwise.THREADS)
    if grid >= 2 ** 31:
        raise ValueError(f"{name}: {n} elements need more CTAs than a launch's grid holds; split the tensors")
    device = first.device.index
    params = struct.pack(f"<{len(inputs) + len(outputs)}Qq", *(t.data_ptr() for t in inputs + outputs), n)
    stream = torch.cuda.current_stream(first.device).cuda_stream
    _kernel(name, element, vec, device).launch(grid, 1, 1, elementwise.THREADS, 1, 1, 0, stream, device, params)


def _on_device(op: str, tensors: tuple) -> tuple:
    if not tensors[0].is_cuda:
        raise ValueError(f"{op}: the operands are on {tensors[0].device}; the kernel runs on a CUDA device: pass .cuda() "
                         "tensors (or use torch.nn.functional.silu(g) * u on the CPU)")
    return tuple(t.contiguous() for t in tensors)


def silu_mul(g: Tensor, u: Tensor) -> Tensor:
    """silu(g) * u in one pass, as a new contiguous tensor of g's shape and dtype."""
    check_operands("tessel.silu_mul", ("g", "u"), (g, u))
    g, u = _on_device("tessel.silu_mul", (g, u))
    h = torch.empty_like(g)
    _launch("silu_mul", (g, u), (h,))
    return h


def silu_mul_backward(dh: Tensor, g: Tensor, u: Tensor) -> tuple:
    """(dg, du) = (dh * u * silu'(g), dh * silu(g)) in one pass: silu_mul's gradient."""
    check_operands("tessel.silu_mul_backward", ("dh", "g", "u"), (dh, g, u))
    dh, g, u = _on_device("tessel.silu_mul_backward", (dh, g, u))
    dg, du = torch.empty_like(g), torch.empty_like(u)
    _launch("silu_mul_backward", (dh, g, u), (dg, du))
    return dg, du


__all__ = ["check_operands", "silu_mul", "silu_mul_backward"]
