"""Tensors inside a kernel: global-memory arguments, shared-memory buffers, register fragments,
and the register values (`TensorSSA`) that `load()` returns and `store()` writes.

`load()` and `store()` of a tile with a layout of ints use the widest access (up to 16 bytes)
that the run of contiguous offsets and the pointer's proven alignment allow; the alignment of a
dynamic offset is what its value is known to be a multiple of (ir.Value.div).
"""

from __future__ import annotations

import math

from . import dtypes as T
from .ir import Value, as_value, binary, builder, convert, fail
from .tensor import Tensor, _add, _has_none, crd2idx, is_tuple, leaves, product, show_layout, slice_layout, static


class DeviceTensor(Tensor):
    """A pointer (C++ expression `base` plus an element offset) and a layout, in a kernel."""

    def __init__(self, dtype, shape, stride, base: str, offset=0, align=1, memspace="gmem", itype=T.Int32, swizzle=None):
        super().__init__(dtype, shape, stride, align)
        self.base, self.offset, self.memspace, self.itype = base, offset, memspace, itype
        self.swizzle = swizzle  # a Swizzle applied to the element offset from `base` (swizzle.py), or None

    def _with_layout(self, shape, stride, offset=0):
        return DeviceTensor(self.element_type, shape, stride, self.base, _add(self.offset, offset), self.align, self.memspace,
                            self.itype, self.swizzle)

    def address_align(self, offset=0) -> int:
        """Bytes the address of element `offset` (past this tensor's own offset) is known to be aligned to."""
        w = self.element_type.width
        a = self.align
        for o in (self.offset, offset):
            if isinstance(o, Value):
                a = math.gcd(a, o.div * w)
            elif o:
                a = math.gcd(a, o * w)
        if self.swizzle is not None:
            a = min(a, self.swizzle.unit * w)  # the swizzle moves whole 2^base-element chunks
        return a

    def _pointer(self, offset=0) -> str:
        total = _add(self.offset, offset)
        if self.swizzle is not None:
            total = self.swizzle(total)
        if isinstance(total, Value):
            return f"({self.base} + {total.expr})"
        return f"({self.base} + {total})" if total else self.base

    @property
    def iterator(self):
        return Pointer(self.element_type, self._pointer(), self.memspace, self.address_align())

    # -- element access --------------------------------------------------------------------------
    def __getitem__(self, coord):
        if _has_none(coord):
            off, ks, kd = slice_layout(coord, self._shape, self._stride, self.itype)
            shape, stride = (ks[0], kd[0]) if len(ks) == 1 else (tuple(ks), tuple(kd))
            return self._with_layout(shape, stride, off)
        off = crd2idx(coord, self._shape, self._stride, self.itype)
        return self._load_one(off)

    def __setitem__(self, coord, value):
        if coord is None or _has_none(coord) and all(c is None for c in leaves(coord)):
            if isinstance(value, TensorSSA):
                self.store(value)
            else:
                self.fill(value)
            return
        if _has_none(coord):
            self[coord].store(value) if isinstance(value, TensorSSA) else self[coord].fill(value)
            return
        off = crd2idx(coord, self._shape, self._stride, self.itype)
        self._store_one(off, value)

    def _load_one(self, off) -> Value:
        return builder().let(self.element_type, f"{self._element(off)}")

    def _element(self, off) -> str:
        if self.memspace == "rmem":
            total = _add(self.offset, off)
            return f"{self.base}[{total.expr if isinstance(total, Value) else total}]"
        return f"*{self._pointer(off)}"

    def _store_one(self, off, value):
        v = convert(as_value(value, self.element_type), self.element_type)
        builder().emit(f"{self._element(off)} = {v.expr};")

    # -- whole-tile access -----------------------------------------------------------------------
    def _offsets(self) -> list:
        if not static(self._shape):
            fail(f"load/store of a tensor needs a shape of ints (this one is {show_layout(self._shape, self._stride)}): "
                 "tile it first (local_tile, zipped_divide) and take one tile")
        n = product(self._shape)
        return [crd2idx(i, self._shape, self._stride, self.itype) for i in range(n)]

    def _runs(self, offs):
        """(first element, count, bytes per access) groups, widest access first."""
        w = self.element_type.width
        out, i = [], 0
        while i < len(offs):
            o = offs[i]
            vec = 1
            if self.memspace != "rmem" and isinstance(o, int):
                for nbytes in (16, 8, 4, 2):
                    k = nbytes // w
                    if k <= 1 or nbytes % w or i + k > len(offs):
                        continue
                    if all(isinstance(offs[i + j], int) and offs[i + j] == o + j for j in range(k)) and self.address_align(o) % nbytes == 0:
                        vec = k
                        break
            out.append((i, vec, vec * w))
            i += vec
        return out

    def load(self) -> TensorSSA:
        """The tile's elements in registers."""
        offs = self._offsets()
        b = builder()
        r = b.fresh("r")
        b.emit(f"alignas(16) {self.element_type.cxx} {r}[{len(offs)}];")
        for i, k, nbytes in self._runs(offs):
            if k > 1:
                b.emit(f"tessel_dsl::copy_bytes<{nbytes}>(&{r}[{i}], {self._pointer(offs[i])});")
            else:
                b.emit(f"{r}[{i}] = {self._element(offs[i])};")
        return TensorSSA(r, self.element_type, self._shape, len(offs))

    def store(self, value):
        """Writes a TensorSSA of this tile's shape (converted to the element type)."""
        if not isinstance(value, TensorSSA):
            fail(f"store takes the registers of a load or of arithmetic on one (a TensorSSA); got {type(value).__name__}: "
                 "use fill() for one value")
        offs = self._offsets()
        if value.n != len(offs):
            fail(f"storing {value.n} values into a tile of {len(offs)} elements ({show_layout(self._shape, self._stride)})")
        if value.dtype is not self.element_type:
            value = value.to(self.element_type)
        b = builder()
        for i, k, nbytes in self._runs(offs):
            if k > 1:
                b.emit(f"tessel_dsl::copy_bytes<{nbytes}>({self._pointer(offs[i])}, &{value.name}[{i}]);")
            else:
                b.emit(f"{self._element(offs[i])} = {value.name}[{i}];")

    def fill(self, value):
        v = convert(as_value(value, self.element_type), self.element_type)
        for o in self._offsets():
            builder().emit(f"{self._element(o)} = {v.expr};")


class Pointer:
    """An address with its element type and proven alignment (tensor.iterator)."""

    def __init__(self, dtype, expr, memspace, align):
        self.dtype, self.expr, self.memspace, self.align = dtype, expr, memspace, align

    def __repr__(self):
        return f"ptr<{self.dtype.name}, {self.memspace}, align {self.align}>"

    def __add__(self, k):
        """The address `k` elements on (k an int or a dynamic integer)."""
        w = self.dtype.width
        if isinstance(k, Value):
            if not k.dtype.is_integer:
                fail(f"a pointer moves by an integer number of elements, not a {k.dtype.name}")
            return Pointer(self.dtype, f"({self.expr} + {k.expr})", self.memspace, math.gcd(self.align, k.div * w))
        if not isinstance(k, int):
            fail(f"a pointer moves by an integer number of elements, not {type(k).__name__}")
        return Pointer(self.dtype, f"({self.expr} + {k})" if k else self.expr, self.memspace,
                       math.gcd(self.align, k * w) if k else self.align)

    __radd__ = __add__


class TensorSSA:
    """Register values of a tile (C++ array `name` of `n` elements), from load() or arithmetic."""

    def __init__(self, name, dtype, shape, n):
        self.name, self.dtype, self.shape, self.n = name, dtype, shape, n

    @property
    def element_type(self):
        return self.dtype

    def __repr__(self):
        return f"TensorSSA<{self.dtype.name}, {self.n}>"

    def _map(self, fn, result_dtype=None, other=None):
        b = builder()
        if isinstance(other, TensorSSA) and other.n != self.n:
            fail(f"elementwise operation on register tiles of {self.n} and {other.n} values")
        e = b.fresh("e")
        # The result's type: what the operation gives one element (found by tracing it once).
        probe = b.lines[:], b.counter
        x = Value(f"{self.name}[0]", self.dtype, b.block)
        y = Value(f"{other.name}[0]", other.dtype, b.block) if isinstance(other, TensorSSA) else other
        t = result_dtype or fn(x, y).dtype
        b.lines[:], b.counter = probe
        r = b.fresh("r")
        b.emit(f"alignas(16) {t.cxx} {r}[{self.n}];")
        b.emit("#pragma unroll")
        b.open(f"for (int {e} = 0; {e} < {self.n}; ++{e})", "for")
        x = Value(f"{self.name}[{e}]", self.dtype, b.block)
        y = Value(f"{other.name}[{e}]", other.dtype, b.block) if isinstance(other, TensorSSA) else other
        res = fn(x, y)
        b.emit(f"{r}[{e}] = {convert(res, t).expr};")
        b.close()
        return TensorSSA(r, t, self.shape, self.n)

    def to(self, dtype):
        return self._map(lambda x, _: convert(x, dtype), dtype)

    def _bin(op, reflected=False):
        def f(self, other):
            if not isinstance(other, (TensorSSA, Value, int, float)):
                return NotImplemented
            if reflected:
                return self._map(lambda x, y: binary(op, y, x), other=other)
            return self._map(lambda x, y: binary(op, x, y), other=other)
        return f

    __add__, __radd__ = _bin("+"), _bin("+", True)
    __sub__, __rsub__ = _bin("-"), _bin("-", True)
    __mul__, __rmul__ = _bin("*"), _bin("*", True)
    __truediv__, __rtruediv__ = _bin("/"), _bin("/", True)
    __lt__, __le__, __gt__, __ge__ = _bin("<"), _bin("<="), _bin(">"), _bin(">=")

    def __neg__(self):
        return self._map(lambda x, _: -x)

    def map(self, fn):
        """fn applied to each element (a traced Python function of one Value)."""
        return self._map(lambda x, _: fn(x))

    def reduce_sum(self):
        b = builder()
        t = T.Float32 if self.dtype.is_float else self.dtype
        acc = b.fresh("acc")
        b.emit(f"{t.cxx} {acc} = 0;")
        b.emit("#pragma unroll")
        b.emit(f"for (int k = 0; k < {self.n}; ++k) {acc} += static_cast<{t.cxx}>({'static_cast<float>' if self.dtype.cxx.startswith('tessel_dsl') else ''}({self.name}[k]));")
        return Value(acc, t, b.block)


def make_fragment(layout_or_shape, dtype):
    """Registers for a tile: a tensor in `rmem` with the given layout (a compact column-major one
    for a shape)."""
    from .. import layout as eager
    from .tensor import make_layout
    L = layout_or_shape if isinstance(layout_or_shape, eager.Layout) else make_layout(layout_or_shape)
    if not isinstance(L, eager.Layout):
        fail(f"a register fragment needs a layout of ints; got {L}")
    b = builder()
    name = b.fresh("frag")
    b.emit(f"alignas(16) {dtype.cxx} {name}[{eager.cosize(L)}];")
    return DeviceTensor(dtype, L.shape, L.stride, name, 0, 16, "rmem")


def make_tensor(ptr, layout):
    """A tensor of `ptr`'s memory with `layout` (the CuTe DSL's make_tensor); the layout may
    hold dynamic extents and strides."""
    from .tensor import _layout_parts
    if not isinstance(ptr, Pointer):
        fail(f"make_tensor takes a pointer (tensor.iterator, + k); got {type(ptr).__name__}")
    shape, stride = _layout_parts(layout)
    itype = T.Int64 if any(isinstance(x, Value) and x.dtype.width == 8 for x in leaves(stride)) else T.Int32
    return DeviceTensor(ptr.dtype, shape, stride, ptr.expr, 0, ptr.align, ptr.memspace, itype)


def make_fragment_like(tensor, dtype=None):
    from .tensor import make_layout
    if not isinstance(tensor, Tensor):
        fail(f"make_fragment_like takes a tensor; got {type(tensor).__name__}")
    return make_fragment(make_layout(tensor.shape), dtype or tensor.element_type)


class SmemAllocator:
    """Carves the kernel's dynamic shared memory: each allocation at the next offset aligned as
    asked. The kernel's launch adds what was carved to the shared memory it asks for."""

    def allocate_tensor(self, element_type, layout, byte_alignment=16):
        """A shared-memory tensor of `layout` (a layout of ints, or a swizzle composed with one)."""
        from .. import layout as eager
        from .swizzle import ComposedLayout
        from .tensor import make_layout
        swizzle = None
        if isinstance(layout, ComposedLayout):
            swizzle, layout = layout.swizzle, layout.inner
        L = layout if isinstance(layout, eager.Layout) else make_layout(layout)
        if not isinstance(L, eager.Layout):
            fail("a shared-memory tensor needs a layout of ints")
        count = eager.cosize(L)
        if swizzle is not None:  # the swizzle permutes within blocks of 2^(base + bits) elements
            block = 1 << (swizzle.base + swizzle.bits)
            count = -(-count // block) * block
        ptr = self._carve(element_type, count, byte_alignment)
        return DeviceTensor(element_type, L.shape, L.stride, ptr, 0, byte_alignment, "smem", swizzle=swizzle)

    def allocate_array(self, element_type, num_elems, byte_alignment=16):
        return self.allocate_tensor(element_type, (num_elems,) if not is_tuple(num_elems) else num_elems, byte_alignment)

    def _carve(self, dtype, count, align):
        if align & (align - 1) or align < 1:
            fail(f"byte_alignment {align}: a power of two")
        b = builder()
        b.features.add("smem")
        off = -(-b.smem_bytes // align) * align
        b.smem_bytes = off + count * dtype.width
        b.smem_align = max(b.smem_align, align)
        return f"reinterpret_cast<{dtype.cxx}*>(tessel_smem + {off})"
