"""tessel.compile: a GemmConfig to a loaded kernel, through NVRTC and the disk cache."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

from .. import _core
from . import cache, codegen, nvrtc, paths
from . import kernel as kernel_module
from .config import SMEM_PER_CTA, GemmConfig
from .nvrtc import CompileError
from .status import is_integer, refuse


_TARGETS = "a target such as 'sm_80' or 'sm_90a', or a compute capability (major * 10 + minor) such as 90 or '9.0'"


def _compute_capability(value) -> int:
    """A compute capability as major*10+minor (75, 80, 90, 100): an integer of two or three
    digits. A bool, a float, None or a string is refused: 'sm_None' is no target."""
    if not is_integer(value):
        raise TypeError(f"compute capability {value!r} ({type(value).__name__}): give an integer such as 80 or 90 "
                        "(major * 10 + minor)")
    cc = value.__index__()
    if not 10 <= cc <= 999:
        raise ValueError(f"compute capability {cc}: give major * 10 + minor, such as 80 or 90")
    return cc


def target_for(compute_capability: int) -> str:
    """The SASS target for a device: sm_90a on compute capability 9.0 (the arch-specific target,
    which Hopper kernels need and Sm80 kernels accept), sm_XY elsewhere."""
    cc = _compute_capability(compute_capability)
    return "sm_90a" if cc == 90 else f"sm_{cc}"


def normalize_target(target) -> str:
    """'sm_90a', 'sm_80', or a compute capability (90, 80) / '9.0' as the target for it."""
    if not isinstance(target, str):
        try:
            return target_for(target)
        except TypeError:
            raise TypeError(f"target {target!r} ({type(target).__name__}): give {_TARGETS}") from None
        except ValueError:
            raise ValueError(f"target {target!r}: give {_TARGETS}") from None
    text = target.strip()
    if re.fullmatch(r"\d+\.\d", text):
        major, minor = text.split(".")
        return target_for(int(major) * 10 + int(minor))
    if not re.fullmatch(r"sm_\d{2,3}[af]?", text):
        raise ValueError(f"target {target!r}: give a real architecture such as 'sm_80' or 'sm_90a' "
                         "(a cubin is SASS; compute_XX is PTX), or a compute capability such as 90")
    return text


def target_sm(target: str) -> int:
    """The SM number of a target: 90 for 'sm_90a'."""
    return int(re.match(r"sm_(\d+)", target).group(1))


def check_target(config: GemmConfig, target: str):
    """A kernel tagged for a newer architecture than the target compiles, with its body compiled
    out (tessel/arch/tags.hpp): refuse that here instead of producing a kernel that does nothing.
    A kernel needing more shared memory than the target gives one CTA would fail at its launch."""
    if config.hopper and target != "sm_90a":
        refuse("kErrorArchMismatch", f"arch 'sm90a' compiles for the target sm_90a only (wgmma and setmaxnreg exist in "
                                     f"the arch-specific target alone), not {target}: use arch='sm80' for other GPUs")
    need = 90 if config.hopper else {"sm80": 80, "sm75": 75}[config.arch]
    if target_sm(target) < need:
        raise ValueError(f"arch {config.arch!r} needs sm_{need} or newer, but the target is {target}: "
                         + ("use arch='sm75' (two stages, float16)" if target_sm(target) >= 75 else "tessel's kernels need sm_75 or newer"))
    check_shared_memory(config, target)


def check_shared_memory(config: GemmConfig, target: str):
    """A target whose limit is not in SMEM_PER_CTA is left to the launch to check."""
    limit = SMEM_PER_CTA.get(target_sm(target))
    if limit is not None and config.smem_bytes > limit:
        refuse("kErrorNotSupported", f"tile {config.tile} with {config.stage_count} stages needs {config.smem_bytes} bytes of "
                                     f"shared memory, more than the {limit} that {target} gives one CTA: use fewer stages or a "
                                     "smaller tile")


def current_device() -> int:
    """PyTorch's current CUDA device when PyTorch is in use, else 0."""
    import sys
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        return torch.cuda.current_device()
    return 0


def device_target(device: int | None = None) -> str:
    device = current_device() if device is None else device
    try:
        return target_for(_core.compute_capability(device))
    except _core.GemmError as e:
        raise RuntimeError(f"no CUDA device to compile for ({e}); pass target='sm_90a' (or 'sm_80', ...) "
                           "to compile without one") from None


def options(target: str) -> list[str]:
    tk = nvrtc.toolkit()
    return [
        "-std=c++20",
        f"-arch={target}",
        # tessel's headers call constexpr functions without __device__ from device code (nvcc's
        # --expt-relaxed-constexpr, which NVRTC lacks); NVRTC compiles them for the device this way.
        "-default-device",
        "-DNDEBUG",
        f"-I{paths.std_dir()}",
        f"-I{paths.include_dir()}",
        *(f"-I{d}" for d in tk.include_dirs),
    ]


def headers_hash() -> str:
    inc = nvrtc.toolkit().include_dir
    extra = tuple(f"{inc}/{h}" for h in ("cuda_fp16.h", "cuda_fp16.hpp", "cuda_bf16.h", "cuda_bf16.hpp"))
    return cache.tree_hash(str(paths.include_dir() / "tessel"), str(paths.std_dir()), extra_files=extra)


@dataclass
class CompiledGemm:
    """A configuration compiled for one target. Call it like tessel.gemm, without `config`."""

    config: GemmConfig
    target: str
    symbol: str           # the kernel's name in the cubin
    cubin: bytes = field(repr=False)
    cache_hit: bool       # loaded from the disk cache rather than compiled
    seconds: float        # time to compile, or to load from the cache
    key: str              # the cache key
    log: str = field(default="", repr=False)
    _kernel: object = field(default=None, repr=False)

    @property
    def kernel(self) -> "_core.Kernel":
        if self._kernel is None:
            self._kernel = kernel_module.load(self.config, self.cubin, self.symbol, self.target)
        return self._kernel

    def __call__(self, A, B, C=None, *, alpha=1.0, beta=0.0, out=None, stream=None):
        from ..gemm import run_kernel
        return run_kernel(self.kernel, self.config.out, A, B, C, alpha=alpha, beta=beta, out=out, stream=stream)


def cache_key(config: GemmConfig, target) -> str:
    """The disk-cache key of `config` compiled for `target` (see cache.py)."""
    src = codegen.source(config)
    return cache.entry_key(source=src, target=normalize_target(target), options=options(normalize_target(target))[:4],
                           nvrtc=list(nvrtc.toolkit().version), headers=headers_hash())


_memo: dict = {}


def compile(config: GemmConfig, target=None, *, use_cache: bool = True) -> CompiledGemm:  # noqa: A001 (tessel.compile)
    """Compile `config` for `target` (default: the current CUDA device) with NVRTC, or load it
    from the disk cache. Raises CompileError with NVRTC's log when it does not compile."""
    if not isinstance(config, GemmConfig):
        raise TypeError(f"tessel.compile takes a GemmConfig, not {type(config).__name__}")
    target = device_target() if target is None else normalize_target(target)
    check_target(config, target)
    start = time.perf_counter()
    key = cache_key(config, target)
    if use_cache and key in _memo:
        return _memo[key]
    log = ""

    def build():
        nonlocal log
        expression = codegen.kernel_expression(config)
        cubin, lowered, log = nvrtc.compile_to_cubin(codegen.source(config), f"{config.name}.cu", options(target), [expression])
        return cubin, {"config": config.key(), "name": config.name, "target": target, "symbol": lowered[expression],
                       "nvrtc": list(nvrtc.toolkit().version), "compile_seconds": round(time.perf_counter() - start, 3)}

    cubin, meta, hit = cache.fetch(key, build) if use_cache else (*build(), False)
    result = CompiledGemm(config, target, meta["symbol"], cubin, hit, time.perf_counter() - start, key, log)
    if use_cache:
        _memo[key] = result
    return result


__all__ = ["CompileError", "CompiledGemm", "cache_key", "compile", "device_target", "normalize_target", "target_for"]
