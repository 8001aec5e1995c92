"""Arrays that exist only as DLPack descriptions: a device type, a pointer, a shape, strides and
a dtype, with no memory behind them. They let the host tests drive the GEMM launcher's operand
checks with "CUDA" operands of any layout and alignment on a machine without a GPU (or PyTorch).
The checks never dereference the pointer.
"""

import ctypes

from tessel.dsl.host import _DLDataType, _DLDevice, _DLTensor  # noqa: F401 (the package's DLPack structs, one definition)

_CODES = {"float16": (2, 16), "float32": (2, 32), "float64": (2, 64), "bfloat16": (4, 16), "int8": (0, 8), "int32": (0, 32),
          "float8_e4m3fn": (10, 8), "float8_e5m2": (12, 8)}  # DLPack's kDLFloat8_e4m3fn, kDLFloat8_e5m2
CPU, CUDA = 1, 2


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class FakeArray:
    """shape (rows, cols), strides in elements (default row-major), at address `ptr`."""

    def __init__(self, shape, dtype="float16", strides=None, ptr=0x7F0000000000, device_type=CUDA, device_id=0):
        self.shape = tuple(shape)
        if strides is None:
            strides, step = [], 1
            for extent in reversed(self.shape):
                strides.insert(0, step)
                step *= max(extent, 1)
        self.strides = tuple(strides)
        self.dtype, self.ptr, self.device = dtype, ptr, (device_type, device_id)
        n = len(self.shape)
        self._shape = (ctypes.c_int64 * n)(*self.shape)
        self._strides = (ctypes.c_int64 * n)(*self.strides)
        code, bits = _CODES[dtype]
        self._managed = _DLManagedTensor(_DLTensor(ptr, _DLDevice(device_type, device_id), n, _DLDataType(code, bits, 1),
                                                   self._shape, self._strides, 0), None, None)

    def __dlpack__(self, stream=None, max_version=None, **kwargs):
        if max_version is not None:  # offer only the unversioned capsule, which every consumer takes
            raise TypeError("versioned DLPack capsules are not offered")
        return _capsule_new(ctypes.addressof(self._managed), b"dltensor", None)

    def __dlpack_device__(self):
        return self.device

    @property
    def T(self):  # noqa: N802 (numpy's spelling)
        return FakeArray(self.shape[::-1], self.dtype, self.strides[::-1], self.ptr, *self.device)

    def __repr__(self):
        return f"FakeArray({self.shape}, {self.dtype}, strides={self.strides}, ptr={self.ptr:#x})"
