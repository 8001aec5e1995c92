"""Tracing a kernel into CUDA C++: dynamic values, the statement builder, and errors that point
at the user's line.

A kernel is traced by running its (rewritten, see rewrite.py) Python body once. A dynamic value
(`Value`) is a C++ expression with a DSL type; an operation on one appends a statement to the
current `Builder` and returns the new value. Python numbers, tuples, layouts and types are
compile-time values and are computed by Python while tracing, as in the CuTe DSL.

Every value remembers the block (C++ scope) it was defined in. A value defined inside a dynamic
`if`, `for` or `while` and used after the block ends is refused with the line of the block: C++
would not see the name, and Python's rebinding would otherwise silently take one path's value.
"""

from __future__ import annotations

import math
import os
import sys
import threading

from . import dtypes as T

_state = threading.local()
_DSL_DIR = os.path.dirname(os.path.abspath(__file__))
USER_FILES: set = set()  # files of traced functions (rewrite.py adds them)


class DSLError(Exception):
    """A rule of the DSL broken while tracing or compiling: `filename`, `lineno` and `rule` say
    where and which; str() reads 'file.py:12: rule', then the source line."""

    def __init__(self, rule: str, filename: str | None = None, lineno: int | None = None, source_line: str = ""):
        self.rule, self.filename, self.lineno, self.source_line = rule, filename, lineno, source_line
        where = f"{filename}:{lineno}: " if filename else ""
        super().__init__(where + rule + (f"\n    {source_line.strip()}" if source_line.strip() else ""))


def user_location():
    """(file, line, text) of the innermost frame in a traced user function, else (None, None, '')."""
    f = sys._getframe(1)
    while f is not None:
        name = f.f_code.co_filename
        if name in USER_FILES and not os.path.abspath(name).startswith(_DSL_DIR):
            import linecache
            return name, f.f_lineno, linecache.getline(name, f.f_lineno)
        f = f.f_back
    return None, None, ""


def fail(rule: str):
    raise DSLError(rule, *user_location())


# ---- the builder ------------------------------------------------------------------------------------

class Block:
    __slots__ = ("kind", "line", "open")

    def __init__(self, kind, line):
        self.kind, self.line, self.open = kind, line, True


class Builder:
    """The C++ body of one kernel, statement by statement, with `#line` directives that map each
    statement to the Python line that made it (NVRTC's diagnostics then name the user's file)."""

    def __init__(self, target: str):
        self.target = target
        self.sm = int(target[3:5]) if target.startswith("sm_") else 0
        self.lines: list[str] = []
        self.blocks = [Block("kernel", None)]
        self.counter = 0
        self.where = None
        self.smem_bytes = 0      # shared memory the kernel allocated (SmemAllocator)
        self.smem_align = 16
        self.features: set = set()  # prelude sections the body needs
        self.bound_in: dict = {}  # name -> the dynamic block a compile-time value was bound to it in

    @property
    def block(self) -> Block:
        return self.blocks[-1]

    def fresh(self, hint="v") -> str:
        self.counter += 1
        return f"{hint}{self.counter}"

    def emit(self, text: str):
        filename, line, _ = user_location()
        if filename and (filename, line) != self.where:
            self.where = (filename, line)
            self.lines.append(f'#line {line} "{filename}"')
        self.lines.append("  " * len(self.blocks) + text)

    def let(self, dtype: T.DType, expr: str, hint="v", div=1) -> Value:
        name = self.fresh(hint)
        self.emit(f"{dtype.cxx} const {name} = {expr};")
        return Value(name, dtype, self.block, div)

    def open(self, head: str, kind: str):
        self.emit(head + " {")
        self.blocks.append(Block(kind, user_location()[1]))

    def close(self):
        block = self.blocks.pop()
        block.open = False
        self.emit("}")
        return block

    def source_lines(self) -> list[str]:
        return self.lines


def current_builder() -> Builder | None:
    return getattr(_state, "builder", None)


def builder() -> Builder:
    b = current_builder()
    if b is None:
        raise DSLError("this operation exists inside a @tessel.kernel function only (it emits device code)")
    return b


class tracing:
    """Context: `builder` is the current one for the duration."""

    def __init__(self, b: Builder):
        self.b = b

    def __enter__(self):
        self.prev = current_builder()
        _state.builder = self.b
        return self.b

    def __exit__(self, *exc):
        _state.builder = self.prev


# ---- values -----------------------------------------------------------------------------------------

def _check_live(v: Value):
    if v.block is not None and not v.block.open:
        fail(f"a value defined inside the dynamic {v.block.kind} that starts at line {v.block.line} is used after that "
             "block ends: assign the variable before the block, so that it exists on every path")


def literal(x, dtype: T.DType) -> str:
    """C++ text of a Python number as a constant of `dtype`."""
    if dtype is T.Boolean:
        return "true" if x else "false"
    if dtype.is_float:
        x = float(x)
        if math.isnan(x):
            text = "__int_as_float(0x7fffffff)"
        elif math.isinf(x):
            text = "__int_as_float(0x7f800000)" if x > 0 else "__int_as_float(0xff800000)"
        else:
            text = repr(x) + ("" if dtype is T.Float64 else "f")
        return text if dtype in (T.Float32, T.Float64) else f"{dtype.cxx}({text})"
    if isinstance(x, float):
        if not x.is_integer():
            fail(f"the constant {x!r} meets an integer ({dtype.name}) value: make one side a float with .to(tessel.Float32)")
        x = int(x)
    suffix = {T.Int64: "LL", T.Uint64: "ULL", T.Uint32: "u"}.get(dtype, "")
    if dtype is T.Int32 and x == -(1 << 31):
        return "(-2147483647 - 1)"
    return f"{int(x)}{suffix}" if suffix or dtype is T.Int32 else f"{dtype.cxx}({int(x)})"


def _int_type_of(x: int) -> T.DType:
    return T.Int32 if -(1 << 31) <= x < (1 << 31) else T.Int64


def as_value(x, like: T.DType | None = None) -> Value:
    """A Value for x: itself, or a constant typed after `like` (the other operand's type)."""
    if isinstance(x, Value):
        _check_live(x)
        return x
    if isinstance(x, bool):
        return Value("true" if x else "false", T.Boolean, None)
    if isinstance(x, int):
        if like is not None and like.is_integer and like is not T.Boolean:
            return Value(literal(x, like), like, None, abs(x) or 1 << 62)
        dtype = like if like is not None and like.is_float else _int_type_of(x)
        return Value(literal(x, dtype), dtype, None, abs(x) or 1 << 62)
    if isinstance(x, float):
        dtype = like if like is not None and like.is_float else T.Float32
        return Value(literal(x, dtype), dtype, None)
    if isinstance(x, T.Scalar):
        return as_value(x.value, x.dtype)
    fail(f"a {type(x).__name__} ({x!r:.60}) cannot be a device value: the DSL computes with numbers, DSL values, "
         "tensors and layouts")


def convert(x, dtype: T.DType) -> Value:
    if not isinstance(x, Value):
        return as_value(x, dtype)
    _check_live(x)
    if x.dtype is dtype:
        return x
    if dtype is T.Boolean:
        return builder().let(dtype, f"static_cast<bool>({x.expr})")
    src = x.expr
    if x.dtype.cxx.startswith("tessel_dsl::") and not dtype.cxx.startswith("tessel_dsl::"):
        src = f"static_cast<float>({src})"
    elif dtype.cxx.startswith("tessel_dsl::") and not x.dtype.cxx.startswith("tessel_dsl::") and x.dtype is not T.Float32:
        src = f"static_cast<float>({src})"
    if dtype.cxx.startswith("tessel_dsl::"):
        return builder().let(dtype, f"{dtype.cxx}({src})")
    div = x.div if dtype.is_integer and x.dtype.is_integer else 1
    return builder().let(dtype, f"static_cast<{dtype.cxx}>({src})", div=div)


_NARROW = ("tessel_dsl::e4m3", "tessel_dsl::e5m2")


def _arith_type(a: T.DType, b: T.DType) -> T.DType:
    t = T.promote(a, b)
    return T.Float32 if t.cxx in _NARROW else t


def _operands(a, b):
    like = a.dtype if isinstance(a, Value) else b.dtype if isinstance(b, Value) else None
    return as_value(a, like), as_value(b, like)


def _expr_as(v: Value, dtype: T.DType) -> str:
    if v.dtype is dtype:
        return v.expr
    return convert(v, dtype).expr


def binary(op: str, a, b) -> Value:
    a, b = _operands(a, b)
    if op in ("<", "<=", ">", ">=", "==", "!="):
        t = _arith_type(a.dtype, b.dtype)
        return builder().let(T.Boolean, f"({_expr_as(a, t)} {op} {_expr_as(b, t)})")
    if op in ("&", "|", "^") and a.dtype is T.Boolean and b.dtype is T.Boolean:
        return builder().let(T.Boolean, f"({a.expr} {op} {b.expr})")
    if op == "/":
        t = T.promote(T.Float32, _arith_type(a.dtype, b.dtype)) if not (a.dtype.is_float or b.dtype.is_float) else _arith_type(a.dtype, b.dtype)
        return builder().let(t, f"({_expr_as(a, t)} / {_expr_as(b, t)})")
    t = _arith_type(a.dtype, b.dtype)
    if op in ("&", "|", "^", "<<", ">>") and not t.is_integer:
        fail(f"'{op}' takes integers; the operands are {a.dtype.name} and {b.dtype.name}")
    x, y = _expr_as(a, t), _expr_as(b, t)
    if op == "//":
        if t.is_float:
            return builder().let(t, f"{t.cxx}(floorf(static_cast<float>({x}) / static_cast<float>({y})))")
        return builder().let(t, f"({x} / {y})")  # C's truncation, as the CuTe DSL: equal to // for non-negative operands
    if op == "%" and t.is_float:
        return builder().let(t, f"{t.cxx}(fmodf(static_cast<float>({x}), static_cast<float>({y})))")
    div = 1
    if t.is_integer:
        div = {"*": a.div * b.div, "+": math.gcd(a.div, b.div), "-": math.gcd(a.div, b.div),
               "<<": a.div << int(b.expr) if b.expr.isdigit() and int(b.expr) < 32 else a.div}.get(op, 1)
    return builder().let(t, f"({x} {op} {y})", div=max(div, 1))


def _reflect(op):
    return lambda self, other: binary(op, other, self)


class Value:
    """A dynamic scalar: a C++ expression (usually a const local) with a DSL type.

    `div` is a known divisor of an integer value (1 when nothing is known); tensors use it to
    prove the alignment of vector loads at dynamic offsets.
    """

    __slots__ = ("expr", "dtype", "block", "div")
    __hash__ = object.__hash__

    def __init__(self, expr: str, dtype: T.DType, block=None, div: int = 1):
        self.expr, self.dtype, self.block, self.div = expr, dtype, block, div

    def to(self, dtype: T.DType) -> Value:
        """The value converted to `dtype` (C++'s conversion; float to integer truncates)."""
        return convert(self, dtype)

    def __repr__(self):
        return f"?{self.dtype.name}"

    def __bool__(self):
        fail(f"a dynamic {self.dtype.name} value was used as a Python bool (in a comprehension's if, an assert, a call "
             "that tests it, or a chained comparison inside an expression the DSL cannot rewrite): use a dynamic if, "
             "tessel.select(c, a, b), or a Constexpr value")

    def __index__(self):
        fail(f"a dynamic {self.dtype.name} value was used where Python needs an int (a list index, range_constexpr, a "
             "shape or a launch dimension): make it a tessel.Constexpr argument or compute it from Constexpr values")

    __int__ = __index__

    def __float__(self):
        fail(f"a dynamic {self.dtype.name} value was used where Python needs a float: it exists only on the device")

    def __iter__(self):
        fail(f"a dynamic {self.dtype.name} value is a scalar: it cannot be unpacked or iterated")

    def __neg__(self):
        t = T.Float32 if self.dtype.cxx in _NARROW else self.dtype
        return builder().let(t, f"(-{_expr_as(self, t)})")

    def __pos__(self):
        return self

    def __invert__(self):
        if self.dtype is T.Boolean:
            return builder().let(T.Boolean, f"(!{self.expr})")
        if not self.dtype.is_integer:
            fail(f"'~' takes integers; the operand is {self.dtype.name}")
        return builder().let(self.dtype, f"(~{self.expr})")

    def __abs__(self):
        t = self.dtype if self.dtype.cxx not in _NARROW else T.Float32
        if t.is_float:
            return builder().let(t, f"{t.cxx}(fabsf(static_cast<float>({self.expr})))")
        return builder().let(t, f"({self.expr} < 0 ? -{self.expr} : {self.expr})")

    __add__ = lambda s, o: binary("+", s, o)  # noqa: E731
    __sub__ = lambda s, o: binary("-", s, o)  # noqa: E731
    __mul__ = lambda s, o: binary("*", s, o)  # noqa: E731
    __truediv__ = lambda s, o: binary("/", s, o)  # noqa: E731
    __floordiv__ = lambda s, o: binary("//", s, o)  # noqa: E731
    __mod__ = lambda s, o: binary("%", s, o)  # noqa: E731
    __and__ = lambda s, o: binary("&", s, o)  # noqa: E731
    __or__ = lambda s, o: binary("|", s, o)  # noqa: E731
    __xor__ = lambda s, o: binary("^", s, o)  # noqa: E731
    __lshift__ = lambda s, o: binary("<<", s, o)  # noqa: E731
    __rshift__ = lambda s, o: binary(">>", s, o)  # noqa: E731
    __lt__ = lambda s, o: binary("<", s, o)  # noqa: E731
    __le__ = lambda s, o: binary("<=", s, o)  # noqa: E731
    __gt__ = lambda s, o: binary(">", s, o)  # noqa: E731
    __ge__ = lambda s, o: binary(">=", s, o)  # noqa: E731
    __eq__ = lambda s, o: binary("==", s, o)  # noqa: E731
    __ne__ = lambda s, o: binary("!=", s, o)  # noqa: E731
    __radd__ = _reflect("+")
    __rsub__ = _reflect("-")
    __rmul__ = _reflect("*")
    __rtruediv__ = _reflect("/")
    __rfloordiv__ = _reflect("//")
    __rmod__ = _reflect("%")
    __rand__ = _reflect("&")
    __ror__ = _reflect("|")
    __rxor__ = _reflect("^")
    __rlshift__ = _reflect("<<")
    __rrshift__ = _reflect(">>")

    def __pow__(self, other):
        fail("'**' is not a device operation: multiply, or use tessel.math.exp2 / log2")


class Var(Value):
    """A mutable C++ local: a name assigned inside a dynamic if/for/while."""

    __slots__ = ("name",)

    def __init__(self, name, dtype, block):
        super().__init__(name, dtype, block, 1)
        self.name = name


def emit_expression(dtype: T.DType, expr: str, div: int = 1) -> Value:
    return builder().let(dtype, expr, div=div)


def cxx_bool(c) -> str:
    v = as_value(c)
    return v.expr if v.dtype is T.Boolean else f"static_cast<bool>({v.expr})"


def is_dynamic(x) -> bool:
    return isinstance(x, Value)


def assume(x, divby: int):
    """`x`, known to be a multiple of `divby` (the CuTe DSL's assume): alignment proofs then use it,
    so that accesses through offsets built from x can be vectorized. The caller guarantees it."""
    if not (isinstance(divby, int) and divby >= 1):
        fail(f"assume's divby is a positive compile-time integer, not {divby!r}")
    if isinstance(x, int):
        if x % divby:
            fail(f"assume({x}, divby={divby}): {x} is not a multiple of {divby}")
        return x
    if not (isinstance(x, Value) and x.dtype.is_integer):
        fail(f"assume takes an integer value; got {type(x).__name__}")
    return Value(x.expr, x.dtype, x.block, x.div * divby // math.gcd(x.div, divby))
