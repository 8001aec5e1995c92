"""NVRTC through ctypes: C++ source to cubin at run time, with no nvcc and no CUDA Python package.

The library is found, in order, at $TESSEL_NVRTC_LIBRARY, next to the CUDA toolkit
($CUDA_HOME, $CUDA_PATH, /usr/local/cuda), through the dynamic loader (libnvrtc.so.13, .so.12),
and in the NVIDIA wheels PyTorch installs (nvidia/cu13, nvidia/cuda_nvrtc). The CUDA headers
the kernels include (cuda_fp16.h, cuda_bf16.h) are taken from the same installation, or from
$TESSEL_CUDA_INCLUDE_DIR.
"""

from __future__ import annotations

import ctypes
import glob
import os
from dataclasses import dataclass
from functools import lru_cache

_SONAMES = ("libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so")


class CompileError(RuntimeError):
    """NVRTC refused the source; `log` holds its diagnostics, `source` what it was given."""

    def __init__(self, message: str, log: str = "", source: str = ""):
        super().__init__(message + (f"\n{log}" if log else ""))
        self.log = log
        self.source = source


@dataclass(frozen=True)
class Toolkit:
    library: str       # path or soname of libnvrtc
    include_dir: str   # holds cuda_fp16.h
    version: tuple     # NVRTC's (major, minor)
    extra_include_dirs: tuple = ()  # where cuda_fp16.h's own includes are, when elsewhere

    @property
    def include_dirs(self) -> list:
        return [self.include_dir, *self.extra_include_dirs]


def _nv_target_dirs(include_dir: str) -> tuple:
    """cuda_fp16.h includes <nv/target> (CCCL). A toolkit has it beside cuda_fp16.h; the pip
    wheels keep it in another package (nvidia/cuda_cccl), which is then added to the path."""
    if os.path.isfile(os.path.join(include_dir, "nv", "target")):
        return ()
    for site_dir in _python_site_dirs():
        for sub in ("nvidia/cuda_cccl/include", "nvidia/cu13/include/cccl", "nvidia/cu13/include"):
            d = os.path.join(site_dir, sub)
            if os.path.isfile(os.path.join(d, "nv", "target")):
                return (d,)
    return ()


def _python_site_dirs():
    import site
    import sys
    dirs = list(getattr(site, "getsitepackages", lambda: [])()) + [site.getusersitepackages()]
    dirs += [p for p in sys.path if p.endswith("site-packages")]
    return [d for d in dict.fromkeys(dirs) if d and os.path.isdir(d)]


def _candidates():
    """(library, include dir) pairs, most specific first; an include dir of None is filled later."""
    env_lib = os.environ.get("TESSEL_NVRTC_LIBRARY")
    if env_lib:
        yield env_lib, None
    for var in ("CUDA_HOME", "CUDA_PATH"):
        root = os.environ.get(var)
        if root:
            for lib in sorted(glob.glob(os.path.join(root, "lib*", "libnvrtc.so*")), reverse=True):
                yield lib, os.path.join(root, "include")
    for lib in sorted(glob.glob("/usr/local/cuda/lib*/libnvrtc.so*"), reverse=True):
        yield lib, "/usr/local/cuda/include"
    for soname in _SONAMES:
        yield soname, None
    for site_dir in _python_site_dirs():
        for sub, inc in (("nvidia/cu13/lib", "nvidia/cu13/include"), ("nvidia/cuda_nvrtc/lib", "nvidia/cuda_runtime/include")):
            for lib in sorted(glob.glob(os.path.join(site_dir, sub, "libnvrtc.so*")), reverse=True):
                yield lib, os.path.join(site_dir, inc)


def _include_candidates():
    env = os.environ.get("TESSEL_CUDA_INCLUDE_DIR")
    if env:
        yield env
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            yield os.path.join(os.environ[var], "include")
    yield "/usr/local/cuda/include"
    import shutil
    nvcc = shutil.which("nvcc")
    if nvcc:
        yield os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))), "include")
    for site_dir in _python_site_dirs():
        yield os.path.join(site_dir, "nvidia/cu13/include")
        yield os.path.join(site_dir, "nvidia/cuda_runtime/include")


@lru_cache(maxsize=1)
def toolkit() -> Toolkit:
    """The NVRTC library and the CUDA include directory to compile with. Raises CompileError."""
    tried, headerless = [], None
    for lib, inc in _candidates():
        try:
            handle = ctypes.CDLL(lib)
        except OSError:
            tried.append(lib)
            continue
        major, minor = ctypes.c_int(), ctypes.c_int()
        handle.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
        env_inc = os.environ.get("TESSEL_CUDA_INCLUDE_DIR")
        for candidate in ([env_inc] if env_inc else []) + ([inc] if inc else []) + list(_include_candidates()):
            if candidate and os.path.isfile(os.path.join(candidate, "cuda_fp16.h")):
                return Toolkit(lib, candidate, (major.value, minor.value), _nv_target_dirs(candidate))
        headerless = headerless or f"NVRTC {major.value}.{minor.value} ({lib})"
    if headerless:
        raise CompileError(f"{headerless} has no CUDA include directory with cuda_fp16.h next to it: "
                           "set TESSEL_CUDA_INCLUDE_DIR")
    raise CompileError("NVRTC (libnvrtc.so) not found: install the CUDA toolkit or the nvidia-cuda-nvrtc wheel, "
                       "or set TESSEL_NVRTC_LIBRARY; tried " + ", ".join(tried[:8]))


@lru_cache(maxsize=1)
def _lib():
    lib = ctypes.CDLL(toolkit().library)
    lib.nvrtcGetErrorString.restype = ctypes.c_char_p
    return lib


def _check(result: int, what: str):
    if result != 0:
        raise CompileError(f"{what} failed: {_lib().nvrtcGetErrorString(result).decode()}")


def compile_to_cubin(source: str, name: str, options: list[str], name_expressions: list[str]):
    """Compile `source` (called `name` in diagnostics) and return (cubin bytes, {expression:
    lowered name}, log). Raises CompileError with NVRTC's log when the source does not compile."""
    cubin, _, lowered, log = _compile(source, name, options, name_expressions, want_ptx=False)
    return cubin, lowered, log


def compile_program(source: str, name: str, options: list[str]):
    """(cubin bytes, PTX text, log) of `source`; raises CompileError with NVRTC's log."""
    cubin, ptx, _, log = _compile(source, name, options, [], want_ptx=True)
    return cubin, ptx, log


def _compile(source, name, options, name_expressions, want_ptx):
    lib = _lib()
    prog = ctypes.c_void_p()
    _check(lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(), 0, None, None), "nvrtcCreateProgram")
    try:
        for expr in name_expressions:
            _check(lib.nvrtcAddNameExpression(prog, expr.encode()), "nvrtcAddNameExpression")
        opts = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
        result = lib.nvrtcCompileProgram(prog, len(options), opts)
        size = ctypes.c_size_t()
        lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        buf = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetProgramLog(prog, buf)
        log = buf.value.decode(errors="replace").strip()
        if result != 0:
            raise CompileError(f"NVRTC could not compile {name} ({lib.nvrtcGetErrorString(result).decode()}):", log, source)
        lowered = {}
        for expr in name_expressions:
            out = ctypes.c_char_p()
            _check(lib.nvrtcGetLoweredName(prog, expr.encode(), ctypes.byref(out)), "nvrtcGetLoweredName")
            lowered[expr] = out.value.decode()
        _check(lib.nvrtcGetCUBINSize(prog, ctypes.byref(size)), "nvrtcGetCUBINSize")
        if size.value == 0:
            raise CompileError(f"NVRTC produced no cubin for {name}: the target must be a real architecture (sm_XX), not compute_XX")
        cubin = ctypes.create_string_buffer(size.value)
        _check(lib.nvrtcGetCUBIN(prog, cubin), "nvrtcGetCUBIN")
        ptx = ""
        if want_ptx:
            _check(lib.nvrtcGetPTXSize(prog, ctypes.byref(size)), "nvrtcGetPTXSize")
            text = ctypes.create_string_buffer(size.value)
            _check(lib.nvrtcGetPTX(prog, text), "nvrtcGetPTX")
            ptx = text.value.decode()
        return cubin.raw, ptx, lowered, log
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))
