"""tessel.layout against the C++ layout calculator, operation by operation.

Each case is a tessel-layout expression and the same computation written with the Python API.
The calculator parses and evaluates the text in C++ (tools/layout/calc); the Python call
converts its arguments and calls tessel::rt directly. Both must give the same value, and a
refusal must be the same refusal with the same message. A few results are also pinned to
CuTe's published answers, so that agreeing with each other is not all that is checked.
"""

import itertools
import json
import subprocess

import pytest
from conftest import tessel_layout_binary

from tessel import layout as tl
from tessel.layout import Layout, LayoutLeft, LayoutRight, _

L = Layout

CASES = [
    # construction
    ("make_layout((4,(2,3)))", lambda: tl.make_layout((4, (2, 3)))),
    ("make_layout((4,(2,3)), LayoutRight)", lambda: tl.make_layout((4, (2, 3)), LayoutRight)),
    ("make_layout((4,(2,3)), LayoutLeft)", lambda: tl.make_layout((4, (2, 3)), LayoutLeft)),
    ("make_layout((4,8), (8,1))", lambda: tl.make_layout((4, 8), (8, 1))),
    ("make_layout(4:1, (2,3):(4,8))", lambda: tl.make_layout(L(4, 1), L((2, 3), (4, 8)))),
    ("make_layout(4:2)", lambda: tl.make_layout(L(4, 2))),
    # composition, with layouts, integers and tilers
    ("composition((6,2):(8,2), (4,3):(3,1))", lambda: tl.composition(L((6, 2), (8, 2)), L((4, 3), (3, 1)))),
    ("composition(20:2, (4,5):(1,4))", lambda: tl.composition(L(20, 2), L((4, 5), (1, 4)))),
    ("composition((10,2):(16,4), (5,4):(1,5))", lambda: tl.composition(L((10, 2), (16, 4)), L((5, 4), (1, 5)))),
    ("composition((12,(4,8)):(59,(13,1)), [3:4, 8:2])", lambda: tl.composition(L((12, (4, 8)), (59, (13, 1))), [L(3, 4), L(8, 2)])),
    ("composition((8,8):(8,1), (4,2))", lambda: tl.composition(L((8, 8), (8, 1)), (4, 2))),
    ("composition((8,8):(8,1), 4)", lambda: tl.composition(L((8, 8), (8, 1)), 4)),
    ("composition((4,4):(4,1), [1, 2:2])", lambda: tl.composition(L((4, 4), (4, 1)), [1, L(2, 2)])),
    # complement, coalesce, filter, inverses
    ("complement(4:1, 24)", lambda: tl.complement(L(4, 1), 24)),
    ("complement((2,4):(1,6), 32)", lambda: tl.complement(L((2, 4), (1, 6)), 32)),
    ("complement((2,2):(1,6))", lambda: tl.complement(L((2, 2), (1, 6)))),
    ("complement(6:4, (24,4))", lambda: tl.complement(L(6, 4), (24, 4))),
    ("coalesce((2,(1,6)):(1,(6,2)))", lambda: tl.coalesce(L((2, (1, 6)), (1, (6, 2))))),
    ("coalesce((2,(3,4)):(1,(2,6)), (1,1))", lambda: tl.coalesce(L((2, (3, 4)), (1, (2, 6))), (1, 1))),
    ("filter((2,(3,4)):(0,(1,3)))", lambda: tl.filter(L((2, (3, 4)), (0, (1, 3))))),
    ("filter((4,(1,2)):(2,(3,0)), (1,1))", lambda: tl.filter(L((4, (1, 2)), (2, (3, 0))), (1, 1))),
    ("right_inverse((4,(2,3)):(2,(1,8)))", lambda: tl.right_inverse(L((4, (2, 3)), (2, (1, 8))))),
    ("right_inverse((2,3):(3,1))", lambda: tl.right_inverse(L((2, 3), (3, 1)))),
    ("left_inverse((4,(2,3)):(2,(1,8)))", lambda: tl.left_inverse(L((4, (2, 3)), (2, (1, 8))))),
    ("left_inverse(8:2)", lambda: tl.left_inverse(L(8, 2))),
    ("max_common_vector((4,8):(1,4), (4,8):(1,4))", lambda: tl.max_common_vector(L((4, 8), (1, 4)), L((4, 8), (1, 4)))),
    ("max_common_vector((4,8):(8,1), (4,8):(1,4))", lambda: tl.max_common_vector(L((4, 8), (8, 1)), L((4, 8), (1, 4)))),
    ("max_common_layout((4,(2,4)):(1,(16,4)), 32:1)", lambda: tl.max_common_layout(L((4, (2, 4)), (1, (16, 4))), L(32, 1))),
    # the four divides
    ("logical_divide((4,2,3):(2,1,8), 4:2)", lambda: tl.logical_divide(L((4, 2, 3), (2, 1, 8)), L(4, 2))),
    ("logical_divide(24:3, 8)", lambda: tl.logical_divide(L(24, 3), 8)),
    ("logical_divide((9,(4,8)):(59,(13,1)), [3:3, (2,4):(1,8)])",
     lambda: tl.logical_divide(L((9, (4, 8)), (59, (13, 1))), [L(3, 3), L((2, 4), (1, 8))])),
    ("zipped_divide((256,128):(128,1), (16,16))", lambda: tl.zipped_divide(L((256, 128), (128, 1)), (16, 16))),
    ("zipped_divide((8,8):(8,1), [4:2, 2])", lambda: tl.zipped_divide(L((8, 8), (8, 1)), [L(4, 2), 2])),
    ("tiled_divide((12,32):(32,1), (4,8))", lambda: tl.tiled_divide(L((12, 32), (32, 1)), (4, 8))),
    ("flat_divide((12,32):(32,1), (4,8))", lambda: tl.flat_divide(L((12, 32), (32, 1)), (4, 8))),
    ("logical_divide((8,8):(1,8), (1,4))", lambda: tl.logical_divide(L((8, 8), (1, 8)), (1, 4))),
    # the six products
    ("logical_product((2,2):(4,1), 6:1)", lambda: tl.logical_product(L((2, 2), (4, 1)), L(6, 1))),
    ("logical_product((2,2):(4,1), (4,2):(2,1))", lambda: tl.logical_product(L((2, 2), (4, 1)), L((4, 2), (2, 1)))),
    ("zipped_product((2,5):(5,1), (3,4))", lambda: tl.zipped_product(L((2, 5), (5, 1)), (3, 4))),
    ("tiled_product((2,5):(5,1), (3,4))", lambda: tl.tiled_product(L((2, 5), (5, 1)), (3, 4))),
    ("flat_product((2,5):(5,1), (3,4))", lambda: tl.flat_product(L((2, 5), (5, 1)), (3, 4))),
    ("blocked_product((2,5):(5,1), (3,4):(1,3))", lambda: tl.blocked_product(L((2, 5), (5, 1)), L((3, 4), (1, 3)))),
    ("raked_product((2,5):(5,1), (3,4):(1,3))", lambda: tl.raked_product(L((2, 5), (5, 1)), L((3, 4), (1, 3)))),
    ("blocked_product((2,2):(1,2), (2,3):(3,1))", lambda: tl.blocked_product(L((2, 2), (1, 2)), L((2, 3), (3, 1)))),
    # tile_to_shape, upcast / downcast
    ("tile_to_shape((2,2):(1,2), (6,8))", lambda: tl.tile_to_shape(L((2, 2), (1, 2)), (6, 8))),
    ("tile_to_shape((2,2):(1,2), (6,8), LayoutRight)", lambda: tl.tile_to_shape(L((2, 2), (1, 2)), (6, 8), LayoutRight)),
    ("tile_to_shape((8,32):(32,1), (128,32,3))", lambda: tl.tile_to_shape(L((8, 32), (32, 1)), (128, 32, 3))),
    ("upcast((4,8):(8,1), 2)", lambda: tl.upcast(L((4, 8), (8, 1)), 2)),
    ("upcast((4,(2,8)):(16,(8,1)), 4)", lambda: tl.upcast(L((4, (2, 8)), (16, (8, 1))), 4)),
    ("downcast((4,8):(8,1), 2)", lambda: tl.downcast(L((4, 8), (8, 1)), 2)),
    # queries and rearrangements
    ("size(((2,2),8):((1,16),2))", lambda: tl.size(L(((2, 2), 8), ((1, 16), 2)))),
    ("size((3,(4,5)))", lambda: tl.size((3, (4, 5)))),
    ("cosize((2,3):(3,1))", lambda: tl.cosize(L((2, 3), (3, 1)))),
    ("rank(((2,2),8):((1,16),2))", lambda: tl.rank(L(((2, 2), 8), ((1, 16), 2)))),
    ("depth(((2,2),8):((1,16),2))", lambda: tl.depth(L(((2, 2), 8), ((1, 16), 2)))),
    ("depth((3,(4,(5,6))))", lambda: tl.depth((3, (4, (5, 6))))),
    ("layout(((2,2),8):((1,16),2), 0)", lambda: tl.layout(L(((2, 2), 8), ((1, 16), 2)), 0)),
    ("get(((2,2),8):((1,16),2), 0, 1)", lambda: tl.get(L(((2, 2), 8), ((1, 16), 2)), 0, 1)),
    ("select((2,3,4):(1,2,6), 2, 0)", lambda: tl.select(L((2, 3, 4), (1, 2, 6)), 2, 0)),
    ("group((2,3,4,5):(1,2,6,24), 1, 3)", lambda: tl.group(L((2, 3, 4, 5), (1, 2, 6, 24)), 1, 3)),
    ("take((2,3,4,5):(1,2,6,24), 1, 3)", lambda: tl.take(L((2, 3, 4, 5), (1, 2, 6, 24)), 1, 3)),
    ("flatten(((2,2),(3,(4,5))):((1,2),(4,(12,48))))", lambda: tl.flatten(L(((2, 2), (3, (4, 5))), ((1, 2), (4, (12, 48)))))),
    ("append((2,3):(1,2), 4:6)", lambda: tl.append(L((2, 3), (1, 2)), L(4, 6))),
    ("append((2,3):(1,2))", lambda: tl.append(L((2, 3), (1, 2)))),
    ("prepend((2,3):(1,2), 4:6)", lambda: tl.prepend(L((2, 3), (1, 2)), L(4, 6))),
    ("slice((4,8):(1,4), (_,2))", lambda: tl.slice((_, 2), L((4, 8), (1, 4)))),
    ("slice((4,(2,8)):(1,(4,8)), (_,(1,_)))", lambda: tl.slice((None, (1, None)), L((4, (2, 8)), (1, (4, 8))))),
    ("crd2idx((1,2), (2,3):(3,1))", lambda: tl.crd2idx((1, 2), L((2, 3), (3, 1)))),
    ("crd2idx(5, ((2,2),3):((1,12),2))", lambda: tl.crd2idx(5, L(((2, 2), 3), ((1, 12), 2)))),
    ("idx2crd(5, ((2,2),3):((1,12),2))", lambda: tl.idx2crd(5, L(((2, 2), 3), ((1, 12), 2)))),
    # refusals: the same error, word for word
    ("composition((6,2):(8,2), 5:3)", lambda: tl.composition(L((6, 2), (8, 2)), L(5, 3))),
    ("complement((2,2):(1,1))", lambda: tl.complement(L((2, 2), (1, 1)))),
    ("logical_divide(8:3, 3:2)", lambda: tl.logical_divide(L(8, 3), L(3, 2))),
    ("tile_to_shape((2,2):(1,2), (5,8))", lambda: tl.tile_to_shape(L((2, 2), (1, 2)), (5, 8))),
    ("raked_product((2,2):(1,1), (2,2):(1,2))", lambda: tl.raked_product(L((2, 2), (1, 1)), L((2, 2), (1, 2)))),
    ("left_inverse((2,2):(2,2))", lambda: tl.left_inverse(L((2, 2), (2, 2)))),
    ("coalesce((2,3):(1,2), (1,1,1))", lambda: tl.coalesce(L((2, 3), (1, 2)), (1, 1, 1))),
    ("select((2,3):(1,2), 2)", lambda: tl.select(L((2, 3), (1, 2)), 2)),
    ("upcast((4,8):(8,1), 3)", lambda: tl.upcast(L((4, 8), (8, 1)), 3)),
    ("crd2idx((1,9), (2,3):(3,1))", lambda: tl.crd2idx((1, 9), L((2, 3), (3, 1)))),
    ("zipped_divide((8,8):(8,1), (2,2,2))", lambda: tl.zipped_divide(L((8, 8), (8, 1)), (2, 2, 2))),
    ("make_layout((4,0))", lambda: tl.make_layout((4, 0))),
    ("make_layout((4,8), (1,(2,3)))", lambda: tl.make_layout((4, 8), (1, (2, 3)))),
]


def outcome(f):
    """('ok', value as text) or ('error', message)."""
    try:
        v = f()
    except tl.LayoutError as e:
        return "error", str(e)
    return "ok", str(v) if isinstance(v, Layout) else repr(v)


@pytest.mark.parametrize("expr, call", CASES, ids=[c[0] for c in CASES])
def test_python_matches_calculator(expr, call):
    assert outcome(call) == outcome(lambda: tl.evaluate(expr))


def test_cases_include_refusals_and_successes():
    kinds = [outcome(call)[0] for _, call in CASES]
    assert kinds.count("error") >= 8 and kinds.count("ok") >= 60


@pytest.mark.skipif(tessel_layout_binary() is None, reason="no tessel-layout executable (build the C++ project, or set TESSEL_LAYOUT)")
@pytest.mark.parametrize("expr, call", CASES, ids=[c[0] for c in CASES])
def test_python_matches_tessel_layout_executable(expr, call):
    """The same cases through the command-line calculator of the C++ build."""
    run = subprocess.run([tessel_layout_binary(), "eval", expr], capture_output=True, text=True)
    kind, text = outcome(call)
    if kind == "ok":
        assert run.returncode == 0, run.stderr
        printed = run.stdout.strip()
        value = call()
        expected = str(value) if isinstance(value, Layout) else _calc_text(value)
        assert printed == expected
    else:
        assert run.returncode == 1
        assert run.stderr.strip() == f"tessel-layout: {text}"


def _calc_text(v):
    """A non-layout value as tessel-layout prints it: 12, (2,3), (1,(0,1))."""
    if isinstance(v, tuple):
        return "(" + ",".join(_calc_text(e) for e in v) + ")"
    return str(v)


# ---- CuTe's answers ---------------------------------------------------------------------------
PINNED = [
    (lambda: tl.zipped_divide(L((256, 128), (128, 1)), (16, 16)), "((16,16),(16,8)):((128,1),(2048,16))"),
    (lambda: tl.composition(L((6, 2), (8, 2)), L((4, 3), (3, 1))), "((2,2),3):((24,2),8)"),
    (lambda: tl.complement(L(4, 1), 24), "6:4"),
    (lambda: tl.complement(L((2, 4), (1, 6)), 32), "(3,2):(2,24)"),
    (lambda: tl.logical_divide(L(24, 3), 8), "(8,3):(3,24)"),
    (lambda: tl.logical_product(L((2, 2), (4, 1)), L(6, 1)), "((2,2),(2,3)):((4,1),(2,8))"),
    # CuTe 4.7: blocked_product no longer coalesces each mode (3.7 gave (6,(5,4)):(5,(1,30)))
    (lambda: tl.blocked_product(L((2, 5), (5, 1)), L((3, 4), (1, 3))), "((2,3),(5,4)):((5,10),(1,30))"),
    (lambda: tl.raked_product(L((2, 5), (5, 1)), L((3, 4), (1, 3))), "((3,2),(4,5)):((10,5),(30,1))"),
    (lambda: tl.right_inverse(L((4, (2, 3)), (2, (1, 8)))), "(2,4,3):(4,1,8)"),
    # CuTe 4.7's rules: stride 0 outside the image, the complement against A's coalesced shape,
    # the weaker composition check (pycute's mid-layout truncation)
    (lambda: tl.left_inverse(L(16, 2)), "(2,16):(0,1)"),
    (lambda: tl.logical_divide(L((8, 2, 6), (1, 8, 16)), L(6, 2)), "(6,(2,8)):(2,(1,12))"),
    (lambda: tl.composition(L((4, 6, 8, 10), (2, 3, 5, 7)), L(6, 12)), "(2,3):(9,5)"),
]


@pytest.mark.parametrize("call, expected", PINNED, ids=[p[1] for p in PINNED])
def test_pinned_to_cute(call, expected):
    assert str(call()) == expected


# ---- the Layout object -------------------------------------------------------------------------
def test_construction_and_printing():
    a = Layout((4, 8), (1, 4))
    assert str(a) == "(4,8):(1,4)" and repr(a) == 'Layout("(4,8):(1,4)")'
    assert Layout("(4,8):(1,4)") == a == Layout((4, 8)) == Layout(a)
    assert Layout([4, [2, 3]], [1, [4, 8]]) == Layout("(4,(2,3)):(1,(4,8))")
    assert a.shape == (4, 8) and a.stride == (1, 4)
    assert Layout(8).shape == 8 and Layout(8).stride == 1
    assert Layout(((2, 2), 8), ((1, 16), 2)).shape == ((2, 2), 8)
    assert hash(Layout("(4,8):(1,4)")) == hash(a) and a != Layout((4, 8), (8, 1)) and a != "(4,8):(1,4)"


def test_evaluation_matches_the_definition():
    """L(c) is the inner product of the natural coordinate with the strides, for every index, and
    the 1-D, 2-D and hierarchical forms of a coordinate agree."""
    a = Layout(((2, 2), (4, 3)), ((1, 16), (2, 32)))
    for i in range(tl.size(a)):
        crd = tl.idx2crd(i, a)
        flat_c = [c for part in crd for c in (part if isinstance(part, tuple) else (part,))]
        flat_s = [s for part in a.stride for s in (part if isinstance(part, tuple) else (part,))]
        assert a(i) == sum(c * s for c, s in zip(flat_c, flat_s)) == a(crd) == a(*crd)
    b = Layout((4, 8), (8, 1))
    assert [b(m, n) for m in range(4) for n in range(8)] == list(range(32))


def test_slicing_with_underscore():
    a = Layout((4, 8), (1, 4))
    assert str(a(_, 2)) == "(4):(1)"
    assert a(None, 2) == a(_, 2) == tl.slice((_, 2), a)
    assert str(a(3, _)) == "(8):(4)"


def test_modes():
    a = Layout(((2, 2), 8), ((1, 16), 2))
    assert len(a) == 2 and a[0] == Layout((2, 2), (1, 16)) and a[1] == Layout(8, 2)
    assert [str(m) for m in (a[0], a[1])] == ["(2,2):(1,16)", "8:2"]
    assert list(a) == [a[0], a[1]]
    with pytest.raises(IndexError, match="mode 2 of a layout of rank 2"):
        a[2]


def test_composition_is_function_composition():
    a, b = Layout((6, 2), (8, 2)), Layout((4, 3), (3, 1))
    c = tl.composition(a, b)
    assert all(c(i) == a(b(i)) for i in range(tl.size(b)))


def test_divide_then_compose_is_the_original():
    """logical_divide(A, B) = composition(A, (B, complement(B, size(A)))): the same function."""
    a, b = Layout(24, 3), Layout(4, 2)
    d = tl.logical_divide(a, b)
    ref = tl.composition(a, tl.make_layout(b, tl.complement(b, tl.size(a))))
    assert all(d(i) == ref(i) for i in range(tl.size(a)))


def test_right_inverse_inverts():
    for text in ["(4,(2,3)):(2,(1,8))", "(2,3):(3,1)", "((2,2),(4,2)):((1,8),(2,16))"]:
        a = Layout(text)
        r = tl.right_inverse(a)
        assert all(a(r(i)) == i for i in range(tl.size(r)))


def test_printing_a_table(capsys):
    tl.print_layout(Layout((2, 3), (3, 1)))
    out = capsys.readouterr().out
    assert out == tl.layout_table(Layout((2, 3), (3, 1)))
    assert out.splitlines()[0] == "(2,3):(3,1)" and "| 3 | 4 | 5 |" in out


def test_pickle_round_trip():
    import pickle
    a = Layout(((2, 2), 8), ((1, 16), 2))
    assert pickle.loads(pickle.dumps(a)) == a


def test_json_of_the_calculator():
    j = json.loads(tl.evaluate_json("composition((6,2):(8,2), (4,3):(3,1))"))
    c = tl.composition(Layout((6, 2), (8, 2)), Layout((4, 3), (3, 1)))
    assert j["layout"] == str(c) and j["indices"] == [c(i) for i in range(tl.size(c))]


def test_evaluate_returns_python_values():
    assert tl.evaluate("size((3,(4,5)))") == 60
    assert tl.evaluate("idx2crd(5, ((2,2),3):((1,12),2))") == ((1, 0), 1)
    assert isinstance(tl.evaluate("8:1"), Layout)
    assert "zipped_divide" in tl.calculator_functions()


# ---- errors --------------------------------------------------------------------------------------
def test_layout_error_is_a_value_error_with_the_cpp_message():
    with pytest.raises(ValueError) as e:
        tl.composition(Layout((6, 2), (8, 2)), Layout(5, 3))
    assert type(e.value) is tl.LayoutError
    assert str(e.value).startswith("composition((6,2):(8,2), 5:3): shape divisibility fails")


@pytest.mark.parametrize("text, column", [("composition((6,2):(8,2) (4,3):(3,1))", 25), ("foo(1)", 1), ("(4,8", 5)])
def test_expression_errors(text, column):
    with pytest.raises(tl.ExpressionError, match=f"^column {column}: "):
        tl.evaluate(text)


def test_bad_arguments():
    with pytest.raises(TypeError, match="the shape must be an integer or a tuple of integers, not float"):
        Layout((4, 2.0))
    with pytest.raises(TypeError, match="takes no stride"):
        Layout("(4,8):(1,4)", (1, 4))
    with pytest.raises(tl.LayoutError, match='cannot read "\\(4,8\\):\\(1,4" at column'):
        Layout("(4,8):(1,4")
    with pytest.raises(tl.LayoutError, match="not congruent"):
        Layout((4, 8), (1, (2, 3)))
    with pytest.raises(tl.LayoutError, match="non-positive extent"):
        Layout((4, 0))
    with pytest.raises(tl.LayoutError, match="nested; write its modes as layouts"):
        tl.zipped_divide(Layout((8, 8), (8, 1)), ((2, 2), 4))
    with pytest.raises(tl.LayoutError, match="the tiler extent 0 must be positive"):
        tl.logical_divide(Layout(8, 1), [0])
    with pytest.raises(TypeError, match="order must be LayoutLeft or LayoutRight"):
        tl.tile_to_shape(Layout(2, 1), (8,), "row")
    with pytest.raises(ValueError, match="the shape: an integer does not fit in 64 bits"):
        Layout(2**70)


def test_overflow_is_refused():
    with pytest.raises(tl.LayoutError):
        tl.size(Layout((2**40, 2**40)))


def test_all_exports_resolve():
    for name in tl.__all__:
        assert getattr(tl, name) is not None
    cute_names = ["composition", "complement", "coalesce", "filter", "right_inverse", "left_inverse", "logical_divide",
                  "zipped_divide", "tiled_divide", "flat_divide", "logical_product", "zipped_product", "tiled_product",
                  "flat_product", "blocked_product", "raked_product", "make_layout", "tile_to_shape", "upcast", "downcast",
                  "size", "cosize", "rank", "depth", "shape", "stride"]
    assert set(cute_names) <= set(tl.__all__)


def test_random_compositions_agree_with_the_calculator():
    """Compositions of small layouts: where the algebra admits one, the result is A o B pointwise,
    and the calculator gives the same layout; where it refuses, both refuse alike."""
    shapes = [(2,), (4,), (2, 2), (2, 3), (4, 2)]
    admitted = 0
    for sa, sb in itertools.product(shapes, repeat=2):
        for da in itertools.product((1, 2, 3), repeat=len(sa)):
            a = Layout(sa, da)
            b = tl.make_layout(sb)
            got = outcome(lambda: tl.composition(a, b))
            assert got == outcome(lambda: tl.evaluate(f"composition({a}, {b})"))
            if got[0] == "ok":
                admitted += 1
                c = tl.composition(a, b)
                # A is extended beyond its domain as CuTe does; compare where A is defined.
                assert all(c(i) == a(b(i)) for i in range(tl.size(b)) if b(i) < tl.size(a))
    assert admitted > 20
