"""FP8 with row-wise scales: torch._scaled_mm's row-wise mode (tessel.scaled_mm with scale_a (M, 1)
and scale_b (1, N)) and torch._scaled_grouped_mm's (tessel.grouped_gemm with scale_a one per row
and scale_b (G, N)), on Hopper kernels built with scaling='rowwise'.

Host tests need no GPU: the configuration, its generated source, the launcher's refusals on
DLPack descriptions and the dispatcher's question to its resolver; with PyTorch on the CPU, the
argument rules and the fake kernel. The GPU tests hold each result to a float64 reference of
the scaled product, with scales that differ by up to 2^8 from row to row and column to column,
so that a scale applied to the wrong row, column or group errs far past the budget.
"""


import pytest
from dlpack_fake import FakeArray
from fp8_budget import accumulation_budget
from launch_checks import reaches_device, refused

import tessel
from tessel import _core
from tessel.jit import codegen_sm90
from tessel.jit.config import GemmConfig
from tessel.jit.status import ConfigError

HOPPER_FP8 = dict(arch="sm90a", element="e4m3", out="bf16")


# ---- the configuration (no PyTorch) ----------------------------------------------------------------

def test_the_rowwise_configuration_and_its_source():
    c = GemmConfig(**HOPPER_FP8, scaling="rowwise")
    assert c.rowwise_scaled and not c.block_scaled
    assert c.name == "tessel_sm90_gemm_e4m3_e4m3_bf16_128x256x128_c1x1_4stage_coop_tn_rowwise"
    assert not GemmConfig(**HOPPER_FP8).rowwise_scaled and GemmConfig(**HOPPER_FP8).scaling == "tensor"
    source = codegen_sm90.source(c)
    # The kernel's configuration carries the flag, and the source asserts the launcher's view of it.
    assert "Epilogue::kTmaStoreD, false, true>;" in source
    assert "Config::kRowwiseScales == true" in source and "TESSEL_SM90_PARAMS_MATCH(Params)" in source
    assert "Config::kRowwiseScales == false" in codegen_sm90.source(GemmConfig(**HOPPER_FP8))
    # Every schedule and scheduler but the block-scaled one, and the fused activations.
    for kw in (dict(tile=(128, 128, 128), schedule="cooperative_promoted"), dict(tile=(64, 128, 128), schedule="pingpong"),
               dict(tile=(128, 128, 128), scheduler="stream_k"), dict(scheduler="grouped"), dict(epilogue="gelu"),
               dict(element="e5m2", out="f16")):
        assert "_tn_" in (name := GemmConfig(**{**HOPPER_FP8, **kw}, scaling="rowwise").name) and "_rowwise" in name


@pytest.mark.parametrize("kwargs, words", [
    (dict(scaling="rowwise", element="bf16", tile=(128, 256, 64)), "for FP8"),
    (dict(scaling="rowwise", arch="sm80", element="f16", tile=None), "for FP8"),
    (dict(scaling="rowwise", tile=(128, 128, 128), schedule="cooperative_blockscaled"), "two recipes"),
    (dict(scaling="per-row"), "choose one of tensor, rowwise"),
])
def test_rowwise_configurationsrefused(kwargs, words):
    with pytest.raises(ConfigError, match=words):
        GemmConfig(**{**HOPPER_FP8, **kwargs})


def test_the_rowwise_kernel_compiles(toolkit):
    """NVRTC compiles the row-wise kernel for sm_90a, the grouped one too (their static_asserts:
    the launcher's block, the flag, the shared memory)."""
    for kw in (dict(), dict(scheduler="grouped", tile=(128, 128, 128))):
        k = tessel.compile(GemmConfig(**HOPPER_FP8, scaling="rowwise", **kw), target="sm_90a", use_cache=False)
        assert k.target == "sm_90a"


# ---- the launcher's refusals and the dispatcher's question (DLPack descriptions, no GPU) ----------

M, N, K = 256, 384, 512
SA, SB = 0x7F0000500000, 0x7F0000600000


def _kernel(rowwise=True, element=3, promoted=False):
    box = (128, 128)
    return _core.Kernel(b"not a cubin", "test_rowwise", "test_symbol", "sm_90a", element, 1, True, False, True, 0, 128, 128,
                        384, 200000, hopper=True, box_a=box, box_b=box, rowwise=rowwise, promoted=promoted)


def _operands(m=M, n=N, k=K, dtype="float8_e4m3fn"):
    a = FakeArray((m, k), dtype, ptr=0x7F0000100000)
    b = FakeArray((k, n), dtype, strides=(1, k), ptr=0x7F0000200000)
    d = FakeArray((m, n), "bfloat16", ptr=0x7F0000400000)
    return a, b, d


def test_rowwise_launch_checks():
    a, b, d = _operands()
    run = lambda a, b, d, sa=SA, sb=SB, stride_a=1: _core.Dispatcher(None).run_rowwise(  # noqa: E731
        a, b, None, d, 0.0, 0, sa, stride_a, sb, 1, False)
    refused(lambda: run(*_operands(dtype="bfloat16")), "kErrorInvalidDataType", "row-wise scales are for FP8 A and B")
    refused(lambda: run(a, b, d, sb=0), "kErrorInvalidProblem", "without scale_a or scale_b")
    refused(lambda: run(a, b, d, sa=SA + 2), "kErrorMisalignedOperand", "row-wise scales must be 4-byte aligned")
    refused(lambda: run(a, b, d, stride_a=-1), "kErrorInvalidProblem", "row-wise scales take element strides >= 0")
    # A kernel with row-wise scales run without them, and one without them given row-wise scales.
    refused(lambda: _core.Dispatcher(None).run_kernel(_kernel(), a, b, None, d, 1.0, 0.0, 0), "kErrorNotSupported",
             "applies row-wise scales")
    with pytest.raises(ValueError, match="Hopper FP8 kernel without block scales"):
        _kernel(element=1)


def test_the_dispatcher_asks_for_a_rowwise_kernel():
    """run_rowwise asks the resolver for the problem with rowwise=True (its own memo entry, apart
    from the per-tensor kernel's), and refuses an answer that applies no row-wise scales."""
    a, b, d = _operands()
    asked = []

    def resolve(*args):
        asked.append(args)
        return _kernel(rowwise=args[-1], promoted=args[10])

    dispatcher = _core.Dispatcher(resolve)
    reaches_device(lambda: dispatcher.run_rowwise(a, b, None, d, 0.0, 0, SA, 1, SB, 1, True))
    assert len(asked) == 1 and asked[0][-1] is True and asked[0][10] is True  # rowwise, promoted
    assert asked[0][7:10] == (M, N, K)
    reaches_device(lambda: dispatcher.run_rowwise(a, b, None, d, 0.0, 0, SA, 1, SB, 1, True))
    assert len(asked) == 1, "the second call asked again instead of using the memo"
    wrong = _core.Dispatcher(lambda *args: _kernel(rowwise=False, promoted=True))
    refused(lambda: wrong.run_rowwise(a, b, None, d, 0.0, 0, SA, 1, SB, 1, True), "kErrorInternal", "does not compute")


def test_grouped_rowwise_launch_checks():
    a, b, d = _operands()
    grouped = _core.Kernel(b"not a cubin", "test_rowwise_grouped", "test_symbol", "sm_90a", 3, 1, True, False, True, 0, 128, 128,
                           384, 200000, hopper=True, box_a=(128, 128), box_b=(128, 128), grouped=True, rowwise=True)
    run = lambda strides: _core.Dispatcher(None).run_grouped(  # noqa: E731
        grouped, a, b, d, 4, 0, K * N, 0, 0x7F0000700000, False, 0, SA, SB, *strides)
    refused(lambda: run((None, None)), "kErrorInvalidProblem", "row-wise scaled grouped GEMM without its scales")
    refused(lambda: run(((1, 0, 0), (-1, 0, N))), "kErrorInvalidProblem", "strides >= 0")
    reaches_device(lambda: run(((1, 0, 0), (1, 0, N))))


# ---- the argument rules and the fake kernel (PyTorch, CPU) ----------------------------------------

def test_rowwise_rules(torch_cpu):
    torch = torch_cpu
    from tessel import ops
    e4 = torch.float8_e4m3fn
    m, n, k = 64, 256, 384
    a, w = torch.zeros(m, k, dtype=e4), torch.zeros(n, k, dtype=e4)
    sa, sb = torch.ones(m, 1), torch.ones(1, n)
    assert ops._scaling(a, w.t(), sa, sb) == "rowwise"
    assert ops._scaling(a, w.t(), torch.ones(1, 1), torch.ones(1)) == "tensor"
    cases = [
        (lambda: ops.scaled_mm(a, w.t(), sa, sb.t()), ValueError, r"scale_b \(1, N\) = \(1, 256\)"),
        (lambda: ops.scaled_mm(a, w.t(), sa[:10], sb), ValueError, r"scale_a \(M, 1\) = \(64, 1\)"),
        (lambda: ops.scaled_mm(a, w.t(), sa, torch.ones(())), ValueError, "none of torch._scaled_mm's modes"),
        (lambda: ops.scaled_mm(a, w.t(), sa.double(), sb), TypeError, "scales are float32"),
        (lambda: ops.scaled_mm(a, w.t(), sa, sb, bias=torch.zeros(7)), ValueError, "one value per output column"),
    ]
    for call, error, words in cases:
        with pytest.raises(error, match=words):
            call()
    # CPU tensors pass the rules and stop at the launcher's operand checks.
    with pytest.raises(tessel.GemmError, match="A is on the CPU"):
        ops.scaled_mm(a, w.t(), sa, sb)


def test_rowwise_fake_kernel(torch_cpu):
    torch = torch_cpu
    from torch._subclasses.fake_tensor import FakeTensorMode
    from tessel import ops  # noqa: F401 (registers torch.ops.tessel)
    m, n, k = 200, 384, 4096
    with FakeTensorMode():
        a = torch.empty(m, k, dtype=torch.float8_e5m2, device="cuda")
        w = torch.empty(n, k, dtype=torch.float8_e5m2, device="cuda")
        sa, sb = torch.empty(m, 1, device="cuda"), torch.empty(1, n, device="cuda")
        d = torch.ops.tessel.scaled_mm(a, w.t(), sa, sb, None, None, torch.float16, False)
        assert d.shape == (m, n) and d.dtype == torch.float16
        with pytest.raises(ValueError, match="none of torch._scaled_mm's modes"):
            torch.ops.tessel.scaled_mm(a, w.t(), sa[:100], sb)


def test_grouped_rowwise_rules(torch_cpu):
    torch = torch_cpu
    from tessel import grouped
    g, rows, n, k = 4, 300, 256, 512
    a = torch.zeros(rows, k, dtype=torch.float8_e4m3fn)
    w = torch.zeros(g, n, k, dtype=torch.float8_e4m3fn).transpose(1, 2)  # (G,K,N), K-contiguous
    s = grouped._check_scales(a, w, torch.ones(rows), torch.ones(g, n), False)
    assert s.mode == "rowwise" and s.strides_a == (1, 0, 0) and s.strides_b == (1, 0, n)
    # torch._scaled_grouped_mm's (G, N) scale_b, or any strides; with counts A's scales are (G, M).
    s = grouped._check_scales(a, w, torch.ones(2, rows)[1], torch.ones(n, g).t(), False)
    assert s.strides_a == (1, 0, 0) and s.strides_b == (g, 0, 1)
    am = torch.zeros(g, 96, k, dtype=torch.float8_e4m3fn)
    s = grouped._check_scales(am, w, torch.ones(96, g).t(), torch.ones(g, n), True)
    assert s.mode == "rowwise" and s.strides_a == (g, 0, 1)
    assert grouped._check_scales(a, w, torch.ones(1), torch.ones(1), False).mode == "tensor"
    with pytest.raises(ValueError, match=r"row-wise \(scale_a \(rows,\) = \(300,\) and scale_b \(groups, N\) = \(4, 256\)\)"):
        grouped._check_scales(a, w, torch.ones(rows), torch.ones(g, n + 1), False)
    with pytest.raises(ValueError, match=r"scale_a \(groups, M\)"):
        grouped._check_scales(am, w, torch.ones(g * 96), torch.ones(g, n), True)


def test_scaled_grouped_mm_rules_and_fake_kernel(torch_cpu):
    """torch.ops.tessel.scaled_grouped_mm: torch._scaled_grouped_mm's 2-D x 3-D case with offs and
    3-D x 3-D without; its refusals; the fake kernel's shapes."""
    torch = torch_cpu
    from torch._subclasses.fake_tensor import FakeTensorMode
    from tessel import grouped, ops
    e4 = torch.float8_e4m3fn
    g, rows, n, k = 4, 300, 256, 512
    a, w = torch.zeros(rows, k, dtype=e4), torch.zeros(g, n, k, dtype=e4).transpose(1, 2)
    offs = torch.tensor([10, 100, 200, 300], dtype=torch.int32)
    sa, sb = torch.ones(rows), torch.ones(g, n)
    cases = [
        (lambda: ops.scaled_grouped_mm(a.to(torch.bfloat16), w, sa, sb, offs), TypeError, "give torch.float8_e4m3fn"),
        (lambda: ops.scaled_grouped_mm(a, w, sa, sb), ValueError, r"a \(T, K\) with offs and a \(G, M, K\) without"),
        (lambda: ops.scaled_grouped_mm(a, w, sa[:10], sb, offs), ValueError, r"scale_a \(300,\) \(one per row of a\)"),
        (lambda: ops.scaled_grouped_mm(a, w, sa, sb.t(), offs), ValueError, r"scale_b \(4, 256\)"),
        (lambda: ops.scaled_grouped_mm(a, w, sa, sb, offs, scale_result=sa), ValueError, "scale_result"),
        (lambda: ops.scaled_grouped_mm(a, w, sa, sb, offs, out_dtype=torch.float32), TypeError, "torch.float16 or torch.bfloat16"),
    ]
    for call, error, words in cases:
        with pytest.raises(error, match=words):
            call()
    # use_fast_accum=False is promoted FP8: refused for 16-bit operands and beside a configuration.
    with pytest.raises(ValueError, match="for float8 A and B without config="):
        grouped._promoted(a.to(torch.bfloat16), False, "", None)
    assert grouped._promoted(a, False, "rowwise", None) and not grouped._promoted(a, False, "block", None)
    with FakeTensorMode():
        fa, fw = torch.empty(rows, k, dtype=e4, device="cuda"), torch.empty(g, n, k, dtype=e4, device="cuda").transpose(1, 2)
        fs, ft = torch.empty(rows, device="cuda"), torch.empty(g, n, device="cuda")
        d = torch.ops.tessel.scaled_grouped_mm(fa, fw, fs, ft, torch.empty(g, dtype=torch.int32, device="cuda"))
        assert d.shape == (rows, n) and d.dtype == torch.bfloat16
        f3 = torch.empty(g, 64, k, dtype=e4, device="cuda")
        d = torch.ops.tessel.scaled_grouped_mm(f3, fw, torch.empty(g, 64, device="cuda"), ft, None, None, None, torch.float16)
        assert d.shape == (g, 64, n) and d.dtype == torch.float16


# ---- the Hopper kernels ---------------------------------------------------------------------------

def _fp8(torch, shape, dtype, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return ((torch.rand(*shape, device="cuda", generator=g) * 2 - 1) * 448).to(dtype)


def _scales(torch, shape, seed):
    """Positive scales 2^e * (0.5 .. 1.5) with e in [-4, 4]: neighbours differ by up to 2^8."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    e = torch.randint(-4, 5, shape, device="cuda", generator=g).float()
    return torch.exp2(e) * (0.5 + torch.rand(shape, device="cuda", generator=g)) / 448


def _within(torch, got, a, w, sa, sb, fast, what, bias=None):
    """got against the float64 product of the dequantized rows of a (M, K) and w (N, K): every
    element within the rounding of D (2^-8 relative, f16's 2^-11 included) and the accumulation's
    error (fp8_budget.py), scaled by the element's own scales; no NaN."""
    ad, wd = a.double(), w.double()
    scale = sa.double().reshape(-1, 1) * sb.double().reshape(1, -1)
    ref = (ad @ wd.t()) * scale
    ab = (ad.abs() @ wd.abs().t()) * scale
    if bias is not None:
        ref = ref + bias.double()
    budget = accumulation_budget(ab, a.shape[1], fast) + 2.0**-8 * ref.abs() + 1e-30
    assert not torch.isnan(got).any(), f"{what}: NaN in D"
    excess = ((got.double() - ref).abs() - budget).max().item()
    assert excess <= 0, f"{what}: an element is {excess:.3g} past its budget"


@pytest.mark.parametrize("dtype", ["float8_e4m3fn", "float8_e5m2"])
@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("m, n, k", [(512, 384, 1024), (200, 136, 4096), (1, 4096, 512), (77, 320, 4160), (4096, 8, 256)])
def test_rowwise_matches_float64(hopper, dtype, fast, m, n, k):
    """Ragged edges, a decode row (run on D^T's problem, where the scales change places with the
    operands), and a narrow N; both FP8 types, both accumulation modes."""
    torch = hopper
    dt = getattr(torch, dtype)
    a, w = _fp8(torch, (m, k), dt, 1), _fp8(torch, (n, k), dt, 2)
    sa, sb = _scales(torch, (m, 1), 3), _scales(torch, (1, n), 4)
    got = tessel.scaled_mm(a, w.t(), sa, sb, out_dtype=torch.bfloat16, use_fast_accum=fast)
    assert got.shape == (m, n) and got.is_contiguous()
    _within(torch, got, a, w, sa, sb, fast, f"{dtype} {m}x{n}x{k} fast={fast}")


@pytest.mark.parametrize("m, n, k, tile", [(500, 4000, 1024, (128, 128, 128)), (700, 4040, 1024, (128, 192, 128))])
def test_rowwise_on_the_mid_tiles(hopper, m, n, k, tile):
    """Row-wise scales on FP8's 128x128 and 128x192 fast tiles, which tessel.scaled_mm takes at
    these shapes on 132 SMs (one wave of tiles each); ragged M and N, N ending inside a tile."""
    torch = hopper
    a, w = _fp8(torch, (m, k), torch.float8_e4m3fn, 13), _fp8(torch, (n, k), torch.float8_e4m3fn, 14)
    sa, sb = _scales(torch, (m, 1), 15), _scales(torch, (1, n), 16)
    if torch.cuda.get_device_properties(0).multi_processor_count == 132:
        kernel, reason = tessel.kernel_for(a, w.t(), out_dtype=torch.bfloat16, explain=True)
        assert "x".join(map(str, tile)) in kernel.name, (kernel.name, reason)
    got = tessel.scaled_mm(a, w.t(), sa, sb, out_dtype=torch.bfloat16, use_fast_accum=True)
    _within(torch, got, a, w, sa, sb, True, f"row-wise {m}x{n}x{k}")


@pytest.mark.parametrize("scaling", ["tensor", "rowwise"])
def test_promoted_wide_tile_where_it_is_chosen(hopper, scaling):
    """tessel.scaled_mm with promoted accumulation at 333x5680x1104, where the waves choose 128x192
    tiles (registry.promoted_width; M, N and K ending inside a tile, 9 K tiles in halves of 96
    columns), per-tensor and row-wise scales, within the promoted budget of float64."""
    torch = hopper
    m, n, k = 333, 5680, 1104
    a, w = _fp8(torch, (m, k), torch.float8_e4m3fn, 17), _fp8(torch, (n, k), torch.float8_e4m3fn, 18)
    sa, sb = (_scales(torch, (m, 1), 19), _scales(torch, (1, n), 20)) if scaling == "rowwise" else \
        (torch.tensor(0.75, device="cuda"), torch.tensor(1.5, device="cuda"))
    if torch.cuda.get_device_properties(0).multi_processor_count == 132:
        from tessel.explain import explain
        assert "128x192x128_c1x1_4stage_coop_promoted" in explain([(m, n, k)], dtype="e4m3")[0][1]
    got = tessel.scaled_mm(a, w.t(), sa, sb, out_dtype=torch.bfloat16, use_fast_accum=False)
    if scaling == "rowwise":
        _within(torch, got, a, w, sa, sb, False, f"row-wise promoted {m}x{n}x{k}")
    else:
        _within(torch, got, a, w, sa.reshape(1, 1).expand(m, 1), sb.reshape(1, 1).expand(1, n), False, f"promoted {m}x{n}x{k}")


@pytest.mark.parametrize("fast", [True, False])
def test_fp8_decode_on_the_small_n_ring(hopper, fast):
    """tessel.scaled_mm of at most 16 tokens against enough weight rows runs on the e4m3 small-N
    TMA ring on D^T's problem (kernel/small_n_rules.hpp, in bytes: the 8-box ring from K = 16384
    of FP8; FP8 where small_n_tma_takes_fp8 says), with per-tensor and row-wise scales, fast and
    promoted accumulation, ragged weight rows and K, 32- and 16-row blocks; every element within
    the float64 budget. e5m2, 17 tokens and (fast accumulation) 14336 weight rows at K = 4096 keep
    the GEMM tiles."""
    torch = hopper
    from tessel.jit import small_n
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    e4 = torch.float8_e4m3fn
    for m, n, k in [(1, 4096, 4096), (7, 2056, 528), (16, 3000, 1008), (9, 4096, 16384), (3, 6144, 16384)]:
        a, w = _fp8(torch, (m, k), e4, 21), _fp8(torch, (n, k), e4, 22)
        plan = _core.small_n_plan(n, m, k, sms, 1, not fast)
        assert plan is not None, f"{m}x{n}x{k}: no ring on {sms} SMs"
        kernel, reason = tessel.kernel_for(a, w.t(), out_dtype=torch.bfloat16, explain=True)
        assert kernel.name == small_n.name("e4m3", *plan) and "small-N TMA ring" in reason, (kernel.name, reason)
        per_tensor = (torch.tensor(0.5, device="cuda"), torch.tensor(1.25, device="cuda"))
        for sa, sb in (per_tensor, (_scales(torch, (m, 1), 23), _scales(torch, (1, n), 24))):
            got = tessel.scaled_mm(a, w.t(), sa, sb, out_dtype=torch.bfloat16, use_fast_accum=fast)
            _within(torch, got, a, w, sa, sb, fast, f"ring {m}x{n}x{k} scales {tuple(sa.shape)} fast={fast}")
    x, w = _fp8(torch, (17, 4096), e4, 25), _fp8(torch, (4096, 4096), e4, 26)
    assert not tessel.kernel_for(x, w.t(), out_dtype=torch.bfloat16).small_n
    x16, w14 = _fp8(torch, (16, 4096), e4, 27), _fp8(torch, (14336, 4096), e4, 28)
    assert not tessel.kernel_for(x16, w14.t(), out_dtype=torch.bfloat16).small_n  # 112 tiles of 128 rows: the tile
    # Promoted accumulation runs the ring there too (small_n_tma_takes_fp8), on 16-row blocks.
    if not fast:
        assert _core.small_n_plan(14336, 16, 4096, sms, 1, True)[3] == 16
        for sa, sb in ((torch.tensor(0.5, device="cuda"), torch.tensor(1.25, device="cuda")),
                       (_scales(torch, (16, 1), 29), _scales(torch, (1, 14336), 30))):
            got = tessel.scaled_mm(x16, w14.t(), sa, sb, out_dtype=torch.bfloat16, use_fast_accum=False)
            _within(torch, got, x16, w14, sa, sb, False, f"ring 16x14336x4096 promoted scales {tuple(sa.shape)}")
    x5, w5 = x[:16].to(torch.float8_e5m2), w.to(torch.float8_e5m2)
    assert not tessel.kernel_for(x5, w5.t(), out_dtype=torch.bfloat16).small_n


def test_rowwise_bias_strides_and_outputs(hopper):
    """A bias added after the scales; scales given as strided views (a column of a wider tensor);
    float16 and float32 outputs."""
    torch = hopper
    m, n, k = 300, 256, 1024
    a, w = _fp8(torch, (m, k), torch.float8_e4m3fn, 5), _fp8(torch, (n, k), torch.float8_e4m3fn, 6)
    sa = _scales(torch, (m, 3), 7)[:, 1:2]  # (M,1):(3,1)
    sb = _scales(torch, (n, 2), 8).t()[:1]  # (1,N):(1,2)
    bias = (torch.rand(n, device="cuda") * 100).to(torch.bfloat16)
    for out in (torch.bfloat16, torch.float16, torch.float32):
        got = tessel.scaled_mm(a, w.t(), sa, sb, bias=bias, out_dtype=out)
        assert got.dtype == out
        _within(torch, got, a, w, sa, sb, False, f"bias, strided scales, {out}", bias=bias.to(out))


def test_rowwise_against_torch(hopper):
    """torch._scaled_mm's own row-wise mode on the same operands (where this PyTorch has it)."""
    torch = hopper
    m, n, k = 512, 384, 2048
    a, w = _fp8(torch, (m, k), torch.float8_e4m3fn, 9), _fp8(torch, (n, k), torch.float8_e4m3fn, 10)
    sa, sb = _scales(torch, (m, 1), 11), _scales(torch, (1, n), 12)
    try:
        want = torch._scaled_mm(a, w.t(), sa, sb, out_dtype=torch.bfloat16, use_fast_accum=True)
    except (RuntimeError, TypeError) as exc:
        pytest.skip(f"torch._scaled_mm has no row-wise mode here: {exc}")
    got = tessel.scaled_mm(a, w.t(), sa, sb, out_dtype=torch.bfloat16, use_fast_accum=True)
    rel = ((got.double() - want.double()).norm() / want.double().norm()).item()
    assert rel < 4e-3, f"|tessel - torch| / |torch| = {rel:.2e}"


def test_rowwise_scales_are_read_on_the_device(hopper):
    """Scales changed in place change the next result: nothing caches them on the host."""
    torch = hopper
    a, w = _fp8(torch, (256, 512), torch.float8_e4m3fn, 13), _fp8(torch, (128, 512), torch.float8_e4m3fn, 14)
    sa, sb = torch.ones(256, 1, device="cuda") / 448, torch.ones(1, 128, device="cuda") / 448
    first = tessel.scaled_mm(a, w.t(), sa, sb, out_dtype=torch.float32)
    sb[0, 5] *= 4
    second = tessel.scaled_mm(a, w.t(), sa, sb, out_dtype=torch.float32)
    assert torch.equal(second[:, 5], 4 * first[:, 5]) and torch.equal(second[:, 6:], first[:, 6:])


def test_grouped_rowwise_matches_float64(hopper):
    """torch._scaled_grouped_mm's row-wise scales with offs: groups of 0, 200, 77 and 1 rows (5 rows
    past the last group stay as they were), each group's rows against its own weights and
    column scales."""
    torch = hopper
    sizes, n, k = [0, 200, 77, 1], 384, 1024
    rows, g = sum(sizes) + 5, len(sizes)
    a = _fp8(torch, (rows, k), torch.float8_e4m3fn, 21)
    w = torch.stack([_fp8(torch, (n, k), torch.float8_e4m3fn, 22 + i) for i in range(g)])  # (G,N,K)
    sa, sb = _scales(torch, (rows,), 30), _scales(torch, (g, n), 31)
    ends = torch.tensor(sizes, device="cuda").cumsum(0).to(torch.int32)
    out = torch.full((rows, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    cfg = tessel.grouped.kernel_for(a, w.transpose(1, 2), ends, scale_a=sa, scale_b=sb)
    assert cfg.rowwise_scaled and cfg.scheduler == "grouped"
    tessel.grouped_gemm(a, w.transpose(1, 2), ends, out=out, scale_a=sa, scale_b=sb)
    start = 0
    for i, m in enumerate(sizes):
        if m:
            _within(torch, out[start:start + m], a[start:start + m], w[i], sa[start:start + m], sb[i], True, f"group {i}")
        start += m
    assert torch.isnan(out[start:].float()).all(), "rows of no group were written"
    if hasattr(torch, "_scaled_grouped_mm"):
        try:
            want = torch._scaled_grouped_mm(a, w.transpose(1, 2), sa, sb, offs=ends, out_dtype=torch.bfloat16)
        except (RuntimeError, TypeError, ValueError):
            return  # shapes this PyTorch's grouped kernel refuses (its alignment rules)
        got, ref = out[:start].double(), want[:start].double()
        assert ((got - ref).norm() / ref.norm()).item() < 4e-3, "against torch._scaled_grouped_mm"


_GROUP_SIZES = [700, 0, 1300, 96, 1, 510, 300, 1100]  # 4007 tokens: ragged, an empty group, a lone row


def _grouped_operands(torch, scaling, n, k, seed):
    """e4m3 A (4007 tokens in _GROUP_SIZES' groups) and 8 experts' (N, K) weights, with per-tensor
    or row-wise scales, and the groups' ends (offs)."""
    rows, g = sum(_GROUP_SIZES), len(_GROUP_SIZES)
    a = _fp8(torch, (rows, k), torch.float8_e4m3fn, seed)
    w = torch.stack([_fp8(torch, (n, k), torch.float8_e4m3fn, seed + 1 + i) for i in range(g)])
    if scaling == "tensor":
        sa, sb = torch.full((1,), 2.0**-9, device="cuda"), torch.full((1,), 2.0**-8, device="cuda")
    else:
        sa, sb = _scales(torch, (rows,), seed + 10), _scales(torch, (g, n), seed + 11)
    return a, w, sa, sb, torch.tensor(_GROUP_SIZES, device="cuda").cumsum(0).to(torch.int32)


def _check_sampled_groups(torch, out, a, w, sa, sb, scaling, fast):
    """About seven rows of every group of `out` against float64."""
    torch.cuda.synchronize()
    start = 0
    for i, m in enumerate(_GROUP_SIZES):
        if m:
            pick = torch.arange(start, start + m, max(1, m // 7), device="cuda")
            rs, cs = (sa.expand(len(pick)), sb.expand(w.shape[1])) if scaling == "tensor" else (sa[pick], sb[i])
            _within(torch, out[pick], a[pick], w[i], rs, cs, fast, f"{scaling}, group {i}")
        start += m


@pytest.mark.parametrize("scaling", ["tensor", "rowwise"])
def test_grouped_promoted_tile_follows_the_waves(hopper, scaling):
    """Promoted grouped FP8 (use_fast_accum=False) takes tessel.scaled_mm's width rule over all of
    A's rows: 4007 tokens against 6144 columns run 128x192 tiles on 132 SMs (each K tile in two
    halves), 600 tokens 128x128. The wide run's sampled rows of every group against float64."""
    torch = hopper
    from tessel.jit.config import promoted_wide_tile
    assert promoted_wide_tile(4007, 6144, 132) and not promoted_wide_tile(600, 6144, 132)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    n = 6144
    a, w, sa, sb, ends = _grouped_operands(torch, scaling, n, 640, 110)
    for tokens in (a.shape[0], 600):
        cfg = tessel.grouped.kernel_for(a[:tokens], w.transpose(1, 2), ends.clamp(max=tokens), scale_a=sa[:tokens] if
                                        scaling == "rowwise" else sa, scale_b=sb, use_fast_accum=False)
        assert cfg.schedule == "cooperative_promoted" and cfg.tile[:2] == (128, 192 if promoted_wide_tile(tokens, n, sms) else 128), \
            (tokens, cfg.name)
    out = tessel.grouped_gemm(a, w.transpose(1, 2), ends, scale_a=sa, scale_b=sb, use_fast_accum=False)
    _check_sampled_groups(torch, out, a, w, sa, sb, scaling, False)


@pytest.mark.parametrize("scaling", ["tensor", "rowwise"])
def test_grouped_fp8_on_the_wide_tile(hopper, scaling):
    """The grouped FP8 kernel on its 128 x 256 tile (enough tiles for two waves: grouped_tile.hpp),
    per-tensor and row-wise: bench/grouped_bench.py --fp8's first shape, 8 x 4096 -> 14336 with
    4096 tokens, stopped the device with an illegal instruction (H100, 2026-12-05b run 1) where the
    tests' small shapes ran 128 x 128. Sampled rows of every group against float64."""
    torch = hopper
    a, w, sa, sb, ends = _grouped_operands(torch, scaling, 4096, 1024, 90)
    cfg = tessel.grouped.kernel_for(a, w.transpose(1, 2), ends, scale_a=sa, scale_b=sb)
    assert cfg.tile[1] == 256, f"expected the wide tile: {cfg.name}"
    out = tessel.grouped_gemm(a, w.transpose(1, 2), ends, scale_a=sa, scale_b=sb)
    _check_sampled_groups(torch, out, a, w, sa, sb, scaling, True)


def test_grouped_rowwise_masked_matches_float64(hopper):
    """Row-wise scales with counts: A's scales (G, M), batched like A; rows past each count stay."""
    torch = hopper
    g, m, n, k = 4, 96, 256, 640
    counts = [0, 96, 5, 300]  # 300: past the block, counts as 96
    a = torch.stack([_fp8(torch, (m, k), torch.float8_e5m2, 40 + i) for i in range(g)])
    w = torch.stack([_fp8(torch, (n, k), torch.float8_e5m2, 50 + i) for i in range(g)])
    sa, sb = _scales(torch, (m, g), 60).t(), _scales(torch, (g, n), 61)  # sa (G,M):(1,G)
    out = torch.full((g, m, n), float("nan"), device="cuda", dtype=torch.float16)
    tessel.grouped_gemm(a, w.transpose(1, 2), counts=torch.tensor(counts, device="cuda", dtype=torch.int32), out=out,
                        scale_a=sa, scale_b=sb)
    for i, c in enumerate(min(c, m) for c in counts):
        if c:
            _within(torch, out[i, :c], a[i, :c], w[i], sa[i, :c], sb[i], True, f"block {i}")
        assert torch.isnan(out[i, c:].float()).all(), f"block {i}: rows past its count {c} were written"


@pytest.mark.parametrize("fast", [True, False])
def test_scaled_grouped_mm_op(hopper, fast):
    """torch.ops.tessel.scaled_grouped_mm with offs (promoted or not) and without (3-D a), against
    float64 and against torch._scaled_grouped_mm where this PyTorch has it."""
    torch = hopper
    sizes, n, k = [64, 0, 200, 32], 256, 512
    rows, g = sum(sizes), len(sizes)
    a = _fp8(torch, (rows, k), torch.float8_e4m3fn, 70)
    w = torch.stack([_fp8(torch, (n, k), torch.float8_e4m3fn, 71 + i) for i in range(g)])
    sa, sb = _scales(torch, (rows,), 80), _scales(torch, (g, n), 81)
    ends = torch.tensor(sizes, device="cuda").cumsum(0).to(torch.int32)
    got = torch.ops.tessel.scaled_grouped_mm(a, w.transpose(1, 2), sa, sb, ends, use_fast_accum=fast)
    start = 0
    for i, m in enumerate(sizes):
        if m:
            _within(torch, got[start:start + m], a[start:start + m], w[i], sa[start:start + m], sb[i], fast, f"group {i}")
        start += m
    if hasattr(torch, "_scaled_grouped_mm"):
        try:
            want = torch._scaled_grouped_mm(a, w.transpose(1, 2), sa, sb, offs=ends, out_dtype=torch.bfloat16, use_fast_accum=fast)
        except (RuntimeError, TypeError, ValueError):
            want = None
        if want is not None:
            assert ((got.double() - want.double()).norm() / want.double().norm()).item() < 4e-3, "against torch._scaled_grouped_mm"
    a3 = _fp8(torch, (g, 96, k), torch.float8_e4m3fn, 90)
    s3 = _scales(torch, (g, 96), 91)
    got3 = torch.ops.tessel.scaled_grouped_mm(a3, w.transpose(1, 2), s3, sb, use_fast_accum=fast)
    for i in range(g):
        _within(torch, got3[i], a3[i], w[i], s3[i], sb[i], fast, f"3-D group {i}")
