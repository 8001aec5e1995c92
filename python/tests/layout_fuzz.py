"""The fuzz driver of test_layout_fuzz.py, run as a child process so that a crash of the
interpreter fails a test instead of ending pytest.

    python layout_fuzz.py valid SEED CASES       random layouts, and the algebra's laws on them
    python layout_fuzz.py malformed SEED CASES   every function of tessel.layout on hostile values

Before each call it prints the case on one line (flushed), so that the last line names the case
that crashed or hung. At the end it prints one line "RESULT {json}": how many cases ran, how
many were refused, and the failures (a wrong value, or an exception outside the refusals).
"""

from __future__ import annotations

import json
import math
import pickle
import random
import sys

from tessel import layout as tl
from tessel.layout import Layout, _

# What tessel.layout documents as a refusal: LayoutError and ExpressionError are ValueErrors.
REFUSALS = (ValueError, TypeError)


def say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


# ---- valid layouts ---------------------------------------------------------------------------
def leaves(t) -> list:
    return [x for e in t for x in leaves(e)] if isinstance(t, tuple) else [t]


def random_shape(rng: random.Random, depth: int = 0):
    if depth >= 2 or rng.random() < 0.45:
        return rng.randint(1, 6)
    return tuple(random_shape(rng, depth + 1) for _ in range(rng.randint(1, 3)))


def same_nesting(shape, leaf):
    return tuple(same_nesting(s, leaf) for s in shape) if isinstance(shape, tuple) else leaf()


def random_layout(rng: random.Random, most: int = 256) -> Layout:
    while True:
        shape = random_shape(rng)
        if math.prod(leaves(shape)) <= most:
            break
    if rng.random() < 0.3:
        return Layout(shape)  # compact column-major
    return Layout(shape, same_nesting(shape, lambda: rng.choice((0, 1, 1, 2, 3, 4, 6, 8, 12, 16))))


def values(layout: Layout) -> list:
    return [layout(i) for i in range(tl.size(layout))]


def natural_value(layout: Layout, i: int) -> int:
    """L(i) from the definition: the coordinate of i in the shape, dotted with the stride."""
    coord = tl.idx2crd(i, layout.shape)
    return sum(c * d for c, d in zip(leaves(coord), leaves(layout.stride)))


def check_basics(layout: Layout, expect) -> None:
    shape = layout.shape
    n = math.prod(leaves(shape))
    expect(tl.size(layout) == n == tl.size(shape), "size is the product of the shape")
    expect(tl.rank(layout) == len(layout) == (len(shape) if isinstance(shape, tuple) else 1), "rank == len(L)")
    expect([str(m) for m in layout] == [str(layout[i]) for i in range(len(layout))], "iter(L) yields L[0], L[1], ...")
    expect(all(m.shape == (shape[i] if isinstance(shape, tuple) else shape) for i, m in enumerate(layout)), "mode i has shape[i]")
    expect(values(layout) == [natural_value(layout, i) for i in range(n)], "L(i) is the coordinate dotted with the stride")
    expect(tl.cosize(layout) == max(values(layout)) + 1, "cosize is 1 + the largest index")
    expect(Layout(str(layout)) == layout and pickle.loads(pickle.dumps(layout)) == layout, "text and pickle round trips")
    expect(layout != None and layout != str(layout), "a Layout equals only Layouts")  # noqa: E711 (the point)


def check_coalesce(layout: Layout, expect) -> None:
    c = tl.coalesce(layout)
    expect(tl.size(c) == tl.size(layout) and values(c) == values(layout), "coalesce(L) is the same function as L")
    expect(tl.depth(c) <= 1, "coalesce(L) is flat")
    f = tl.filter(layout)
    expect(sorted(set(values(f))) == sorted(set(values(layout))), "filter(L) reaches the indices L reaches")


def check_slice(layout: Layout, rng: random.Random, expect) -> None:
    if tl.rank(layout) != 2:
        return
    j = rng.randrange(tl.size(layout[1]))
    sub = layout(_, j)
    offset = layout(0, j)
    expect(all(sub(i) + offset == layout(i, j) for i in range(tl.size(layout[0]))), "L(_, j)(i) + L(0, j) == L(i, j)")


def check_composition(a: Layout, b: Layout, expect) -> bool:
    c = tl.composition(a, b)
    n = tl.size(a)
    expect(tl.size(c) == tl.size(b), "size(A o B) == size(B)")
    # A is extended beyond its domain as CuTe does; compare where A is defined.
    expect(all(c(i) == a(b(i)) for i in range(tl.size(b)) if b(i) < n), "(A o B)(i) == A(B(i))")
    return True


def check_inverses(layout: Layout, expect) -> None:
    r = tl.right_inverse(layout)
    expect(all(layout(r(i)) == i for i in range(tl.size(r))), "L(right_inverse(L)(i)) == i")
    if len(set(values(layout))) == tl.size(layout):  # injective
        left = tl.left_inverse(layout)
        expect(all(left(layout(i)) == i for i in range(tl.size(layout))), "left_inverse(L)(L(i)) == i")


def check_complement(layout: Layout, cotarget: int, expect) -> None:
    if len(set(values(layout))) != tl.size(layout):
        return  # the laws below are those of an injective layout's complement
    c = tl.complement(layout, cotarget)
    whole = tl.make_layout(layout, c)
    reached = values(whole)
    expect(len(set(reached)) == len(reached), "(L, complement(L, M)) is injective")
    expect(tl.size(whole) >= cotarget or tl.cosize(whole) >= cotarget, "(L, complement(L, M)) covers M")


def check_divide(a: Layout, b: Layout, expect) -> None:
    d = tl.logical_divide(a, b)
    ref = tl.composition(a, tl.make_layout(b, tl.complement(b, tl.size(a))))
    # Where size(B) does not divide size(A) the rest mode is rounded (up or down, by A's shape):
    # the two agree where both are defined.
    common = min(tl.size(d), tl.size(ref))
    expect(values(d)[:common] == values(ref)[:common], "logical_divide(A, B) is A o (B, complement(B, size(A)))")
    z = tl.zipped_divide(a, b)
    expect(values(z) == values(d), "zipped_divide is logical_divide regrouped")


def run_valid(seed: int, cases: int) -> dict:
    rng = random.Random(seed)
    failures, refused = [], 0
    for case in range(cases):
        a, b = random_layout(rng), random_layout(rng, 32)
        cotarget = tl.cosize(a) * rng.randint(1, 4)
        say(f"case {case}: A = {a}, B = {b}, M = {cotarget}")

        def expect(ok, law, a=a, b=b):
            if not ok:
                failures.append(f"case {case}: A = {a}, B = {b}: {law}")

        for check in (lambda: check_basics(a, expect), lambda: check_coalesce(a, expect), lambda: check_slice(a, rng, expect),
                      lambda: check_composition(a, b, expect), lambda: check_inverses(a, expect),
                      lambda: check_complement(a, cotarget, expect), lambda: check_divide(a, b, expect)):
            try:
                check()
            except REFUSALS:
                refused += 1  # the algebra may refuse (an inadmissible composition); it must not fail otherwise
            except Exception as e:  # noqa: BLE001 (any other exception is the failure looked for)
                failures.append(f"case {case}: A = {a}, B = {b}: {type(e).__name__}: {e}")
    return {"cases": cases, "refused": refused, "failures": failures}


# ---- malformed values ------------------------------------------------------------------------
class Index:
    """An integer through __index__ only, as numpy's integers are."""

    def __init__(self, v):
        self.v = v

    def __index__(self):
        return self.v


class BadIndex:
    def __index__(self):
        raise ArithmeticError("no index today")


class EndlessList(list):
    def __iter__(self):
        while True:
            yield 1


def deep(levels: int):
    t = 1
    for _ in range(levels):
        t = (t,)
    return t


def hostile_values() -> dict:
    """Labelled values (a label, not repr(), names a case: repr of a deep tuple would recurse)."""
    looped = [2]
    looped.append(looped)
    looped_tuple = ([1],)
    looped_tuple[0].append(looped_tuple)
    return {
        "None": None, "True": True, "False": False, "0": 0, "-1": -1, "1": 1, "8": 8, "2**62": 2**62, "2**63": 2**63,
        "-2**63": -2**63, "-2**63-1": -2**63 - 1, "2**200": 2**200, "1.5": 1.5, "nan": math.nan, "inf": math.inf, "4.0": 4.0,
        "1j": 1j, "'8'": "8", "'(4,8):(1,4)'": "(4,8):(1,4)", "''": "", "'(((('": "((((", "'x'*9": "x" * 9,
        "'9'*40": "9" * 40, "'(' * 5000": "(" * 5000 + "1" + ")" * 5000, "b'8'": b"8", "bytearray": bytearray(b"4"),
        "{}": {}, "set": {1, 2}, "object()": object(), "[]": [], "()": (), "(4, None)": (4, None), "(4, '8')": (4, "8"),
        "(4, 1.5)": (4, 1.5), "(4, True)": (4, True), "(4, -2)": (4, -2), "(0, 4)": (0, 4), "(2**40, 2**40)": (2**40, 2**40),
        "((2, 2), 4)": ((2, 2), 4), "[2, 4]": [2, 4], "Index(4)": Index(4), "Index(2**70)": Index(2**70),
        "BadIndex()": BadIndex(), "(Index(4), 2)": (Index(4), 2), "EndlessList": EndlessList([1, 2]),
        "looped list": looped, "looped tuple": looped_tuple, "deep 65": deep(65), "deep 40000": deep(40000),
        "[deep 40000]": [deep(40000)], "_": _, "LayoutLeft": tl.LayoutLeft, "LayoutRight": tl.LayoutRight,
        "L 8:1": Layout(8), "L (4,8):(1,4)": Layout((4, 8), (1, 4)), "L (4,8):(8,1)": Layout((4, 8), (8, 1)),
        "L (2,2):(0,0)": Layout((2, 2), (0, 0)), "L 4:-1": Layout(4, -1), "L 2**62:1": Layout(2**62),
        "L ((2,2),8):((1,16),2)": Layout(((2, 2), 8), ((1, 16), 2)),
    }


def layout_functions() -> dict:
    """Every public function and Layout method, by name (print_layout writes to stdout, which the
    driver keeps for its progress lines: layout_table is the same call)."""
    skip = {"Layout", "LayoutError", "ExpressionError", "LayoutLeft", "LayoutRight", "_", "print_layout"}
    funcs = {name: getattr(tl, name) for name in tl.__all__ if name not in skip and callable(getattr(tl, name))}
    funcs.update(METHODS)
    funcs.update({
        "Layout": Layout, "Layout(shape=...)": lambda s, d: Layout(shape=s, stride=d),
        "Layout(bad kwarg)": lambda s, d: Layout(s, strides=d),
    })
    return funcs


# What a Layout does as a Python object; their first argument is a layout.
METHODS = {
    "L(...)": lambda l, *a: l(*a), "L[i]": lambda l, i: l[i], "list(L)": lambda l: list(l), "len(L)": lambda l: len(l),
    "L == x": lambda l, x: l == x, "L != x": lambda l, x: l != x, "x == L": lambda l, x: x == l, "hash(L)": lambda l: hash(l),
}


def nanobind_listing(e: Exception) -> bool:
    return isinstance(e, TypeError) and "incompatible function arguments" in str(e)


def takes_that_many(func, count: int) -> bool:
    """Whether func takes `count` positional arguments: then the listing, which nanobind gives for
    a wrong count, was about a value, and a value deserves a sentence."""
    for filler in (Layout(8), "8:1", 1):
        try:
            func(*[filler] * count)
            return True
        except Exception as e:  # noqa: BLE001 (only the listing matters here)
            if not nanobind_listing(e):
                return True
    return False


def run_malformed(seed: int, cases: int) -> dict:
    rng = random.Random(seed)
    pool = hostile_values()
    labels = list(pool)
    layouts = [label for label in labels if label.startswith("L ")]
    funcs = layout_functions()
    names = sorted(funcs)
    failures, refused = [], 0
    for case in range(cases):
        name = names[case % len(names)] if case < 2 * len(names) else rng.choice(names)
        first = rng.choice(layouts) if name in METHODS else rng.choice(labels)
        args = [first] + [rng.choice(labels) for _ in range(rng.randint(0, 2))]
        text = f"{name}({', '.join(args)})"
        say(f"case {case}: {text}")
        try:
            result = funcs[name](*[pool[a] for a in args])
            str(result)  # what came back must print
        except IndexError:
            if name != "L[i]":
                failures.append(f"{text}: IndexError outside L[i]")
            refused += 1
        except REFUSALS as e:
            if nanobind_listing(e) and takes_that_many(funcs[name], len(args)):
                failures.append(f"{text}: nanobind's signature listing instead of a sentence: {e}")
            refused += 1
        except Exception as e:  # noqa: BLE001 (any other exception is the failure looked for)
            if isinstance(e, ArithmeticError) and "BadIndex()" in args:
                refused += 1  # __index__ raised it: passed on, as Python's own functions do
                continue
            failures.append(f"{text}: {type(e).__name__}: {e}")
    return {"cases": cases, "refused": refused, "failures": failures}


def main(argv: list) -> None:
    mode, seed, cases = argv[1], int(argv[2]), int(argv[3])
    result = {"valid": run_valid, "malformed": run_malformed}[mode](seed, cases)
    say("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main(sys.argv)
