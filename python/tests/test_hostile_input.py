"""Hostile input to the Python package (issue 16): each case ends in a ValueError or TypeError
whose message says what is wrong, never a crash of the interpreter, a hang, an internal message
or a value taken for what it is not. Cases that used to crash run in a child process, so that a
crash fails the test instead of ending pytest."""

import subprocess
import sys
import textwrap

import pytest
from dlpack_fake import FakeArray

import tessel
from tessel import layout as tl
from tessel.jit import compiler
from tessel.jit.status import ConfigError
from tessel.layout import Layout


def isolated(code: str) -> str:
    """Run code in a fresh interpreter; its stdout, or a failure naming how it ended."""
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, f"the interpreter ended with exit status {p.returncode}:\n{p.stderr[-2000:]}"
    return p.stdout


class Index:
    """An integer through __index__ only, as numpy's integers are."""

    def __init__(self, v):
        self.v = v

    def __index__(self):
        return self.v


def deep(levels):
    t = 1
    for _ in range(levels):
        t = (t,)
    return t


# ---- tessel.layout: nesting ------------------------------------------------------------------------
REFUSED_IN_A_CHILD = """
    from tessel import layout as tl
    def deep(levels):
        t = 1
        for _ in range(levels):
            t = (t,)
        return t
    looped = [2]
    looped.append(looped)
    for call in (lambda: tl.size(looped), lambda: tl.Layout(looped), lambda: tl.Layout((4,), looped),
                 lambda: tl.size(deep(40000)), lambda: tl.Layout(deep(40000)), lambda: tl.Layout(8)(deep(40000)),
                 lambda: tl.composition(tl.Layout(8), (deep(40000),)), lambda: tl.complement(tl.Layout(4), deep(40000)),
                 lambda: tl.slice(looped, tl.Layout((4, 8)))):
        try:
            call()
            print("accepted")
        except (ValueError, TypeError) as e:
            print(type(e).__name__, e)
"""


def test_a_list_containing_itself_and_a_deep_tuple_are_refused():
    lines = isolated(REFUSED_IN_A_CHILD).splitlines()
    assert len(lines) == 9
    for line in lines:
        assert line.startswith("LayoutError ") and "is nested deeper than 64 levels, or contains itself" in line, line


def test_values_and_text_share_one_nesting_limit():
    assert tl.size(deep(64)) == 1 and tl.size(Layout("(" * 64 + "1" + ")" * 64)) == 1
    with pytest.raises(tl.LayoutError, match="the argument is nested deeper than 64 levels"):
        tl.size(deep(65))
    with pytest.raises(tl.LayoutError, match="nesting deeper than 64 levels"):
        Layout("(" * 65 + "1" + ")" * 65)


def test_a_list_subclass_is_read_by_its_elements_not_its_iterator():
    class Lying(list):  # the fuzz test's EndlessList never stops; this one only lies
        def __iter__(self):
            return iter([5, 5])

    assert tl.size(Lying([2, 3])) == 6


# ---- tessel.layout: integers -------------------------------------------------------------------------
def test_integers_are_ints_or_index_objects_never_bools_or_floats():
    assert Layout((Index(4), 2), (1, Index(4))) == Layout((4, 2), (1, 4))
    for bad in (True, 2.0, "4", b"4", None):
        with pytest.raises(TypeError, match="the shape must be an integer or a tuple of integers, not"):
            Layout((4, bad))
    with pytest.raises(TypeError, match="must be a Layout, a layout string"):
        tl.coalesce(True)


def test_numpy_integers_are_integers():
    np = pytest.importorskip("numpy")
    assert Layout((np.int64(4), np.int32(2))) == Layout((4, 2))
    with pytest.raises(TypeError):
        Layout((4, np.bool_(True)))


@pytest.mark.parametrize("big", [2**63, -2**63 - 1, 2**200, Index(2**70)])
def test_integers_beyond_64_bits_are_refused(big):
    with pytest.raises(ValueError, match="an integer does not fit in 64 bits"):
        Layout((4, big))


def test_integer_arguments_are_checked_with_a_sentence():
    """upcast, group, take, idx2crd and mode indices took C++ integers, so a wrong type got
    nanobind's signature listing ("incompatible function arguments")."""
    a = Layout((4, 8), (1, 4))
    calls = [lambda: tl.upcast(a, "2"), lambda: tl.downcast(a, 2.0), lambda: tl.group(a, None, 1), lambda: tl.take(a, 0, True),
             lambda: tl.idx2crd("3", a), lambda: tl.layout(a, 1.0), lambda: tl.select(a, True), lambda: a["0"]]
    for call in calls:
        with pytest.raises(TypeError) as e:
            call()
        assert "incompatible function arguments" not in str(e.value) and "must be an integer" in str(e.value)
    for call in (lambda: tl.group(a, 2**70, 1), lambda: tl.layout(a, 2**64), lambda: tl.upcast(a, 2**64)):
        with pytest.raises(ValueError, match="does not fit in 64 bits"):
            call()
    with pytest.raises(tl.LayoutError, match="-1 is not a mode index; modes count from 0"):
        tl.layout(a, -1)


# ---- tessel.layout: a Layout as a Python object --------------------------------------------------------
def test_a_layout_equals_only_layouts():
    a = Layout(8)
    assert (a == None) is False and (a != None) is True  # noqa: E711 (the point)
    assert a != "8:1" and a != 8 and a == Layout("8:1") and not (a != Layout(8, 1))
    assert a in [None, 3, Layout(8)] and {a: 1}[Layout(8)] == 1


def test_iterating_a_layout_gives_its_modes():
    a = Layout(((2, 2), 8), ((1, 16), 2))
    assert list(a) == [Layout((2, 2), (1, 16)), Layout(8, 2)] == [a[0], a[1]] == [a[-2], a[-1]]
    assert list(Layout(8)) == [Layout(8)] and len(Layout(8)) == 1
    assert [m.shape for m in Layout((4, 8, 2))] == [4, 8, 2]


def test_a_mode_beyond_the_rank_is_an_index_error():
    a = Layout((4, 8), (1, 4))
    for i in (2, -3, 2**40):
        with pytest.raises(IndexError, match="of a layout of rank 2: give an index from -2 to 1"):
            a[i]
    with pytest.raises(TypeError, match="for a range of modes use take"):
        a[0:1]


# ---- GemmConfig -------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, field", [
    (dict(tile=(128.5, 128, 32)), "every number of tile must be an integer, not float 128.5"),
    (dict(tile=("128", 128, 32)), "every number of tile must be an integer, not str '128'"),
    (dict(tile=(True, 128, 32)), "every number of tile must be an integer, not bool"),
    (dict(tile="128"), "tile must be a tuple of three integers"),
    (dict(warp=(64, 64.0, 32)), "every number of warp must be an integer"),
    (dict(cluster=(1, 1, None)), "every number of cluster must be an integer"),
    (dict(stages=2.7), "stages must be a number \\(an integer, 2 or more\\), not float 2.7"),
    (dict(stages="3"), "stages must be a number"),
    (dict(stages=True), "stages must be a number"),
    (dict(arch="sm90a", stages=4.0), "stages must be a number or 'auto', not float"),
])
def test_config_numbers_are_integers(kwargs, field):
    with pytest.raises(TypeError, match=field) as e:
        tessel.GemmConfig(**kwargs)
    assert isinstance(e.value, ConfigError) and e.value.status == "kErrorNotSupported"


def test_config_takes_index_integers():
    c = tessel.GemmConfig(tile=(Index(128), 128, 32), stages=Index(4))
    assert c.tile == (128, 128, 32) and c.stages == 4 and type(c.stages) is int


def test_config_shared_memory_beyond_every_gpu_is_refused():
    with pytest.raises(ConfigError, match="needs 262144 bytes of shared memory, more than the 232448 any GPU gives one CTA"):
        tessel.GemmConfig(tile=(256, 256, 32), stages=8)


def test_compiling_for_a_target_checks_its_shared_memory():
    c = tessel.GemmConfig(tile=(128, 256, 32), stages=8)  # 192 KiB: more than sm_80's 163, within sm_90's 227
    assert c.smem_bytes == 192 * 1024
    compiler.check_target(c, "sm_90a")
    for target, limit in (("sm_80", 163 * 1024), ("sm_86", 99 * 1024)):
        with pytest.raises(ConfigError, match=f"more than the {limit} that {target} gives one CTA: use fewer stages"):
            compiler.check_target(c, target)
    with pytest.raises(ConfigError, match="that sm_80 gives one CTA"):
        tessel.compile(c, "sm_80")  # refused before NVRTC is asked


# ---- targets ---------------------------------------------------------------------------------
@pytest.mark.parametrize("target, error", [(-1, ValueError), (0, ValueError), (1000, ValueError), (True, TypeError),
                                           (90.0, TypeError), (b"sm_80", TypeError), ([90], TypeError)])
def test_compile_refuses_a_target_that_is_none(target, error):
    with pytest.raises(error, match="give a target such as 'sm_80' or 'sm_90a', or a compute capability"):
        tessel.compile(tessel.GemmConfig(), target=target)


@pytest.mark.parametrize("cc, error", [(None, TypeError), ("90", TypeError), (9.0, TypeError), (True, TypeError),
                                       (-1, ValueError), (5, ValueError)])
def test_target_for_refuses_what_is_no_compute_capability(cc, error):
    with pytest.raises(error, match="compute capability"):
        tessel.target_for(cc)


def test_target_for_takes_index_integers():
    assert tessel.target_for(Index(90)) == "sm_90a" and compiler.normalize_target(Index(80)) == "sm_80"


# ---- tessel.gemm ------------------------------------------------------------------------------
def test_gemm_operands_must_be_arrays():
    a, b = FakeArray((256, 64)), FakeArray((64, 128))
    with pytest.raises(TypeError) as e:
        tessel.gemm(None, None)
    assert str(e.value) == "tessel.gemm: A must be a tensor (an object with __dlpack__), got NoneType"
    for args, kwargs, name in [((a, None), {}, "B"), ((a, [[1.0]]), {}, "B"), ((a, b, 3), {}, "C"), ((a, b), {"out": "D"}, "out")]:
        with pytest.raises(TypeError, match=f"^tessel.gemm: {name} must be a tensor"):
            tessel.gemm(*args, **kwargs)
    with pytest.raises(TypeError, match="^tessel.kernel_for: A must be a tensor"):
        tessel.kernel_for(None, b)


@pytest.mark.parametrize("alpha", ["2", None, True, 1j, b"1"])
def test_gemm_scalars_are_real_numbers(alpha):
    a, b, d = FakeArray((256, 64)), FakeArray((64, 128)), FakeArray((256, 128), "float32")
    for kwargs in ({"alpha": alpha}, {"beta": alpha}):
        with pytest.raises(TypeError, match="must be a real number such as 1.0, got"):
            tessel.gemm(a, b, out=d, **kwargs)


def test_gemm_stream_must_be_a_handle():
    a, b, d = FakeArray((256, 64)), FakeArray((64, 128)), FakeArray((256, 128), "float32")
    with pytest.raises(TypeError, match="stream .*: give a CUDA stream handle"):
        tessel.gemm(a, b, out=d, config=tessel.GemmConfig(), stream="0")
