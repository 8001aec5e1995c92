"""tessel's GEMMs as PyTorch operators: torch.library custom ops with fake (meta) kernels and
autograd formulas, and the functions a model calls (matmul, linear) on top of them.

    torch.ops.tessel.mm(a, b, bias=None, activation="linear", out_dtype=None)
        act(a @ b + bias): a (M, K), b (K, N), bias (N,), row- or column-major each.
    torch.ops.tessel.bmm(a, b, out_dtype=None)
        a (L, M, K) @ b (L, K, N), any batch strides.
    torch.ops.tessel.grouped_mm(a, b, offs, out_dtype=None)
        torch._grouped_mm's 2-D x 3-D case: a (T, K) holding the groups' rows one after another,
        b (G, K, N), offs (G,) int32 end rows; one grouped launch (tessel.grouped_gemm).
    torch.ops.tessel.scaled_grouped_mm(a, b, scale_a, scale_b, offs=None, bias=None, out_dtype=None, use_fast_accum=False)
        torch._scaled_grouped_mm's row-wise FP8 grouped GEMM: a (T, K) with offs, or (G, M, K)
        without; b (G, K, N) K-major; scale_a one per row of a, scale_b (G, N); one launch.
    torch.ops.tessel.scaled_mm(a, b, scale_a, scale_b, bias=None, out_dtype=None, use_fast_accum=False)
        torch._scaled_mm's FP8 GEMM: scale_a * scale_b * (a @ b) + bias, e4m3 or e5m2 a (M, K)
        row-major and b (K, N) column-major, float32 scales read on the device: one element
        each, row-wise (scale_a (M, 1), scale_b (1, N)), or blockwise (scale_a (M, ceil(K/128)),
        scale_b (ceil(K/128), ceil(N/128)); e4m3).
    torch.ops.tessel.quantize_fp8_1x128(x)
        (q, scale): bfloat16/float16 x (M, K) to e4m3 with one float32 scale per row and 128 of K,
        scale (M, ceil(K/128)) with strides (1, M): scaled_mm's a and blockwise scale_a.
    torch.ops.tessel.silu_mul(g, u)
        silu(g) * u in one pass, the gate of a SwiGLU MLP block, with a one-pass backward
        (tessel/gated.py); tessel.nn.GatedMLP calls it between its projections.

float32 operands run on TF32 tensor cores (Hopper) where torch.backends.cuda.matmul.allow_tf32
allows it, as torch.matmul does; otherwise the ops refuse them with a TypeError.

The ops run tessel.gemm (the dispatcher: one registry of kernels, chosen by shape), so the
backward GEMMs (dA = dD B^T, dB = A^T dD) take the same path as the forward. Because each op has a
fake kernel, torch.compile(fullgraph=True) traces a model that calls them without a graph break,
and torch.library.opcheck holds the registrations to the real kernel.

Importing this module imports torch; `import tessel` does not, but imports this module where
torch is imported already (elsewhere tessel.matmul, tessel.linear and tessel.nn load it on first
use).
"""

from __future__ import annotations

import math
from typing import Optional

import torch
from torch import Tensor

from .gemm import gemm as _gemm
from .gemm import gemm_batched as _gemm_batched
from .gemm import gemm_block_scaled as _gemm_block_scaled
from .gemm import gemm_ex as _gemm_ex
from .gemm import gemm_rowwise as _gemm_rowwise
from .grouped import _check as _grouped_check
from .grouped import _check_scales as _grouped_check_scales
from .grouped import _out_dtype as _grouped_out_dtype
from .grouped import grouped_gemm as _grouped_gemm
from .gated import check_operands as _check_gated
from .gated import silu_mul as _silu_mul
from .gated import silu_mul_backward as _silu_mul_backward
from .quant import check_quantize_input as _check_quantize_input
from .quant import empty_outputs as _quantize_outputs
from .quant import quantize_fp8_1x128 as _quantize_fp8_1x128

ACTIVATIONS = ("linear", "relu", "gelu", "silu")  # tessel.gemm's epilogues; "linear" is none
_KERNEL_DTYPES = (torch.float16, torch.bfloat16)
_FP8_DTYPES = (torch.float8_e4m3fn, torch.float8_e5m2)
_BLOCK = 128    # elements of K (and rows of b's N) per block scale (kernel::kBlockScaleK, kBlockScaleN)
_TMA_FP8 = 16   # FP8 elements in the 16 bytes TMA needs of a leading dimension
# torch's own function for each activation: what the kernels' epilogues compute, for the paths
# that run it unfused (tessel.linear under autograd, tessel.nn.Linear's fallback).
TORCH_ACTIVATIONS = {"linear": lambda y: y, "relu": torch.relu, "gelu": torch.nn.functional.gelu,
                     "silu": torch.nn.functional.silu}


def _activation(name) -> str:
    name = "linear" if name is None else name
    if name not in ACTIVATIONS:
        raise ValueError(f"activation {name!r}: choose None (or 'linear'), 'relu', 'gelu' (erf form) or 'silu'")
    return name


def _require_tensor(op: str, name: str, x) -> None:
    """TypeError for an argument that is no tensor, before anything reads its attributes."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: {name} must be a torch.Tensor, not {type(x).__name__}")


def _check_matrices(op: str, a: Tensor, b: Tensor, batched: bool) -> None:
    """The shape and dtype checks the real and the fake kernel share, so that a traced model
    fails where the eager one would, with the same sentence."""
    rank = 3 if batched else 2
    for name, x in (("a", a), ("b", b)):
        if x.dim() != rank:
            raise ValueError(f"{op}: {name} has {x.dim()} dimensions, {tuple(x.shape)}; it takes {rank}"
                             + ("" if batched else " (tessel.matmul takes batches and vectors)"))
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"{op}: a is {tuple(a.shape)} and b is {tuple(b.shape)}: a's last extent (K) must equal b's "
                         "second-to-last")
    if batched and a.shape[0] != b.shape[0]:
        raise ValueError(f"{op}: a has {a.shape[0]} batches and b {b.shape[0]}: give both the same batch count "
                         "(tessel.matmul broadcasts)")
    if a.dtype != b.dtype:
        raise TypeError(f"{op}: a is {a.dtype} but b is {b.dtype}: give both the same dtype")
    if a.dtype == torch.float32 and not tf32_allowed():
        raise TypeError(f"{op}: float32 operands run on TF32 tensor cores, which torch.backends.cuda.matmul.allow_tf32 "
                        "(or torch.set_float32_matmul_precision('high')) allows, and it is off: turn it on, or call "
                        "torch.matmul for full float32 precision")
    if a.dtype not in _KERNEL_DTYPES and a.dtype != torch.float32:
        hint = ("FP8 operands go through tessel.ops.scaled_mm (torch._scaled_mm's arguments)" if a.dtype in _FP8_DTYPES
                else "cast to torch.bfloat16 or torch.float16")
        raise TypeError(f"{op}: operands are {a.dtype}; tessel's tensor-core kernels take float16 and bfloat16 (and "
                        f"float32 as TF32): {hint}")


def tf32_allowed() -> bool:
    """Whether float32 GEMMs may run on TF32 tensor cores: PyTorch's own switch for torch.matmul."""
    return bool(torch.backends.cuda.matmul.allow_tf32)


def _k_major(a: Tensor, b: Tensor) -> tuple:
    """float32 a with K contiguous (row-major) and b with K contiguous (column-major), copied where
    they are not: the layouts the TF32 kernel reads (wgmma transposes 16-bit types only). Where K
    is not a multiple of 4 (16 bytes, which TMA needs of a leading dimension), both are copied
    with K padded by zeros, which add nothing to the product."""
    pad = -a.shape[-1] % 4
    if pad or a.stride(-1) != 1 or a.stride(-2) % 4:
        # (A pad of nothing clones with the input's strides: contiguous() after it.)
        a = torch.nn.functional.pad(a, (0, pad)).contiguous()  # (..,M,K+pad)
    if pad or b.stride(-2) != 1 or b.stride(-1) % 4:
        b = torch.nn.functional.pad(b.transpose(-1, -2), (0, pad)).contiguous().transpose(-1, -2)  # (..,K+pad,N), K contiguous
    return a, b


def _out_dtype(a: Tensor, out_dtype: Optional[torch.dtype]) -> torch.dtype:
    out = a.dtype if out_dtype is None else out_dtype
    if out not in (torch.float16, torch.bfloat16, torch.float32):
        raise TypeError(f"out_dtype {out!r}: tessel writes torch.float32, torch.float16 or torch.bfloat16")
    return out


def _check_bias(bias: Optional[Tensor], n: int) -> None:
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != n):
        raise ValueError(f"tessel::mm: bias has shape {tuple(bias.shape)}; give one value per output column, ({n},)")


def as_matrix(x: Tensor) -> Tensor:
    """x itself when its last two modes are row- or column-major (a transposed view included),
    else a row-major copy: tessel's kernels read those two layouts, torch.matmul any strides."""
    rows, cols = x.shape[-2], x.shape[-1]
    s0, s1 = x.stride(-2), x.stride(-1)
    if (s1 == 1 or cols == 1) and (s0 >= cols or rows == 1):
        return x
    if (s0 == 1 or rows == 1) and (s1 >= rows or cols == 1):
        return x
    return x.contiguous()


# ---- tessel::mm ---------------------------------------------------------------------------------

@torch.library.custom_op("tessel::mm", mutates_args=())
def mm(a: Tensor, b: Tensor, bias: Optional[Tensor] = None, activation: str = "linear",
       out_dtype: Optional[torch.dtype] = None) -> Tensor:
    """act(a @ b + bias) on tessel's kernels. a (M, K), b (K, N), bias (N,) or None."""
    _check_matrices("tessel::mm", a, b, batched=False)
    out = _out_dtype(a, out_dtype)
    _check_bias(bias, b.shape[1])
    epilogue = None if _activation(activation) == "linear" else activation
    # Below autograd (the op's formula records the graph), so the kernels see plain tensors.
    a, b = as_matrix(a.detach()), as_matrix(b.detach())
    # The bias as C with row stride 0: every row of C is the bias (the kernels read C at
    # row * ldc + col), so nothing M x N is materialized.
    c = None if bias is None else bias.detach().to(out).contiguous().expand(a.shape[0], b.shape[1])  # (M,N):(0,1)
    beta = 0.0 if c is None else 1.0
    if a.dtype == torch.float32:
        a, b = _k_major(a, b)
        return _gemm_ex(a, b, c, beta=beta, out_dtype=out, epilogue=epilogue, tf32=True)
    return _gemm(a, b, c, beta=beta, out_dtype=out, epilogue=epilogue)


@mm.register_fake
def _mm_fake(a, b, bias=None, activation="linear", out_dtype=None):
    _check_matrices("tessel::mm", a, b, batched=False)
    _activation(activation)
    _check_bias(bias, b.shape[1])
    return a.new_empty((a.shape[0], b.shape[1]), dtype=_out_dtype(a, out_dtype))


def _activation_grad(activation: str, pre: Tensor, grad: Tensor) -> Tensor:
    """grad * act'(pre) in float32, for the erf GELU and SiLU the kernels fuse."""
    x, g = pre.float(), grad.float()
    if activation == "silu":
        s = torch.sigmoid(x)
        return g * s * (1 + x * (1 - s))
    cdf = 0.5 * (1 + torch.erf(x * (1 / math.sqrt(2))))
    pdf = torch.exp(-0.5 * x * x) * (1 / math.sqrt(2 * math.pi))
    return g * (cdf + x * pdf)


def _column_major(x: Tensor) -> bool:
    return x.stride(-2) == 1 and x.stride(-1) != 1


def _product_like(x: Tensor, lhs: Tensor, rhs: Tensor) -> Tensor:
    """lhs @ rhs in x's layout, so that a gradient lands as its input is stored: for b = W.t()
    (a Linear's weight, column-major as b) the GEMM writes W's gradient row-major, (rhs^T lhs^T)^T,
    and autograd hands it to W without a transposing copy."""
    if _column_major(x):
        return mm(rhs.t(), lhs.t()).t()
    return mm(lhs, rhs)


def _mm_setup(ctx, inputs, output):
    a, b, bias, activation, _ = inputs
    ctx.activation = _activation(activation)
    ctx.bias_dtype = None if bias is None else bias.dtype
    # Which inputs want a gradient, read here: the formula's ctx.needs_input_grad leaves out
    # arguments given as None.
    ctx.wants = (a.requires_grad, b.requires_grad, bias is not None and bias.requires_grad)
    # relu's derivative is read off the output; gelu's and silu's need the pre-activation, which
    # the backward recomputes (one more GEMM): tessel.linear runs those two unfused when it
    # records a graph, so this path serves direct calls of the op only.
    ctx.save_for_backward(a, b, bias, output if ctx.activation == "relu" else None)


def _mm_backward(ctx, grad):
    a, b, bias, output = ctx.saved_tensors
    if ctx.activation == "relu":
        grad = torch.where(output > 0, grad, torch.zeros((), dtype=grad.dtype, device=grad.device))
    elif ctx.activation in ("gelu", "silu"):
        grad = _activation_grad(ctx.activation, mm(a, b, bias, "linear", torch.float32), grad)
    g = as_matrix(grad.to(a.dtype))  # (M,N)
    grad_a = _product_like(a, g, b.t()) if ctx.wants[0] else None  # (M,K) = (M,N) @ (N,K)
    grad_b = _product_like(b, a.t(), g) if ctx.wants[1] else None  # (K,N) = (K,M) @ (M,N)
    grad_bias = grad.sum(0, dtype=torch.float32).to(ctx.bias_dtype) if ctx.wants[2] else None
    return grad_a, grad_b, grad_bias, None, None


mm.register_autograd(_mm_backward, setup_context=_mm_setup)


# ---- tessel::bmm --------------------------------------------------------------------------------

@torch.library.custom_op("tessel::bmm", mutates_args=())
def bmm(a: Tensor, b: Tensor, out_dtype: Optional[torch.dtype] = None) -> Tensor:
    """a (L, M, K) @ b (L, K, N) -> (L, M, N): one launch of the Hopper kernel's batch mode."""
    _check_matrices("tessel::bmm", a, b, batched=True)
    d = a.new_empty((a.shape[0], a.shape[1], b.shape[2]), dtype=_out_dtype(a, out_dtype))  # (L,M,N)
    a, b = as_matrix(a.detach()), as_matrix(b.detach())
    tf32 = a.dtype == torch.float32
    if tf32:
        a, b = _k_major(a, b)
    return _gemm_batched(a, b, d, tf32=tf32)


@bmm.register_fake
def _bmm_fake(a, b, out_dtype=None):
    _check_matrices("tessel::bmm", a, b, batched=True)
    return a.new_empty((a.shape[0], a.shape[1], b.shape[2]), dtype=_out_dtype(a, out_dtype))


def _bmm_setup(ctx, inputs, output):
    a, b, _ = inputs
    ctx.wants = (a.requires_grad, b.requires_grad)
    ctx.save_for_backward(a, b)


def _bmm_backward(ctx, grad):
    a, b = ctx.saved_tensors
    g = as_matrix(grad.to(a.dtype))  # (L,M,N)
    grad_a = bmm(g, b.transpose(1, 2)) if ctx.wants[0] else None  # (L,M,K)
    grad_b = bmm(a.transpose(1, 2), g) if ctx.wants[1] else None  # (L,K,N)
    return grad_a, grad_b, None


bmm.register_autograd(_bmm_backward, setup_context=_bmm_setup)


# ---- tessel::grouped_mm -------------------------------------------------------------------------

@torch.library.custom_op("tessel::grouped_mm", mutates_args=())
def grouped_mm(a: Tensor, b: Tensor, offs: Tensor, out_dtype: Optional[torch.dtype] = None) -> Tensor:
    """torch._grouped_mm's 2-D x 3-D case: a (T, K) with the groups' rows one after another, b
    (G, K, N), offs (G,) int32 the groups' end rows -> (T, N), in one grouped launch."""
    return _grouped_gemm(a.detach(), b.detach(), offs, out_dtype=out_dtype)


@grouped_mm.register_fake
def _grouped_mm_fake(a, b, offs, out_dtype=None):
    # tessel.grouped_gemm's own rules (all but the device's), so that a traced call fails as an
    # eager one does, and D's dtype by its rule (bfloat16 for float8 a).
    _grouped_check(a, b, offs, "offs", False)
    _grouped_check_scales(a, b, None, None, False)
    return a.new_empty((a.shape[0], b.shape[2]), dtype=_grouped_out_dtype(a, out_dtype))


def _grouped_mm_setup(ctx, inputs, output):
    a, b, offs, _ = inputs
    ctx.wants = (a.requires_grad, b.requires_grad)
    ctx.save_for_backward(a, b, offs)


def _weight_grad(a: Tensor, g: Tensor, offs: Tensor, groups: int) -> Tensor:
    """dB_g = A_g^T dD_g (G, K, N): a sum over each group's rows, which the grouped kernel (ragged
    M, fixed K) does not compute; torch._grouped_mm's ragged-K mode where this PyTorch has it,
    else one matmul per group (reading offs on the host)."""
    if hasattr(torch, "_grouped_mm"):
        try:
            return torch._grouped_mm(a.t().contiguous(), g, offs=offs).to(a.dtype)
        except RuntimeError:
            pass  # layouts or dtypes this PyTorch's grouped kernel refuses: the loop below
    ends = offs.tolist()
    out = a.new_zeros((groups, a.shape[1], g.shape[1]))
    begin = 0
    for i, end in enumerate(ends):
        if end > begin:
            out[i] = a[begin:end].t() @ g[begin:end]
        begin = max(begin, end)
    return out


def _grouped_mm_backward(ctx, grad):
    a, b, offs = ctx.saved_tensors
    g = grad.to(a.dtype).contiguous()  # (T,N)
    grad_a = grouped_mm(g, b.transpose(1, 2), offs) if ctx.wants[0] else None  # (T,K)
    grad_b = _weight_grad(a, g, offs, b.shape[0]) if ctx.wants[1] else None  # (G,K,N)
    return grad_a, grad_b, None, None


grouped_mm.register_autograd(_grouped_mm_backward, setup_context=_grouped_mm_setup)


# ---- tessel::scaled_grouped_mm ------------------------------------------------------------------

def _check_scaled_grouped(a: Tensor, b: Tensor, scale_a: Tensor, scale_b: Tensor, offs: Optional[Tensor],
                          scale_result: Optional[Tensor], out_dtype: Optional[torch.dtype]) -> tuple:
    """torch._scaled_grouped_mm's cases that tessel runs (2-D a with offs, 3-D a without: the
    groups' M rows each) and its row-wise scales; returns (D's shape, D's dtype)."""
    op = "tessel::scaled_grouped_mm"
    if a.dtype not in _FP8_DTYPES:
        raise TypeError(f"{op}: a is {a.dtype}; give torch.float8_e4m3fn or torch.float8_e5m2 (tessel.grouped_gemm takes "
                        "16-bit operands)")
    if b.dim() != 3 or a.dim() != (2 if offs is not None else 3):
        raise ValueError(f"{op}: a {tuple(a.shape)} and b {tuple(b.shape)}{' with offs' if offs is not None else ''}: tessel "
                         "runs a (T, K) with offs and a (G, M, K) without, each against b (G, K, N)")
    if scale_result is not None:
        raise ValueError(f"{op}: scale_result scales an FP8 output; tessel writes float16 or bfloat16, so pass None")
    rows = (a.shape[0],) if offs is not None else tuple(a.shape[:2])
    if tuple(scale_a.shape) != rows or tuple(scale_b.shape) != (b.shape[0], b.shape[2]):
        raise ValueError(f"{op}: scale_a {tuple(scale_a.shape)} and scale_b {tuple(scale_b.shape)}: give torch's row-wise "
                         f"scales, scale_a {rows} (one per row of a) and scale_b {(b.shape[0], b.shape[2])} (one per column of "
                         "each group's result)")
    out = _grouped_out_dtype(a, out_dtype)
    return (*a.shape[:-1], b.shape[2]), out


@torch.library.custom_op("tessel::scaled_grouped_mm", mutates_args=())
def scaled_grouped_mm(a: Tensor, b: Tensor, scale_a: Tensor, scale_b: Tensor, offs: Optional[Tensor] = None,
                      bias: Optional[Tensor] = None, scale_result: Optional[Tensor] = None, out_dtype: Optional[torch.dtype] = None,
                      use_fast_accum: bool = False) -> Tensor:
    """torch._scaled_grouped_mm on tessel's grouped FP8 kernels, with its row-wise scales:

        D[rows of group g] = scale_a[row] * scale_b[g, n] * (a_g @ b[g])[row, n] + bias[g, n]

    a (T, K) with offs (G,) int32 the groups' end rows, or (G, M, K) without (every group M
    rows); b (G, K, N) K-major (b = w.transpose(1, 2) of a (G, N, K) w), both float8_e4m3fn or
    both float8_e5m2; scale_a (T,) or (G, M) and scale_b (G, N) float32 on a's device; bias (N,)
    or (G, N), or None; out_dtype bfloat16 (the default) or float16; use_fast_accum=False runs
    the promoted kernel. One launch; the group sizes are read on the device."""
    _check_scaled_grouped(a, b, scale_a, scale_b, offs, scale_result, out_dtype)
    if offs is not None:
        return _grouped_gemm(a, b, offs, out_dtype=out_dtype, scale_a=scale_a, scale_b=scale_b, bias=bias,
                             use_fast_accum=use_fast_accum)
    counts = torch.full((b.shape[0],), a.shape[1], dtype=torch.int32, device=a.device)
    return _grouped_gemm(a, b, counts=counts, out_dtype=out_dtype, scale_a=scale_a, scale_b=scale_b, bias=bias,
                         use_fast_accum=use_fast_accum)


@scaled_grouped_mm.register_fake
def _scaled_grouped_mm_fake(a, b, scale_a, scale_b, offs=None, bias=None, scale_result=None, out_dtype=None,
                            use_fast_accum=False):
    shape, out = _check_scaled_grouped(a, b, scale_a, scale_b, offs, scale_result, out_dtype)
    if offs is not None:
        _grouped_check(a, b, offs, "offs", False)
    return a.new_empty(shape, dtype=out)


# ---- tessel::scaled_mm --------------------------------------------------------------------------

def _check_scaled(a: Tensor, b: Tensor, scale_a: Tensor, scale_b: Tensor, bias: Optional[Tensor],
                  out_dtype: Optional[torch.dtype], scale_result: Optional[Tensor]) -> torch.dtype:
    """torch._scaled_mm's argument rules as tessel runs them (shared by the real and the fake
    kernel); returns the output dtype."""
    op = "tessel::scaled_mm"
    for name, x in (("a", a), ("b", b)):
        if x.dim() != 2:
            raise ValueError(f"{op}: {name} has {x.dim()} dimensions, {tuple(x.shape)}; it takes matrices")
        if x.dtype not in _FP8_DTYPES:
            raise TypeError(f"{op}: {name} is {x.dtype}; give torch.float8_e4m3fn or torch.float8_e5m2 (tessel.matmul "
                            "takes 16-bit operands)")
    if a.dtype != b.dtype:
        raise TypeError(f"{op}: a is {a.dtype} but b is {b.dtype}: tessel's FP8 kernels take one FP8 type for both")
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"{op}: a is {tuple(a.shape)} and b is {tuple(b.shape)}: a's columns (K) must equal b's rows")
    if a.stride(1) != 1 or b.stride(0) != 1:
        raise ValueError(f"{op}: a must be row-major and b column-major (b = w.t() of a row-major w), as for "
                         f"torch._scaled_mm; got strides {a.stride()} and {b.stride()}")
    for name, s in (("scale_a", scale_a), ("scale_b", scale_b)):
        if s.dtype != torch.float32:
            raise TypeError(f"{op}: {name} is {s.dtype}; scales are float32 (the dequantization factors): pass "
                            f"{name}.float()")
        if s.device != a.device:  # the kernel reads the scales where a lives
            raise ValueError(f"{op}: {name} is on {s.device} but a is on {a.device}: put the scales on a's device")
    if scale_result is not None:
        raise ValueError(f"{op}: scale_result scales an FP8 output; tessel writes float32, float16 or bfloat16, so pass None")
    out = torch.bfloat16 if out_dtype is None else out_dtype
    if out not in (torch.float16, torch.bfloat16, torch.float32):
        raise TypeError(f"{op}: out_dtype {out}: tessel writes float32, float16 or bfloat16 (FP8 outputs are not supported)")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != b.shape[1]):
        raise ValueError(f"{op}: bias has shape {tuple(bias.shape)}; give one value per output column, ({b.shape[1]},)")
    if _scaling(a, b, scale_a, scale_b) == "block":
        _check_block_scaled(a, b, out)
    return out


def _scaling(a: Tensor, b: Tensor, scale_a: Tensor, scale_b: Tensor) -> str:
    """Which of torch._scaled_mm's modes the scales' shapes say: "tensor" (one element each),
    "rowwise" (scale_a (M, 1), one per row of a; scale_b (1, N), one per column of b) or "block"
    (scale_a (M, ceil(K/128)) per row and 128 of K, scale_b (ceil(K/128), ceil(N/128)) per 128 x
    128 block of b); ValueError for any other shapes. Where two modes fit the same shapes (one
    row, one column or one block), they compute the same product."""
    if scale_a.numel() == 1 and scale_b.numel() == 1:
        return "tensor"
    (m, k), n = a.shape, b.shape[1]
    if tuple(scale_a.shape) == (m, 1) and tuple(scale_b.shape) == (1, n):
        return "rowwise"
    kb, nb = -(-k // _BLOCK), -(-n // _BLOCK)
    if tuple(scale_a.shape) == (m, kb) and tuple(scale_b.shape) == (kb, nb):
        return "block"
    raise ValueError(f"tessel::scaled_mm: scale_a {tuple(scale_a.shape)} and scale_b {tuple(scale_b.shape)} are none of "
                     f"torch._scaled_mm's modes: per-tensor (one element each); row-wise, scale_a (M, 1) = ({m}, 1) and "
                     f"scale_b (1, N) = (1, {n}); or blockwise, scale_a (M, ceil(K/128)) = ({m}, {kb}), one per row and 128 of "
                     f"K, and scale_b (ceil(K/128), ceil(N/128)) = ({kb}, {nb}), one per 128 x 128 block of b "
                     "(tessel.quantize_fp8_1x128 makes a's block scales)")


def _check_block_scaled(a: Tensor, b: Tensor, out: torch.dtype) -> None:
    """What the block-scaled kernel (schedule 'cooperative_blockscaled') takes beyond the per-tensor
    rules: e4m3 operands, a bfloat16 output, and a and b readable by TMA."""
    op = "tessel::scaled_mm"
    if a.dtype != torch.float8_e4m3fn:
        raise TypeError(f"{op}: block scales run on the e4m3 kernel (torch._scaled_mm's blockwise recipe), but a and b are "
                        f"{a.dtype}: quantize to torch.float8_e4m3fn (tessel.quantize_fp8_1x128)")
    if out != torch.bfloat16:
        raise TypeError(f"{op}: out_dtype {out} with block scales: the block-scaled kernel writes bfloat16, as "
                        "torch._scaled_mm's blockwise mode does; pass out_dtype=torch.bfloat16 (and cast the result)")
    k = a.shape[1]
    # Empty operands are not read (the op returns the bias, or zeros): their strides, which
    # PyTorch gives as 1 along an extent of 0, do not matter.
    read = 0 not in a.shape and b.shape[1] != 0
    if k % _TMA_FP8 or (read and ((a.shape[0] > 1 and a.stride(0) % _TMA_FP8) or (b.shape[1] > 1 and b.stride(1) % _TMA_FP8))):
        raise ValueError(f"{op}: K = {k} with row strides {a.stride(0)} (a) and {b.stride(1)} (b): the block-scaled kernel "
                         f"reads a and b by TMA, which needs K and both leading dimensions to be multiples of {_TMA_FP8} "
                         "(16 bytes); pad K with zeros (the scales' blocks stay as they are)")


@torch.library.custom_op("tessel::scaled_mm", mutates_args=())
def scaled_mm(a: Tensor, b: Tensor, scale_a: Tensor, scale_b: Tensor, bias: Optional[Tensor] = None,
              scale_result: Optional[Tensor] = None, out_dtype: Optional[torch.dtype] = None,
              use_fast_accum: bool = False) -> Tensor:
    """torch._scaled_mm on tessel's Hopper FP8 kernels: scale_a * scale_b * (a @ b) + bias.

    a (M, K) row-major and b (K, N) column-major, both float8_e4m3fn or both float8_e5m2; bias
    (N,) or None; out_dtype float32, float16 or bfloat16 (default bfloat16: tessel writes no FP8
    output, so scale_result must be None). The scales are the dequantization factors (real a =
    scale_a * a), float32 on a's device, read there, in one of torch._scaled_mm's two modes:

    per tensor: scale_a and scale_b one element each. use_fast_accum=False runs the kernel that
        adds each K tile's sum into f32 registers (promoted accumulation); True the faster one
        that accumulates in the tensor core's own precision throughout.
    row-wise: scale_a (M, 1), one per row of a, and scale_b (1, N), one per column of b:
            D[m, n] = scale_a[m] * scale_b[n] * (a @ b)[m, n] + bias[n]
        applied to the f32 accumulators in the kernel's epilogue; any element strides, any
        out_dtype, use_fast_accum as for per-tensor scales. The kernel is tessel.gemm's choice
        for the shape, built with row-wise scales (compiled on first use).
    blockwise (DeepSeek-V3's recipe): scale_a (M, ceil(K/128)), one per row and 128 of K, and
        scale_b (ceil(K/128), ceil(N/128)), one per 128 x 128 block of b:
            D[m, n] = sum_kb scale_a[m, kb] * scale_b[kb, n // 128] * sum_{k in block kb} a[m, k] b[k, n]
        e4m3 only, out_dtype bfloat16, K a multiple of 16. Any element strides; torch's
        layouts (scale_a strides (1, M), scale_b (1, ceil(K/128))) let TMA carry the scales,
        others run the kernel's slower scale warp. Accumulation is always promoted (each block's
        sum is scaled into f32 registers), so use_fast_accum is ignored."""
    out = _check_scaled(a, b, scale_a, scale_b, bias, out_dtype, scale_result)
    c = None if bias is None else bias.to(out).contiguous().expand(a.shape[0], b.shape[1])  # (M,N):(0,1)
    mode = _scaling(a, b, scale_a, scale_b)
    if mode != "tensor" and (0 in a.shape or b.shape[1] == 0):  # nothing to launch: D is the bias (or zeros)
        d = a.new_zeros((a.shape[0], b.shape[1]), dtype=out)
        return d if c is None else d + c
    if mode == "block":
        return _gemm_block_scaled(a, b, c, beta=0.0 if c is None else 1.0, scale_a=scale_a, scale_b=scale_b)
    if mode == "rowwise":
        return _gemm_rowwise(a, b, c, beta=0.0 if c is None else 1.0, out_dtype=out, scale_a=scale_a, scale_b=scale_b,
                             promoted=not use_fast_accum)
    return _gemm_ex(a, b, c, beta=0.0 if c is None else 1.0, out_dtype=out, scale_a=scale_a, scale_b=scale_b,
                    promoted=not use_fast_accum)


@scaled_mm.register_fake
def _scaled_mm_fake(a, b, scale_a, scale_b, bias=None, scale_result=None, out_dtype=None, use_fast_accum=False):
    out = _check_scaled(a, b, scale_a, scale_b, bias, out_dtype, scale_result)
    return a.new_empty((a.shape[0], b.shape[1]), dtype=out)


# ---- tessel::quantize_fp8_1x128 -----------------------------------------------------------------

@torch.library.custom_op("tessel::quantize_fp8_1x128", mutates_args=())
def quantize_fp8_1x128(x: Tensor) -> tuple[Tensor, Tensor]:
    """(q, scale) = x quantized to e4m3 per block of 128 of a row (tessel/quant.py): x (M, K)
    bfloat16 or float16, row-major, K a multiple of 4; q (M, K) float8_e4m3fn and scale
    (M, ceil(K/128)) float32 with strides (1, M), amax / 448 per block, so that
    x ~= q * scale blockwise. They are scaled_mm's a and blockwise scale_a."""
    return _quantize_fp8_1x128(x.detach())


@quantize_fp8_1x128.register_fake
def _quantize_fp8_1x128_fake(x):
    _check_quantize_input(x, "tessel::quantize_fp8_1x128")
    return _quantize_outputs(x)


# ---- tessel::silu_mul ------------------------------------------------------------------------

@torch.library.custom_op("tessel::silu_mul", mutates_args=())
def silu_mul(g: Tensor, u: Tensor) -> Tensor:
    """silu(g) * u in one pass (tessel/gated.py): g and u one shape, float32, float16 or
    bfloat16, on a CUDA device. Its backward is one pass too, recomputing the sigmoid from g
    rather than saving silu(g)."""
    return _silu_mul(g, u)


@silu_mul.register_fake
def _silu_mul_fake(g, u):
    _check_gated("tessel::silu_mul", ("g", "u"), (g, u))
    return torch.empty_like(g, memory_format=torch.contiguous_format)


@torch.library.custom_op("tessel::silu_mul_backward", mutates_args=())
def silu_mul_backward(dh: Tensor, g: Tensor, u: Tensor) -> tuple[Tensor, Tensor]:
    """(dg, du) = (dh * u * silu'(g), dh * silu(g)): silu_mul's gradient in one pass."""
    return _silu_mul_backward(dh, g, u)


@silu_mul_backward.register_fake
def _silu_mul_backward_fake(dh, g, u):
    _check_gated("tessel::silu_mul_backward", ("dh", "g", "u"), (dh, g, u))
    return (torch.empty_like(g, memory_format=torch.contiguous_format),
            torch.empty_like(u, memory_format=torch.contiguous_format))


def _silu_mul_setup(ctx, inputs, output):
    ctx.save_for_backward(*inputs)


def _silu_mul_grad(ctx, grad):
    g, u = ctx.saved_tensors
    return silu_mul_backward(grad, g, u)


silu_mul.register_autograd(_silu_mul_grad, setup_context=_silu_mul_setup)


# ---- what a model calls -------------------------------------------------------------------------

def matmul(a: Tensor, b: Tensor, *, out_dtype: Optional[torch.dtype] = None) -> Tensor:
    """torch.matmul's semantics on tessel's kernels: vectors, matrices, and batches that broadcast
    (a 2-D weight shared by a batch runs as one GEMM over the flattened batch)."""
    _require_tensor("tessel.matmul", "a", a)
    _require_tensor("tessel.matmul", "b", b)
    if a.dim() == 0 or b.dim() == 0:
        raise ValueError(f"tessel.matmul: both arguments need at least 1 dimension, got {a.dim()} and {b.dim()}")
    if a.dim() == 1 and b.dim() == 1:
        return matmul(a.unsqueeze(0), b.unsqueeze(1), out_dtype=out_dtype).reshape(())
    if a.dim() == 1:
        return matmul(a.unsqueeze(0), b, out_dtype=out_dtype).squeeze(-2)
    if b.dim() == 1:
        return matmul(a, b.unsqueeze(1), out_dtype=out_dtype).squeeze(-1)
    if b.dim() == 2:
        k = a.shape[-1]
        lead = a.shape[:-1]
        d = mm(a.reshape(-1, k), b, None, "linear", out_dtype)  # (prod(lead),N)
        return d.reshape(*lead, b.shape[1])
    try:
        batch = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except RuntimeError:
        raise ValueError(f"tessel.matmul: a is {tuple(a.shape)} and b is {tuple(b.shape)}, whose batch dimensions "
                         f"{tuple(a.shape[:-2])} and {tuple(b.shape[:-2])} do not broadcast: give batch extents that are "
                         "equal or 1") from None
    a3 = a.expand(*batch, *a.shape[-2:]).reshape(-1, *a.shape[-2:])  # (L,M,K)
    b3 = b.expand(*batch, *b.shape[-2:]).reshape(-1, *b.shape[-2:])  # (L,K,N)
    return bmm(a3, b3, out_dtype).reshape(*batch, a.shape[-2], b.shape[-1])


def linear(x: Tensor, weight: Tensor, bias: Optional[Tensor] = None, activation: Optional[str] = None) -> Tensor:
    """act(x @ weight.T + bias), torch.nn.functional.linear's arguments plus a fused activation:
    x (..., in), weight (out, in), bias (out,). While autograd records (a tensor requires grad),
    gelu and silu run unfused, torch's activation after tessel's GEMM, so that the backward has
    the pre-activation without a second GEMM; relu and the plain linear stay fused."""
    for name, t in (("x", x), ("weight", weight), ("bias", bias)):
        if t is not None or name != "bias":
            _require_tensor("tessel.linear", name, t)
    act = _activation(activation)
    if weight.dim() != 2:
        raise ValueError(f"tessel.linear: weight has shape {tuple(weight.shape)}; give (out_features, in_features)")
    if x.dim() == 0 or x.shape[-1] != weight.shape[1]:
        raise ValueError(f"tessel.linear: x has shape {tuple(x.shape)} and weight {tuple(weight.shape)}: x's last extent "
                         "must equal weight's in_features")
    lead = x.shape[:-1]
    x2 = x.reshape(-1, weight.shape[1])  # (tokens,in)
    records = torch.is_grad_enabled() and any(t is not None and t.requires_grad for t in (x, weight, bias))
    if act in ("gelu", "silu") and records:
        y = mm(x2, weight.t(), bias, "linear", None)
        y = TORCH_ACTIVATIONS[act](y)
    else:
        y = mm(x2, weight.t(), bias, act, None)  # (tokens,out)
    return y.reshape(*lead, weight.shape[0])
