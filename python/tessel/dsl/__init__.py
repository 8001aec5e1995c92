"""tessel's kernel DSL: kernels written in Python, traced to CUDA C++ and compiled with NVRTC,
with the CuTe DSL's names (`cute` -> `tessel`):

    @tessel.kernel
    def add_kernel(gA: tessel.Tensor, gB: tessel.Tensor, gC: tessel.Tensor):
        tidx, _, _ = tessel.arch.thread_idx()
        bidx, _, _ = tessel.arch.block_idx()
        bdim, _, _ = tessel.arch.block_dim()
        i = bidx * bdim + tidx
        m, n = gA.shape
        gC[i // n, i % n] = gA[i // n, i % n] + gB[i // n, i % n]

    @tessel.jit
    def add(mA, mB, mC):
        m, n = mA.shape
        add_kernel(mA, mB, mC).launch(grid=((m * n) // 256, 1, 1), block=(256, 1, 1))

    tensors = [tessel.from_dlpack(t) for t in (a, b, c)]
    compiled = tessel.compile(add, *tensors)
    compiled(*tensors)

The pieces: dtypes.py (types), ir.py (values, the builder, DSLError), rewrite.py and rt.py
(control flow), tensor.py (the algebra on layouts and tensors), device.py (tensors in kernels),
host.py (arguments), arch.py (instructions), copy.py and mma.py (tiled copies and MMAs), jit.py
(tracing, caching, launching).
"""

from . import arch  # noqa: F401
from . import dmath as math  # noqa: F401
from . import pipeline  # noqa: F401
from .copy import TiledCopy, copy, make_tiled_copy_tv  # noqa: F401
from .mma import (  # noqa: F401
    IdentityTensor, LdMatrix8x8x16bOp, MmaAtom, MmaF16BF16Op, ThrMma, TiledMma, WgmmaF16BF16Op, elem_less, gemm, make_copy_atom,
    make_identity_tensor, make_tiled_copy_A, make_tiled_copy_B, make_tiled_mma,
)
from .draw import draw_tiled_mma, draw_tv_layout  # noqa: F401
from .swizzle import ComposedLayout, Swizzle, make_swizzle  # noqa: F401
from .torch_op import torch_op  # noqa: F401
from .device import SmemAllocator, TensorSSA, make_fragment, make_fragment_like, make_tensor  # noqa: F401
from .dtypes import (  # noqa: F401
    BFloat16, Boolean, Constexpr, DType, Float8E4M3, Float8E5M2, Float16, Float32, Float64, Int8, Int16, Int32, Int64, Uint8,
    Uint32, Uint64,
)
from .host import HostTensor, fake_tensor, from_dlpack  # noqa: F401
from .ir import DSLError, assume  # noqa: F401
from .jit import CompiledFunction, CompiledKernel, JitFunction, KernelFunction, compile, jit, kernel  # noqa: F401,A004
from .tma import HostTmaDescriptor, make_tma_descriptor  # noqa: F401
from .rt import const_expr, range_ as range, range_constexpr  # noqa: F401,A004
from .rt import select as _select
from .tensor import (  # noqa: F401
    Tensor, blocked_product, coalesce, complement, composition, flat_divide, left_inverse, local_partition, local_tile,
    logical_divide, logical_product, make_layout, make_layout_tv, raked_product, right_inverse, tiled_divide, tiled_product,
    zipped_divide, zipped_product,
)


def select(c, a, b):
    """`a` where c holds, else `b` (C++'s ?: for a dynamic c)."""
    return _select(c, lambda: a, lambda: b)


class runtime:  # noqa: N801 (the CuTe DSL's cute.runtime namespace)
    from_dlpack = staticmethod(from_dlpack)
    fake_tensor = staticmethod(fake_tensor)
