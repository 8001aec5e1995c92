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


def test_text_with_a_lone_surrogate_is_a_value_error():
    # It was RuntimeError: std::bad_cast, from nanobind's str -> std::string.
    for call, what in ((lambda: Layout("\ud800"), "the layout text"), (lambda: tl.evaluate("size(\udfff)"), "the expression"),
                       (lambda: tl.composition("8:1\ud800", 2), "the first operand"),
                       (lambda: tl.logical_divide(Layout(8), ["\ud800"]), "the second operand")):
        with pytest.raises(ValueError, match=f"^{what} is a str with no UTF-8 form"):
            call()


def test_a_layout_never_initialized_is_a_type_error():
    # Layout.__new__ without __init__ was RuntimeError: std::bad_cast where a function read it.
    blank = Layout.__new__(Layout)
    for call in (lambda: tl.size(blank), lambda: tl.composition(Layout(8), blank), lambda: Layout(8) == blank, lambda: Layout(blank)):
        with pytest.raises(TypeError, match="made by Layout.__new__ and never initialized"):
            call()


def test_a_layout_is_never_deeper_than_its_text_can_be_read():
    # make_layout(L) nested a layout past the 64 levels its text and pickle are read back with.
    import pickle

    a = Layout(1)
    for _ in range(64):
        a = tl.make_layout(a)
    assert tl.depth(a) == 64 and pickle.loads(pickle.dumps(a)) == a == Layout(str(a))
    with pytest.raises(tl.LayoutError, match="nested 65 levels deep, more than the 64 levels a layout may have"):
        tl.make_layout(a)


def test_one_element_with_a_negative_stride_divides():
    # It was SIGFPE in the composition's stride walk (a multi-mode A, a one-element mode of B with a
    # negative stride): run in a child, so that a crash fails this test only.
    out = isolated("""
        from tessel import layout as tl
        print(tl.logical_divide(tl.Layout((1, 5, 1), (1, 1, 8)), tl.Layout(1, -3)))
        print(tl.composition(tl.Layout((2, 5), (1, 3)), tl.Layout(1, -1)))
    """)
    assert out.split() == ["(1,5):(0,1)", "1:0"]


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


def test_kernel_for_refuses_a_configuration_as_gemm_does():
    """kernel_for(config=...) took anything for a configuration, and an epilogue or out_dtype the
    configuration does not compute was ignored: the kernel named was not the one asked for."""
    a, b, d = FakeArray((256, 64)), FakeArray((64, 128)), FakeArray((256, 128), "float32")
    with pytest.raises(TypeError, match="config must be a tessel.GemmConfig, not str"):
        tessel.kernel_for(a, b, out=d, config="sm80")
    with pytest.raises(ValueError, match="epilogue 'relu' differs from the configuration's 'linear'"):
        tessel.kernel_for(a, b, out=d, config=tessel.GemmConfig(), epilogue="relu")
    with pytest.raises(ValueError, match="out_dtype float16 differs from the configuration's output type 'f32'"):
        tessel.kernel_for(a, b, out=d, config=tessel.GemmConfig(), out_dtype="float16")
    with pytest.raises(ValueError, match="out_dtype float32: the block-scaled kernel writes bfloat16"):
        tessel.kernel_for(a, b, out=d, block_scaled=True, out_dtype="float32")


# ---- tessel.warmup, tessel.tune, tessel.explain -------------------------------------------------------
@pytest.mark.parametrize("device, error", [("cuda", TypeError), (0.0, TypeError), (True, TypeError), (-1, ValueError)])
def test_warmup_and_tune_take_a_device_index(device, error):
    """A device that is no index reached tessel._core.compute_capability: nanobind's signature
    listing, or the driver asked about device -1."""
    for call in (tessel.warmup, tessel.tune):
        with pytest.raises(error, match=f"device {device!r}: give a CUDA device index"):
            call([(16, 16, 16)], device=device)


@pytest.mark.parametrize("shape", [(0, 4096, 4096), (16.0, 4096, 4096), (4096, 4096), (2**31, 4096, 4096), (4096, 4096, 2**40)])
def test_explain_checks_its_shapes(shape):
    """explain() unpacked shapes as given: a zero was reported with M and N swapped, a float or an
    extent past 2^31 - 1 got nanobind's signature listing, and 2^40 cubed a negative tile count."""
    from tessel import explain
    with pytest.raises(ValueError, match="give \\(M, N, K\\), three positive integers of at most 2\\^31 - 1"):
        explain.explain([shape])


@pytest.mark.parametrize("sms", [0, -4, 1.5, None])
def test_explain_checks_its_sm_count(sms):
    """sms=0 was refused by the heuristic for some shapes and took the decode ring for others."""
    from tessel import explain
    with pytest.raises(ValueError, match=f"sms {sms!r}: give the GPU's SM count, a positive integer"):
        explain.explain([(4, 4096, 4096)], sms=sms)


def test_the_small_n_plan_takes_any_integer_extent():
    """A decode problem with more than 2^31 - 1 weight rows or of K reached tessel._core.small_n_plan,
    whose int arguments refused it with nanobind's signature listing: past int, the ring is not the
    kernel (None), and K is clamped as the C++ dispatcher does."""
    from tessel import _core
    assert _core.small_n_plan(2**31, 16, 4096, 132) is None
    assert _core.small_n_plan(28672, 2**40, 4096, 132) is None
    assert _core.small_n_plan(28672, 1, 2**40, 132) == _core.small_n_plan(28672, 1, 2**31 - 1, 132) == (1, 8, 3, 32)


# ---- PyTorch-facing functions ------------------------------------------------------------------
def test_quantize_an_empty_matrix_is_not_refused_for_its_strides():
    """PyTorch gives an (M, 0) tensor strides (1, 1), so a contiguous x with K = 0 was refused as
    not row-major, with the advice to pass x.contiguous()."""
    torch = pytest.importorskip("torch")
    import tessel.ops  # noqa: F401 (registers the ops)
    q, scale = torch.ops.tessel.quantize_fp8_1x128(torch.empty(4, 0, dtype=torch.bfloat16, device="meta"))
    assert q.shape == (4, 0) and scale.shape == (4, 0)
    with pytest.raises(ValueError, match="x is on cpu; the kernel runs on a CUDA device"):
        tessel.quantize_fp8_1x128(torch.empty(4, 0, dtype=torch.bfloat16))


def test_blockwise_scaled_mm_of_k_0_is_not_refused_for_its_strides():
    torch = pytest.importorskip("torch")
    import tessel.ops  # noqa: F401
    e4m3, f32 = torch.float8_e4m3fn, torch.float32
    a, b = torch.empty(32, 0, dtype=e4m3), torch.empty(64, 0, dtype=e4m3).t()
    d = torch.ops.tessel.scaled_mm(a, b, torch.empty(32, 0, dtype=f32), torch.empty(0, 1, dtype=f32))
    assert d.shape == (32, 64) and d.dtype == torch.bfloat16 and not d.any()


def test_matmul_and_linear_refuse_what_is_no_tensor():
    """A list got AttributeError ("'list' object has no attribute 'dim'")."""
    torch = pytest.importorskip("torch")
    import tessel.nn
    w = torch.empty(4, 8, dtype=torch.bfloat16)
    with pytest.raises(TypeError, match="tessel.matmul: b must be a torch.Tensor, not list"):
        tessel.matmul(w, [[1.0]])
    with pytest.raises(TypeError, match="tessel.linear: x must be a torch.Tensor, not list"):
        tessel.linear([1.0] * 8, w)
    with pytest.raises(TypeError, match="tessel.linear: bias must be a torch.Tensor, not float"):
        tessel.linear(w.t(), w, 0.0)
    with pytest.raises(TypeError, match="tessel.nn.Linear: x must be a torch.Tensor, not list"):
        tessel.nn.Linear(8, 4)([1.0] * 8)


def test_matmul_batches_that_do_not_broadcast_are_named():
    torch = pytest.importorskip("torch")
    a, b = torch.empty(2, 3, 4, dtype=torch.bfloat16), torch.empty(3, 4, 6, dtype=torch.bfloat16)
    with pytest.raises(ValueError, match=r"batch dimensions \(2,\) and \(3,\) do not broadcast"):
        tessel.matmul(a, b)


# ---- tessel.grouped_gemm ----------------------------------------------------------------------
def _grouped_operands(torch):
    x = torch.empty(64, 32, dtype=torch.bfloat16, device="cuda")
    w = torch.empty(4, 16, 32, dtype=torch.bfloat16, device="cuda").transpose(1, 2)
    return x, w, torch.empty(4, dtype=torch.int32, device="cuda")


def test_grouped_gemm_checks_ranks_before_reading_extents():
    """With fake CUDA tensors: a 0-d A or B raised IndexError, a 2-D B was reported as offs of the
    wrong length, out=[...] raised AttributeError and out_dtype='bfloat16' was refused by a sentence
    saying that bfloat16 is what the kernels write."""
    torch = pytest.importorskip("torch")
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        x, w, offs = _grouped_operands(torch)
        scalar = torch.empty((), dtype=torch.bfloat16, device="cuda")
        for b in (w[0], scalar):
            with pytest.raises(ValueError, match="B must be 3-D \\(groups, K, N\\)"):
                tessel.grouped_gemm(x, b, offs)
        with pytest.raises(ValueError, match="A of shape \\(\\): with offs A is \\(rows, K\\)"):
            tessel.grouped_gemm(scalar, w, offs)
        with pytest.raises(ValueError, match="out must be a \\(64, 16\\) torch.bfloat16 tensor"):
            tessel.grouped_gemm(x, w, offs, out=[0.0])
        with pytest.raises(TypeError, match="out_dtype 'bfloat16': the grouped kernels write torch.float16 or torch.bfloat16"):
            tessel.grouped_gemm(x, w, offs, out_dtype="bfloat16")


def test_grouped_kernel_for_checks_its_operands():
    """tessel.grouped.kernel_for read its operands unchecked: a list raised AttributeError, a 2-D B
    "not enough values to unpack", and neither offs nor counts was taken for offs."""
    torch = pytest.importorskip("torch")
    from torch._subclasses.fake_tensor import FakeTensorMode
    from tessel import grouped
    with FakeTensorMode():
        x, w, offs = _grouped_operands(torch)
        with pytest.raises(TypeError, match="A must be a torch.Tensor, not list"):
            grouped.kernel_for([1.0], w, offs)
        with pytest.raises(ValueError, match="give exactly one of offs"):
            grouped.kernel_for(x, w)
        with pytest.raises(ValueError, match="B must be 3-D"):
            grouped.kernel_for(x, w[0], offs)
        with pytest.raises(ValueError, match="with counts A is \\(groups, M, K\\)"):
            grouped.kernel_for(x, w, counts=offs)


def test_grouped_mm_fake_kernel_refuses_what_the_kernel_refuses():
    """The fake kernel checked ranks only: a traced call with int64 offs, float32 or int operands,
    a float32 out_dtype or float8 operands (which the op gives no scales) was given an output, and
    float8 a one of float8, while the eager call refuses each."""
    torch = pytest.importorskip("torch")
    import tessel.ops  # noqa: F401
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        x, w, offs = _grouped_operands(torch)
        op = torch.ops.tessel.grouped_mm
        assert op(x, w, offs).dtype == torch.bfloat16
        with pytest.raises(ValueError, match="offs must be a 1-D int32 tensor of one entry per group \\(4\\)"):
            op(x, w, offs.long())
        with pytest.raises(ValueError, match="offs must be a 1-D int32 tensor"):
            op(x, w, offs[:3])
        for dtype in (torch.float32, torch.int32):
            with pytest.raises(TypeError, match="the grouped kernels take float16, bfloat16"):
                op(x.to(dtype), w.to(dtype), offs)
        with pytest.raises(TypeError, match="out_dtype torch.float32: the grouped kernels write"):
            op(x, w, offs, torch.float32)
        e4m3 = torch.float8_e4m3fn
        with pytest.raises(ValueError, match="float8 A and B take scale_a"):
            op(x.to(e4m3), w.to(e4m3), offs)


# ---- tessel.distributed: refused before any communication -----------------------------------------
def _tdist():
    pytest.importorskip("torch")
    dist = pytest.importorskip("torch.distributed")
    if not dist.is_available():
        pytest.skip("this PyTorch has no torch.distributed")
    import tessel.distributed as tdist
    return tdist


def test_distributed_refuses_a_scale_of_16_bit_operands():
    """bfloat16 x with scale_a alone passed the check (it asked for both or neither), and the
    scale was ignored."""
    tdist = _tdist()
    import torch
    x, w = torch.zeros(8, 64, dtype=torch.bfloat16), torch.zeros(16, 64, dtype=torch.bfloat16)
    for kwargs in ({"scale_a": torch.ones(1)}, {"scale_b": torch.ones(1)}):
        with pytest.raises(ValueError, match="float8 operands take scale_a and scale_b .*, and only they do"):
            tdist.all_gather_gemm(x, w, **kwargs)
    e4m3 = torch.float8_e4m3fn
    with pytest.raises(ValueError, match="float8 operands take scale_a and scale_b"):
        tdist.gemm_reduce_scatter(x.to(e4m3), w.to(e4m3), scale_b=torch.ones(1))


@pytest.mark.parametrize("out_dtype", ["int8", "bfloat16"])
def test_distributed_checks_out_dtype_before_communicating(out_dtype):
    """out_dtype was first read after the exchanges began (torch.empty, or the GEMM's refusal of
    an int8 D), so one rank's mistake left the others waiting."""
    tdist = _tdist()
    import torch
    dtype = getattr(torch, out_dtype) if out_dtype == "int8" else out_dtype
    x, w = torch.zeros(8, 64, dtype=torch.bfloat16), torch.zeros(16, 64, dtype=torch.bfloat16)
    for call in (tdist.all_gather_gemm, tdist.gemm_reduce_scatter):
        with pytest.raises(TypeError, match=f"out_dtype {dtype!r}: tessel writes torch.float32, torch.float16 or torch.bfloat16"):
            call(x, w, out_dtype=dtype)


def test_distributed_refusals_of_autograd_and_scales_come_before_the_group():
    """With fake CUDA tensors, which pass the device check: an out_dtype under autograd was refused
    only after the group was asked (and rows_per_rank gathered), and a scale on another device was
    read by a collective or the GEMM."""
    tdist = _tdist()
    import torch
    import torch.distributed as dist
    from torch._subclasses.fake_tensor import FakeTensorMode
    if dist.is_initialized():
        pytest.skip("a process group is initialized")
    with FakeTensorMode():
        x = torch.zeros(8, 64, dtype=torch.bfloat16, device="cuda")
        w = torch.zeros(16, 64, dtype=torch.bfloat16, device="cuda").requires_grad_()
        for call in (tdist.all_gather_gemm, tdist.gemm_reduce_scatter):
            with pytest.raises(ValueError, match="with autograd the output takes x's dtype"):
                call(x, w, out_dtype=torch.float32)
        e4m3 = torch.float8_e4m3fn
        with pytest.raises(ValueError, match="scale_b must be a one-element float32 tensor on x's device"):
            tdist.all_gather_gemm(x.to(e4m3), w.detach().to(e4m3), scale_a=torch.ones(1, device="cuda"), scale_b=torch.ones(1))
        with pytest.raises(ValueError, match="torch.distributed is not initialized"):
            tdist.all_gather_gemm(x, w)  # the arguments are right: the group is asked next


@pytest.mark.parametrize("out_dtype", ["torch", "name"])
def test_gemm_refuses_an_out_dtype_that_out_does_not_have(out_dtype):
    """out_dtype was ignored when out was given: D came back in out's type, not the one asked for."""
    torch = pytest.importorskip("torch")
    a, b = torch.ones(8, 16, dtype=torch.float16), torch.ones(16, 8, dtype=torch.float16)
    d = torch.empty(8, 8, dtype=torch.float16)
    asked = torch.bfloat16 if out_dtype == "torch" else "bfloat16"
    with pytest.raises(ValueError, match="out_dtype is .*bfloat16 but out is .*float16: D is written in out's type"):
        tessel.gemm(a, b, out=d, out_dtype=asked)


def test_gemm_names_an_alpha_past_floats_range():
    with pytest.raises(ValueError, match="alpha 1000.* is not representable as a float"):
        tessel.gemm(FakeArray((8, 16)), FakeArray((16, 8)), alpha=10**400)
