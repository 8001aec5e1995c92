"""The DSL's scalar types, with the CuTe DSL's names: Int32, Float16, Boolean, ...

A type names its C++ spelling in generated code (the prelude defines half, bfloat16 and the FP8
types itself, so that a kernel compiles without cuda_fp16.h), its width, and the DLPack and struct
codes used to recognise and pack arguments. Calling a type converts: `Float32(x)` inside a kernel
is a conversion; `Int32(5)` on the host is a dynamic argument of that type.
"""

from __future__ import annotations


class DType:
    """One scalar type. Instances are the module-level constants below; compare with `is`."""

    __slots__ = ("name", "cxx", "bits", "kind", "signed", "struct", "dlpack")

    def __init__(self, name, cxx, bits, kind, signed=True, struct=None, dlpack=None):
        self.name, self.cxx, self.bits, self.kind, self.signed = name, cxx, bits, kind, signed
        self.struct, self.dlpack = struct, dlpack  # struct format of a kernel parameter; (code, bits) in DLPack

    @property
    def width(self) -> int:
        """Bytes of one element (a Boolean takes one)."""
        return max(self.bits // 8, 1)

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_integer(self) -> bool:
        return self.kind in ("int", "bool")

    def __repr__(self):
        return self.name

    def __reduce__(self):
        return (by_name, (self.name,))

    def __call__(self, value):
        from .ir import Value, convert
        if isinstance(value, Value) or _tracing():
            return convert(value, self)
        return Scalar(value, self)


class Scalar:
    """A host value of a DSL type, passed to a @jit function as a dynamic argument."""

    __slots__ = ("value", "dtype")

    def __init__(self, value, dtype):
        if dtype.is_float:
            value = float(value)
        elif dtype is Boolean:
            value = bool(value)
        else:
            if isinstance(value, float) and not value.is_integer():
                raise TypeError(f"{dtype.name}({value!r}): an integer type holds no fraction; round it first")
            value = int(value)
            lo, hi = (-(1 << (dtype.bits - 1)), (1 << (dtype.bits - 1)) - 1) if dtype.signed else (0, (1 << dtype.bits) - 1)
            if not lo <= value <= hi:
                raise ValueError(f"{dtype.name}({value}): outside the type's range [{lo}, {hi}]")
        self.value, self.dtype = value, dtype

    def __repr__(self):
        return f"{self.dtype.name}({self.value!r})"


def _tracing() -> bool:
    from .ir import current_builder
    return current_builder() is not None


Boolean = DType("Boolean", "bool", 8, "bool", False, "?", (1, 8))
Int8 = DType("Int8", "signed char", 8, "int", True, "b", (0, 8))
Uint8 = DType("Uint8", "unsigned char", 8, "int", False, "B", (1, 8))
Int16 = DType("Int16", "short", 16, "int", True, "h", (0, 16))
Int32 = DType("Int32", "int", 32, "int", True, "i", (0, 32))
Uint32 = DType("Uint32", "unsigned", 32, "int", False, "I", (1, 32))
Int64 = DType("Int64", "long long", 64, "int", True, "q", (0, 64))
Uint64 = DType("Uint64", "unsigned long long", 64, "int", False, "Q", (1, 64))
Float16 = DType("Float16", "tessel_dsl::half", 16, "float", True, None, (2, 16))
BFloat16 = DType("BFloat16", "tessel_dsl::bfloat16", 16, "float", True, None, (4, 16))
Float32 = DType("Float32", "float", 32, "float", True, "f", (2, 32))
Float64 = DType("Float64", "double", 64, "float", True, "d", (2, 64))
Float8E4M3 = DType("Float8E4M3", "tessel_dsl::e4m3", 8, "float", True, None, (10, 8))
Float8E5M2 = DType("Float8E5M2", "tessel_dsl::e5m2", 8, "float", True, None, (11, 8))

ALL = (Boolean, Int8, Uint8, Int16, Int32, Uint32, Int64, Uint64, Float16, BFloat16, Float32, Float64, Float8E4M3, Float8E5M2)
_BY_NAME = {t.name: t for t in ALL}
_BY_DLPACK = {t.dlpack: t for t in ALL}
# torch spells the FP8 types float8_e4m3fn and float8_e5m2 (DLPack codes 10 and 11 are newer than
# some producers); torch dtypes are matched by name where DLPack is not used.
_BY_TORCH = {"float16": Float16, "bfloat16": BFloat16, "float32": Float32, "float64": Float64, "int8": Int8, "uint8": Uint8,
             "int16": Int16, "int32": Int32, "int64": Int64, "bool": Boolean, "float8_e4m3fn": Float8E4M3,
             "float8_e5m2": Float8E5M2, "uint32": Uint32, "uint64": Uint64}


def by_name(name: str) -> DType:
    return _BY_NAME[name]


def from_dlpack_code(code: int, bits: int) -> DType:
    try:
        return _BY_DLPACK[(code, bits)]
    except KeyError:
        raise TypeError(f"DLPack dtype (code {code}, {bits} bits) has no tessel type: the DSL takes "
                        + ", ".join(t.name for t in ALL)) from None


def from_torch(dtype) -> DType:
    name = str(dtype).removeprefix("torch.")
    try:
        return _BY_TORCH[name]
    except KeyError:
        raise TypeError(f"torch.{name} has no tessel type: the DSL takes " + ", ".join(sorted(_BY_TORCH))) from None


def promote(a: DType, b: DType) -> DType:
    """The type of a binary operation's result, as C++ would choose for the built-in types, with
    the 16- and 8-bit floats promoted to Float32 when they meet another type."""
    if a is b:
        return a
    if a.is_float or b.is_float:
        if not (a.is_float and b.is_float):
            return a if a.is_float else b
        if Float64 in (a, b):
            return Float64
        return Float32
    bits = max(a.bits, b.bits, 32)
    signed = (a.signed if a.bits >= b.bits else b.signed) if a.bits != b.bits else (a.signed and b.signed)
    return {(32, True): Int32, (32, False): Uint32, (64, True): Int64, (64, False): Uint64}[(bits, signed)]


class Constexpr:
    """An annotation: `def k(x, n: tessel.Constexpr)` makes `n` a compile-time value. The kernel
    is specialised (and cached) per value; Python control flow on it runs while tracing."""

    def __class_getitem__(cls, item):
        return cls
