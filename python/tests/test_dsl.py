"""The kernel DSL without a GPU: generated PTX features, error locations, cache keys; and, on a
CUDA device, the examples' results against torch."""

import re
import sys
from pathlib import Path

import pytest

import tessel
from tessel.dsl.host import HostTensor
from tessel.jit import cubin as cubin_info

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "python"))


def _fakes(n=3, dtype=tessel.Float16, shape=(2048, 2048)):
    return [tessel.fake_tensor(dtype, shape) for _ in range(n)]


def _static(dtype=tessel.Float16, shape=(4096, 4096)):
    return [HostTensor(dtype, shape, (shape[1], 1), 0x7F0000000000, 0, 16) for _ in range(3)]


def test_seed_add_compiles_without_gpu(toolkit):
    from elementwise_add import add
    for target, sm in (("sm_90a", 90), ("sm_80", 80)):
        c = tessel.compile(add, *_fakes(), target=target)
        assert "ld.global" in c.ptx and "st.global" in c.ptx
        assert cubin_info.sm_version(c.cubin) == sm
        assert c.kernels[0].name in cubin_info.functions(c.cubin)


def test_vectorized_add_uses_16_byte_accesses(toolkit):
    from vectorized_add import vadd
    c = tessel.compile(vadd, *_static(), target="sm_90a")
    assert c.ptx.count("ld.global.nc.v4.u32") == 8 and c.ptx.count("st.global.v4.u32") == 4
    assert c.replay  # static layouts: the launches are replayed, the host function not re-run


def test_compile_needs_a_target_without_cuda_tensors(toolkit):
    from elementwise_add import add
    with pytest.raises(tessel.DSLError, match="target="):
        tessel.compile(add, *_fakes())


def test_64_bit_offsets_past_2_31_elements(toolkit):
    from elementwise_add import add
    small = tessel.compile(add, *_fakes(shape=(1024, 1024)), target="sm_90a")
    big = tessel.compile(add, *_fakes(shape=(65536, 65536)), target="sm_90a")
    assert "long long p_gA_s0" not in small.source and "long long p_gA_s0" in big.source


@tessel.kernel
def _bad_range(gA, n: tessel.Int32):
    for i in tessel.range_constexpr(n):  # line marker: range_constexpr
        gA[i] = 0


@tessel.jit
def _launch_bad_range(mA, n: tessel.Int32):
    _bad_range(mA, n).launch(grid=1, block=32)


@tessel.kernel
def _bad_type(gA):
    tidx, _, _ = tessel.arch.thread_idx()
    x = tidx
    if tidx > 3:
        x = tidx.to(tessel.Float32)  # line marker: wrong type
    gA[0] = x


@tessel.jit
def _launch_bad_type(mA):
    _bad_type(mA).launch(grid=1, block=32)


@tessel.kernel
def _scoped(gA):
    tidx, _, _ = tessel.arch.thread_idx()
    if tidx > 3:
        y = tidx + 1
    gA[0] = y  # line marker: used after the block


@tessel.jit
def _launch_scoped(mA):
    _scoped(mA).launch(grid=1, block=32)


def _line_of(marker):
    for i, line in enumerate(Path(__file__).read_text().splitlines(), 1):
        if f"line marker: {marker}" in line:
            return i
    raise AssertionError(marker)


@pytest.mark.parametrize("fn, args, marker, rule", [
    (_launch_bad_range, (tessel.Int32(4),), "range_constexpr", "compile-time integers"),
    (_launch_bad_type, (), "wrong type", "keeps one type"),
    (_launch_scoped, (), "used after the block", "used after that block ends"),
])
def test_errors_name_the_file_line_and_rule(toolkit, fn, args, marker, rule):
    a = tessel.fake_tensor(tessel.Int32, (64,))
    with pytest.raises(tessel.DSLError) as e:
        tessel.compile(fn, a, *args, target="sm_90a")
    assert e.value.filename == __file__ and e.value.lineno == _line_of(marker)
    assert rule in e.value.rule


def test_dynamic_control_flow_becomes_cxx(toolkit):
    @tessel.kernel
    def k(gA, n: tessel.Int32):
        tidx, _, _ = tessel.arch.thread_idx()
        acc = 0
        for i in range(n):
            if i % 2 == 0 and tidx > 0:
                acc = acc + i
        while acc > 100:
            acc = acc - 7
        gA[tidx] = acc

    @tessel.jit
    def run(mA, n: tessel.Int32):
        k(mA, n).launch(grid=1, block=64)

    c = tessel.compile(run, tessel.fake_tensor(tessel.Int32, (64,)), tessel.Int32(10), target="sm_90a")
    src = c.kernels[0].source
    assert "for (int i" in src and "while (true)" in src and "if (" in src and "acc_" in src


def test_cache_memory_and_disk(toolkit, tmp_path, monkeypatch):
    from elementwise_add import add_kernel, add
    monkeypatch.setenv("TESSEL_CACHE_DIR", str(tmp_path))
    add_kernel._specs.clear()
    first = tessel.compile(add, *_fakes(), target="sm_90a").kernels[0]
    again = tessel.compile(add, *_fakes(), target="sm_90a").kernels[0]
    assert again is first  # same signature: the in-memory specialisation
    add_kernel._specs.clear()
    cold = tessel.compile(add, *_fakes(), target="sm_90a").kernels[0]
    assert cold.cache_hit and cold.cubin == first.cubin  # the disk cache, keyed by source and target
    other = tessel.compile(add, *_fakes(dtype=tessel.BFloat16), target="sm_90a").kernels[0]
    assert other.name != first.name and not other.cache_hit


def test_nvrtc_options_minimal_only_where_nvrtc_has_it():
    # The DSL's source includes no header, so NVRTC 12.4+ compiles it with -minimal; older NVRTC
    # refuses the option (NVRTC_ERROR_INVALID_OPTION), so it is left out there.
    dsl_jit = sys.modules["tessel.dsl.jit"]  # the module (tessel.dsl.jit the name is the decorator)
    assert "-minimal" in dsl_jit._options("sm_90a", (12, 4)) and "-minimal" in dsl_jit._options("sm_90a", (13, 0))
    assert "-minimal" not in dsl_jit._options("sm_90a", (12, 3))
    assert dsl_jit._options("sm_80", (13, 0))[0] == "-arch=sm_80"


def test_compiled_call_checks_the_signature(toolkit):
    from vectorized_add import vadd
    c = tessel.compile(vadd, *_static(), target="sm_90a")
    wrong = _static(tessel.BFloat16)
    with pytest.raises(ValueError, match="compiled for a Float16"):
        c(*wrong)


class _Recorder:
    """Stands in for a kernel's launcher: keeps (grid, parameter bytes, block) of each launch."""

    def __init__(self):
        self.calls = []

    def launch(self, gx, gy, gz, bx, by, bz, smem, stream, device, params, cx=1, cy=1, cz=1):
        self.calls.append(((gx, gy, gz), params, (bx, by, bz)))

    def replay(self, params, pointer_offsets, gx, gy, gz, bx, by, bz, smem, cx=1, cy=1, cz=1):
        """RawKernel.replay as the C++ launcher does it: the kept bytes with each pointer written in."""
        import struct

        def call(stream, device, *pointers):
            buf = bytearray(params)
            for offset, p in zip(pointer_offsets, pointers, strict=True):
                struct.pack_into("<Q", buf, offset, p)
            self.launch(gx, gy, gz, bx, by, bz, smem, stream, device, bytes(buf), cx, cy, cz)
        return call


def _real(shape, base, dtype=tessel.Float16, n=3, dynamic=True):
    """HostTensors with addresses on device 0 (nothing is read: the launcher is a _Recorder)."""
    ts = [HostTensor(dtype, shape, (shape[1], 1), base + i * (1 << 32), 0, 16) for i in range(n)]
    return [t.mark_layout_dynamic() if dynamic else t for t in ts]


def _params(t):
    """The add kernel's parameters for one tensor: address, then its dynamic extents and stride."""
    import struct
    return struct.pack("<Qiii", t.data_ptr, t.shape[0], t.shape[1], t.stride[0])


def test_compiled_call_replays_per_argument_set(toolkit, monkeypatch):
    """A function compiled from fake tensors (dynamic layouts) runs its Python host function once
    per set of extents and strides; later calls with that set replay its launch with the new
    addresses, and each set keeps its own grid and parameters."""
    from elementwise_add import add
    import importlib
    dsl_jit = importlib.import_module("tessel.dsl.jit")
    c = tessel.compile(add, *_fakes(), target="sm_90a")
    rec = _Recorder()
    monkeypatch.setattr(c.kernels[0], "_raw", rec)  # restored after the test: the kernel is shared (memory cache)
    ran, host = [], add.fn
    monkeypatch.setattr(add, "fn", lambda *a: (ran.append(a[0].shape), host(*a))[1])
    for shape, base in (((1024, 512), 0x10000), ((256, 256), 0x20000), ((1024, 512), 0x30000), ((256, 256), 0x40000)):
        args = _real(shape, base)
        c(*args)
        grid, params, _ = rec.calls[-1]
        assert grid == (shape[0] * shape[1] // 256, 1, 1)
        assert all(_params(t) in params for t in args)  # the new addresses and this set's extents
    assert ran == [(1024, 512), (256, 256)]  # the host function ran once per set
    with pytest.raises(ValueError, match="do not divide into blocks"):  # the host function's own check, each time
        c(*_real((10, 10), 0x50000))
    with pytest.raises(ValueError, match="do not divide into blocks"):
        c(*_real((10, 10), 0x50000))
    monkeypatch.setattr(dsl_jit, "REPLAY_SETS", 2)
    for rows in (8, 16, 24):  # at most REPLAY_SETS sets are remembered
        c(*_real((rows, 256), 0x60000))
    assert len(c._replays) == 2
    kept = dict(c._replays)
    for rows in (32, 40, 48, 56):  # sets that never repeat: past 2 x REPLAY_SETS misses, none is kept
        c(*_real((rows, 256), 0x60000))
        assert rec.calls[-1][0] == (rows, 1, 1)  # and each still runs right
    assert c._replays == kept


@tessel.kernel
def _fill(gA, value: tessel.Float32, width: tessel.Constexpr):
    tidx, _, _ = tessel.arch.thread_idx()
    if tidx < width:
        gA[tidx] = value


@tessel.jit
def _launch_fill(mA, value: tessel.Float32, width: tessel.Constexpr):
    _fill(mA, value, width).launch(grid=1, block=width)


def test_compiled_call_checks_scalars_and_constexprs(toolkit, monkeypatch):
    import struct
    mA = HostTensor(tessel.Float32, (64,), (1,), 0x10000, 0, 16)
    c = tessel.compile(_launch_fill, mA, 1.5, 32, target="sm_90a")
    rec = _Recorder()
    monkeypatch.setattr(c.kernels[0], "_raw", rec)  # restored after the test: the kernel is shared (memory cache)
    for value in (2.5, -1.0, 2.5):  # a scalar's value is a parameter: each call packs its own
        c(mA, value, 32)
        assert rec.calls[-1][1].endswith(struct.pack("<f", value))
    with pytest.raises(ValueError, match="compiled for the Constexpr 32"):
        c(mA, 2.5, 64)
    with pytest.raises(ValueError, match="compiled for a Float32 scalar"):
        c(mA, "2.5", 32)
    # A Constexpr left out of the call is the compiled one (the parameter has no default here, and
    # a default would not override it either); a tensor left out is a TypeError.
    c(mA, 3.5)
    assert rec.calls[-1][2] == (32, 1, 1) and rec.calls[-1][1].endswith(struct.pack("<f", 3.5))
    c(mA, value=4.5)
    assert rec.calls[-1][1].endswith(struct.pack("<f", 4.5))
    with pytest.raises(TypeError, match="missing the argument 'value'"):
        c(mA)


@tessel.jit
def _launch_fill_default(mA, value: tessel.Float32, width: tessel.Constexpr = 64):
    _fill(mA, value, width).launch(grid=1, block=width)


def test_compiled_constexpr_left_out_is_the_compiled_value_not_the_default(toolkit, monkeypatch):
    mA = HostTensor(tessel.Float32, (64,), (1,), 0x10000, 0, 16)
    c = tessel.compile(_launch_fill_default, mA, 1.5, 32, target="sm_90a")
    rec = _Recorder()
    monkeypatch.setattr(c.kernels[0], "_raw", rec)  # restored after the test: the kernel is shared (memory cache)
    c(mA, 2.0)
    assert rec.calls[-1][2] == (32, 1, 1)  # width 32, as compiled, not the default 64


def test_eager_algebra_is_the_same_objects():
    from tessel import layout as L
    A = L.Layout((8, 8), (8, 1))
    assert tessel.zipped_divide(A, (2, 4)) == L.zipped_divide(A, (2, 4))
    assert str(tessel.composition(A, L.Layout(4, 2))) == str(L.composition(A, L.Layout(4, 2)))


def test_gpu_examples_match_torch(torch_cuda, toolkit):
    torch = torch_cuda
    from elementwise_add import add
    from vectorized_add import vadd
    for fn, shape in ((add, (2048, 2048)), (vadd, (4096, 4096))):
        for dtype in (torch.float16, torch.bfloat16):
            a = torch.rand(shape, device="cuda", dtype=dtype)
            b = torch.rand_like(a)
            c = torch.full_like(a, float("nan"))
            ts = [tessel.from_dlpack(t) for t in (a, b, c)]
            tessel.compile(fn, *ts)(*ts)
            torch.cuda.synchronize()
            assert torch.equal(c, a + b), (fn, dtype)
            if fn is add:
                c.fill_(float("nan"))
                fn(a, b, c)  # called directly: torch tensors, dynamic layouts
                torch.cuda.synchronize()
                assert torch.equal(c, a + b), (fn, dtype, "direct")



def test_direct_call_key_of_torch_arguments(torch_cpu):
    """A direct @jit call keys its replays by what decides them: dtype, shape, strides, device and
    address mod 16 of each tensor, type and value of each plain argument; anything else takes the
    checked path (None)."""
    torch = torch_cpu
    import importlib
    key = importlib.import_module("tessel.dsl.jit")._direct_key
    buf = torch.zeros(4096, dtype=torch.float16)
    a, same, shifted = buf[:1024].view(32, 32), buf[1024:2048].view(32, 32), buf[1:1025].view(32, 32)
    k, facts = key((a, 3, None))
    assert facts == [((32, 32), (32, 1), a.data_ptr(), -1)]
    assert key((same, 3, None))[0] == k  # another address, 16-byte aligned alike
    for other in ((shifted, 3, None), (a.t(), 3, None), (a.view(64, 16), 3, None), (a.bfloat16(), 3, None), (a, 4, None),
                  (a, 3.0, None), (a, True, None)):
        assert key(other)[0] != k, other
    assert key((HostTensor(tessel.Float16, (32, 32), (32, 1), 0x10000, 0, 16),)) is None
    assert key((a, object())) is None


def test_direct_call_with_torch_tensors_skips_the_checks(torch_cuda, toolkit, monkeypatch):
    """Repeated direct calls with PyTorch tensors of one argument set go straight to their replays
    (no conversion, no classification) and still compute each call's own tensors; another
    alignment or shape is another set."""
    torch = torch_cuda
    from elementwise_add import add
    checked = []
    args_of = add._args
    monkeypatch.setattr(add, "_direct", {})  # no set remembered from an earlier test
    monkeypatch.setattr(add, "_args", lambda *a: (checked.append(1), args_of(*a))[1])
    buf = torch.rand(3, 256 * 256 + 8, device="cuda", dtype=torch.float16)
    for start, shape, expect_checked in ((0, (256, 256), 1), (0, (256, 256), 1), (8, (256, 256), 1), (1, (256, 256), 2),
                                         (1, (128, 512), 3), (1, (256, 256), 3)):
        a, b = (buf[i, start:start + 65536].view(*shape) for i in (0, 1))
        a.copy_(torch.rand_like(a))
        c = torch.full(shape, float("nan"), device="cuda", dtype=torch.float16)
        add(a, b, c)
        torch.cuda.synchronize()
        assert torch.equal(c, a + b), (start, shape)
        assert len(checked) == expect_checked, (start, shape, len(checked))


# ---- the Hopper GEMM example (TMA, mbarriers, wgmma, warp specialization) ------------------------

def _gemm_fakes(m=4096, n=4096, k=4096, dtype=tessel.BFloat16):
    return [tessel.fake_tensor(dtype, (m, k)), tessel.fake_tensor(dtype, (n, k)), tessel.fake_tensor(dtype, (m, n)),
            tessel.fake_tensor(dtype, (n,))]


def test_hopper_gemm_ptx_without_gpu(toolkit):
    import hopper_gemm as hg
    c = tessel.compile(hg.gemm, *_gemm_fakes(), "silu", True, target="sm_90a")
    ptx = c.ptx
    for feature in ("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", "cp.async.bulk.tensor.3d.shared::cluster.global",
                    "mbarrier.try_wait.parity", "mbarrier.arrive.expect_tx", "setmaxnreg.inc.sync.aligned.u32 232",
                    "setmaxnreg.dec.sync.aligned.u32 40", "wgmma.wait_group.sync.aligned 1", "ex2.approx"):
        assert feature in ptx, feature
    assert ".local" not in ptx  # the 128 accumulators stay in registers
    assert "cp.async.bulk.tensor.3d.global.shared::cta.bulk_group" in ptx  # D leaves by TMA stores
    assert re.search(r"st\.shared\.(v2\.[ub]16|[ub]32)\s", ptx)  # in pairs: assume() proved 4-byte alignment
    assert not re.search(r"st\.shared\.[ub]16\s", ptx)
    assert cubin_info.sm_version(c.cubin) == 90
    assert "__launch_bounds__(384, 1)" in c.source
    assert c.kernels[0].plan.offsets[:4] == [0, 128, 256, 384]  # three 128-byte descriptors, 64-aligned, then D's pointer
    assert "pipe_count" in c.source and "mbarrier.init.shared::cta.b64 [%0], %1;\" :: \"r\"" in c.source  # tessel.pipeline
    with pytest.raises(tessel.DSLError, match="sm_90a"):
        tessel.compile(hg.gemm, *_gemm_fakes(), target="sm_80")


def test_hopper_gemm_on_a_cluster_ptx_without_gpu(toolkit):
    """cluster_m=2: two CTAs along M, each loading half of B's tile and multicasting it to both;
    stages released in both CTAs; a cluster barrier after the barriers' initialisation and before
    the CTAs retire. The default (cluster_m=1) has none of it."""
    import hopper_gemm as hg
    c = tessel.compile(hg.gemm, *_gemm_fakes(), "none", False, 2, target="sm_90a")
    ptx = c.ptx
    for feature in ("bytes.multicast::cluster", "mapa.shared::cluster.u32", "barrier.cluster.arrive.relaxed",
                    "barrier.cluster.arrive.release", "%cluster_ctarank"):
        assert feature in ptx, feature  # relaxed at the start, release before the CTAs retire
    assert ".local" not in ptx and c.launches[0].cluster == (2, 1, 1) and c.launches[0].grid[0] % 2 == 0
    plain = tessel.compile(hg.gemm, *_gemm_fakes(), "none", False, target="sm_90a")
    assert "multicast" not in plain.ptx and "barrier.cluster" not in plain.ptx and plain.launches[0].cluster == (1, 1, 1)
    with pytest.raises(ValueError, match="cluster_m is 1 or 2"):
        tessel.compile(hg.gemm, *_gemm_fakes(), "none", False, 4, target="sm_90a")


def test_pipeline_state_views_do_not_advance(toolkit):
    @tessel.kernel
    def k(gA: tessel.Tensor):
        state = tessel.pipeline.PipelineState(4)
        state.previous().advance()  # line marker: a view

    @tessel.jit
    def run(mA):
        k(mA).launch(grid=1, block=32)

    with pytest.raises(tessel.DSLError, match="read-only view"):
        tessel.compile(run, tessel.fake_tensor(tessel.Float32, (32,)), target="sm_90a")


def test_wgmma_refuses_a_short_fragment(toolkit):
    @tessel.kernel
    def k(gA: tessel.Tensor):
        acc = tessel.make_fragment(64, tessel.Float32)
        d = tessel.arch.make_wgmma_desc(tessel.SmemAllocator().allocate_array(tessel.BFloat16, 64 * 64, 1024).iterator)
        tessel.arch.wgmma(acc, d, d, 256, tessel.BFloat16)  # line marker: needs 128 registers

    @tessel.jit
    def run(mA):
        k(mA).launch(grid=1, block=128)

    with pytest.raises(tessel.DSLError, match="needs 128 Float32 registers; the fragment has 64"):
        tessel.compile(run, tessel.fake_tensor(tessel.Float32, (32,)), target="sm_90a")


def test_hopper_gemm_refuses_what_tma_cannot_read(toolkit):
    import hopper_gemm as hg
    with pytest.raises(ValueError, match="multiples of 8"):
        tessel.compile(hg.gemm, *_gemm_fakes(k=4100), target="sm_90a")
    bad = _gemm_fakes()
    bad[1] = tessel.fake_tensor(tessel.Float16, (4096, 4096))
    with pytest.raises(ValueError, match="all Float16 or all BFloat16"):
        tessel.compile(hg.gemm, *bad, target="sm_90a")
    with pytest.raises(ValueError, match="box row is 128 bytes"):
        tessel.make_tma_descriptor(tessel.fake_tensor(tessel.BFloat16, (64, 64)), box=(32, 64))


def test_assume_makes_pair_stores():
    @tessel.kernel
    def k(gD: tessel.Tensor, proven: tessel.Constexpr):
        tidx, _, _ = tessel.arch.thread_idx()
        ld = gD.stride[0]
        if tessel.const_expr(proven):
            ld = tessel.assume(ld, divby=8)
        pair = tessel.make_fragment(2, gD.element_type)
        pair[0] = 1.0
        pair[1] = 2.0
        tessel.make_tensor(gD.iterator + (tidx * ld + 2 * tidx), tessel.make_layout(2)).store(pair.load())

    @tessel.jit
    def run(mD, proven: tessel.Constexpr):
        k(mD, proven).launch(grid=1, block=32)

    D = tessel.fake_tensor(tessel.Float16, (64, 64))
    with_assume = tessel.compile(run, D, True, target="sm_90a").ptx
    without = tessel.compile(run, D, False, target="sm_90a").ptx
    single = r"st\.global\.[ub]16\s"
    assert re.search(r"st\.global\.(v2\.[ub]16|[ub]32)\s", with_assume) and not re.search(single, with_assume)
    assert len(re.findall(single, without)) == 2


def _sm90(torch):
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("the Hopper GEMM example needs an sm_90 GPU (H100, H200)")


def _check_gemm_both_ways(torch, gemm, m, n, k, dtype, ref, tensors, consts=()):
    """gemm(A, W, D, *rest) called directly (torch tensors, dynamic layouts) and compiled (static
    layouts), D poisoned with NaN: every element written and within ref's float64 budget.
    tensors: A (M, K), W (N, K) and any further tensor arguments; D is made here."""
    A, W = tensors[0], tensors[1]
    budget = 2.0**-7 * ref.abs() + 8 * k**0.5 * 2.0**-23 * (A.double().abs() @ W.double().abs().t()) + 2.0**-7
    for how in ("direct", "compiled"):
        D = torch.full((m, n), float("nan"), device="cuda", dtype=dtype)
        args = (A, W, D, *tensors[2:])
        if how == "direct":
            gemm(*args, *consts)
        else:
            ts = [tessel.from_dlpack(t) for t in args]
            tessel.compile(gemm, *ts, *consts)(*ts)
        torch.cuda.synchronize()
        assert not torch.isnan(D).any(), (m, n, k, consts, how, "an element was not written")
        err = (D.double() - ref).abs() / budget
        worst = err.max().item()
        assert worst <= 1, (m, n, k, consts, how, worst, (err > 1).nonzero()[:5].tolist())


def _operands(torch, m, n, k, dtype, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    A = (torch.rand(m, k, device="cuda", generator=g) * 2 - 1).to(dtype)
    W = (torch.rand(n, k, device="cuda", generator=g) * 2 - 1).to(dtype)
    bias = (torch.rand(n, device="cuda", generator=g) * 2 - 1).to(dtype)
    return A, W, bias


def test_gpu_hopper_gemm_matches_float64(torch_cuda, toolkit):
    torch = torch_cuda
    _sm90(torch)
    import hopper_gemm as hg
    acts = {"none": lambda x: x, "relu": torch.relu, "silu": torch.nn.functional.silu,
            "gelu": lambda x: torch.nn.functional.gelu(x, approximate="tanh")}
    cases = [(1000, 776, 520, torch.bfloat16, "none", False), (256, 512, 64, torch.float16, "relu", True),
             (2048, 2048, 1024, torch.bfloat16, "silu", True), (384, 1032, 4104, torch.bfloat16, "gelu", True),
             (129, 264, 8, torch.float16, "none", True)]
    for m, n, k, dtype, act, has_bias in cases:
        A, W, bias = _operands(torch, m, n, k, dtype, m + n + k)
        ref = acts[act](A.double() @ W.double().t() + (bias.double() if has_bias else 0))
        _check_gemm_both_ways(torch, hg.gemm, m, n, k, dtype, ref, (A, W, bias), (act, has_bias))
    # 2x1 clusters, B multicast: an odd number of tile rows (the last cluster's second CTA has no
    # rows), more tiles than clusters (persistent), and a short K.
    for m, n, k, dtype, act, has_bias in [(1000, 776, 520, torch.bfloat16, "none", False),
                                          (4096, 2048, 1024, torch.float16, "silu", True), (129, 264, 8, torch.bfloat16, "relu", True)]:
        A, W, bias = _operands(torch, m, n, k, dtype, m + n + k + 1)
        ref = acts[act](A.double() @ W.double().t() + (bias.double() if has_bias else 0))
        _check_gemm_both_ways(torch, hg.gemm, m, n, k, dtype, ref, (A, W, bias), (act, has_bias, 2))


# ---- the Sm80 GEMM example (cp.async, ldmatrix, mma.sync) ----------------------------------------

def test_sm80_gemm_ptx_without_gpu(toolkit):
    import sm80_gemm as g
    for target, sm in (("sm_80", 80), ("sm_90a", 90)):
        c = tessel.compile(g.gemm, *_fakes(3, tessel.BFloat16, (4096, 4096)), target=target)
        ptx = c.ptx
        assert ptx.count("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32") == 64  # 2 K steps x 4 x 8 tiles
        assert ptx.count("ldmatrix.sync.aligned.m8n8.x4.shared.b16") == 16
        assert "cp.async.cg.shared.global" in ptx and "cp.async.wait_group 1" in ptx
        assert ".local" not in ptx
        assert cubin_info.sm_version(c.cubin) == sm


def test_compile_time_names_rebind_only_where_they_were_bound():
    @tessel.kernel
    def ok(gA: tessel.Tensor, n: tessel.Int32):
        tidx, _, _ = tessel.arch.thread_idx()
        if tidx < n:
            for i in tessel.range_constexpr(2):
                t = gA[(None,)]  # a fresh view per unrolled iteration, inside the dynamic if
                step = i + 1      # a number bound inside the block, rebound there
                t[tidx] = t[tidx] + step

    @tessel.kernel
    def bad(gA: tessel.Tensor, n: tessel.Int32):
        tidx, _, _ = tessel.arch.thread_idx()
        t = gA[(None,)]
        if tidx < n:
            t = gA[(None,)]  # line marker: rebinds a name bound outside the block

    @tessel.jit
    def run(mA, n: tessel.Int32, which: tessel.Constexpr):
        (ok if which else bad)(mA, n).launch(grid=1, block=32)

    A = tessel.fake_tensor(tessel.Float32, (32,))
    src = tessel.compile(run, A, tessel.Int32(4), True, target="sm_90a").kernels[0].source
    assert src.count("+ 1") >= 1 and src.count("+ 2") >= 1  # both unrolled iterations, each with its own step
    with pytest.raises(tessel.DSLError, match="cannot be reassigned inside a dynamic"):
        tessel.compile(run, A, tessel.Int32(4), False, target="sm_90a")


def test_gpu_sm80_gemm_matches_float64(torch_cuda, toolkit):
    torch = torch_cuda
    import sm80_gemm as g
    for m, n, k, dtype in ((1000, 776, 520, torch.float16), (128, 128, 32, torch.bfloat16), (257, 130, 8, torch.bfloat16),
                           (2048, 1024, 1032, torch.float16)):
        A, W, _ = _operands(torch, m, n, k, dtype, m * n + k)
        _check_gemm_both_ways(torch, g.gemm, m, n, k, dtype, A.double() @ W.double().t(), (A, W))


def test_tv_layouts_draw_as_svg(tmp_path):
    from tessel.dsl.draw import tv_cells
    from tessel import layout as L
    thr = tessel.make_layout((2, 2), stride=(2, 1))  # threads row-major
    val = tessel.make_layout((1, 2), stride=(2, 1))  # each a 1 x 2 row
    tiler, tv = tessel.make_layout_tv(thr, val)
    assert tiler == (2, 4)
    cells = tv_cells(tiler, tv)
    assert cells[(0, 0)] == [(0, 0)] and cells[(0, 1)] == [(0, 1)] and cells[(0, 2)] == [(1, 0)] and cells[(1, 3)] == [(3, 1)]
    svg = tessel.draw_tv_layout(tiler, tv, tmp_path / "tv.svg")
    assert svg.count("<rect") == 8 and "T3" in svg and "V1" in svg and 'stroke="red"' not in svg
    assert (tmp_path / "tv.svg").read_text() == svg
    # A layout that reaches a cell twice (and leaves one empty) shows where.
    twice = L.Layout((4, 2), (1, 0))
    bad = tessel.draw_tv_layout((2, 4), twice)
    assert bad.count('stroke="red"') == 4 and bad.count('fill="white"') == 4
    with pytest.raises(ValueError, match="more than"):
        tessel.draw_tv_layout((1024, 1024), twice)


def test_gpu_dsl_function_as_torch_op(torch_cuda, toolkit):
    torch = torch_cuda
    from elementwise_add import add
    op = tessel.torch_op("tessel_test::dsl_add", add, mutates_args=("mC",))
    a = torch.rand(256, 512, device="cuda", dtype=torch.float16)
    b = torch.rand_like(a)
    c = torch.full_like(a, float("nan"))
    op(a, b, c)
    torch.cuda.synchronize()
    assert torch.equal(c, a + b)
    torch.library.opcheck(op, (a, b, torch.empty_like(a)))

    def f(x, y):
        out = torch.empty_like(x)
        op(x, y, out)
        return out * 2

    compiled = torch.compile(f, fullgraph=True)  # traced through the op: no graph break
    assert torch.equal(compiled(a, b), (a + b) * 2)
    with pytest.raises(ValueError, match="not a parameter"):
        tessel.torch_op("tessel_test::bad", add, mutates_args=("out",))


def test_swizzles_are_cute_swizzles():
    sw = tessel.make_swizzle(3, 3, 3)  # CuTe's Swizzle<3,3,3>: the 128-byte pattern on 16-bit elements
    image = sorted(sw(x) for x in range(4096))
    assert image == list(range(4096))  # a bijection on whole 2^(B+M+S) blocks
    assert sw(8) == 8 and sw(64) == 64 + 8 and sw(64 * 3 + 8 * 5 + 1) == 64 * 3 + 8 * (5 ^ 3) + 1
    assert all(sw(sw(x)) == x for x in range(4096))  # its own inverse
    assert tessel.make_swizzle(3, 4, 3)(16 * 2 + 128) == tessel.arch.swizzle_128b(16 * 2 + 128)  # the byte form
    with pytest.raises(tessel.DSLError, match="not a bijection"):
        tessel.make_swizzle(3, 3, 2)
    composed = tessel.composition(sw, tessel.make_layout((8, 64), stride=(64, 1)))
    assert [composed((r, 0)) for r in range(8)] == [r * 64 + 8 * r for r in range(8)]


def test_swizzled_shared_tensors_keep_their_swizzle_through_slices(toolkit):
    @tessel.kernel
    def k(gA: tessel.Tensor):
        tidx, _, _ = tessel.arch.thread_idx()
        smem = tessel.SmemAllocator()
        s = smem.allocate_tensor(tessel.Float16, tessel.composition(tessel.make_swizzle(3, 3, 3),
                                                                    tessel.make_layout((8, 64), stride=(64, 1))))
        row = s[(tidx % 8, None)]                    # a slice keeps the swizzle
        tile = tessel.local_tile(row, (8,), (tidx // 8,))  # and so does a tile of it
        tile.store(tessel.make_tensor(gA.iterator + (tidx * 8), tessel.make_layout(8)).load())

    @tessel.jit
    def run(mA):
        k(mA).launch(grid=1, block=64)

    c = tessel.compile(run, tessel.fake_tensor(tessel.Float16, (512,)), target="sm_90a")
    src, ptx = c.kernels[0].source, c.ptx
    assert " ^ " in src and " & 448" in src  # x ^ ((x & 0b111000000) >> 3)
    assert "st.shared.v4" in ptx  # 8 contiguous elements of one chunk: one 16-byte store


@tessel.kernel
def _multicast_ring(tma_b, gD: tessel.Tensor):
    """A 2-CTA cluster's ring: each CTA loads half of a 128-row box of B and multicasts it to both."""
    smem = tessel.SmemAllocator()
    sB = smem.allocate_array(tessel.BFloat16, 2 * 128 * 64, byte_alignment=1024)
    pipe = tessel.pipeline.TmaPipeline(smem, 2, 128 * 64 * 2, consumers=1, cluster_size=2)
    tidx, _, _ = tessel.arch.thread_idx()
    rank = tessel.arch.cluster_cta_rank()
    if tidx == 0:
        pipe.init()
    tessel.arch.cluster_sync()
    state = tessel.pipeline.PipelineState(2)
    if tidx == 0:
        pipe.producer_acquire(state)
        tessel.arch.tma_load(tma_b, sB.iterator + rank * 64 * 64, pipe.full(state), (0, rank * 64), multicast_mask=0b11)
    if tidx == 32:
        pipe.consumer_wait(state)
        gD[0] = sB[rank].to(tessel.Float32)
        pipe.consumer_release(state)


@tessel.jit
def _launch_multicast_ring(mB, mD):
    tma_b = tessel.make_tma_descriptor(mB, box=(64, 64))
    _multicast_ring(tma_b, mD).launch(grid=(2, 1, 1), block=(64, 1, 1), cluster=(2, 1, 1))


@tessel.kernel
def _relaxed_start(gD: tessel.Tensor):
    """A cluster's start as the C++ kernels make it: barriers initialised and published by
    fence.mbarrier_init, then the cluster barrier with a relaxed arrive."""
    smem = tessel.SmemAllocator()
    pipe = tessel.pipeline.TmaPipeline(smem, 2, 128, consumers=1, cluster_size=2)
    tidx, _, _ = tessel.arch.thread_idx()
    if tidx == 0:
        pipe.init()
    tessel.arch.cluster_sync(relaxed=True)
    gD[0] = tessel.arch.cluster_cta_rank().to(tessel.Float32)


def test_cluster_sync_relaxed_ptx_without_gpu(toolkit):
    """cluster_sync(relaxed=True): barrier.cluster.arrive.relaxed, the wait as ever; a relaxed
    that is not a Python bool is refused with a sentence."""
    @tessel.jit
    def run(mD):
        _relaxed_start(mD).launch(grid=(2, 1, 1), block=(32, 1, 1), cluster=(2, 1, 1))

    ptx = tessel.compile(run, tessel.fake_tensor(tessel.Float32, (4,)), target="sm_90a").ptx
    for feature in ("fence.mbarrier_init.release.cluster", "barrier.cluster.arrive.relaxed.aligned",
                    "barrier.cluster.wait.acquire.aligned"):
        assert feature in ptx, feature
    assert "barrier.cluster.arrive.release" not in ptx
    with pytest.raises(tessel.DSLError, match="relaxed is a Python bool"):
        @tessel.kernel
        def bad(gD: tessel.Tensor):
            tessel.arch.cluster_arrive(relaxed=1)

        @tessel.jit
        def run_bad(mD):
            bad(mD).launch(grid=(2, 1, 1), block=(32, 1, 1), cluster=(2, 1, 1))

        tessel.compile(run_bad, tessel.fake_tensor(tessel.Float32, (4,)), target="sm_90a")


def test_cluster_multicast_ptx_without_gpu(toolkit):
    """Clusters in the DSL: the CTA's rank, the cluster barrier, a multicast TMA load and a ring
    whose stages are released in every CTA of the cluster (the PTX the C++ library's 2x1-cluster
    kernels use, arch/cluster_sm90.hpp and arch/tma_sm90.hpp)."""
    mB = tessel.fake_tensor(tessel.BFloat16, (256, 64))
    c = tessel.compile(_launch_multicast_ring, mB, tessel.fake_tensor(tessel.Float32, (4,)), target="sm_90a")
    ptx = c.ptx
    for feature in ("%cluster_ctarank", "barrier.cluster.arrive.release.aligned", "barrier.cluster.wait.acquire.aligned",
                    "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster",
                    "mapa.shared::cluster.u32", "mbarrier.arrive.shared::cluster.b64"):
        assert feature in ptx, feature
    assert ptx.count("mapa.shared::cluster.u32") == 2  # released in both CTAs of the cluster
    assert c.launches[0].cluster == (2, 1, 1) and "barrier.cluster.arrive.relaxed" not in ptx
    with pytest.raises(tessel.DSLError, match="multicast_mask 0"):
        @tessel.kernel
        def bad(tma_b, gD: tessel.Tensor):
            smem = tessel.SmemAllocator()
            sB = smem.allocate_array(tessel.BFloat16, 64 * 64, byte_alignment=1024)
            bar = smem.allocate_array(tessel.Uint64, 1, byte_alignment=8)
            tessel.arch.tma_load(tma_b, sB.iterator, bar.iterator, (0, 0), multicast_mask=0)

        @tessel.jit
        def run(mB, mD):
            bad(tessel.make_tma_descriptor(mB, box=(64, 64)), mD).launch(grid=1, block=32)

        tessel.compile(run, mB, tessel.fake_tensor(tessel.Float32, (4,)), target="sm_90a")
