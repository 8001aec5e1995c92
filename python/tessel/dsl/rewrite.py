"""The source rewrite that lets one Python body serve compile-time and dynamic control flow.

Each `if`, `for` and `while` becomes a test made while tracing: a compile-time condition (or a
Python iterable) runs the original statement as Python; a dynamic one runs the body once inside
`with rt.if_(c):` (or `for_`, `while_`), which brackets the C++ the body emits. Inside a dynamic
block an assignment to a name goes through `rt.assign`, so that a name bound before the block is
a C++ variable assigned on the device, not a Python rebinding seen on one path only. `and`, `or`,
`not`, `a if c else b` and chained comparisons become calls that work on dynamic values too.

The rewritten function is compiled with the original file name and line numbers: tracebacks and
DSLError messages point at the user's source.
"""

from __future__ import annotations

import ast
import inspect
import textwrap

from . import rt
from .ir import USER_FILES, DSLError

RT = "__tessel_rt__"


def _rt(attr: str) -> ast.expr:
    return ast.Attribute(ast.Name(RT, ast.Load()), attr, ast.Load())


def _call(attr: str, *args) -> ast.Call:
    return ast.Call(_rt(attr), list(args), [])


def _thunk(e: ast.expr) -> ast.Lambda:
    return ast.Lambda(ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]), e)


class _Exprs(ast.NodeTransformer):
    """Expressions that would call bool() on a dynamic value."""

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        return _call("and_" if isinstance(node.op, ast.And) else "or_", *[_thunk(v) for v in node.values])

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        return _call("not_", node.operand) if isinstance(node.op, ast.Not) else node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        return _call("select", node.test, _thunk(node.body), _thunk(node.orelse))

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) == 1:
            return node
        names = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=", ast.Is: "is",
                 ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}
        ops = ast.List([ast.Constant(names[type(o)]) for o in node.ops], ast.Load())
        return _call("compare_chain", ast.List([node.left, *node.comparators], ast.Load()), ops)

    def visit_Lambda(self, node):
        return node  # the thunks made above, and user lambdas: left as they are


def _assigned_names(stmts) -> list[str]:
    """Names a block binds by assignment (not loop targets or with-as names, which the block's
    own constructs bind), in first-seen order; nested function bodies are not looked into."""
    found = []

    class V(ast.NodeVisitor):
        def visit_Assign(self, node):
            for t in node.targets:
                self.target(t)
            self.generic_visit(node)

        def visit_AugAssign(self, node):
            self.target(node.target)

        def visit_AnnAssign(self, node):
            self.target(node.target)

        def target(self, t):
            if isinstance(t, ast.Name) and t.id not in found:
                found.append(t.id)
            elif isinstance(t, (ast.Tuple, ast.List)):
                for e in t.elts:
                    self.target(e.value if isinstance(e, ast.Starred) else e)

        def visit_FunctionDef(self, node):
            pass

        visit_AsyncFunctionDef = visit_FunctionDef
        visit_Lambda = visit_FunctionDef

    for s in stmts:
        V().visit(s)
    return found


class _Stmts:
    def __init__(self):
        self.counter = 0
        self.exprs = _Exprs()

    def tmp(self, hint):
        self.counter += 1
        return f"__tessel_{hint}{self.counter}"

    def block(self, stmts, dyn: int, loops: tuple) -> list:
        out = []
        for s in stmts:
            out.extend(self.stmt(s, dyn, loops))
        return out or [ast.Pass()]

    def expr(self, e):
        return self.exprs.visit(e) if e is not None else None

    def predeclare(self, names) -> list:
        """`try: x = rt.mutable(x, 'x') except NameError: pass` for each name."""
        out = []
        for n in names:
            out.append(ast.Try(
                body=[ast.Assign([ast.Name(n, ast.Store())], _call("mutable", ast.Name(n, ast.Load()), ast.Constant(n)))],
                handlers=[ast.ExceptHandler(ast.Name("NameError", ast.Load()), None, [ast.Pass()])], orelse=[], finalbody=[]))
        return out

    def bound_or_unbound(self, name, tmp) -> ast.Try:
        return ast.Try(body=[ast.Assign([ast.Name(tmp, ast.Store())], ast.Name(name, ast.Load()))],
                       handlers=[ast.ExceptHandler(ast.Name("NameError", ast.Load()), None,
                                                   [ast.Assign([ast.Name(tmp, ast.Store())], _rt("UNBOUND"))])],
                       orelse=[], finalbody=[])

    def assign_name(self, name, value: ast.expr) -> list:
        t = self.tmp("old")
        return [self.bound_or_unbound(name, t),
                ast.Assign([ast.Name(name, ast.Store())], _call("assign", ast.Name(t, ast.Load()), value, ast.Constant(name)))]

    def stmt(self, s, dyn: int, loops: tuple) -> list:
        loc = s
        out = self._stmt(s, dyn, loops)
        for o in out:
            ast.copy_location(o, loc)
        return out

    def _stmt(self, s, dyn, loops):
        if isinstance(s, ast.If):
            return self.if_stmt(s, dyn, loops)
        if isinstance(s, ast.For):
            return self.for_stmt(s, dyn, loops)
        if isinstance(s, ast.While):
            return self.while_stmt(s, dyn, loops)
        if isinstance(s, (ast.Break, ast.Continue)):
            if loops and loops[-1][0] == "dyn":
                return [ast.Expr(_call("emit_break" if isinstance(s, ast.Break) else "emit_continue"))]
            if loops and dyn > loops[-1][1]:
                return [ast.Expr(_call("static_break_in_dynamic_if"))]
            return [s]
        if isinstance(s, ast.Return) and dyn:
            return [ast.Expr(_call("emit_return", *([self.expr(s.value)] if s.value else []))),
                    *([] if not loops or loops[-1][0] != "py" else [])]
        if isinstance(s, ast.Assign) and dyn:
            value = self.expr(s.value)
            if len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
                return self.assign_name(s.targets[0].id, value)
            if len(s.targets) == 1 and isinstance(s.targets[0], ast.Tuple) and all(isinstance(e, ast.Name) for e in s.targets[0].elts):
                tmps = [self.tmp("u") for _ in s.targets[0].elts]
                out = [ast.Assign([ast.Tuple([ast.Name(t, ast.Store()) for t in tmps], ast.Store())], value)]
                for e, t in zip(s.targets[0].elts, tmps):
                    out += self.assign_name(e.id, ast.Name(t, ast.Load()))
                return out
            s.value = value
            return [s]
        if isinstance(s, ast.AugAssign) and dyn and isinstance(s.target, ast.Name):
            value = ast.BinOp(ast.Name(s.target.id, ast.Load()), s.op, self.expr(s.value))
            return self.assign_name(s.target.id, value)
        if isinstance(s, ast.AnnAssign) and dyn and isinstance(s.target, ast.Name) and s.value is not None:
            return self.assign_name(s.target.id, self.expr(s.value))
        if isinstance(s, (ast.With, ast.AsyncWith)):
            s.items = [ast.withitem(self.expr(i.context_expr), i.optional_vars) for i in s.items]
            s.body = self.block(s.body, dyn, loops)
            return [s]
        if isinstance(s, ast.Try):
            s.body = self.block(s.body, dyn, loops)
            s.orelse = self.block(s.orelse, dyn, loops) if s.orelse else []
            s.finalbody = self.block(s.finalbody, dyn, loops) if s.finalbody else []
            for h in s.handlers:
                h.body = self.block(h.body, dyn, loops)
            return [s]
        if isinstance(s, ast.FunctionDef):
            s.body = self.block(s.body, 0, ())
            return [s]
        return [self.exprs.visit(s)]

    def if_stmt(self, s, dyn, loops):
        c = self.tmp("c")
        static = ast.If(ast.Name(c, ast.Load()), self.block(_copy(s.body), dyn, loops),
                        self.block(_copy(s.orelse), dyn, loops) if s.orelse else [])
        names = _assigned_names(s.body + s.orelse)
        dynamic = self.predeclare(names)
        dynamic.append(ast.With([ast.withitem(_call("if_", ast.Name(c, ast.Load())))], self.block(s.body, dyn + 1, loops)))
        if s.orelse:
            dynamic.append(ast.With([ast.withitem(_call("else_"))], self.block(s.orelse, dyn + 1, loops)))
        return [ast.Assign([ast.Name(c, ast.Store())], self.expr(s.test)),
                ast.If(_call("is_static", ast.Name(c, ast.Load())), [static], dynamic)]

    def for_stmt(self, s, dyn, loops):
        if s.orelse:
            raise _Unsupported(s, "a for loop's else clause is not supported in a kernel")
        it = self.expr(s.iter)
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range":
            it = ast.Call(_rt("range_"), it.args, it.keywords)
        v = self.tmp("it")
        static = ast.For(s.target, ast.Name(v, ast.Load()), self.block(_copy(s.body), dyn, loops + (("py", dyn),)), [])
        if not isinstance(s.target, ast.Name):
            dynamic = [ast.Expr(_call("fail_target", ast.Constant("a dynamic range's loop variable is one name")))]
        else:
            names = [n for n in _assigned_names(s.body) if n != s.target.id]
            dynamic = self.predeclare(names)
            dynamic.append(ast.With([ast.withitem(_call("for_", ast.Name(v, ast.Load())), ast.Name(s.target.id, ast.Store()))],
                                    self.block(s.body, dyn + 1, loops + (("dyn", dyn + 1),))))
        return [ast.Assign([ast.Name(v, ast.Store())], it),
                ast.If(_call("is_dyn_range", ast.Name(v, ast.Load())), dynamic, [static])]

    def while_stmt(self, s, dyn, loops):
        if s.orelse:
            raise _Unsupported(s, "a while loop's else clause is not supported in a kernel")
        c = self.tmp("c")
        static = ast.While(self.expr(_copy(s.test)), self.block(_copy(s.body), dyn, loops + (("py", dyn),)), [])
        names = _assigned_names(s.body)
        dynamic = self.predeclare(names)
        body = [ast.Expr(_call("break_unless", self.expr(_copy(s.test))))] + self.block(s.body, dyn + 1, loops + (("dyn", dyn + 1),))
        dynamic.append(ast.With([ast.withitem(_call("while_"))], body))
        return [ast.Assign([ast.Name(c, ast.Store())], self.expr(s.test)),
                ast.If(_call("is_static", ast.Name(c, ast.Load())), [static], dynamic)]


class _Unsupported(Exception):
    def __init__(self, node, rule):
        self.node, self.rule = node, rule


def _copy(x):
    import copy
    return copy.deepcopy(x)


def rewrite(fn):
    """fn rewritten for tracing: a new function with the same globals, closure values and
    defaults, whose control flow goes through tessel.dsl.rt."""
    try:
        source = textwrap.dedent(inspect.getsource(fn))
        filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
    except (OSError, TypeError):
        raise DSLError(f"the source of {fn.__qualname__} is not available (a kernel must be defined in a file, not typed "
                       "at an interactive prompt or built with exec)") from None
    tree = ast.parse(source)
    fdef = tree.body[0]
    if not isinstance(fdef, ast.FunctionDef):
        raise DSLError(f"{fn.__qualname__}: a kernel is a def function")
    ast.increment_lineno(tree, fn.__code__.co_firstlineno - 1)
    fdef.decorator_list = []
    try:
        fdef.body = _Stmts().block(fdef.body, 0, ())
    except _Unsupported as e:
        raise DSLError(e.rule, filename, e.node.lineno, _line(filename, e.node.lineno)) from None
    freevars = fn.__code__.co_freevars
    factory = ast.FunctionDef(
        name="__tessel_factory",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(RT)] + [ast.arg(n) for n in freevars], kwonlyargs=[], kw_defaults=[],
                           defaults=[]),
        body=[fdef, ast.Return(ast.Name(fdef.name, ast.Load()))], decorator_list=[], returns=None)
    module = ast.Module([factory], type_ignores=[])
    ast.fix_missing_locations(module)
    ast.copy_location(factory, fdef)
    code = compile(module, filename, "exec")
    scope: dict = {}
    exec(code, fn.__globals__, scope)
    cells = [c.cell_contents for c in (fn.__closure__ or ())]
    new = scope["__tessel_factory"](rt, *cells)
    new.__defaults__, new.__kwdefaults__ = fn.__defaults__, fn.__kwdefaults__
    USER_FILES.add(filename)
    return new


def _line(filename, lineno):
    import linecache
    return linecache.getline(filename, lineno)
