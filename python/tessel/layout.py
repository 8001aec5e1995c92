"""tessel.layout: CuTe's layout algebra in Python, bound from tessel's C++ run-time algebra.

    >>> from tessel.layout import Layout, zipped_divide
    >>> A = Layout((256, 128), (128, 1))
    >>> print(zipped_divide(A, (16, 16)))
    ((16,16),(16,8)):((128,1),(2048,16))
    >>> A(5, 3), A((5, 3))
    (643, 643)

A Layout is built from a shape and a stride (nested tuples of ints), from a shape alone (compact
column-major), or from its CuTe text. Operands follow tessel-layout's rules: an int n is the
layout n:1; a tuple of ints as a tiler is one compact layout per mode; a list is a tiler of
layouts. Every function is the C++ one (tessel::rt); refusals raise LayoutError (a ValueError)
carrying the C++ message, and evaluate() runs the calculator's own parser and evaluator.
"""

from ._core import (  # noqa: F401 (re-exported)
    ExpressionError,
    Layout,
    LayoutError,
    LayoutLeft,
    LayoutRight,
    _,
    append,
    blocked_product,
    calculator_functions,
    coalesce,
    complement,
    composition,
    cosize,
    crd2idx,
    depth,
    downcast,
    evaluate,
    evaluate_json,
    filter,
    flat_divide,
    flat_product,
    flatten,
    get,
    group,
    idx2crd,
    layout,
    layout_table,
    left_inverse,
    logical_divide,
    logical_product,
    make_layout,
    max_common_layout,
    max_common_vector,
    prepend,
    raked_product,
    rank,
    right_inverse,
    select,
    shape,
    size,
    slice,
    stride,
    take,
    tile_to_shape,
    tiled_divide,
    tiled_product,
    upcast,
    zipped_divide,
    zipped_product,
)


def print_layout(layout) -> None:
    """Print the layout and its grid of indices (rank 1 or 2), as C++'s print_layout does."""
    print(layout_table(layout), end="")


__all__ = [name for name in dir() if not name.startswith("__") and name not in ("annotations",)]
