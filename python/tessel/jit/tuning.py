"""Autotuning: time the heuristic's best few kernels for a shape and remember the fastest on disk.

tessel.gemm normally runs the registry heuristic's choice (registry.py). Tuning replaces a guess
by a measurement: `tessel.tune(shapes)` (or TESSEL_TUNE=1, which tunes each new shape the first
time tessel.gemm meets it) launches the heuristic's first `top` candidates on scratch operands of
the shape, a few times each in turns, and keeps the fastest. The winner is stored in
`tuned.json` beside the JIT cache (cache.cache_dir()), keyed by the GPU (name and SM count), the
tessel version, the kind of problem and the exact shape, so a later process reads it instead of
timing again; a different GPU or tessel version does not see it.

Timing needs PyTorch (the scratch operands) and a CUDA device.
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile

from . import cache

FILE = "tuned.json"
_loaded: dict | None = None


def enabled() -> bool:
    """TESSEL_TUNE=1: tune each new shape on first use."""
    return os.environ.get("TESSEL_TUNE", "") not in ("", "0")


def key(gpu: str, sm_count: int, version: str, kind: tuple, shape: tuple) -> str:
    return "|".join([gpu, str(sm_count), version, *map(str, kind), "x".join(map(str, shape))])


def _path():
    return cache.cache_dir() / FILE


def _entries() -> dict:
    global _loaded
    if _loaded is None:
        try:
            _loaded = json.loads(_path().read_text())
            if not isinstance(_loaded, dict):
                _loaded = {}
        except (OSError, ValueError):
            _loaded = {}
    return _loaded


def lookup(k: str) -> str | None:
    """The tuned kernel's configuration name for a key, or None."""
    value = _entries().get(k)
    return value.get("config") if isinstance(value, dict) else None


def store(k: str, config_name: str, timings_us: dict) -> None:
    """Remember a winner (written atomically: a concurrent reader sees the old file or the new)."""
    entries = _entries()
    entries[k] = {"config": config_name, "us": timings_us}
    folder = _path().parent
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        json.dump(entries, f, indent=1, sort_keys=True)
    os.replace(tmp, _path())


def forget() -> None:
    """Drop what this process read (the next lookup reads the file again)."""
    global _loaded
    _loaded = None


def fastest(kernels: list, time_us) -> tuple:
    """(index of the fastest kernel, median microseconds of each) with time_us(kernel) -> list of
    microseconds per launch; the kernels take turns, three rounds."""
    samples = [[] for _ in kernels]
    for _ in range(3):
        for i, k in enumerate(kernels):
            samples[i] += time_us(k)
    medians = [statistics.median(s) for s in samples]
    return min(range(len(kernels)), key=medians.__getitem__), medians
