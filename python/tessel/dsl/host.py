"""Tensors on the host: what a @jit function takes.

`from_dlpack(t)` wraps any DLPack tensor (PyTorch's without a round trip through DLPack) with no
copy, and a static layout: the kernel is compiled for this shape and these strides, as the CuTe
DSL's from_dlpack. `.mark_layout_dynamic()` makes every extent and stride a kernel parameter
except the unit stride of the leading mode; a PyTorch tensor passed straight to a @jit function
is taken that way (the CuTe DSL's implicit conversion). `fake_tensor` describes an argument with
no memory, to compile without a GPU.
"""

from __future__ import annotations

import ctypes

from . import dtypes as T
from .tensor import Tensor, _has_none, index_type_for, is_tuple, leaves, slice_layout


def _pow2_align(ptr: int, cap: int = 16) -> int:
    if ptr == 0:
        return cap
    a = ptr & -ptr
    return min(a, cap)


class HostTensor(Tensor):
    """A tensor argument: element type, layout, address, device, alignment; static or dynamic."""

    def __init__(self, dtype, shape, stride, ptr, device, align, dynamic=False, owner=None, root=None, offset=0, leading=None):
        super().__init__(dtype, shape, stride, align)
        self.ptr, self.device, self.dynamic, self.owner = ptr, device, dynamic, owner
        self.root = root if root is not None else self  # the argument this view was cut from
        self.offset = offset  # elements past root's address
        self.leading = leading  # dynamic layouts: the flat mode index whose unit stride stays static
        self._sig = None
        self._flat = None

    @property
    def flat(self) -> tuple:
        """The leaves of shape then stride, flattened (a kernel's dynamic layout parameters are
        read from here by index at every launch, so they are flattened once)."""
        if self._flat is None:
            self._flat = tuple(leaves(self._shape) + leaves(self._stride))
        return self._flat

    @property
    def data_ptr(self):
        if self.ptr is None or not self.offset:
            return self.ptr
        return self.ptr + self.offset * self.element_type.width

    def mark_layout_dynamic(self, leading_dim: int | None = None):
        """Every extent and stride becomes a kernel parameter, except the stride of the leading
        mode (the one with stride 1, or `leading_dim`), which stays the static 1. Returns self."""
        flat = leaves(self._stride)
        if leading_dim is None:
            ones = [i for i, s in enumerate(flat) if s == 1]
            leading_dim = ones[-1] if ones else None
        elif not 0 <= leading_dim < len(flat) or flat[leading_dim] != 1:
            raise ValueError(f"leading_dim {leading_dim}: mode {leading_dim} of {self._shape}:{self._stride} must have stride 1")
        self.dynamic, self.leading, self._sig = True, leading_dim, None
        return self

    def _with_layout(self, shape, stride, offset=0):
        if not isinstance(offset, int):
            raise TypeError("a host tensor is cut at integer offsets")
        t = HostTensor(self.element_type, shape, stride, self.ptr, self.device, self.align, self.dynamic, self.owner, self.root,
                       self.offset + offset)
        if self.dynamic:
            t.mark_layout_dynamic()
        return t

    def __getitem__(self, coord):
        if not _has_none(coord):
            raise TypeError("a host tensor's elements are read on the device: slice it with None in the kept modes, or "
                            "index it inside a kernel")
        off, ks, kd = slice_layout(coord, self._shape, self._stride)
        shape, stride = (ks[0], kd[0]) if len(ks) == 1 else (tuple(ks), tuple(kd))
        return self._with_layout(shape, stride, off)

    @property
    def index_type(self):
        return index_type_for(self._shape, self._stride)

    def signature(self):
        """What a compiled kernel depends on: type, alignment, index width, and the layout (its
        values where static; its nesting and the leading unit stride where dynamic)."""
        if self._sig is None:
            if self.dynamic:
                layout = ("dyn", _structure(self._shape), _structure(self._stride), self.leading)
            else:
                layout = ("static", self._shape, self._stride)
            self._sig = ("tensor", self.element_type.name, self.memspace, self.align, self.index_type.name, layout)
        return self._sig

    def describe(self) -> str:
        lay = f"{self._shape}:{self._stride}".replace(" ", "")
        return (f"{self.element_type.name} tensor {lay} ({'dynamic' if self.dynamic else 'static'} layout), aligned to "
                f"{self.align} bytes, {self.index_type.name} offsets")


def _structure(x):
    return tuple(_structure(e) for e in x) if is_tuple(x) else "?"


def _torch_view(t, assumed_align):
    dtype = T.from_torch(t.dtype)
    ptr = t.data_ptr()
    device = t.device.index if t.device.type == "cuda" else -1
    return HostTensor(dtype, tuple(t.shape), tuple(t.stride()), ptr, device, _align(ptr, assumed_align, dtype), owner=t)


def _align(ptr, assumed, dtype):
    measured = _pow2_align(ptr)
    if assumed is None:
        return max(measured, dtype.width) if ptr == 0 else measured
    if assumed & (assumed - 1) or assumed < 1:
        raise ValueError(f"assumed_align {assumed}: a power of two (bytes)")
    if ptr % assumed:
        raise ValueError(f"assumed_align {assumed}: the tensor's address 0x{ptr:x} is aligned to {measured} bytes only")
    return min(assumed, 16) if assumed >= 16 else assumed


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


def _dlpack_view(x, assumed_align):
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    capsule = x.__dlpack__()
    addr = get(capsule, b"dltensor")
    if not addr:
        raise TypeError("__dlpack__() returned no DLPack tensor")
    # DLManagedTensor starts with its DLTensor.
    dl = _DLTensor.from_address(addr)
    if dl.dtype.lanes != 1:
        raise TypeError(f"DLPack tensors of {dl.dtype.lanes}-lane vectors are not supported")
    dtype = T.from_dlpack_code(dl.dtype.code, dl.dtype.bits)
    shape = tuple(dl.shape[i] for i in range(dl.ndim))
    if dl.strides:
        stride = tuple(dl.strides[i] for i in range(dl.ndim))
    else:
        stride, acc = [], 1
        for s in reversed(shape):
            stride.insert(0, acc)
            acc *= s
        stride = tuple(stride)
    ptr = (dl.data or 0) + dl.byte_offset
    device = dl.device.device_id if dl.device.device_type in (2, 13) else -1  # kDLCUDA, kDLCUDAManaged
    return HostTensor(dtype, shape, stride, ptr, device, _align(ptr, assumed_align, dtype), owner=(x, capsule))


def from_dlpack(x, assumed_align: int | None = None) -> HostTensor:
    """A tensor of a DLPack producer (PyTorch, CuPy, JAX, NumPy), with no copy and a static
    layout. `assumed_align`: bytes the address is promised to be aligned to (default: measured,
    up to 16)."""
    if isinstance(x, HostTensor):
        return x
    if type(x).__module__.startswith("torch") and hasattr(x, "data_ptr"):
        return _torch_view(x, assumed_align)
    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"from_dlpack takes a tensor with __dlpack__ (PyTorch, CuPy, JAX, NumPy); got {type(x).__name__}")
    return _dlpack_view(x, assumed_align)


def fake_tensor(dtype, shape, stride=None, align: int = 16) -> HostTensor:
    """An argument with no memory, for compiling without a GPU: a dynamic layout of `shape`'s
    rank and nesting (compact row-major without `stride`), aligned to `align` bytes. The compiled
    function then runs on real tensors of that type, rank, leading mode and alignment."""
    if not isinstance(dtype, T.DType):
        raise TypeError(f"fake_tensor's dtype is a tessel type such as tessel.Float16; got {dtype!r}")
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    if stride is None:
        acc, st = 1, []
        for s in reversed(shape):
            st.insert(0, acc)
            acc *= s
        stride = tuple(st)
    stride = tuple(stride) if isinstance(stride, (tuple, list)) else (stride,)
    if align & (align - 1) or align < 1:
        raise ValueError(f"align {align}: a power of two (bytes)")
    t = HostTensor(dtype, shape, stride, None, None, min(align, 16))
    return t.mark_layout_dynamic()


def as_host_tensor(x, like: HostTensor | None = None):
    """A @jit argument as a HostTensor: PyTorch tensors passed directly get a dynamic layout
    (the CuTe DSL's implicit conversion), or the marking of `like`."""
    t = from_dlpack(x)
    if t is x:
        return t
    if like is None or like.dynamic:
        t.mark_layout_dynamic(like.leading if like is not None else None)
    return t
