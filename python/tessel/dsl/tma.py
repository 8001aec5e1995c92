"""TMA descriptors on the host: what a kernel's tma_load reads (the CuTe DSL's TMA atoms).

    desc = tessel.make_tma_descriptor(mA, box=(64, 128))   # in a @jit function
    gemm_kernel(desc, ...).launch(...)                     # a kernel parameter

The tensor is row-major in its last mode (unit stride, PyTorch's convention): its modes, last
first, are the descriptor's dimensions (2 or 3), and `box` is (elements of the last mode, rows).
The descriptor is encoded (cuTensorMapEncodeTiled) when a launch packs its parameters, from the
tensor's address then, so a compiled function replays with new tensors; the last encoding is
kept, so a call with the same tensor does not encode again.
"""

from __future__ import annotations

from . import dtypes as T
from .host import HostTensor, from_dlpack
from .tensor import leaves

_SWIZZLES = (0, 32, 64, 128)


class HostTmaDescriptor:
    """A TMA view of a tensor: dims (innermost first), box and swizzle; encoded at launch."""

    def __init__(self, tensor: HostTensor, box, swizzle: int, _cache=None):
        self.tensor, self.box, self.swizzle = tensor, box, swizzle
        self._cache = _cache if _cache is not None else {}

    @property
    def element_type(self):
        return self.tensor.element_type

    def signature(self):
        return ("tma", self.tensor.element_type.name, self.box, self.swizzle)

    def rebased(self, tensor: HostTensor) -> "HostTmaDescriptor":
        """The same descriptor over another tensor (a compiled function's new argument)."""
        return HostTmaDescriptor(tensor, self.box, self.swizzle, self._cache)

    def _view(self):
        shape, stride = leaves(self.tensor.shape), leaves(self.tensor.stride)
        inner, outer = shape[-1], shape[-2]
        batches = shape[-3] if len(shape) == 3 else 1
        ld = stride[-2]
        batch_stride = stride[-3] if len(shape) == 3 else 0
        return inner, outer, batches, ld, batch_stride

    def encode(self) -> bytes:
        t = self.tensor
        if t.data_ptr is None:
            raise ValueError("a TMA descriptor of a fake_tensor has no memory to describe: compile with it, then call the "
                             "compiled function with real tensors")
        key = (t.data_ptr, self._view())
        hit = self._cache.get("last")
        if hit is not None and hit[0] == key:
            return hit[1]
        from .. import _core
        inner, outer, batches, ld, batch_stride = self._view()
        bits = _core.encode_tma_map(t.data_ptr, t.element_type.width, inner, outer, batches, ld, batch_stride, self.box[0],
                                    self.box[1], self.swizzle)
        self._cache["last"] = (key, bits)
        return bits

    def __repr__(self):
        return f"<tessel TMA descriptor of a {self.tensor.describe()}, box {self.box}, swizzle {self.swizzle}>"


def make_tma_descriptor(tensor, box, swizzle: int = 128) -> HostTmaDescriptor:
    """A TMA descriptor of `tensor` (2-D or 3-D, unit stride in its last mode) read in boxes of
    `box` = (elements of the last mode, rows of the one before), with a `swizzle`-byte swizzle
    (128: the pattern wgmma reads with; then box[0] * element bytes must be 128)."""
    t = from_dlpack(tensor)
    shape, stride = leaves(t.shape), leaves(t.stride)
    if len(shape) != len(t.shape) or len(shape) not in (2, 3):
        raise ValueError(f"make_tma_descriptor takes a flat 2-D or 3-D tensor; this one is {t.describe()}")
    if stride[-1] != 1:
        raise ValueError(f"make_tma_descriptor: the last mode must have unit stride (row-major); this tensor is {t.describe()}")
    if swizzle not in _SWIZZLES:
        raise ValueError(f"make_tma_descriptor: swizzle is one of {_SWIZZLES} bytes, not {swizzle!r}")
    if not (isinstance(box, tuple) and len(box) == 2 and all(isinstance(b, int) and 1 <= b <= 256 for b in box)):
        raise ValueError(f"make_tma_descriptor: box is (elements, rows), each an int in 1..256; got {box!r}")
    if swizzle and box[0] * t.element_type.width != swizzle:
        raise ValueError(f"make_tma_descriptor: with a {swizzle}-byte swizzle a box row is {swizzle} bytes "
                         f"({swizzle // t.element_type.width} {t.element_type.name} elements), not {box[0]}")
    if t.align < 16:
        raise ValueError(f"make_tma_descriptor: TMA needs a 16-byte-aligned address; this tensor's is aligned to {t.align}")
    if t.element_type not in (T.Float16, T.BFloat16, T.Float32, T.Float8E4M3, T.Float8E5M2, T.Int8, T.Uint8, T.Int32):
        raise ValueError(f"make_tma_descriptor: no TMA element type for {t.element_type.name}")
    return HostTmaDescriptor(t, box, swizzle)
