"""The kernels compiled by nvcc when the package was built, and how one is found for a call.

The set is registry.configs(): the Sm80 default of every plain kind of problem, and the Hopper
kernels among which the dispatcher chooses by shape (registry.py says which kinds get which).
A call outside it (an explicit configuration, a float16-in/bfloat16-out mix, a fused epilogue
on a kind without one shipped) goes to the JIT instead. The build writes the cubins and
kernels/manifest.json next to this package (python/kernels.cmake).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from . import codegen, cubin, kernel, quantize, registry, small_n
from .config import GemmConfig

KERNEL_DIR = Path(__file__).resolve().parent.parent / "kernels"


def configs() -> list[GemmConfig]:
    """The prebuilt set (registry.configs())."""
    return registry.configs()


def archs(config: GemmConfig, requested) -> list[str]:
    """Which of the requested SASS targets ("80", "90a") a prebuilt configuration is built for:
    a Hopper kernel runs on sm_90a only."""
    return [a for a in requested if a == "90a"] if config.hopper else list(requested)


@lru_cache(maxsize=1)
def _manifest() -> dict:
    path = KERNEL_DIR / "manifest.json"
    return json.loads(path.read_text()) if path.is_file() else {}


def manifest() -> list[dict]:
    """The entries the build wrote: {"config": {...}, "cubins": {"sm_80": file, ...}}; empty when
    the package was built without nvcc."""
    return _manifest().get("kernels", [])


def quantize_manifest() -> list[dict]:
    """The FP8 quantize kernels the build wrote (jit/quantize.py): {"input": "bf16" or "f16",
    "cubins": {"sm_90a": file, ...}}; empty when the package was built without nvcc."""
    return _manifest().get("quantize", [])


def find_quantize(element: str, compute_capability: int):
    """(cubin bytes, kernel symbol, target) of the quantize kernel for `element` input whose cubin
    runs on the device, or None."""
    from .. import _core
    for entry in quantize_manifest():
        if entry["input"] != element:
            continue
        for target, file in entry["cubins"].items():
            if _core.target_runs_on(target, compute_capability):
                data = (KERNEL_DIR / file).read_bytes()
                return data, cubin.kernel_symbol(data, quantize.KERNEL_SYMBOL_PREFIX), target
    return None


def find_small_n(ring: tuple, compute_capability: int):
    """A tessel._core.Kernel of the small-N TMA ring (element, n8, boxes, stages, rows) (jit/small_n.py)
    whose cubin runs on the device, or None (a package built without nvcc or without sm_90a)."""
    from .. import _core

    def load(data: bytes, target: str):
        symbol = cubin.kernel_symbol(data, small_n.KERNEL_SYMBOL_PREFIX)
        element, n8, boxes, stages, rows = ring
        return _core.small_n_kernel(data, small_n.name(*ring), symbol, target, n8, boxes, stages, element=element, rows=rows)
    return _first_runnable(_manifest().get("small_n", []), lambda e: tuple(e["ring"]) == tuple(ring), compute_capability, load)


def _config(entry) -> GemmConfig:
    return GemmConfig(**{k: tuple(v) if isinstance(v, list) else v for k, v in entry["config"].items()})


_loaded: dict = {}


def _first_runnable(entries, matches, compute_capability: int, load):
    """The kernel of the first manifest entry that `matches` and has a cubin the device runs,
    made by load(cubin bytes, target) on first use and kept in _loaded; None without one."""
    from .. import _core
    for entry in entries:
        if not matches(entry):
            continue
        for target, file in entry["cubins"].items():
            if not _core.target_runs_on(target, compute_capability):
                continue
            if (file, target) not in _loaded:
                _loaded[file, target] = load((KERNEL_DIR / file).read_bytes(), target)
            return _loaded[file, target]
    return None


def find(config: GemmConfig, compute_capability: int):
    """A tessel._core.Kernel for `config` whose cubin runs on the device, or None."""
    def load(data: bytes, target: str):
        return kernel.load(config, data, cubin.kernel_symbol(data, codegen.symbol_prefix(config)), target)
    return _first_runnable(manifest(), lambda e: _config(e) == config, compute_capability, load)
