"""Shared fixtures. Host tests need only the installed package; GPU tests also need PyTorch with
a CUDA device and are skipped, with the reason, without one."""

import os
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # dlpack_fake

import tessel  # noqa: E402
from tessel import _core  # noqa: E402
from tessel.jit import nvrtc  # noqa: E402


def _torch_cuda():
    try:
        import torch
    except ImportError:
        return None, "PyTorch is not installed"
    if not torch.cuda.is_available():
        return None, "no CUDA device (torch.cuda.is_available() is False)"
    _register_ops()
    return torch, ""


def _register_ops():
    """torch.ops.tessel.*, as `import torch, tessel` has them: this file imported tessel before
    torch, which registers them only on first use of a torch-facing name."""
    import tessel.ops  # noqa: F401


@pytest.fixture(scope="session")
def torch_cuda():
    """PyTorch, with a CUDA device; skips the test otherwise."""
    torch, why = _torch_cuda()
    if torch is None:
        pytest.skip(why)
    return torch


@pytest.fixture
def hopper(torch_cuda):
    """PyTorch with a Hopper GPU (compute capability 9.0), which tessel's TMA, FP8, TF32 and
    block-scaled kernels need; skips the test otherwise."""
    if torch_cuda.cuda.get_device_capability() != (9, 0):
        pytest.skip("this test runs tessel's Hopper kernels: this GPU is not compute capability 9.0")
    return torch_cuda


@pytest.fixture(scope="session")
def torch_cpu():
    """PyTorch (CPU tensors are enough); skips the test without it."""
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    _register_ops()
    return torch


@pytest.fixture(scope="session")
def toolkit():
    """NVRTC and the CUDA headers; skips the test without them."""
    try:
        return nvrtc.toolkit()
    except nvrtc.CompileError as e:
        pytest.skip(f"NVRTC not available: {e}")


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """An empty JIT cache for the test, and no compiled kernel remembered in the process."""
    from tessel.jit import compiler
    d = tmp_path / "jit-cache"
    monkeypatch.setenv("TESSEL_CACHE_DIR", str(d))
    monkeypatch.setattr(compiler, "_memo", {})
    return d


@pytest.fixture(scope="session")
def seed_entry(tmp_path_factory, toolkit):
    """GemmConfig() compiled once for sm_80 in a cache of its own: (key, folder). Tests that need
    an entry to exist copy it instead of compiling again (each compilation takes seconds)."""
    from tessel.jit import cache, compiler
    d = tmp_path_factory.mktemp("seed-cache")
    mp = pytest.MonkeyPatch()
    mp.setenv("TESSEL_CACHE_DIR", str(d))
    try:
        key = compiler.compile(tessel.GemmConfig(), "sm_80", use_cache=True).key
        compiler._memo.pop(key, None)
    finally:
        mp.undo()
    assert cache.cache_dir() != d
    return key, d


@pytest.fixture
def seeded_cache(cache_dir, seed_entry):
    """The test's cache, holding the seed entry: returns its key."""
    key, d = seed_entry
    cache_dir.mkdir(parents=True, exist_ok=True)
    for suffix in (".cubin", ".json"):
        shutil.copy(d / f"{key}{suffix}", cache_dir / f"{key}{suffix}")
    return key


@pytest.fixture
def include_copy(tmp_path, monkeypatch):
    """A private copy of tessel's headers, used by the JIT for the test (to edit them)."""
    from tessel.jit import paths
    dst = tmp_path / "include"
    shutil.copytree(paths.include_dir() / "tessel", dst / "tessel")
    monkeypatch.setenv("TESSEL_INCLUDE_DIR", str(dst))
    return dst


def tessel_layout_binary():
    """The tessel-layout executable of a C++ build, when there is one: $TESSEL_LAYOUT, else the
    default build tree of the repository this package was installed from."""
    env = os.environ.get("TESSEL_LAYOUT")
    if env:
        return env if os.access(env, os.X_OK) else None
    here = Path(__file__).resolve().parents[2] / "build" / "tools" / "layout" / "tessel-layout"
    return str(here) if os.access(here, os.X_OK) else None


__all__ = ["tessel", "_core"]
