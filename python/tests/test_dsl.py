"""The kernel DSL without a GPU: generated PTX features, error locations, cache keys; and, on a
CUDA device, the examples' results against torch."""

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


def test_compiled_call_checks_the_signature(toolkit):
    from vectorized_add import vadd
    c = tessel.compile(vadd, *_static(), target="sm_90a")
    wrong = _static(tessel.BFloat16)
    with pytest.raises(ValueError, match="compiled for a Float16"):
        c(*wrong)


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
