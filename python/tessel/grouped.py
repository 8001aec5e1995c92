"""Grouped GEMM for mixture-of-experts layers: G GEMMs of one weight shape and ragged token counts
in one launch: on Hopper, the TMA kernel's grouped scheduler (kernel::GroupedScheduler); on
Ampere, Ada and Turing, the mma.sync kernel's tiles walked by a persistent grid
(kernel/sm80_gemm_grouped.hpp), float16 and bfloat16 only (Turing: float16).

    # contiguous: tokens sorted by expert, offs[g] = end row of expert g (torch._grouped_mm's offs)
    out = tessel.grouped_gemm(x, w.transpose(1, 2), offs)          # x (T, K), w (G, N, K) -> (T, N)
    # masked: a padded block of rows per expert, counts on the device (decode under CUDA graphs)
    out = tessel.grouped_gemm(x, w.transpose(1, 2), counts=counts)  # x (G, M, K) -> (G, M, N)

A bias ((N,) for all groups, or (G, N), one row per expert) and an activation (relu, gelu, silu)
run in the kernel's epilogue: tessel.grouped_gemm(x, w, offs, bias=b, activation="silu").

The group sizes are read by the kernel, never by the host: no synchronisation, and the call can
be captured in a CUDA graph while the router writes offs or counts. Rows of D that belong to no
group (past offs[-1], or past counts[g] in a block) are not written.

FP8: A and B float8_e4m3fn (or both float8_e5m2) with torch._scaled_mm's per-tensor scales,
scale_a and scale_b (one float32 each on A's device, the dequantization factors: real A =
scale_a * A), shared by every group; D bfloat16 (or float16), fast accumulation, B K-major.
Or, e4m3, per-block scales (DeepSeek-V3's recipe, as torch._scaled_mm's blockwise mode spells
them for one GEMM): scale_a one per row of A and 128 of K, (rows, ceil(K/128)) with offs or
(G, M, ceil(K/128)) with counts, and scale_b (G, ceil(K/128), ceil(N/128)), one per 128 x 128
block of each group's B, applied to each K block's sum in f32 registers; D bfloat16. TMA carries
the scales in torch._scaled_mm's blockwise layouts (A's row-contiguous, B's K-contiguous: stored
(G, NB, KB), passed transposed); other strides take the kernel's slower scale-warp copies.
Or row-wise scales (torch._scaled_grouped_mm's): scale_a one per row of A, (rows,) with offs or
(G, M) with counts, and scale_b (G, N), one per column of each group's D, applied to the f32
accumulators in the epilogue; e4m3 or e5m2, D bfloat16 or float16, any element strides.

    q, sa = tessel.quantize_fp8_1x128(x)                        # x sorted by expert, (T, K) bf16
    out = tessel.grouped_gemm(q, w8.transpose(1, 2), offs, scale_a=sa, scale_b=sw)   # sw (G, K/128, N/128)
"""

from __future__ import annotations

from typing import NamedTuple

from . import _core
from .gemm import _kernel_for, _scale_strides, _stream, _dispatcher
from .jit.config import EPILOGUES, GemmConfig, block_scaled_tile_n, promoted_wide_tile
from .jit.sm90_rules import BLOCK_SCALE_K, BLOCK_SCALE_N, FP8, tile_k

_ELEMENTS = {"float16": "f16", "bfloat16": "bf16", "float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2"}


def _element(dtype) -> str:
    """tessel's name of a torch dtype the grouped kernels take ("bf16", "e4m3", ...), or ""."""
    return _ELEMENTS.get(str(dtype).split(".")[1], "")


def _torch():
    import torch
    return torch


def config_for(dtype_name: str, out_name: str, b_k_major: bool, bn: int) -> GemmConfig:
    """The Hopper grouped kernel of tile N `bn` (tessel._core.grouped_tile_n's choice, the C++
    front door's rule: dispatch/grouped_tile.hpp)."""
    element = _ELEMENTS[dtype_name]
    return GemmConfig(arch="sm90a", element=element, out=_ELEMENTS[out_name], layout_a="row",
                      layout_b="col" if b_k_major else "row", tile=(128, bn, tile_k(element)), schedule="cooperative",
                      scheduler="grouped")


def mma_sync_config(dtype_name: str, out_name: str, b_k_major: bool, cc: int) -> GemmConfig:
    """The grouped kernel for GPUs without wgmma: the dense Sm80 kernel's default tile (Turing:
    its two-stage float16 kernel) on the grouped walk."""
    element = _ELEMENTS[dtype_name]
    config = GemmConfig(arch="sm80", element=element, out=_ELEMENTS[out_name], layout_a="row",
                        layout_b="col" if b_k_major else "row", scheduler="grouped")
    return config.replace(arch="sm75", stages=2) if cc < 80 else config


def block_scaled_config(tile_n: int = BLOCK_SCALE_N) -> GemmConfig:
    """The grouped kernel for per-block FP8 scales: tessel.scaled_mm's block-scaled kernel (128 x
    tile_n x 128, cooperative, promoted; tile_n 128, or 192 over two blocks of B's scales) on the
    grouped scheduler."""
    return GemmConfig(arch="sm90a", element="e4m3", out="bf16", layout_a="row", layout_b="col",
                      tile=(128, tile_n, BLOCK_SCALE_K), schedule="cooperative_blockscaled", scheduler="grouped")


def _block_scaled_tile_n(A, B, device: int) -> int:
    """The block-scaled tile for these operands: config.block_scaled_tile_n over all the rows A
    holds (_all_rows) and B's N. NOTES: 8 experts 4096 -> 14336 at 4096 tokens ran 1.105x faster
    on 128x192 than on 128x128, 231 tokens 0.97x (H100, 2026-12-06); the rule takes 192 for the
    first and 128 for the second."""
    return block_scaled_tile_n(_all_rows(A), B.shape[-1], _core.sm_count(device))


def _promoted_tile_n(A, B, device: int) -> int:
    """The promoted per-tensor tile for these operands: 192 where config.promoted_wide_tile (the
    rule tessel.scaled_mm follows) takes it over all the rows A holds (_all_rows), else 128.
    NOTES: 8 experts 4096 -> 14336 at 4096 tokens ran 906 TFLOP/s promoted on 128x128 and 999
    per-block on 128x192, whose mainloop is the same halves (H100, 2026-12-06)."""
    return 192 if promoted_wide_tile(_all_rows(A), B.shape[-1], _core.sm_count(device)) else 128


def _all_rows(A) -> int:
    """The rows A holds over all groups: the M the tile rules weigh waves over (each group's row
    tiles are at least its rows over 128)."""
    return A.shape[0] * (A.shape[1] if A.dim() == 3 else 1)


def _check(A, B, group_m, name, masked: bool):
    """grouped_gemm's rules of its operands but where they live (_check_device): shared with
    torch.ops.tessel.grouped_mm's fake kernel, so that a traced call fails where an eager one would."""
    torch = _torch()
    for x, what in ((A, "A"), (B, "B"), (group_m, name)):
        if not isinstance(x, torch.Tensor):
            raise TypeError(f"tessel.grouped_gemm: {what} must be a torch.Tensor, not {type(x).__name__}")
    if not _element(A.dtype) or B.dtype != A.dtype:
        raise TypeError(f"tessel.grouped_gemm: A and B are {A.dtype} and {B.dtype}; the grouped kernels take float16, "
                        "bfloat16, float8_e4m3fn or float8_e5m2, both the same")
    if B.dim() != 3:
        raise ValueError(f"tessel.grouped_gemm: B must be 3-D (groups, K, N), not of shape {tuple(B.shape)}")
    if group_m.dtype != torch.int32 or group_m.dim() != 1 or group_m.shape[0] != B.shape[0]:
        raise ValueError(f"tessel.grouped_gemm: {name} must be a 1-D int32 tensor of one entry per group ({B.shape[0]}), "
                         f"not {group_m.dtype} of shape {tuple(group_m.shape)}")
    if not group_m.is_contiguous():
        raise ValueError(f"tessel.grouped_gemm: {name} must be contiguous")
    if A.dim() != (3 if masked else 2) or (masked and A.shape[0] != B.shape[0]):
        raise ValueError(f"tessel.grouped_gemm: A of shape {tuple(A.shape)}: with {'counts' if masked else 'offs'} A is "
                         f"{'(groups, M, K) with one block per group of B' if masked else '(rows, K)'}")
    if A.shape[-1] != B.shape[1]:
        raise ValueError(f"tessel.grouped_gemm: A's K ({A.shape[-1]}) differs from B's ({B.shape[1]}): A is (rows, K), B (groups, K, N)")
    if A.stride(-1) != 1:
        raise ValueError("tessel.grouped_gemm: A's rows must be contiguous (K stride 1): pass A.contiguous()")
    if B.stride(1) != 1 and B.stride(2) != 1:
        raise ValueError("tessel.grouped_gemm: each group of B must be K-contiguous (a transposed (groups, N, K) weight) or "
                         "N-contiguous: pass B.contiguous()")


def _check_device(A, B, group_m):
    if not (A.is_cuda and B.is_cuda and group_m.is_cuda) or len({A.device, B.device, group_m.device}) != 1:
        raise ValueError("tessel.grouped_gemm: A, B and the group sizes must be CUDA tensors on one device")


def _out_dtype(A, out_dtype, blocks: bool = False, what: str = "out_dtype"):
    """D's dtype: out_dtype, by default A's (bfloat16 for float8 A); TypeError for one the kernels
    do not write (the block-scaled kernel writes bfloat16 only). `what` names where the dtype
    came from in that error."""
    torch = _torch()
    dtype = (torch.bfloat16 if _element(A.dtype) in FP8 else A.dtype) if out_dtype is None else out_dtype
    if dtype not in (torch.float16, torch.bfloat16) or (blocks and dtype != torch.bfloat16):
        raise TypeError(f"tessel.grouped_gemm: {what} {dtype!r}: the grouped kernels write "
                        f"{'torch.bfloat16 with per-block scales' if blocks else 'torch.float16 or torch.bfloat16'}")
    return dtype


class Scales(NamedTuple):
    """FP8 scales as run_grouped takes them: device addresses (0: none) and, for block and row-wise
    scales, element strides as the kernel reads them (A's (row, K block, group), B's (row of B or
    row block, K block, group)); `mode` is "" (no scales), "tensor", "rowwise" or "block"."""
    ptr_a: int = 0
    ptr_b: int = 0
    strides_a: tuple | None = None
    strides_b: tuple | None = None
    mode: str = ""


def _check_scales(A, B, scale_a, scale_b, masked: bool) -> Scales:
    """FP8 operands take both scales, per tensor, row-wise or per block; others none."""
    torch = _torch()
    if _element(A.dtype) not in FP8:
        if scale_a is not None or scale_b is not None:
            raise ValueError(f"tessel.grouped_gemm: scale_a and scale_b are for float8 A and B, not {A.dtype}")
        return Scales()
    if B.stride(1) != 1:
        raise ValueError("tessel.grouped_gemm: float8 B must be K-contiguous (B = w.transpose(1, 2) of a (groups, N, K) w): "
                         "wgmma reads FP8 operands K-major only")
    for s, what in ((scale_a, "scale_a"), (scale_b, "scale_b")):
        if not isinstance(s, torch.Tensor) or s.dtype != torch.float32 or s.device != A.device:
            raise ValueError(f"tessel.grouped_gemm: float8 A and B take {what}, a float32 tensor on A's device (the "
                             "dequantization factors: one per tensor, or per block)")
    if scale_a.numel() == 1 and scale_b.numel() == 1:
        return Scales(scale_a.data_ptr(), scale_b.data_ptr(), mode="tensor")
    G, K, N = B.shape
    if tuple(scale_a.shape) == tuple(A.shape[:-1]) and tuple(scale_b.shape) == (G, N):
        # Row-wise: A's along its rows (batched like A with counts), B's along N for each group.
        strides_a = (*_scale_strides(scale_a, (1, 0)),) if masked else (*_scale_strides(scale_a, (0,)), 0)
        sb_n, sb_g = _scale_strides(scale_b, (1, 0))
        return Scales(scale_a.data_ptr(), scale_b.data_ptr(), (strides_a[0], 0, strides_a[1]), (sb_n, 0, sb_g), "rowwise")
    kb, nb = -(-K // BLOCK_SCALE_K), -(-N // BLOCK_SCALE_N)
    want_a = (*A.shape[:-1], kb)  # (rows, KB) with offs; (G, M, KB) with counts
    if tuple(scale_a.shape) != want_a or tuple(scale_b.shape) != (G, kb, nb):
        a_text = "(groups, M, ceil(K/128))" if masked else "(rows, ceil(K/128))"
        raise ValueError(f"tessel.grouped_gemm: scale_a {tuple(scale_a.shape)} and scale_b {tuple(scale_b.shape)} are none of "
                         f"per-tensor (one element each), row-wise (scale_a {'(groups, M)' if masked else '(rows,)'} = "
                         f"{tuple(A.shape[:-1])} and scale_b (groups, N) = ({G}, {N})) and per block (scale_a {a_text} = "
                         f"{want_a} and scale_b (groups, ceil(K/128), ceil(N/128)) = ({G}, {kb}, {nb}))")
    if A.dtype != torch.float8_e4m3fn:
        raise TypeError(f"tessel.grouped_gemm: per-block scales run on the e4m3 kernel, but A and B are {A.dtype}: quantize "
                        "to torch.float8_e4m3fn (tessel.quantize_fp8_1x128 makes A's block scales)")
    strides_a = _scale_strides(scale_a, (1, 2, 0)) if masked else (*_scale_strides(scale_a, (0, 1)), 0)
    return Scales(scale_a.data_ptr(), scale_b.data_ptr(), strides_a, _scale_strides(scale_b, (2, 1, 0)), "block")


def _groups(offs, counts) -> tuple:
    """(masked, the group sizes' tensor) of the one of offs and counts given."""
    if (offs is None) == (counts is None):
        raise ValueError("tessel.grouped_gemm: give exactly one of offs (contiguous groups) and counts (masked groups)")
    return counts is not None, counts if counts is not None else offs


def _check_epilogue(A, B, bias, activation, dtype):
    """(bias in D's dtype with contiguous columns or None, its stride between groups, the
    activation's name): a bias of one row (N,) shared by the groups or one per group (G, N), on
    A's device; an activation among tessel.gemm's."""
    torch = _torch()
    act = "linear" if activation is None else activation
    if act not in EPILOGUES:
        raise ValueError(f"tessel.grouped_gemm: activation {activation!r}: choose one of {', '.join(EPILOGUES)} (or None)")
    if bias is None:
        return None, 0, act
    G, _, N = B.shape
    if not isinstance(bias, torch.Tensor) or tuple(bias.shape) not in ((N,), (G, N)):
        raise ValueError(f"tessel.grouped_gemm: bias must be a tensor of shape ({N},), shared by the groups, or ({G}, {N}), one "
                         f"row per group, not {getattr(bias, 'shape', type(bias).__name__)}")
    if bias.device != A.device:
        raise ValueError(f"tessel.grouped_gemm: bias is on {bias.device} but A is on {A.device}: put it on A's device")
    bias = bias.to(dtype)
    if bias.stride(-1) != 1:
        bias = bias.contiguous()
    return bias, (bias.stride(0) if bias.dim() == 2 and G > 1 else 0), act


def grouped_gemm(A, B, offs=None, *, counts=None, out_dtype=None, out=None, scale_a=None, scale_b=None, bias=None,
                 activation=None, use_fast_accum=True, config=None):
    """D_g = activation(A_g @ B_g + bias_g) for the G groups of B (G, K, N), in one launch.

    offs:   contiguous layout: A (rows, K), D (rows, N); group g is rows offs[g-1]:offs[g] (int32
            on A's device, non-decreasing; torch._grouped_mm's offs).
    counts: masked layout: A (G, M, K), D (G, M, N); group g is the first counts[g] rows of its
            block (int32 on A's device; values past M count as M).
    out_dtype: D's dtype (out's where out is given, else A's, bfloat16 for float8 A; float16 or bfloat16).
            out: a D to write instead.
    scale_a, scale_b: float8 A and B only: their per-tensor scales (one float32 each, real A =
            scale_a * A); row-wise scales (scale_a (rows,) with offs, (G, M) with counts; scale_b
            (G, N)); or per-block scales (e4m3: scale_a (rows, ceil(K/128)) with offs,
            (G, M, ceil(K/128)) with counts; scale_b (G, ceil(K/128), ceil(N/128)); D bfloat16).
    bias:   (N,) shared by the groups, or (G, N) one row per group (an expert's bias), added to
            every row of its group after the scales; converted to D's dtype.
    activation: "relu", "gelu" (erf) or "silu" applied last, in the kernel's epilogue; None or
            "linear" for none.
    use_fast_accum: float8 with per-tensor or row-wise scales: True (the default) accumulates in
            the tensor core's own precision; False runs the promoted kernel (128 x 128 tiles, each
            K tile's sum added into f32 registers), torch._scaled_mm's use_fast_accum=False.
            Per-block scales always promote.
    config: a GemmConfig with scheduler='grouped' to run instead of the automatic choice
            (kernel_for's); its arch must be one this GPU runs.
    """
    torch = _torch()
    masked, group_m = _groups(offs, counts)
    _check(A, B, group_m, "counts" if masked else "offs", masked)
    _check_device(A, B, group_m)
    scales = _check_scales(A, B, scale_a, scale_b, masked)
    # Without out_dtype, a given out says D's dtype (as torch's out= does); it is checked like one.
    from_out = out_dtype is None and isinstance(out, torch.Tensor)
    dtype = _out_dtype(A, out.dtype if from_out else out_dtype, scales.mode == "block", "out's dtype" if from_out else "out_dtype")
    bias, bias_stride, act = _check_epilogue(A, B, bias, activation, dtype)
    promoted = _promoted(A, use_fast_accum, scales.mode, config)
    G, K, N = B.shape
    shape = (*A.shape[:-1], N)
    if out is None:
        out = torch.empty(shape, dtype=dtype, device=A.device)
    elif not isinstance(out, torch.Tensor) or tuple(out.shape) != shape or out.dtype != dtype or out.device != A.device or \
            out.stride(-1) != 1:
        raise ValueError(f"tessel.grouped_gemm: out must be a {shape} {dtype} tensor on {A.device} with contiguous rows")
    rows = A.shape[-2]
    if rows == 0 or N == 0 or G == 0:
        return out
    if K == 0:
        raise ValueError("tessel.grouped_gemm: K = 0 (an empty inner dimension): D would be all zeros; give K >= 1")
    device = A.device.index if A.device.index is not None else torch.cuda.current_device()
    cfg = _config(A, B, masked, dtype, device, scales.mode, config, None if activation is None else act, promoted)
    first = lambda x: x[0] if masked else x  # noqa: E731 (the first group's matrix)
    _dispatcher.run_grouped(_kernel_for(cfg, device), first(A), B[0], first(out), G, A.stride(0) if masked else 0,
                            B.stride(0), out.stride(0) if masked else 0, group_m.data_ptr(), masked, _stream(None, out), *scales[:4],
                            0 if bias is None else bias.data_ptr(), bias_stride)
    return out


_SCALE_TEXT = {"block": " with block scales", "rowwise": " with row-wise scales"}


def _promoted(A, use_fast_accum, mode: str, config) -> bool:
    """Whether use_fast_accum asks for promoted accumulation, refused where it means nothing."""
    if use_fast_accum not in (True, False):
        raise TypeError(f"tessel.grouped_gemm: use_fast_accum must be True or False, not {use_fast_accum!r}")
    if not use_fast_accum and (_element(A.dtype) not in FP8 or config is not None):
        raise ValueError("tessel.grouped_gemm: use_fast_accum=False selects the promoted FP8 kernel: it is for float8 A and B "
                         "without config= (a configuration says its own schedule)")
    return not use_fast_accum and mode != "block"


def _config(A, B, masked: bool, dtype, device: int, mode: str, config, activation=None, promoted=False) -> GemmConfig:
    """The kernel to run: `config` where given (checked against the problem's kind), else the
    block-scaled kernel for block scales, else by the GPU and the shape (built with row-wise
    scales for those; the promoted 128 x 128 tile where `promoted`). `mode`: the scales'
    (Scales.mode); `activation`: the epilogue's, None for the linear combination (or, with
    `config`, the configuration's own)."""
    if config is None:
        chosen = block_scaled_config(_block_scaled_tile_n(A, B, device)) if mode == "block" else _choose(A, B, masked, dtype, device)
        if promoted:
            chosen = chosen.replace(tile=(128, _promoted_tile_n(A, B, device), chosen.tile[2]), schedule="cooperative_promoted")
        if mode == "rowwise":
            chosen = chosen.replace(scaling="rowwise")
        return chosen if activation in (None, "linear") else chosen.replace(epilogue=activation)
    if not isinstance(config, GemmConfig) or config.scheduler != "grouped":
        raise TypeError(f"tessel.grouped_gemm: config must be a GemmConfig with scheduler='grouped', not {config!r}")
    if activation is not None and config.epilogue != activation:
        raise ValueError(f"tessel.grouped_gemm: activation {activation!r} with config {config.name}, whose epilogue is "
                         f"{config.epilogue!r}: leave activation out, or give a configuration with epilogue={activation!r}")
    kind = (_element(A.dtype), _element(dtype), "col" if B.stride(1) == 1 else "row")
    has = "block" if config.block_scaled else "rowwise" if config.rowwise_scaled else ""
    if (config.element, config.out, config.layout_b) != kind or has != (mode if mode in _SCALE_TEXT else ""):
        raise ValueError(f"tessel.grouped_gemm: config {config.name} computes element {config.element}, out {config.out}, B "
                         f"{config.layout_b}-major{_SCALE_TEXT.get(has, '')}; these operands need "
                         f"element {kind[0]}, out {kind[1]}, B {kind[2]}-major{_SCALE_TEXT.get(mode, '')}")
    return config


def _choose(A, B, masked: bool, dtype, device: int) -> GemmConfig:
    G, _, N = B.shape
    rows = A.shape[-2]
    dtype_name, out_name = str(A.dtype).split(".")[1], str(dtype).split(".")[1]
    cc = _core.compute_capability(device)
    if cc != 90:
        if _element(A.dtype) in FP8:
            raise ValueError(f"tessel.grouped_gemm: FP8 grouped GEMM runs on tessel's Hopper kernel (compute capability 9.0); "
                             f"this GPU is {cc // 10}.{cc % 10}: use float16 or bfloat16 operands")
        if cc < 80 and A.dtype != _torch().float16:
            raise ValueError(f"tessel.grouped_gemm: on compute capability {cc // 10}.{cc % 10} (Turing's m16n8k8) the grouped "
                             f"kernel takes float16, not {A.dtype}")
        return mma_sync_config(dtype_name, out_name, B.stride(1) == 1, cc)
    bn = _core.grouped_tile_n(rows, N, G, masked, _core.sm_count(device))
    return config_for(dtype_name, out_name, B.stride(1) == 1, bn)


def kernel_for(A, B, offs=None, *, counts=None, out_dtype=None, scale_a=None, scale_b=None, activation=None,
               use_fast_accum=True, config=None) -> GemmConfig:
    """The GemmConfig grouped_gemm would run for these operands (without running it)."""
    torch = _torch()
    masked, group_m = _groups(offs, counts)
    _check(A, B, group_m, "counts" if masked else "offs", masked)
    _check_device(A, B, group_m)
    mode = _check_scales(A, B, scale_a, scale_b, masked).mode if scale_a is not None or scale_b is not None else ""
    dtype = _out_dtype(A, out_dtype, mode == "block")
    device = A.device.index if A.device.index is not None else torch.cuda.current_device()
    act = _check_epilogue(A, B, None, activation, dtype)[2]
    promoted = _promoted(A, use_fast_accum, mode, config)
    return _config(A, B, masked, dtype, device, mode, config, None if activation is None else act, promoted)
