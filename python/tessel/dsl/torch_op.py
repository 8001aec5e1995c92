"""A @tessel.jit function as a PyTorch operator (torch.library), so that torch.compile traces a
model that calls it without a graph break.

    add_op = tessel.torch_op("mylib::add", add, mutates_args=("mC",))
    add_op(a, b, c)                      # eager: the DSL kernel on torch tensors
    torch.compile(f, fullgraph=True)     # f calls add_op: one node in the graph

The function's outputs are tensors it writes in place (`mutates_args`, as PyTorch's custom ops
name them); its fake (meta) implementation returns nothing, since the outputs exist already.
Parameter types come from the function's annotations: tessel.Tensor (or none) is a Tensor, a
tessel scalar type an int or a float, and a Constexpr the type of its default (str, bool, int or
float). Each call is the @jit function's direct call: compiled once per argument signature.
"""

from __future__ import annotations

import inspect

from . import dtypes as T
from .jit import JitFunction
from .tensor import Tensor


def _param_type(p: inspect.Parameter, qualname: str) -> str:
    ann = p.annotation
    if ann is inspect.Parameter.empty or ann is Tensor or ann == "tessel.Tensor":
        return "torch.Tensor"
    if isinstance(ann, T.DType):
        return "float" if ann.is_float else "bool" if ann is T.Boolean else "int"
    if ann is T.Constexpr or ann in ("Constexpr", "tessel.Constexpr"):
        if p.default is inspect.Parameter.empty or type(p.default) not in (str, bool, int, float):
            raise TypeError(f"{qualname}: the Constexpr parameter '{p.name}' needs a default of type str, bool, int or float "
                            "to be an operator argument (its type is read from the default)")
        return type(p.default).__name__
    raise TypeError(f"{qualname}: parameter '{p.name}' is annotated {ann!r}, which has no PyTorch operator type")


def torch_op(qualname: str, fn: JitFunction, *, mutates_args):
    """Register `fn` as the PyTorch custom operator `qualname` ("namespace::name") and return it."""
    import torch
    if not isinstance(fn, JitFunction):
        raise TypeError(f"torch_op takes a @tessel.jit function; got {type(fn).__name__}")
    if not (isinstance(qualname, str) and qualname.count("::") == 1):
        raise ValueError(f"torch_op's name is 'namespace::name', not {qualname!r}")
    sig = inspect.signature(fn.fn)
    names = list(sig.parameters)
    mutates = tuple(mutates_args)
    for m in mutates:
        if m not in names:
            raise ValueError(f"torch_op: '{m}' in mutates_args is not a parameter of {fn.__qualname__} ({', '.join(names)})")
    params = []
    for p in sig.parameters.values():
        t = _param_type(p, fn.__qualname__)
        default = "" if p.default is inspect.Parameter.empty else f" = {p.default!r}"
        params.append(f"{p.name}: {t}{default}")
    # torch.library reads the schema from the annotations of a real function: build one.
    text = f"def op({', '.join(params)}) -> None:\n    fn({', '.join(names)})\n"
    scope = {"fn": fn, "torch": torch}
    exec(compile(text, f"<tessel.torch_op {qualname}>", "exec"), scope)
    op = torch.library.custom_op(qualname, mutates_args=mutates)(scope["op"])

    @op.register_fake
    def _fake(*args, **kwargs):
        return None

    return op
