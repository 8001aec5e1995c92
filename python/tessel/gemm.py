"""tessel.gemm: D = epilogue(alpha * A @ B + beta * C) on PyTorch tensors (any DLPack array).

The operands' layouts come from their strides: row- or column-major each, a transposed view
included, with no copy. A call runs a prebuilt kernel when one computes it, otherwise the
configuration it needs is compiled with NVRTC once and cached (tessel.compile). The whole call
runs in C++ (tessel._core.Dispatcher.gemm: operands, D's allocation, the stream, the checks, the
kernel choice and the launch); this module answers the dispatcher's question "which kernel for
this kind of problem?" the first time it is asked, and handles the calls C++ leaves to it (a
configuration, arrays other than PyTorch tensors without `out`).
"""

from __future__ import annotations

import sys

from . import _core
from .jit import compiler, prebuilt, registry, small_n, tuning
from .jit.config import ELEMENT_CODES, EPILOGUES, GemmConfig, block_scaled_config, block_scaled_tile_n, default_config, element_name
from .jit.sm90_rules import ELEMENT_BYTES
from .jit.status import is_integer, refuse

_ELEMENTS = {code: name for name, code in ELEMENT_CODES.items()}
_TORCH_NAMES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32"}
_HOPPER_ONLY = {"e4m3": "FP8 (float8_e4m3fn)", "e5m2": "FP8 (float8_e5m2)", "tf32": "TF32 (float32)"}


def _hopper_only(element: str, layouts: tuple, cc: int, tma_aligned: bool):
    """The refusals of FP8 and TF32 problems no kernel computes: they run on the Hopper kernel
    only, which reads such A and B K-major (A row-major, B column-major, as torch._scaled_mm
    takes them) and through TMA."""
    what = _HOPPER_ONLY[element]
    if cc != 90:
        refuse("kErrorArchMismatch", f"{what} GEMMs run on tessel's Hopper kernel (compute capability 9.0); this GPU is "
                                     f"{cc // 10}.{cc % 10}: use float16 or bfloat16 operands")
    if layouts != ("row", "col"):
        refuse("kErrorInvalidLayout", f"{what} A and B are read K-major: A row-major (M x K, K contiguous) and B column-major "
                                      f"(B = W.t() of a row-major N x K W), not A {layouts[0]}-major and B {layouts[1]}-major "
                                      "(D row-major); pass .contiguous() copies in those layouts")
    if not tma_aligned:
        refuse("kErrorMisalignedOperand", f"{what} A and B are read by TMA: their base addresses and leading dimensions must be "
                                          "16-byte aligned (K a multiple of 16 bytes of elements); pad K or pass aligned copies")


def _choice(element_ab: int, element_c: int, a_row: bool, b_row: bool, epilogue: int, device: int, tma_align: int,
            m: int, n: int, k: int, promoted: bool = False, transposable: bool = False, rowwise: bool = False) -> registry.Choice:
    """The configuration for a kind of problem at a shape, and why. Hopper (compute capability
    9.0) runs a TMA kernel where TMA can read A and B (16-byte-aligned addresses and leading
    dimensions), chosen among the registry's by shape (jit/registry.py), on D^T's problem where
    that puts the weights in the tiles' rows (decode; `transposable`: no C and one matrix); other
    GPUs, and operands TMA cannot read, the Sm80 kernel; Turing (sm_75) the two-stage float16
    kernel; older GPUs have no tensor-core instruction tessel uses. FP8 and TF32 run on Hopper
    only. `rowwise` (FP8 with row-wise scales): the kernel chosen for the same problem with
    per-tensor scales, built with row-wise scales (they cost the epilogue a few loads per tile,
    the mainloop nothing). `tma_align` (the dispatcher's tma_alignment): 0 where TMA cannot read A
    or B, 16 where some of their rows start off a 32-byte sector (the chosen tile's cluster
    twin runs where it fits the problem, registry.with_cluster_twin), 32 where none does."""
    cc = _core.compute_capability(device)
    tma_aligned = tma_align > 0
    element, out = _ELEMENTS[element_ab], _ELEMENTS[element_c]
    layouts = ("row" if a_row else "col", "row" if b_row else "col")
    epilogue_name = EPILOGUES[epilogue]
    if element in _HOPPER_ONLY:
        _hopper_only(element, layouts, cc, tma_aligned)
    if cc == 90 and tma_aligned and transposable:
        ring = _small_n_ring(element, out, a_row, b_row, epilogue_name, promoted, device, m, n, k)
        if ring is not None:  # a ring reads per-tensor and row-wise scales alike
            return ring
    if rowwise:
        choice = _choice(element_ab, element_c, a_row, b_row, epilogue, device, tma_align, m, n, k, promoted, transposable)
        return registry.Choice(choice.config.replace(scaling="rowwise"), choice.transpose_d,
                               f"{choice.reason}; built with row-wise scales")
    if cc == 90 and tma_aligned:
        candidates = registry.hopper_configs(element, out, *layouts, epilogue_name, promoted)
        if not candidates:
            return registry.Choice(default_config(element, out, *layouts, epilogue_name, hopper=True, promoted=promoted), False,
                                   "the default Hopper tile, compiled on first use: no kernel with this epilogue is shipped for this kind")
        transposed = registry.hopper_configs(element, out, *_flipped(a_row, b_row), epilogue_name, promoted) if transposable else []
        tuned = _tuned(candidates, transposed, (element, out, *layouts, epilogue_name), device, m, n, k)
        choice = tuned if tuned is not None else registry.choose_oriented(candidates, transposed, m, n, k, _core.sm_count(device),
                                                                          tma_align == 16)
        return registry.refine(choice, tma_align == 16, m, n, _core.sm_count(device))
    config = default_config(element, out, *layouts, epilogue_name)
    if cc < 80:
        return registry.Choice(config.replace(arch="sm75", stages=2), False, "Turing: the two-stage mma.sync kernel")
    why = "TMA cannot read A or B (base addresses and leading dimensions must be 16-byte aligned)" if cc == 90 else \
        f"compute capability {cc // 10}.{cc % 10} has no Hopper kernel"
    return registry.Choice(config, False, f"the Sm80 kernel: {why}")


def _tuning_key(kind: tuple, device: int, shape: tuple) -> str:
    torch = _torch()
    cc = _core.compute_capability(device)
    gpu = torch.cuda.get_device_name(device) if torch is not None and torch.cuda.is_available() else f"compute capability {cc}"
    from . import __version__
    return tuning.key(gpu, _core.sm_count(device), __version__, kind, shape)


def _small_n_ring(element: str, out: str, a_row: bool, b_row: bool, epilogue: str, promoted: bool, device: int,
                  m: int, n: int, k: int):
    """The small-N TMA ring (jit/small_n.py) on D^T's problem, where its plan takes it (at most 16
    tokens as M, enough weight rows as N: kernel/small_n_rules.hpp) and the package has it; else
    None. bf16 or f16 in and the same out, or e4m3 in and bf16 out; the linear combination; A and
    B K-major on D^T's problem."""
    if not small_n.takes(element, out, _flipped(a_row, b_row), epilogue, promoted):
        return None
    sms = _core.sm_count(device)
    plan = _core.small_n_plan(n, m, k, sms, small_n.element_bytes(element), promoted)
    if plan is None or prebuilt.find_small_n((element, *plan), _core.compute_capability(device)) is None:
        return None
    ring = small_n.Ring(element, *plan)
    return registry.Choice(ring, True, small_n.reason(ring, m, n, k, sms))


def _flipped(a_row: bool, b_row: bool) -> tuple:
    """The layouts of D^T = B^T A^T's A and B: B^T is the new A, A^T the new B, each in the
    other layout."""
    return "row" if not b_row else "col", "row" if not a_row else "col"


_ON_DT = " on D^T"  # a tuning cache entry for a kernel run on D^T's problem: its name and this


def _oriented(candidates, transposed, m: int, n: int, k: int, sms: int) -> list:
    """(configuration, on D^T) of the problem as given and, where registry.transposes says so,
    of D^T's, by the heuristic's estimate, fastest first: what tessel.tune times."""
    ranked = [(e, False) for e in registry.ranked(candidates, m, n, k, sms)]
    if transposed and registry.transposes(m, n, transposed):
        ranked += [(e, True) for e in registry.ranked(registry.narrowest_n(transposed), n, m, k, sms)]
    ranked.sort(key=lambda p: (round(p[0].seconds, 9), p[0].compute))
    return [(e.config, t) for e, t in ranked]


def _tuned(candidates, transposed, kind: tuple, device: int, m: int, n: int, k: int):
    """The choice from the tuning cache (tuning.py), tuning the shape now when TESSEL_TUNE=1 and
    nothing is cached; None where neither applies."""
    if len(candidates) < 2:
        return None
    key = _tuning_key(kind, device, (m, n, k))
    name = tuning.lookup(key)
    if name is None and tuning.enabled():
        name = _tune_shape(candidates, transposed, kind, device, (m, n, k), key)[0]
    for config, on_dt in [(c, False) for c in candidates] + [(c, True) for c in transposed]:
        if config.name + (_ON_DT if on_dt else "") == name:
            return registry.Choice(config, on_dt, "tuned on this GPU: the fastest of the heuristic's first candidates, timed "
                                                  f"({tuning.FILE} in the cache folder)" + (", on D^T's problem" if on_dt else ""))
    return None


def _tune_shape(candidates, transposed, kind: tuple, device: int, shape: tuple, key: str, top: int = 3):
    """Time the heuristic's first `top` candidates (either problem, _oriented) on scratch
    operands of `shape` and store the fastest. Returns (its name, {name: median us}); a kernel
    run on D^T's problem is named with " on D^T"."""
    torch = _torch()
    if torch is None or not torch.cuda.is_available():
        raise RuntimeError("tessel.tune times kernels on scratch PyTorch tensors: import torch, with a CUDA device")
    element, out, layout_a, layout_b, _ = kind
    m, n, k = shape
    first = _oriented(candidates, transposed, m, n, k, _core.sm_count(device))[:top]
    kernels = [(_kernel_for(c, device), on_dt) for c, on_dt in first]
    names = [c.name + (_ON_DT if on_dt else "") for c, on_dt in first]
    dtype, out_dtype = getattr(torch, _TORCH_NAMES[element]), getattr(torch, _TORCH_NAMES[out])
    with torch.cuda.device(device):
        A = torch.rand(m, k, device="cuda").to(dtype) if layout_a == "row" else torch.rand(k, m, device="cuda").to(dtype).t()
        B = torch.rand(k, n, device="cuda").to(dtype) if layout_b == "row" else torch.rand(n, k, device="cuda").to(dtype).t()
        D = torch.empty(m, n, device="cuda", dtype=out_dtype)
        stream = torch.cuda.current_stream().cuda_stream
        for kernel, on_dt in kernels:  # load, and warm the clocks
            _core.time_launches(kernel, [(A, B, D)], 3, stream, on_dt)
        best, medians = tuning.fastest(kernels, lambda kt: [1e3 * t for t in _core.time_launches(kt[0], [(A, B, D)], 5, stream, kt[1])])
    timings = {name: round(us, 2) for name, us in zip(names, medians)}
    tuning.store(key, names[best], timings)
    return names[best], timings


def tune(shapes, dtype="bfloat16", *, out_dtype=None, layout_b="col", epilogue=None, device=None, top=3):
    """Time the heuristic's first `top` kernels for each (M, N, K) of `shapes` (A row-major, B as
    `layout_b`, D row-major, as tessel.warmup takes them) on this GPU and keep the fastest in the
    tuning cache, which later processes read too. Returns one (shape, kernel name, {kernel: median
    us}) per shape; a kind with a single shipped kernel has nothing to tune (empty timings)."""
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise ValueError(f"top {top!r}: time at least one candidate (a positive integer)")
    element, out, device = _shape_kind(dtype, out_dtype, layout_b, device)
    kind = (element, out, "row", layout_b, EPILOGUES[_epilogue(epilogue)])
    results = []
    for shape in shapes:
        shape = _shape(shape)
        hopper = _core.compute_capability(device) == 90
        ring = _small_n_ring(element, out, True, layout_b == "row", kind[-1], False, device, *shape) if hopper else None
        if ring is not None:  # the decode ring: one kernel, nothing to tune
            results.append((shape, ring.config.name, {}))
            continue
        candidates = registry.hopper_configs(*kind) if hopper else []
        # As warmup assumes: no C, so D^T's problem may run too.
        transposed = registry.hopper_configs(element, out, *_flipped(True, layout_b == "row"), kind[-1]) if candidates else []
        if len(candidates) < 2:
            results.append((shape, _kernel_for(_choice(ELEMENT_CODES[element], ELEMENT_CODES[out], True, layout_b == "row",
                                                       _epilogue(epilogue), device, dense_alignment(element, layout_b, shape),
                                                       *shape).config, device).name, {}))
            continue
        name, timings = _tune_shape(candidates, transposed, kind, device, shape, _tuning_key(kind, device, shape), top)
        results.append((shape, name, timings))
    _dispatcher.clear()  # the next call of each shape asks again, and finds the tuned kernel
    return results


_INT_MAX = 2**31 - 1  # the largest extent the kernels index (jit/gemm_arguments.hpp)


def _shape(shape) -> tuple:
    if not isinstance(shape, (tuple, list)) or len(shape) != 3 or \
            not all(isinstance(v, int) and not isinstance(v, bool) and 0 < v <= _INT_MAX for v in shape):
        raise ValueError(f"shape {shape!r}: give (M, N, K), three positive integers of at most 2^31 - 1")
    return tuple(shape)


def dense_alignment(element: str, layout_b: str, shape: tuple) -> int:
    """The dispatcher's tma_align for dense operands of a shape (A row-major M x K, B K x N in
    `layout_b`, allocations on 32-byte boundaries), as tessel.warmup, tessel.tune and
    tessel.explain assume them: 16 where a row pitch is an odd multiple of 16 bytes, else 32 (0,
    TMA unable to read them, is left to the call to report)."""
    _, n, k = shape
    bytes_ = ELEMENT_BYTES.get(element, 2)
    pitches = (k * bytes_, (n if layout_b == "row" else k) * bytes_)
    return 16 if any(_core.dispatch_rows_straddle_sectors(0, p) for p in pitches) else 32


def _shape_kind(dtype, out_dtype, layout_b, device) -> tuple:
    """(element, out element, device) of tessel.warmup's and tessel.tune's arguments."""
    element = element_name(dtype)
    out = element if out_dtype is None else element_name(out_dtype)
    if layout_b not in ("row", "col"):
        raise ValueError(f"layout_b {layout_b!r}: 'col' (B = W.t()) or 'row' (B is K x N row-major)")
    if device is not None and (not is_integer(device) or device.__index__() < 0):
        error = TypeError if not is_integer(device) else ValueError
        raise error(f"device {device!r}: give a CUDA device index (an integer such as 0), or None for the current device")
    return element, out, compiler.current_device() if device is None else device.__index__()


def _resolve(element_ab: int, element_c: int, a_row: bool, b_row: bool, epilogue: int, device: int, tma_align: int,
             m: int, n: int, k: int, promoted: bool, transposable: bool, rowwise: bool = False):
    """The dispatcher's question (dispatcher.hpp): the kernel for a kind of problem at a shape,
    and whether it runs on D^T's problem."""
    choice = _choice(element_ab, element_c, a_row, b_row, epilogue, device, tma_align, m, n, k, promoted, transposable, rowwise)
    return _kernel_for(choice.config, device), choice.transpose_d


_config_kernels: dict = {}


def _kernel_for(config: GemmConfig, device: int):
    """The kernel of a configuration for a device: its prebuilt cubin when the package has one for
    this GPU, else the configuration compiled (once; then from the memo)."""
    key = (config, device)
    kernel = _config_kernels.get(key)
    if kernel is None and isinstance(config, small_n.Ring):  # prebuilt only: _small_n_ring found it
        kernel = _config_kernels[key] = prebuilt.find_small_n(config.key, _core.compute_capability(device))
    elif kernel is None:
        cc = _core.compute_capability(device)
        kernel = prebuilt.find(config, cc)
        if kernel is None:
            kernel = compiler.compile(config, compiler.target_for(cc)).kernel
        _config_kernels[key] = kernel
    return kernel


def _torch():
    return sys.modules.get("torch")


def _is_torch(x) -> bool:
    torch = _torch()
    return torch is not None and isinstance(x, torch.Tensor)


def _allocate(A, B, C, out_element: str | None):
    """D for torch operands: C's element type and layout when C is given, else row-major."""
    if not _is_torch(A):
        raise TypeError("tessel.gemm allocates D only for PyTorch tensors; for other arrays pass out=")
    torch = _torch()
    if out_element is None:
        dtype = C.dtype if C is not None else A.dtype
    else:
        dtype = getattr(torch, _TORCH_NAMES[out_element])
    # Wrong ranks are reported by the checks that follow; D's shape then does not matter.
    m = A.shape[0] if A.dim() == 2 else 1
    n = B.shape[1] if _is_torch(B) and B.dim() == 2 else 1
    if C is not None and _is_torch(C) and C.dim() == 2 and C.shape[0] > 1 and C.stride(0) == 1 and C.stride(1) != 1:
        return torch.empty((n, m), dtype=dtype, device=A.device).t()  # column-major like C
    return torch.empty((m, n), dtype=dtype, device=A.device)


def _stream(stream, D) -> int:
    """The CUDA stream handle to launch on: `stream` when given (an int, or an object with
    .cuda_stream such as torch.cuda.Stream), else PyTorch's current stream on D's device."""
    if stream is not None:
        handle = getattr(stream, "cuda_stream", stream)
        if isinstance(handle, bool) or not isinstance(handle, int) or handle < 0:
            raise TypeError(f"stream {stream!r}: give a CUDA stream handle (a non-negative int) or an object with "
                            ".cuda_stream such as torch.cuda.Stream")
        return handle
    if _is_torch(D) and D.is_cuda:
        torch = _torch()
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # the cheap spelling, if present
        if raw is not None:
            return raw(D.device.index)
        return torch.cuda.current_stream(D.device).cuda_stream
    return 0  # the legacy default stream, for DLPack producers without a stream API


def _epilogue(epilogue) -> int:
    name = "linear" if epilogue is None else str(epilogue)
    if name not in EPILOGUES:
        raise ValueError(f"epilogue {epilogue!r}: choose None (alpha * A @ B + beta * C), 'relu', 'gelu' or 'silu'")
    return EPILOGUES.index(name)


def _check_config(config, epilogue, out_dtype, out_element) -> str:
    """The refusals of a configuration given with an epilogue or an out_dtype that it does not
    compute (tessel.gemm's and tessel.kernel_for's); returns its output element."""
    if not isinstance(config, GemmConfig):
        raise TypeError(f"config must be a tessel.GemmConfig, not {type(config).__name__}")
    if epilogue is not None and str(epilogue) != config.epilogue:
        raise ValueError(f"epilogue {epilogue!r} differs from the configuration's {config.epilogue!r}: give it in one place")
    if out_element is not None and out_element != config.out:
        raise ValueError(f"out_dtype {out_dtype} differs from the configuration's output type {config.out!r}")
    return config.out


def _gemm(A, B, C, alpha, beta, out_dtype, epilogue, config, out, stream):
    """tessel.gemm for what its C++ path (_core.Dispatcher.gemm) leaves to Python: a
    configuration, dtype names, arrays other than PyTorch tensors without `out`, and the
    refusals of arguments it does not read."""
    out_element = None if out_dtype is None else element_name(out_dtype)
    if out_element is not None and out_element not in _TORCH_NAMES:
        raise ValueError(f"out_dtype {out_dtype}: tessel writes D as float32, float16 or bfloat16")
    if config is not None:
        out_element = _check_config(config, epilogue, out_dtype, out_element)
    if out is not None and out_dtype is not None and getattr(out, "dtype", None) is not None and \
            element_name(str(out.dtype)) != element_name(out_dtype):
        raise ValueError(f"tessel.gemm: out_dtype is {out_dtype} but out is {out.dtype}: D is written in out's type; leave "
                         "out_dtype out or give out of that type")
    D = _allocate(A, B, C, out_element) if out is None else out
    handle = _stream(stream, D)
    if config is None:
        _dispatcher.run(A, B, C, D, float(alpha), float(beta), handle, _epilogue(epilogue))
    else:
        device = _device_of(D)
        if device < 0:  # not a CUDA array: let the operand checks say what is wrong
            device = _dispatcher.operands_device(A, B, C, D)
        _dispatcher.run_kernel(_kernel_for(config, device), A, B, C, D, float(alpha), float(beta), handle)
    return D


_dispatcher = _core.Dispatcher(_resolve, _gemm)


def gemm_batched(A, B, out, *, tf32=False):
    """out[i] = A[i] @ B[i] for 3-D PyTorch tensors (L, M, K), (L, K, N), (L, M, N), each slice
    row- or column-major, any batch strides (torch.ops.tessel.bmm's launch): one launch of the
    Hopper kernel's batch mode where TMA can read the batch, else one launch per matrix.
    tf32: float32 A and B on TF32 tensor cores (Hopper; A[i] row-major, B[i] column-major)."""
    if A.dim() != 3 or B.dim() != 3 or out.dim() != 3 or not A.shape[0] == B.shape[0] == out.shape[0]:
        raise ValueError(f"gemm_batched: A {tuple(A.shape)}, B {tuple(B.shape)} and out {tuple(out.shape)} must be 3-D "
                         "with one batch count")
    if A.shape[0] == 0:
        return out
    _dispatcher.run_batched(A[0], B[0], out[0], A.shape[0], A.stride(0), B.stride(0), out.stride(0), _stream(None, out),
                            bool(tf32))
    return out


def gemm_ex(A, B, C=None, *, beta=0.0, out_dtype=None, epilogue=None, tf32=False, scale_a=None, scale_b=None,
            promoted=False):
    """D = epilogue(scale_a * scale_b * (A @ B) + beta * C) for PyTorch tensors, D row-major and
    new: the PyTorch layer's launch (torch.ops.tessel.mm, scaled_mm). tf32: float32 A and B on
    TF32 tensor cores. scale_a, scale_b: one-element float32 CUDA tensors (FP8 A and B, read on
    the device); promoted: FP8 accumulation promoted to f32 registers every K tile (the slow,
    accurate mode of torch._scaled_mm's use_fast_accum=False)."""
    torch = _torch()
    dtype = A.dtype if out_dtype is None else out_dtype
    D = torch.empty((A.shape[0], B.shape[1]), dtype=dtype, device=A.device)
    pointer = lambda s: 0 if s is None else s.data_ptr()  # noqa: E731
    _dispatcher.run_ex(A, B, C, D, 1.0, float(beta), _stream(None, D), _epilogue(epilogue), bool(tf32), pointer(scale_a),
                       pointer(scale_b), bool(promoted))
    return D


def gemm_rowwise(A, B, C=None, *, beta=0.0, out_dtype=None, scale_a, scale_b, promoted=False):
    """D = scale_a[m] * scale_b[n] * (A @ B)[m, n] + beta * C[m, n] for FP8 A (M, K) row-major and B
    (K, N) column-major, D a new (M, N) row-major tensor of out_dtype (default bfloat16):
    torch.ops.tessel.scaled_mm's row-wise launch. scale_a (M, 1) and scale_b (1, N) float32 CUDA
    tensors, any element strides; promoted: the promoted-accumulation kernel (use_fast_accum=False).
    The kernel is tessel.gemm's choice for the problem (on D^T's where that is faster), built with
    row-wise scales; it compiles on first use."""
    torch = _torch()
    D = torch.empty((A.shape[0], B.shape[1]), dtype=torch.bfloat16 if out_dtype is None else out_dtype, device=A.device)
    (sa,), (sb,) = _scale_strides(scale_a, (0,)), _scale_strides(scale_b, (1,))
    _dispatcher.run_rowwise(A, B, C, D, float(beta), _stream(None, D), scale_a.data_ptr(), sa, scale_b.data_ptr(), sb, bool(promoted))
    return D


def _block_scaled_config(device: int, m: int, n: int) -> GemmConfig:
    """The configuration block-scaled FP8 runs for D of m x n: the tile by waves
    (config.block_scaled_tile_n)."""
    return block_scaled_config(tile_n=block_scaled_tile_n(m, n, _core.sm_count(device)))


def _block_scaled_kernel(device: int, config: GemmConfig):
    """`config`'s kernel, refused where it cannot run: the Hopper kernel only. The launcher
    (Dispatcher.run_block_scaled) refuses a configuration that is not block-scaled, or grouped."""
    cc = _core.compute_capability(device)
    if cc != 90:
        refuse("kErrorArchMismatch", f"block-scaled FP8 runs on tessel's Hopper kernel (compute capability 9.0); this GPU is "
                                     f"{cc // 10}.{cc % 10}: dequantize and use float16 or bfloat16 operands")
    return _kernel_for(config, device)


def gemm_block_scaled(A, B, C=None, *, beta=0.0, scale_a, scale_b, config=None):
    """D = sum over K blocks kb of scale_a[m, kb] * scale_b[kb, n // 128] * (A @ B over the block) +
    beta * C, D a new bfloat16 (M, N) row-major tensor: torch.ops.tessel.scaled_mm's blockwise
    launch. A (M, K) float8_e4m3fn row-major, B (K, N) column-major, both read by TMA (16-byte
    aligned, K a multiple of 16); scale_a (M, ceil(K/128)) and scale_b (ceil(K/128), ceil(N/128))
    float32 CUDA tensors, any element strides (the kernel's TMA path where scale_a's rows and
    scale_b's K blocks are contiguous, its scale warp otherwise). Accumulation is always
    promoted. Never transposed: A's and B's scales have different blocks. config: a GemmConfig of
    schedule 'cooperative_blockscaled' to run instead of the default (block_scaled_config)."""
    torch = _torch()
    D = torch.empty((A.shape[0], B.shape[1]), dtype=torch.bfloat16, device=A.device)
    # Operands off the GPU: the operand checks say which one and how to fix it.
    device = A.device.index if A.is_cuda else _dispatcher.operands_device(A, B, C, D)
    kernel = _block_scaled_kernel(device, config or _block_scaled_config(device, A.shape[0], B.shape[1]))
    # scale_b is indexed (K block, N block) in torch's spelling; the kernel's B scales are
    # (N block, K block), so its strides go over in that order.
    sa = _scale_strides(scale_a, (0, 1))
    sb = _scale_strides(scale_b, (1, 0))
    _dispatcher.run_block_scaled(kernel, A, B, C, D, float(beta), _stream(None, D), scale_a.data_ptr(), sa, scale_b.data_ptr(), sb)
    return D


def _scale_strides(scales, modes) -> tuple:
    """The element strides of a scale tensor over (rows or row blocks, K blocks), its `modes` in
    that order. A mode of extent 1 is never stepped along, so its stride (which PyTorch leaves
    arbitrary) is given as 1: the layout TMA can carry wherever the other mode allows."""
    return tuple(1 if scales.shape[d] == 1 else scales.stride(d) for d in modes)


def _workspace_acquire(nbytes: int, device: int, stream: int):
    """A stream-K launch's fixup workspace from PyTorch's caching allocator, ordered on the
    launch's stream (and so valid inside CUDA-graph capture); None without PyTorch (the launcher
    then keeps a buffer of its own per stream)."""
    torch = _torch()
    if torch is None or not torch.cuda.is_available():
        return None
    return torch.cuda.caching_allocator_alloc(nbytes, device, stream)


def _workspace_release(ptr: int):
    _torch().cuda.caching_allocator_delete(ptr)


_dispatcher.set_workspace_allocator(_workspace_acquire, _workspace_release)
gemm = _dispatcher.gemm  # the whole call in C++; see its docstring


def kernel_for(A, B, C=None, *, out_dtype=None, epilogue=None, config=None, out=None, explain=False, block_scaled=False):
    """The kernel (tessel._core.Kernel: .name, .target) that tessel.gemm would launch for these
    arguments, compiling it if needed but launching nothing. With explain=True, (kernel, reason):
    why the dispatcher chose it, in a sentence. block_scaled=True: the kernel tessel.scaled_mm runs
    for FP8 A and B with blockwise scales (1 x 128 of A, 128 x 128 of B)."""
    _require_operands("tessel.kernel_for", A, B, C, out)
    if block_scaled:
        if config is not None or epilogue is not None:
            raise ValueError("tessel.kernel_for: block_scaled=True has one kernel, without a configuration or an epilogue to choose")
        if out_dtype is not None and element_name(out_dtype) != "bf16":
            raise ValueError(f"tessel.kernel_for: out_dtype {out_dtype}: the block-scaled kernel writes bfloat16; pass "
                             "out_dtype=torch.bfloat16 or leave it out")
        device = _device_of(A)
        if device < 0:
            device = _dispatcher.operands_device(A, B, C, out if out is not None else _allocate(A, B, C, "bf16"))
        config = _block_scaled_config(device, A.shape[0], B.shape[1])
        kernel = _block_scaled_kernel(device, config)
        wide = config.tile[1] == 192
        reason = (f"the block-scaled kernel (128x{config.tile[1]} cooperative, promoted), never transposed: "
                  + ("its waves of 128x192 tiles, whose columns span two blocks of B's scales, take less time than 128x128's"
                     if wide else "128x128 tiles, whose columns lie in one block of B's scales, fill the GPU's waves better "
                                  "than 128x192's"))
        return (kernel, reason) if explain else kernel
    out_element = None if out_dtype is None else element_name(out_dtype)
    if config is not None:
        _check_config(config, epilogue, out_dtype, out_element)
        device = _device_of(out if out is not None else A)
        if device < 0:
            device = _dispatcher.operands_device(A, B, C, out if out is not None else _allocate(A, B, C, config.out))
        kernel = _kernel_for(config, device)
        return (kernel, "the configuration given") if explain else kernel
    D = _allocate(A, B, C, out_element) if out is None else out
    code = _epilogue(epilogue)
    kernel, _ = _dispatcher.select(A, B, C, D, code)
    if not explain:
        return kernel
    element_ab, element_c, a_row, b_row, device, tma, m, n, k, promoted, transposable = _dispatcher.question(A, B, C, D)
    return kernel, _choice(element_ab, element_c, a_row, b_row, code, device, tma, m, n, k, promoted, transposable).reason


def warmup(shapes, dtype="bfloat16", *, out_dtype=None, layout_b="col", epilogue=None, device=None):
    """Load (and compile, where nothing is prebuilt) every kernel tessel.gemm will choose for
    `shapes`, so that no call on the hot path compiles or loads. shapes: (M, N, K) triples of
    D = A @ B with A row-major M x K; layout_b "col" for B = W.t() (W an N x K weight, PyTorch's
    Linear) or "row" for a K x N B; D row-major; operands assumed 16-byte aligned. Returns the
    kernels' names, one per shape."""
    element, out, device = _shape_kind(dtype, out_dtype, layout_b, device)
    names = []
    for shape in shapes:
        shape = _shape(shape)
        # Without a C the call may run on D^T's problem, with one (a bias) it may not: both kernels.
        choices = [_choice(ELEMENT_CODES[element], ELEMENT_CODES[out], True, layout_b == "row", _epilogue(epilogue), device,
                           dense_alignment(element, layout_b, shape), *shape, transposable=t) for t in (True, False)]
        for choice in choices:
            _kernel_for(choice.config, device).load(device)
        names.append(_kernel_for(choices[0].config, device).name)
    return names


def _require_operands(caller: str, A, B, C, out):
    """TypeError for an operand that is no array, before anything reads it (tessel.gemm's own
    check, in C++)."""
    for name, x in (("A", A), ("B", B), ("C", C), ("out", out)):
        if x is not None or name in ("A", "B"):
            _core.require_array(x, name, caller)


def _device_of(x) -> int:
    if _is_torch(x):
        return x.device.index if x.is_cuda else -1
    device = getattr(x, "__dlpack_device__", None)
    if device is None:
        return -1
    kind, index = device()
    return index if int(kind) in (2, 13) else -1  # kDLCUDA, kDLCUDAManaged


def run_kernel(kernel, out_element, A, B, C=None, *, alpha=1.0, beta=0.0, out=None, stream=None):
    """Launch one compiled kernel (tessel.compile(...)(A, B, ...))."""
    caller = "a compiled kernel"
    _require_operands(caller, A, B, C, out)
    alpha, beta = _core.real_number(alpha, "alpha", caller), _core.real_number(beta, "beta", caller)
    D = _allocate(A, B, C, out_element) if out is None else out
    _dispatcher.run_kernel(kernel, A, B, C, D, alpha, beta, _stream(stream, D))
    return D
