"""Where the headers a JIT compilation includes are: tessel's, and the NVRTC standard stand-ins."""

from __future__ import annotations

import os
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent  # .../tessel


def include_dir() -> Path:
    """tessel's headers: $TESSEL_INCLUDE_DIR, else the copy installed with the package, else the
    source tree's include/ (running from a checkout)."""
    env = os.environ.get("TESSEL_INCLUDE_DIR")
    candidates = [Path(env)] if env else []
    candidates += [_PACKAGE / "include", _PACKAGE.parent.parent / "include"]
    for c in candidates:
        if (c / "tessel" / "jit" / "sm80_gemm.hpp").is_file():
            return c
    raise FileNotFoundError("tessel's headers are not installed with the package (looked in "
                            + ", ".join(map(str, candidates)) + "); set TESSEL_INCLUDE_DIR to the repository's include/")


def std_dir() -> Path:
    """The NVRTC stand-ins for <type_traits>, <utility>, ... (std/README.md)."""
    return Path(__file__).resolve().parent / "std"
