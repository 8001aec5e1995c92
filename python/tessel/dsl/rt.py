"""What rewritten kernel code calls (rewrite.py): dynamic if / for / while, assignments inside
them, and the expression forms Python would otherwise evaluate with bool().

A construct whose condition (or range) is a compile-time value runs as Python while tracing; one
whose condition is a dynamic Value becomes C++ control flow, and the names it assigns become
mutable C++ locals declared before it (so that they exist on every path).
"""

from __future__ import annotations

from . import dtypes as T
from .ir import Block, Value, Var, as_value, builder, convert, cxx_bool, fail

UNBOUND = object()  # a name not yet bound where a dynamic block starts


class DynRange:
    """`range(...)` in a kernel: a C++ for loop (the CuTe DSL's semantics: `range` is dynamic,
    `tessel.range_constexpr` unrolls while tracing). `unroll`: a #pragma unroll count (0: none)."""

    def __init__(self, *args, unroll: int = 0):
        if not 1 <= len(args) <= 3:
            fail(f"range takes 1 to 3 arguments, got {len(args)}")
        start, stop, step = (0, args[0], 1) if len(args) == 1 else (args[0], args[1], args[2] if len(args) == 3 else 1)
        if isinstance(step, Value) or step == 0:
            fail("a dynamic range's step must be a non-zero compile-time integer (the loop's direction is fixed when compiled)")
        for x in (start, stop):
            if not isinstance(x, (int, Value)) or isinstance(x, Value) and not x.dtype.is_integer:
                fail(f"range bounds are integers; got {x!r}")
        self.start, self.stop, self.step, self.unroll = start, stop, step, unroll


def range_(*args, unroll: int = 0, unroll_full: bool = False):
    if unroll_full:
        unroll = -1
    return DynRange(*args, unroll=unroll)


def range_constexpr(*args):
    """A loop unrolled while tracing: its bounds must be compile-time integers."""
    for a in args:
        if isinstance(a, Value):
            fail("range_constexpr's bounds must be compile-time integers (Constexpr); this one is a dynamic "
                 f"{a.dtype.name}: use range(...) for a loop on the device")
    return range(*args)


def is_static(c) -> bool:
    return not isinstance(c, Value)


def is_dyn_range(it) -> bool:
    return isinstance(it, DynRange)


def const_expr(c):
    """Marks a condition that must be known when compiling (the CuTe DSL's const_expr)."""
    if isinstance(c, Value):
        fail(f"const_expr needs a compile-time value; this is a dynamic {c.dtype.name}")
    return c


class _Region:
    def __init__(self, head, kind):
        self.head, self.kind = head, kind

    def __enter__(self):
        builder().open(self.head, self.kind)
        return self

    def __exit__(self, exc_type, *rest):
        if exc_type is None:
            builder().close()
        return False


def if_(c):
    return _Region(f"if ({cxx_bool(c)})", "if")


def else_():
    b = builder()
    # The if's closing brace is the last line (or the last before a #line directive).
    while b.lines and b.lines[-1].startswith("#line"):
        b.lines.pop()
    b.lines.pop()
    b.where = None
    b.lines.append("  " * len(b.blocks) + "} else {")
    b.blocks.append(Block("else", None))
    return _Closing()


class _Closing:
    def __enter__(self):
        return self

    def __exit__(self, exc_type, *rest):
        if exc_type is None:
            builder().close()
        return False


class for_:
    def __init__(self, rng: DynRange):
        self.rng = rng

    def __enter__(self):
        r, b = self.rng, builder()
        start, stop = as_value(r.start), as_value(r.stop)
        t = T.promote(start.dtype, stop.dtype)
        name = b.fresh("i")
        if r.unroll:
            b.emit("#pragma unroll" if r.unroll < 0 else f"#pragma unroll {int(r.unroll)}")
        cmp = "<" if r.step > 0 else ">"
        b.open(f"for ({t.cxx} {name} = {convert(start, t).expr}; {name} {cmp} {convert(stop, t).expr}; {name} += {r.step})", "for")
        return Value(name, t, b.block, 1 if not isinstance(r.start, int) else abs(r.step) if r.start % abs(r.step) == 0 else 1)

    def __exit__(self, exc_type, *rest):
        if exc_type is None:
            builder().close()
        return False


def while_():
    return _Region("while (true)", "while")


def break_unless(c):
    b = builder()
    if isinstance(c, Value):
        b.emit(f"if (!({cxx_bool(c)})) break;")
    elif not c:
        b.emit("break;")


def emit_break():
    builder().emit("break;")


def emit_continue():
    builder().emit("continue;")


def emit_return(value=None):
    if value is not None:
        fail("a kernel returns nothing: write the result to a tensor argument")
    builder().emit("return;")


def static_break_in_dynamic_if():
    fail("break or continue inside a dynamic if cannot leave a loop unrolled while tracing (range_constexpr or a Python "
         "iterable): make the loop a dynamic range(...), or the condition a Constexpr")


def mutable(x, name: str):
    """Before a dynamic block: a name the block assigns, as a C++ variable (numbers and dynamic
    values); other Python objects (layouts, tensors) are returned as they are."""
    if x is UNBOUND or isinstance(x, Var) and x.block.open:
        return x
    if isinstance(x, Value) and x.block is not None and not x.block.open:
        return x  # dead since its block ended: the block may rebind it; a read fails where it happens
    if isinstance(x, bool) or isinstance(x, (int, float)) or isinstance(x, Value) or isinstance(x, T.Scalar):
        v = as_value(x)
        b = builder()
        var = b.fresh(_identifier(name))
        b.emit(f"{v.dtype.cxx} {var} = {v.expr};")
        return Var(var, v.dtype, b.block)
    return x


def _identifier(name: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in name) + "_"


def assign(old, new, name: str):
    """`name = new` inside a dynamic block, where `old` is what the name held."""
    if isinstance(old, Var) and old.block.open:
        if isinstance(new, Value) and new.dtype is not old.dtype:
            fail(f"'{name}' is {old.dtype.name} before this dynamic block and is assigned a {new.dtype.name} here: a variable "
                 f"keeps one type on every path; convert with .to(tessel.{old.dtype.name}) or start it as that type")
        if not isinstance(new, (Value, int, float, bool, T.Scalar)):
            fail(f"'{name}' is a dynamic {old.dtype.name} and is assigned a {type(new).__name__} here")
        builder().emit(f"{old.name} = {as_value(new, old.dtype).expr};")
        return old
    b = builder()
    if old is UNBOUND:
        b.bound_in[name] = b.block  # first bound inside this block: the name does not exist outside it
        return new
    if old is new or isinstance(old, Value):
        return new
    # A compile-time value (a number, a tile, a fragment) first bound inside a dynamic block exists
    # only there: rebinding the name is safe in that block, or once that block has ended (a
    # range_constexpr loop's fresh tile per iteration).
    first = b.bound_in.get(name)
    if first is not None and (first is b.block or not first.open):
        b.bound_in[name] = b.block
        return new
    fail(f"'{name}' holds a {type(old).__name__}, which is fixed when compiling and cannot be reassigned inside a dynamic "
         "if/for/while: give the new object another name")


def select(c, a, b):
    """`a if c else b`: Python's choice for a compile-time c, else C++'s ?:."""
    if not isinstance(c, Value):
        return a() if c else b()
    x, y = a(), b()
    x_v, y_v = (as_value(x, y.dtype if isinstance(y, Value) else None), as_value(y, x.dtype if isinstance(x, Value) else None))
    t = T.promote(x_v.dtype, y_v.dtype)
    return builder().let(t, f"({cxx_bool(c)} ? {convert(x_v, t).expr} : {convert(y_v, t).expr})")


def _logical(thunks, op: str, stops_on):
    """Python's and / or over thunks: a compile-time operand equal to `stops_on` ends it (as
    Python short-circuits); from the first dynamic operand on, the rest join in C++."""
    acc = None
    for th in thunks:
        v = th()
        if acc is None or not isinstance(acc, Value):
            acc = v
        else:
            acc = builder().let(T.Boolean, f"({cxx_bool(acc)} {op} {cxx_bool(v)})")
        if not isinstance(acc, Value) and bool(acc) == stops_on:
            return acc
    return acc


def and_(*thunks):
    return _logical(thunks, "&&", False)


def or_(*thunks):
    return _logical(thunks, "||", True)


def not_(x):
    if isinstance(x, Value):
        return builder().let(T.Boolean, f"(!{cxx_bool(x)})")
    return not x


_COMPARE = {"Lt": "<", "LtE": "<=", "Gt": ">", "GtE": ">=", "Eq": "==", "NotEq": "!="}


def compare_chain(values, ops):
    """`a < b < c` as (a < b) and (b < c), each operand evaluated once."""
    import operator
    fns = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne,
           "is": operator.is_, "is not": operator.is_not, "in": lambda a, b: a in b, "not in": lambda a, b: a not in b}
    parts = [(lambda i=i: fns[ops[i]](values[i], values[i + 1])) for i in range(len(ops))]
    return and_(*parts)


def fail_target(rule: str):
    fail(rule)
