"""Swizzles (CuTe's Swizzle<B, M, S>) and the layouts they compose with, for shared memory.

    sw = tessel.make_swizzle(3, 3, 3)                  # 16-byte chunks of 16-bit elements, 8 rows
    sA = smem.allocate_tensor(tessel.BFloat16, tessel.composition(sw, tessel.make_layout((64, 64), stride=(64, 1))))

Swizzle<B, M, S> maps an offset x to x ^ ((x & yyy) >> S), where yyy holds the B bits starting at
bit M + S: the B bits starting at bit M (which 2^M-element chunk of a row) are XORed with the B
bits S above them (which row). It is its own inverse. A tensor with a swizzled layout applies it
to the element offset from its buffer's start, after the layout: slices and tiles of it keep the
swizzle, as in CuTe. Runs of 2^M elements aligned to 2^M stay contiguous, so loads and stores of
them stay vectorized.
"""

from __future__ import annotations

from .. import layout as eager
from .ir import Value, fail


class Swizzle:
    """x -> x ^ ((x & yyy) >> shift), yyy = ((1 << bits) - 1) << (base + shift)."""

    def __init__(self, bits: int, base: int, shift: int):
        for name, v in (("bits", bits), ("base", base), ("shift", shift)):
            if not (isinstance(v, int) and v >= 0):
                fail(f"make_swizzle's {name} is a compile-time integer >= 0, not {v!r}")
        if shift < bits:
            fail(f"make_swizzle({bits}, {base}, {shift}): the shift must be at least the bit count, or the XORed bits "
                 "overlap the bits they are read from and the swizzle is not a bijection")
        self.bits, self.base, self.shift = bits, base, shift
        self.yyy = ((1 << bits) - 1) << (base + shift)

    def __call__(self, x):
        if self.bits == 0:
            return x
        if isinstance(x, Value) or isinstance(x, int):
            return x ^ ((x & self.yyy) >> self.shift)
        fail(f"a swizzle maps integer offsets; got {type(x).__name__}")

    @property
    def unit(self) -> int:
        """Elements that stay together (and contiguous): 2^base."""
        return 1 << self.base

    def __eq__(self, other):
        return isinstance(other, Swizzle) and (self.bits, self.base, self.shift) == (other.bits, other.base, other.shift)

    def __hash__(self):
        return hash((self.bits, self.base, self.shift))

    def __repr__(self):
        return f"Sw<{self.bits},{self.base},{self.shift}>"


class ComposedLayout:
    """swizzle o layout: the layout's offset, then the swizzle (the CuTe ComposedLayout of a
    shared-memory buffer)."""

    def __init__(self, swizzle: Swizzle, layout):
        if not isinstance(layout, eager.Layout):
            fail(f"a swizzle composes with a layout of ints; got {type(layout).__name__}")
        self.swizzle, self.inner = swizzle, layout
        self.shape, self.stride = layout.shape, layout.stride

    def __call__(self, *coord):
        return self.swizzle(self.inner(*coord))

    def __repr__(self):
        return f"{self.swizzle} o {self.inner}"


def make_swizzle(bits: int, base: int, shift: int) -> Swizzle:
    """CuTe's Swizzle<B, M, S> (make_swizzle in the CuTe DSL)."""
    return Swizzle(bits, base, shift)
