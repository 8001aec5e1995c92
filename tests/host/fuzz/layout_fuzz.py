#!/usr/bin/env python3
"""Fuzz test of tessel-layout: random valid expressions with property checks, and malformed or
hostile ones that must be refused cleanly.

Valid layouts are generated here together with their meaning (shape and stride as nested
tuples), so every number the calculator prints is checked against Python's exact integers:
  - eval --json L: size is the product of the shape, cosize is 1 + sum((s-1)*|d|), and the
    indices are L(0), L(1), ... computed here;
  - coalesce(L) is the same function as L;
  - composition(A, B)(i) == A(B(i)) wherever the calculator accepts it;
  - L(right_inverse(L)(i)) == i for non-negative strides, and left_inverse(L)(L(i)) == i when L is injective;
  - size(L) and cosize(L) of layouts with huge extents are either refused or exact: a
    wrapped product is a failure.
Malformed ones (mutations, huge integers, deep nesting, giant and binary text, draw of
oversized layouts) must end with exit 0, or a nonzero exit and one line on stderr, in bounded
time and memory. Every run is checked by fuzz_common for signals, escaped exceptions and
timeouts.

  layout_fuzz.py --exe path/to/tessel-layout [--runs N] [--seed S]
"""

import argparse
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzz_common  # noqa: E402

INT64_MAX = (1 << 63) - 1


# ---- Layouts with their meaning -------------------------------------------------------------

def random_tuple(rng, depth, leaf):
    """A nested tuple (a leaf is an int) of depth at most `depth`."""
    if depth == 0 or rng.random() < 0.5:
        return leaf()
    return tuple(random_tuple(rng, depth - 1, leaf) for _ in range(rng.randint(1, 3)))


def congruent_like(rng, shape, leaf):
    if isinstance(shape, int):
        return leaf()
    return tuple(congruent_like(rng, s, leaf) for s in shape)


def leaves(t):
    if isinstance(t, int):
        return [t]
    out = []
    for e in t:
        out += leaves(e)
    return out


def text(t):
    if isinstance(t, int):
        return str(t)
    return "(" + ",".join(text(e) for e in t) + ")"


class Layout:
    def __init__(self, shape, stride):
        self.shape, self.stride = shape, stride

    def text(self):
        return text(self.shape) + ":" + text(self.stride)

    def size(self):
        n = 1
        for s in leaves(self.shape):
            n *= s
        return n

    def cosize(self):
        return 1 + sum((s - 1) * abs(d) for s, d in zip(leaves(self.shape), leaves(self.stride)))

    def __call__(self, i):
        """L(i) for a 1-D coordinate: colexicographic, the last mode taking what is left."""
        s, d = leaves(self.shape), leaves(self.stride)
        idx = 0
        for k, (sk, dk) in enumerate(zip(s, d)):
            c = i if k == len(s) - 1 else i % sk
            i = 0 if k == len(s) - 1 else i // sk
            idx += c * dk
        return idx

    def indices(self):
        return [self(i) for i in range(self.size())]


def random_layout(rng, max_extent=6, strides=(-4, 12), depth=2):
    shape = random_tuple(rng, depth, lambda: rng.randint(1, max_extent))
    stride = congruent_like(rng, shape, lambda: rng.randint(*strides))
    return Layout(shape, stride)


def compact_left(shape, start=1):
    """The column-major strides of `shape`: an injective, contiguous layout."""
    cur = [start]

    def go(t):
        if isinstance(t, int):
            d = cur[0]
            cur[0] *= t
            return d
        return tuple(go(e) for e in t)

    return go(shape)


def random_injective(rng):
    shape = random_tuple(rng, 2, lambda: rng.randint(1, 5))
    stride = compact_left(shape)
    # Scaling every stride keeps it injective; permuting the leaves too (a transpose).
    k = rng.choice([1, 1, 2, 3])
    leaves_s, leaves_d = leaves(shape), [d * k for d in leaves(stride)]
    order = list(range(len(leaves_s)))
    rng.shuffle(order)
    flat_shape = tuple(leaves_s[i] for i in order)
    flat_stride = tuple(leaves_d[i] for i in order)
    if len(flat_shape) == 1:
        return Layout(flat_shape[0], flat_stride[0])
    return Layout(flat_shape, flat_stride)


# ---- Running the calculator -----------------------------------------------------------------

class Fuzzer:
    def __init__(self, exe, rng, failures):
        self.exe, self.rng, self.failures = exe, rng, failures

    def run(self, *args):
        return fuzz_common.run_checked([self.exe] + list(args), self.failures)

    def json_of(self, expr):
        """The --json object of expr, or None when the calculator refused (or failed)."""
        o = self.run("eval", "--json", expr)
        if o is None or o.returncode != 0:
            return None
        try:
            return json.loads(o.stdout)
        except ValueError:
            self.failures.add(o, "--json printed something that is not JSON")
            return None

    def expect(self, outcome, condition, what):
        if not condition:
            self.failures.add(outcome, what)

    def must_accept(self, expr):
        o = self.run("eval", "--json", expr)
        if o is None:
            return None
        if o.returncode != 0:
            self.failures.add(o, "refused a valid layout")
            return None
        return o, json.loads(o.stdout)

    # -- properties --

    def check_layout(self, layout):
        got = self.must_accept(layout.text())
        if got is None:
            return
        o, j = got
        self.expect(o, j["size"] == layout.size(), "size %s, expected %d" % (j["size"], layout.size()))
        self.expect(o, j["cosize"] == layout.cosize(), "cosize %s, expected %d" % (j["cosize"], layout.cosize()))
        self.expect(o, j["indices"] == layout.indices(), "indices differ from L(i) computed in Python")

    def check_coalesce(self, layout):
        got = self.must_accept("coalesce(%s)" % layout.text())
        if got is None:
            return
        o, j = got
        self.expect(o, j["indices"] == layout.indices(), "coalesce(L) is not the same function as L")

    def check_composition(self, a, b):
        o = self.run("eval", "--json", "composition(%s, %s)" % (a.text(), b.text()))
        if o is None or o.returncode != 0:
            return  # a refusal (divisibility) is allowed; it was checked to be clean
        j = json.loads(o.stdout)
        want = [a(b(i)) for i in range(b.size())]
        self.expect(o, j["size"] == b.size(), "size(composition(A, B)) %s, expected size(B) = %d" % (j["size"], b.size()))
        self.expect(o, j["indices"] == want, "composition(A, B)(i) differs from A(B(i))")

    def check_right_inverse(self, layout):
        o = self.run("eval", "--json", "right_inverse(%s)" % layout.text())
        if o is None or o.returncode != 0:
            return
        r = json.loads(o.stdout)["indices"]
        self.expect(o, all(layout(x) == i for i, x in enumerate(r)), "L(right_inverse(L)(i)) != i")

    def check_left_inverse(self, layout):
        got = self.must_accept("left_inverse(%s)" % layout.text())
        if got is None:
            return
        o, j = got
        # left_inverse(L) as a Layout, from its printed shape and stride.
        inv = Layout(to_tuple(j["shape"]), to_tuple(j["stride"]))
        self.expect(o, all(inv(layout(i)) == i for i in range(layout.size())), "left_inverse(L)(L(i)) != i")

    def check_huge_products(self):
        """Extents whose products leave int64: refused, or exact (never wrapped)."""
        rng = self.rng
        shape = tuple(rng.choice([1 << rng.randint(20, 40), rng.randint(2, 1 << 31), INT64_MAX // rng.randint(1, 9)])
                      for _ in range(rng.randint(2, 4)))
        stride = tuple(rng.choice([0, 1, -1, 1 << rng.randint(0, 40), INT64_MAX // rng.randint(1, 5)]) for _ in shape)
        layout = Layout(shape, stride)
        for fn, exact in (("size", layout.size()), ("cosize", layout.cosize())):
            o = self.run("eval", "%s(%s)" % (fn, layout.text()))
            if o is None:
                continue
            if o.returncode == 0:
                got = int(o.stdout.strip())
                self.expect(o, got == exact, "%s printed %d, the exact value is %d" % (fn, got, exact))
            else:
                self.expect(o, exact > INT64_MAX, "%s refused a value that fits in 64 bits (%d)" % (fn, exact))
        # Operations on such layouts must refuse or print something; never crash or hang.
        op = rng.choice(["coalesce(%s)", "complement(%s)", "right_inverse(%s)", "filter(%s)",
                         "logical_divide(%s, 4)", "logical_product(%s, (4,4))", "composition(%s, (4,4):(1,4))",
                         "zipped_divide(%s, (1099511627776,4))", "upcast(%s, 3)", "downcast(%s, 1099511627776)"])
        self.run("eval", op % layout.text())

    # -- hostile text --

    def check_malformed(self, seed_expr):
        rng = self.rng
        kind = rng.randrange(9)
        if kind == 0:  # a mutation of a valid expression
            s = list(seed_expr)
            for _ in range(rng.randint(1, 4)):
                pos = rng.randrange(len(s) + 1)
                op = rng.randrange(3)
                if op == 0 and s:
                    del s[min(pos, len(s) - 1)]
                elif op == 1:
                    s.insert(pos, rng.choice("(),:[]_-0123456789 xLayoutRight"))
                else:
                    s[min(pos, len(s) - 1) if s else 0:] = s[min(pos, len(s) - 1) if s else 0:][::-1]
            expr = "".join(s)
        elif kind == 1:  # huge integers
            n = rng.choice([str(INT64_MAX), str(INT64_MAX + 1), "-" + str(INT64_MAX + 1), "-" + str(INT64_MAX + 2),
                            "1" + "0" * rng.randint(19, 400), str(1 << 64)])
            expr = rng.choice(["%s", "%s:1", "(%s,2):(1,%s)", "size((%s,%s))", "composition(8:1, %s)",
                               "crd2idx(%s, 8:1)", "idx2crd(%s, (4,4):(1,4))", "upcast(8:1, %s)"])
            expr = expr.replace("%s", n)
        elif kind == 2:  # deep nesting
            d = rng.choice([63, 64, 65, 200, 10000])
            expr = rng.choice(["(" * d + "1" + ")" * d, "coalesce(" * d + "8:1" + ")" * d,
                               "[" * d + "4" + "]" * d, "(" * d])
        elif kind == 3:  # giant input
            n = rng.randint(5000, 25000)  # an argument stays under the 128 KiB the OS allows
            expr = rng.choice(["(" + ",".join(["2"] * n) + ")", "(" + ",".join(["1"] * n) + "):(" + ",".join(["0"] * n) + ")",
                               "make_layout(" + ",".join(["2:1"] * (n // 4)) + ")", " " * n + "8:1"])
        elif kind == 4:  # binary garbage (no NUL: it cannot be in an argument)
            expr = bytes(rng.randrange(1, 256) for _ in range(rng.randint(1, 200))).decode("latin-1")
        elif kind == 5:  # empty and blank
            expr = rng.choice(["", " ", "\t\n", "()", "(,)", ":", "_", "[]", "f()"])
        elif kind == 6:  # random function over random arguments, many wrong
            fn = rng.choice(FUNCTIONS)
            args = [rng.choice([random_layout(rng).text(), text(random_tuple(rng, 2, lambda: rng.randint(-3, 9))),
                                "_", "(_,2)", "LayoutLeft", "LayoutRight", str(rng.randint(-5, 40)), "[4,8:2]"])
                    for _ in range(rng.randint(0, 4))]
            expr = "%s(%s)" % (fn, ", ".join(args))
        elif kind == 7:  # draw of random, possibly oversized, layouts
            big = rng.choice([1 << 10, 1 << 20, 1 << 40, 3, 64])
            expr = rng.choice(["zipped_divide((4,4):(1,4), (%d,4))", "(%d,%d):(1,3)", "logical_divide((64,64):(1,64), [%d:1, 2])",
                               "%d:1"]).replace("%d", str(big))
            self.run("draw", expr, "-o", os.devnull)
            return
        else:  # table of random layouts
            self.run("table", random_layout(self.rng, max_extent=40).text())
            return
        self.run("eval", expr)
        if rng.random() < 0.3:
            self.run("eval", "--json", expr)


FUNCTIONS = ["composition", "complement", "coalesce", "filter", "right_inverse", "left_inverse", "logical_divide",
             "zipped_divide", "tiled_divide", "flat_divide", "logical_product", "zipped_product", "tiled_product",
             "flat_product", "blocked_product", "raked_product", "make_layout", "tile_to_shape", "upcast", "downcast",
             "max_common_vector", "max_common_layout", "size", "cosize", "rank", "depth", "layout", "get", "select",
             "group", "take", "flatten", "append", "prepend", "slice", "crd2idx", "idx2crd"]


def to_tuple(j):
    return j if isinstance(j, int) else tuple(to_tuple(e) for e in j)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--exe", required=True, help="the tessel-layout binary")
    p.add_argument("--runs", type=int, default=300, help="rounds (each a few calculator runs)")
    p.add_argument("--seed", type=int, default=16)
    a = p.parse_args()
    rng = random.Random(a.seed)
    failures = fuzz_common.Failures("layout_fuzz")
    f = Fuzzer(a.exe, rng, failures)
    for _ in range(a.runs):
        kind = rng.randrange(7)
        layout = random_layout(rng)
        if kind == 0:
            f.check_layout(layout)
        elif kind == 1:
            f.check_coalesce(layout)
        elif kind == 2:
            f.check_composition(random_layout(rng, max_extent=8), random_layout(rng, max_extent=4, strides=(0, 6)))
        elif kind == 3:
            # As in CuTe, L(right_inverse(L)(i)) == i holds for non-negative strides only.
            f.check_right_inverse(random_layout(rng, strides=(0, 12)))
            f.check_left_inverse(random_injective(rng))
        elif kind == 4:
            f.check_huge_products()
        else:
            f.check_malformed(layout.text() if rng.random() < 0.5 else
                              "zipped_divide(%s, (2,2))" % random_layout(rng).text())
    return failures.report()


if __name__ == "__main__":
    sys.exit(main())
