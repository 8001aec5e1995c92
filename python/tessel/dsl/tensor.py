"""Tensors in the DSL: a pointer and a layout, on the host (`from_dlpack`, `fake_tensor`) and in
kernels (arguments, tiles, shared memory, register fragments), with the layout algebra on both.

A layout is a nested (shape, stride) pair whose entries are ints or, in a kernel, dynamic
values. A layout of ints is the eager algebra's: every operation on it is tessel.layout's (the
C++ run-time algebra), so a kernel sees exactly the answers the eager API gives. A layout with
dynamic entries (a tensor marked dynamic) supports what tiling needs: indexing, slicing, and the
divides by a tiler of ints, mode by mode, with the rest modes' extents rounded up (ceil_div), as
CuTe's divides of a dynamic shape are.

Offsets are computed in the tensor's index type: 32-bit where every offset of the layout fits in
an Int32, else 64-bit (the choice is part of the compiled kernel's signature), so indexing past
2^31 elements is exact.
"""

from __future__ import annotations

import math

from .. import layout as eager
from . import dtypes as T
from .ir import Value, as_value, builder, convert, current_builder, fail

# ---- nested tuples with int or Value leaves ---------------------------------------------------------


def is_tuple(x) -> bool:
    return isinstance(x, tuple)


def leaves(x) -> list:
    return [y for e in x for y in leaves(e)] if is_tuple(x) else [x]


def static(x) -> bool:
    return all(isinstance(v, int) for v in leaves(x))


def _mul(a, b):
    if isinstance(a, int) and isinstance(b, int):
        return a * b
    if a == 0 if isinstance(a, int) else False:
        return 0
    if b == 0 if isinstance(b, int) else False:
        return 0
    if isinstance(a, int) and a == 1:
        return b
    if isinstance(b, int) and b == 1:
        return a
    return a * b


def _add(a, b):
    if isinstance(a, int) and a == 0:
        return b
    if isinstance(b, int) and b == 0:
        return a
    return a + b


def _div(a, b):
    if isinstance(b, int) and b == 1:
        return a
    return a // b


def _mod(a, b):
    if isinstance(b, int) and b == 1:
        return 0
    return a % b


def product(shape):
    p = 1
    for s in leaves(shape):
        p = _mul(p, s)
    return p


def _widen(c, itype):
    if isinstance(c, Value) and c.dtype is not itype and c.dtype.bits < itype.bits:
        return convert(c, itype)
    return c


def crd2idx(coord, shape, stride, itype=T.Int32):
    """The offset of `coord` (an int or value for a whole mode, read colexicographically, or a
    tuple per mode) in the layout shape:stride, computed in `itype`."""
    if is_tuple(coord):
        if not is_tuple(shape) or len(coord) != len(shape):
            fail(f"coordinate {_show(coord)} does not match the layout's shape {_show(shape)} (rank {len(shape) if is_tuple(shape) else 1})")
        off = 0
        for c, s, d in zip(coord, shape, stride):
            off = _add(off, crd2idx(c, s, d, itype))
        return off
    if coord is None:
        fail("a None (keep this mode) in a coordinate that indexes one element: slice with t[..., None, ...] to get a tensor")
    if not isinstance(coord, (int, Value)):
        fail(f"a coordinate is an int, a dynamic integer or a tuple of them; got {type(coord).__name__}")
    if isinstance(coord, Value) and not coord.dtype.is_integer:
        fail(f"a coordinate must be an integer; this one is a {coord.dtype.name}")
    if is_tuple(shape):
        off, rest = 0, _widen(coord, itype)
        for i, (s, d) in enumerate(zip(shape, stride)):
            if i == len(shape) - 1:
                off = _add(off, crd2idx(rest, s, d, itype))
            else:
                n = product(s)
                off = _add(off, crd2idx(_mod(rest, n), s, d, itype))
                rest = _div(rest, n)
        return off
    return _mul(_widen(coord, itype), stride)


def slice_layout(coord, shape, stride, itype=T.Int32):
    """(offset, kept shapes, kept strides): the modes where `coord` is None are kept (in order),
    the others fixed at their coordinate."""
    if coord is None:
        return 0, [shape], [stride]
    if is_tuple(coord):
        if not is_tuple(shape) or len(coord) != len(shape):
            fail(f"slice {_show(coord)} does not match the layout's shape {_show(shape)}")
        off, ks, kd = 0, [], []
        for c, s, d in zip(coord, shape, stride):
            o, s2, d2 = slice_layout(c, s, d, itype)
            off, ks, kd = _add(off, o), ks + s2, kd + d2
        return off, ks, kd
    return crd2idx(coord, shape, stride, itype), [], []


def _has_none(c) -> bool:
    return c is None or is_tuple(c) and any(_has_none(e) for e in c)


def _show(x) -> str:
    if is_tuple(x):
        return "(" + ",".join(_show(e) for e in x) + ")"
    return "?" if isinstance(x, Value) else "_" if x is None else str(x)


def show_layout(shape, stride) -> str:
    return f"{_show(shape)}:{_show(stride)}"


def _as_eager(shape, stride):
    return eager.Layout(shape, stride)


def _layout_parts(layout):
    """(shape, stride) of an eager Layout, a DynLayout or a (shape, stride) pair."""
    if isinstance(layout, eager.Layout):
        return layout.shape, layout.stride
    if isinstance(layout, DynLayout):
        return layout.shape, layout.stride
    if isinstance(layout, int):
        return layout, 1
    fail(f"expected a layout; got {type(layout).__name__}")


class DynLayout:
    """A layout with dynamic extents or strides (in a kernel)."""

    def __init__(self, shape, stride):
        self.shape, self.stride = shape, stride

    def __call__(self, *coord):
        return crd2idx(coord[0] if len(coord) == 1 else tuple(coord), self.shape, self.stride)

    def __repr__(self):
        return show_layout(self.shape, self.stride)

    def __len__(self):
        return len(self.shape) if is_tuple(self.shape) else 1


def make_layout_parts(shape, stride):
    if static(shape) and static(stride):
        return _as_eager(shape, stride)
    return DynLayout(shape, stride)


def make_layout(shape, stride=None):
    """tessel.make_layout: compact column-major without a stride; a Layout of ints is the eager
    algebra's, one with dynamic entries a DynLayout."""
    if stride is None:
        if static(shape):
            return eager.make_layout(shape)
        stride = _compact_left(shape)
    return make_layout_parts(shape, stride)


def _compact_left(shape, start=1):
    out = []
    cur = start
    for s in (shape if is_tuple(shape) else (shape,)):
        if is_tuple(s):
            sub = _compact_left(s, cur)
            out.append(sub)
        else:
            out.append(cur)
        cur = _mul(cur, product(s))
    return tuple(out) if is_tuple(shape) else out[0]


def _divide_by_mode(shape, stride, tiler):
    """zipped_divide of a layout with dynamic entries by a tuple of ints, mode by mode:
    ((b0,b1,..),(ceil(S0/b0),..)):((d0,..),(b0*d0,..)). Each divided mode must be flat."""
    shape_t = shape if is_tuple(shape) else (shape,)
    stride_t = stride if is_tuple(stride) else (stride,)
    tiler_t = tiler if is_tuple(tiler) else (tiler,)
    if len(tiler_t) > len(shape_t):
        fail(f"the tiler {_show(tiler_t)} has more modes than the layout {show_layout(shape, stride)}")
    ts, td, rs, rd = [], [], [], []
    for i, (s, d) in enumerate(zip(shape_t, stride_t)):
        b = tiler_t[i] if i < len(tiler_t) else None
        if b is None:
            rs.append(s), rd.append(d)
            continue
        if not isinstance(b, int) or b <= 0:
            fail(f"a tiler of a dynamic layout is a tuple of positive ints (got {_show(tiler_t)})")
        if is_tuple(s):
            fail(f"mode {i} of {show_layout(shape, stride)} is nested: a dynamic layout is divided only along flat modes")
        ts.append(b), td.append(d)
        rs.append(s // b if isinstance(s, int) and s % b == 0 else (s + (b - 1)) // b)
        rd.append(_mul(b, d))
    return (tuple(ts), tuple(rs)), (tuple(td), tuple(rd))


# ---- tensors ----------------------------------------------------------------------------------------

def index_type_for(shape, stride) -> T.DType:
    """Int32 when every offset and the size fit in an Int32, else Int64."""
    vals = [abs(v) for v in leaves(stride) if isinstance(v, int)]
    shp = [v for v in leaves(shape) if isinstance(v, int)]
    span = sum((s - 1) * d for s, d in zip(leaves(shape), leaves(stride)) if isinstance(s, int) and isinstance(d, int))
    big = (1 << 31) - 1
    if span >= big or math.prod(shp) >= big or any(v >= big for v in vals):
        return T.Int64
    return T.Int32


class Tensor:
    """A pointer and a layout (tessel.Tensor). On the host: an argument for a @jit function,
    from `from_dlpack` or `fake_tensor`. In a kernel: the same operations emit device code."""

    memspace = "gmem"

    def __init__(self, dtype: T.DType, shape, stride, align: int):
        self.element_type, self._shape, self._stride, self.align = dtype, shape, stride, align

    @property
    def shape(self):
        return self._shape

    @property
    def stride(self):
        return self._stride

    @property
    def layout(self):
        return make_layout_parts(self._shape, self._stride)

    def __len__(self):
        return len(self._shape) if is_tuple(self._shape) else 1

    def size(self):
        return product(self._shape)

    def __repr__(self):
        kind = type(self).__name__
        return f"{kind}<{self.element_type.name}, {self.memspace}, align {self.align}> o {show_layout(self._shape, self._stride)}"

    # The algebra on a tensor acts on its layout and keeps the pointer (and offset).
    def _with_layout(self, shape, stride, offset=0):
        raise NotImplementedError


def _apply(op_name, tensor_or_layout, *args):
    """An algebra operation on a layout, or on a tensor's layout (returning a tensor)."""
    x = tensor_or_layout
    from .swizzle import ComposedLayout, Swizzle
    if op_name == "composition" and isinstance(x, Swizzle):
        return ComposedLayout(x, args[0] if isinstance(args[0], eager.Layout) else make_layout(args[0]))
    if isinstance(x, Tensor):
        shape, stride = x.shape, x.stride
        if static(shape) and static(stride):
            out = getattr(eager, op_name)(_as_eager(shape, stride), *[_eager_arg(a) for a in args])
            return x._with_layout(out.shape, out.stride)
        if op_name in ("zipped_divide", "tiled_divide", "logical_divide", "flat_divide"):
            (ts, rs), (td, rd) = _divide_by_mode(shape, stride, args[0])
            return x._with_layout(*_divide_form(op_name, ts, rs, td, rd))
        fail(f"{op_name} of a tensor whose layout has dynamic entries ({show_layout(shape, stride)}) is not supported: "
             "pass the tensor with a static layout (from_dlpack's default), or divide it by a tuple of ints first")
    if isinstance(x, DynLayout):
        if op_name in ("zipped_divide", "tiled_divide", "logical_divide", "flat_divide"):
            (ts, rs), (td, rd) = _divide_by_mode(x.shape, x.stride, args[0])
            return DynLayout(*_divide_form(op_name, ts, rs, td, rd))
        fail(f"{op_name} of a layout with dynamic entries ({x}) is not supported")
    return getattr(eager, op_name)(_eager_arg(x), *[_eager_arg(a) for a in args])


def _divide_form(op_name, ts, rs, td, rd):
    if op_name == "zipped_divide":
        return (ts, rs), (td, rd)
    if op_name == "tiled_divide":
        return (ts, *rs), (td, *rd)
    if op_name == "flat_divide":
        return (*ts, *rs), (*td, *rd)
    return tuple((a, b) for a, b in zip(ts, rs)) + rs[len(ts):], tuple((a, b) for a, b in zip(td, rd)) + rd[len(ts):]


def _eager_arg(a):
    if isinstance(a, Tensor):
        return _as_eager(a.shape, a.stride)
    if isinstance(a, DynLayout):
        fail(f"a layout with dynamic entries ({a}) cannot be an operand of the algebra here")
    return a


def _op(name, doc):
    def f(x, *args):
        return _apply(name, x, *args)
    f.__name__, f.__doc__ = name, doc
    return f


composition = _op("composition", "composition(A, B): A o B, on a layout or on a tensor's layout.")
logical_divide = _op("logical_divide", "logical_divide(A, tiler), on a layout or a tensor.")
zipped_divide = _op("zipped_divide", "zipped_divide(A, tiler): ((tile),(rest)), on a layout or a tensor.")
tiled_divide = _op("tiled_divide", "tiled_divide(A, tiler): ((tile),rest0,rest1,..), on a layout or a tensor.")
flat_divide = _op("flat_divide", "flat_divide(A, tiler): (tile0,tile1,..,rest0,rest1,..), on a layout or a tensor.")
logical_product = _op("logical_product", "logical_product(A, B), on layouts.")
blocked_product = _op("blocked_product", "blocked_product(A, B), on layouts.")
raked_product = _op("raked_product", "raked_product(A, B), on layouts.")
zipped_product = _op("zipped_product", "zipped_product(A, B), on layouts.")
tiled_product = _op("tiled_product", "tiled_product(A, B), on layouts.")
coalesce = _op("coalesce", "coalesce(A), on a layout or a tensor.")
right_inverse = _op("right_inverse", "right_inverse(A), on a static layout.")
left_inverse = _op("left_inverse", "left_inverse(A), on a static layout.")
complement = _op("complement", "complement(A, cosize), on a static layout.")


def local_tile(tensor, tiler, coord):
    """The tile of `tensor` at `coord` (a coordinate in the grid of tiles; None keeps that mode):
    zipped_divide(tensor, tiler)[(tile modes kept, coord)], as CuTe's local_tile."""
    if not isinstance(tensor, Tensor):
        fail(f"local_tile takes a tensor; got {type(tensor).__name__}")
    zd = zipped_divide(tensor, tiler)
    tile_rank = len(zd.shape[0]) if is_tuple(zd.shape[0]) else 1
    keep = (None,) * tile_rank if tile_rank > 1 else None
    return zd[(keep, coord)]


def _flat_coord(thr_layout, index):
    """The coordinate of thread `index` in a compact thread layout (each mode's
    (index / stride) % extent), so that thr_layout(coord) == index."""
    L = thr_layout if isinstance(thr_layout, eager.Layout) else make_layout(thr_layout)
    n = eager.size(L)
    if sorted(L(i) for i in range(n)) != list(range(n)):
        fail(f"the thread layout {L} is not compact (its indices are not 0..{n - 1}): local_partition needs a bijection")
    shapes, strides = leaves(L.shape), leaves(L.stride)
    coord = tuple(_mod(_div(index, d), s) if s > 1 else 0 for s, d in zip(shapes, strides))
    return coord, L


def local_partition(tensor, thr_layout, index):
    """The elements thread `index` owns when `thr_layout`'s threads tile `tensor`: the tensor
    divided by the thread layout's shape, its tile mode fixed at the thread's coordinate
    (CuTe's local_partition)."""
    coord, L = _flat_coord(thr_layout, index)
    tile = tuple(leaves(L.shape)) if is_tuple(L.shape) else L.shape
    zd = zipped_divide(tensor, tile)
    rest = zd.shape[1]
    keep = (None,) * len(rest) if is_tuple(rest) else None
    return zd[(coord if len(coord) > 1 else coord[0], keep)]


def make_layout_tv(thr_layout, val_layout):
    """(tiler_mn, layout_tv): threads `thr_layout` each holding a `val_layout` block, raked over the
    tile, as the CuTe DSL's make_layout_tv. layout_tv maps (thread, value) to the tile's offset."""
    thr = thr_layout if isinstance(thr_layout, eager.Layout) else make_layout(thr_layout)
    val = val_layout if isinstance(val_layout, eager.Layout) else make_layout(val_layout)
    layout_mn = eager.raked_product(thr, val)
    tiler = tuple(eager.size(eager.layout(layout_mn, i)) for i in range(eager.rank(layout_mn)))
    layout_tv = eager.composition(eager.right_inverse(layout_mn), eager.make_layout((eager.size(thr), eager.size(val))))
    return tiler, layout_tv
