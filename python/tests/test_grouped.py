"""tessel.grouped_gemm: the grouped configurations (host), and on a GPU ragged groups in the
contiguous and masked layouts against a float64 reference, with D poisoned so that a write to a
row of no group shows: the Hopper kernel on compute capability 9.0, the mma.sync kernel (Sm80
grouped walk) on any GPU of compute capability 8.0 or later."""

import pytest

import tessel
from tessel.grouped import mma_sync_config
from tessel.jit import codegen, codegen_sm90
from tessel.jit.config import GemmConfig


def test_grouped_config_names_and_generates_the_grouped_kernel():
    c = GemmConfig(arch="sm90a", element="bf16", out="bf16", tile=(128, 128, 64), schedule="cooperative", scheduler="grouped")
    assert c.name == "tessel_sm90_gemm_bf16_bf16_bf16_128x128x64_c1x1_6stage_coop_tn_grouped"
    src = codegen_sm90.source(c)
    assert "Epilogue::kTmaStoreD, true, false>" in src  # grouped, not row-wise scaled
    assert 'Config::kGrouped == true' in src
    assert "Epilogue::kTmaStoreD, false, false>" in codegen_sm90.source(c.replace(scheduler="persistent"))


@pytest.mark.parametrize("changes, words", [
    (dict(schedule="pingpong", tile=(128, 128, 64)), "cooperative schedule"),
    (dict(cluster=(2, 1, 1)), "no cluster"),
])
def test_grouped_config_refusals(changes, words):
    with pytest.raises(ValueError, match=words):
        GemmConfig(arch="sm90a", element="bf16", out="bf16", scheduler="grouped", **{"schedule": "cooperative", **changes})


def test_mma_sync_grouped_config_generates_the_persistent_walk(toolkit):
    """The grouped kernel of GPUs without wgmma: its name, the kernel and parameter block the source
    instantiates and asserts (the launcher's Sm80GroupedLaunchParams), and NVRTC compiles it."""
    c = mma_sync_config("bfloat16", "bfloat16", True, 80)
    assert c.name == "tessel_sm80_gemm_bf16_bf16_bf16_128x128x32_64x64x32_3stage_tn_grouped"
    src = codegen.source(c)
    assert "gemm_grouped_kernel<tessel_jit::Config>" in src and "TESSEL_SM80_GROUPED_PARAMS_MATCH(Params)" in src
    assert codegen.symbol_prefix(c) == "_ZN6tessel4gemm6kernel19gemm_grouped_kernel"
    assert "gemm_grouped_kernel" not in codegen.source(c.replace(scheduler="persistent"))
    turing = mma_sync_config("float16", "float16", False, 75)
    assert (turing.arch, turing.stages, turing.layout_b) == ("sm75", 2, "row")
    k = tessel.compile(c, target="sm_80", use_cache=False)
    assert k.target == "sm_80" and k.symbol.startswith(codegen.symbol_prefix(c))


def test_grouped_kernels_with_fused_activations_compile(toolkit):
    """The grouped kernels the bias and activation of tessel.grouped_gemm run: the epilogue's
    activation in both kernel families, with the grouped blocks' C (a bias row per group)."""
    for c in (mma_sync_config("bfloat16", "bfloat16", True, 80).replace(epilogue="silu"),
              GemmConfig(arch="sm90a", element="bf16", out="bf16", tile=(128, 128, 64), schedule="cooperative", scheduler="grouped",
                         epilogue="gelu")):
        assert c.name.endswith("_grouped_" + c.epilogue)
        k = tessel.compile(c, target="sm_90a" if c.hopper else "sm_80", use_cache=False)
        assert k.symbol.startswith(codegen.symbol_prefix(c))


def test_grouped_bias_launch_checks():
    """run_grouped's bias rules, on DLPack descriptions (no GPU): element-aligned, a stride between
    groups that does not run backwards."""
    from dlpack_fake import FakeArray
    from tessel import _core
    a = FakeArray((256, 128), "bfloat16", ptr=0x7F0000100000)
    b = FakeArray((128, 64), "bfloat16", strides=(1, 128), ptr=0x7F0000200000)
    d = FakeArray((256, 64), "bfloat16", ptr=0x7F0000400000)
    kernel = _core.Kernel(b"not a cubin", "test_grouped", "test_symbol", "sm_90a", 1, 1, True, False, True, 0, 128, 128, 384, 200000,
                          hopper=True, box_a=(64, 128), box_b=(64, 128), grouped=True)
    run = lambda bias, stride: _core.Dispatcher(None).run_grouped(  # noqa: E731
        kernel, a, b, d, 2, 0, 128 * 64, 0, 0x7F0000700000, False, 0, 0, 0, None, None, bias, stride)
    for bias, stride, words in ((0x7F0000500001, 64, "not aligned to its element type"), (0x7F0000500000, -64, "negative")):
        with pytest.raises(tessel.GemmError, match=words):
            run(bias, stride)
    with pytest.raises((tessel.GemmError, tessel.CudaError), match="CUDA|device|cubin"):
        run(0x7F0000500000, 64)


@pytest.mark.parametrize("changes, words", [
    (dict(layout_a="col"), "layout_a and layout_c must be 'row'"),
    (dict(layout_c="col"), "layout_a and layout_c must be 'row'"),
    (dict(scheduler="stream_k"), "is a Hopper tile scheduler"),
])
def test_mma_sync_grouped_config_refusals(changes, words):
    with pytest.raises(ValueError, match=words):
        GemmConfig(arch="sm80", element="bf16", out="bf16", **{"scheduler": "grouped", **changes})


def _hopper(torch):
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("needs a compute capability 9.0 GPU (the grouped kernel is sm_90a)")


def _reference(torch, a, b, begin_end):
    """float64 D rows per group: [(g, begin, end)] -> list of (g, begin, end, D_g)."""
    return [(g, s, e, a[s:e].double() @ b[g].double()) for g, s, e in begin_end]


def _check(torch, out, refs, owned_rows, what):
    for g, s, e, ref in refs:
        if e == s:
            continue  # an empty group: only the stray-row check below concerns it
        err = (out[s:e].double() - ref).abs().max().item()
        assert err <= 2e-2 * max(1.0, ref.abs().max().item()), f"{what}: group {g} rows {s}:{e} max error {err}"
    stray = [r for r in range(out.shape[0]) if r not in owned_rows and not torch.isnan(out[r]).all()]
    assert not stray, f"{what}: rows {stray[:5]} belong to no group and were written"


@pytest.mark.parametrize("sizes, n, k, dtype", [
    ([0, 1, 200, 130, 77], 200, 320, "bfloat16"),
    ([128, 0, 300, 5], 256, 512, "float16"),
    ([3] * 64, 192, 256, "bfloat16"),
])
@pytest.mark.parametrize("b_k_major", [True, False])
def test_contiguous_groups_match_float64(torch_cuda, sizes, n, k, dtype, b_k_major):
    torch = torch_cuda
    _hopper(torch)
    _run_contiguous(torch, sizes, n, k, getattr(torch, dtype), b_k_major, None, f"contiguous {sizes[:6]} b_k_major={b_k_major}")


def _run_contiguous(torch, sizes, n, k, dt, b_k_major, config, what):
    """Groups of `sizes` rows one after another (5 rows past the last: never written), B K- or
    N-major, D poisoned; every group against float64."""
    g, rows = len(sizes), sum(sizes) + 5
    a = torch.rand(rows, k, device="cuda", dtype=dt) * 2 - 1
    w = torch.rand(g, n, k, device="cuda", dtype=dt) * 2 - 1
    b = w.transpose(1, 2) if b_k_major else w.transpose(1, 2).contiguous()  # (G, K, N)
    ends = torch.tensor(sizes, device="cuda").cumsum(0).to(torch.int32)
    out = torch.full((rows, n), float("nan"), device="cuda", dtype=dt)
    if config is not None:
        assert tessel.grouped.kernel_for(a, b, ends, config=config) == config
    tessel.grouped_gemm(a, b, ends, out=out, config=config)
    torch.cuda.synchronize()
    spans, s = [], 0
    for i, m in enumerate(sizes):
        spans.append((i, s, s + m))
        s += m
    _check(torch, out.float(), _reference(torch, a, b, spans), set(range(sum(sizes))), what)


def _run_masked(torch, counts, m, n, k, dt, config):
    """A block of m rows per group, the first counts[g] (clamped to m) its problem; rows past the
    count stay poisoned."""
    g = len(counts)
    a = torch.rand(g, m, k, device="cuda", dtype=dt) * 2 - 1
    b = (torch.rand(g, n, k, device="cuda", dtype=dt) * 2 - 1).transpose(1, 2)
    out = torch.full((g, m, n), float("nan"), device="cuda", dtype=dt)
    tessel.grouped_gemm(a, b, counts=torch.tensor(counts, device="cuda", dtype=torch.int32), out=out, config=config)
    torch.cuda.synchronize()
    for i, c in enumerate(min(c, m) for c in counts):
        if c:
            ref = a[i, :c].double() @ b[i].double()
            assert (out[i, :c].double() - ref).abs().max().item() <= 2e-2 * max(1.0, ref.abs().max().item()), f"block {i}"
        assert torch.isnan(out[i, c:]).all(), f"masked: block {i} rows past its count {c} were written"


def _ampere_or_later(torch):
    if torch.cuda.get_device_capability() < (8, 0):
        pytest.skip("needs a compute capability 8.0 or later GPU (the bfloat16 mma.sync kernel)")


@pytest.mark.parametrize("sizes, n, k", [
    ([0, 1, 200, 130, 77], 200, 320),
    ([3] * 40, 136, 64),
    ([0, 0, 515], 128, 1032),
])
@pytest.mark.parametrize("b_k_major", [True, False])
def test_mma_sync_contiguous_groups_match_float64(torch_cuda, sizes, n, k, b_k_major):
    """The Sm80 grouped walk, forced with config= (any GPU from Ampere on runs it): ragged groups,
    empty ones, a tile straddling groups, rows past the last group left as they were."""
    torch = torch_cuda
    _ampere_or_later(torch)
    config = mma_sync_config("bfloat16", "bfloat16", b_k_major, 80)
    _run_contiguous(torch, sizes, n, k, torch.bfloat16, b_k_major, config, f"mma.sync contiguous {sizes[:6]}")


def test_mma_sync_masked_groups_match_float64(torch_cuda):
    torch = torch_cuda
    _ampere_or_later(torch)
    _run_masked(torch, [0, 140, 7, 900], 140, 72, 96, torch.float16, mma_sync_config("float16", "float16", True, 80))


def test_masked_groups_match_float64(torch_cuda):
    torch = torch_cuda
    _hopper(torch)
    _run_masked(torch, [0, 160, 5, 129, 500], 160, 136, 256, torch.bfloat16, None)  # 500: past the block, counts as 160


def test_matches_torch_grouped_mm_where_torch_has_it(torch_cuda):
    torch = torch_cuda
    _hopper(torch)
    if not hasattr(torch, "_grouped_mm"):
        pytest.skip("this PyTorch has no torch._grouped_mm")
    sizes = [256, 0, 384, 128]
    a = torch.rand(sum(sizes), 512, device="cuda", dtype=torch.bfloat16) * 2 - 1
    b = (torch.rand(4, 1024, 512, device="cuda", dtype=torch.bfloat16) * 2 - 1).transpose(1, 2)
    offs = torch.tensor(sizes, device="cuda").cumsum(0).to(torch.int32)
    ours, theirs = tessel.grouped_gemm(a, b, offs), torch._grouped_mm(a, b, offs=offs)
    assert (ours.float() - theirs.float()).abs().max().item() <= 2e-2 * theirs.float().abs().max().item()


@pytest.mark.parametrize("fp8", ["float8_e4m3fn", "float8_e5m2"])
def test_fp8_groups_with_per_tensor_scales_match_float64(torch_cuda, fp8):
    torch = torch_cuda
    _hopper(torch)
    dt = getattr(torch, fp8)
    sizes, n, k = [0, 129, 300, 1, 256], 384, 512
    rows = sum(sizes) + 5
    a = (torch.rand(rows, k, device="cuda") * 2 - 1).to(dt)
    w = (torch.rand(len(sizes), n, k, device="cuda") * 2 - 1).to(dt)
    b = w.transpose(1, 2)  # (G, K, N), K-major
    scale_a, scale_b = torch.tensor([0.75], device="cuda"), torch.tensor([-2.5], device="cuda")
    ends = torch.tensor(sizes, device="cuda").cumsum(0).to(torch.int32)
    out = torch.full((rows, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    tessel.grouped_gemm(a, b, ends, out=out, scale_a=scale_a, scale_b=scale_b)
    torch.cuda.synchronize()
    spans, s = [], 0
    for i, m in enumerate(sizes):
        spans.append((i, s, s + m))
        s += m
    refs = [(g, s, e, ref * (0.75 * -2.5)) for g, s, e, ref in _reference(torch, a, b, spans)]
    _check(torch, out.float(), refs, set(range(sum(sizes))), f"{fp8} contiguous {sizes}")


@pytest.mark.parametrize("config, error, words", [
    (GemmConfig(arch="sm80", element="bf16", out="bf16"), TypeError, "scheduler='grouped'"),
    (GemmConfig(arch="sm80", element="f16", out="f16", scheduler="grouped"), ValueError, "these operands need element bf16, out bf16"),
    (GemmConfig(arch="sm80", element="bf16", out="bf16", layout_b="row", scheduler="grouped"), ValueError, "B col-major"),
])
def test_config_must_fit_the_operands(torch_cuda, config, error, words):
    torch = torch_cuda
    a = torch.zeros(64, 128, device="cuda", dtype=torch.bfloat16)
    b = torch.zeros(2, 64, 128, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
    offs = torch.tensor([32, 64], device="cuda", dtype=torch.int32)
    with pytest.raises(error, match=words):
        tessel.grouped_gemm(a, b, offs, config=config)


@pytest.mark.parametrize("call, error, words", [
    (lambda t, a, b, o: tessel.grouped_gemm(a, b), ValueError, "exactly one of offs"),
    (lambda t, a, b, o: tessel.grouped_gemm(a, b, o.long()), ValueError, "1-D int32"),
    (lambda t, a, b, o: tessel.grouped_gemm(a.float(), b, o), TypeError, "take float16, bfloat16, float8_e4m3fn or float8_e5m2, both the same"),
    (lambda t, a, b, o: tessel.grouped_gemm(a[:, :64], b, o), ValueError, "A's K"),
    (lambda t, a, b, o: tessel.grouped_gemm(a, b, counts=o), ValueError, r"\(groups, M, K\)"),
    (lambda t, a, b, o: tessel.grouped_gemm(a.cpu(), b, o), ValueError, "CUDA tensors"),
    (lambda t, a, b, o: tessel.grouped_gemm(a, b, o, scale_a=o[:1].float(), scale_b=o[:1].float()), ValueError,
     "for float8 A and B"),
    (lambda t, a, b, o: tessel.grouped_gemm(a.to(t.float8_e4m3fn), b.to(t.float8_e4m3fn), o), ValueError,
     "float8 B must be K-contiguous"),
    (lambda t, a, b, o: tessel.grouped_gemm(a.to(t.float8_e4m3fn), b.transpose(1, 2).contiguous().transpose(1, 2).to(t.float8_e4m3fn), o),
     ValueError, "take scale_a, a float32 tensor"),
    (lambda t, a, b, o: tessel.grouped_gemm(a.to(t.float8_e4m3fn), b.transpose(1, 2).contiguous().transpose(1, 2).to(t.float8_e4m3fn), o,
                                            scale_a=t.ones(64, 2, device="cuda"), scale_b=t.ones(2, 1, 1, device="cuda")),
     ValueError, r"per block \(scale_a \(rows, ceil\(K/128\)\) = \(64, 1\)"),
    (lambda t, a, b, o: tessel.grouped_gemm(a.to(t.float8_e5m2), b.transpose(1, 2).contiguous().transpose(1, 2).to(t.float8_e5m2), o,
                                            scale_a=t.ones(64, 1, device="cuda"), scale_b=t.ones(2, 1, 1, device="cuda")),
     TypeError, "per-block scales run on the e4m3 kernel"),
    (lambda t, a, b, o: tessel.grouped_gemm(a.to(t.float8_e4m3fn), b.transpose(1, 2).contiguous().transpose(1, 2).to(t.float8_e4m3fn), o,
                                            scale_a=t.ones(64, 1, device="cuda"), scale_b=t.ones(2, 1, 1, device="cuda"),
                                            out_dtype=t.float16),
     TypeError, "torch.bfloat16 with per-block scales"),
    (lambda t, a, b, o: tessel.grouped_gemm(a, b, o, out=t.empty(64, 64, device="cuda")), TypeError,
     "out's dtype torch.float32: the grouped kernels write torch.float16 or torch.bfloat16"),
    (lambda t, a, b, o: tessel.grouped_gemm(a, b, o, out_dtype=t.float16, out=t.empty(64, 64, device="cuda", dtype=t.bfloat16)),
     ValueError, "out must be a \\(64, 64\\) torch.float16 tensor"),
    (lambda t, a, b, o: tessel.grouped_gemm(a, b, o, bias=t.zeros(3, 64, device="cuda")), ValueError,
     r"bias must be a tensor of shape \(64,\), shared by the groups, or \(2, 64\)"),
    (lambda t, a, b, o: tessel.grouped_gemm(a, b, o, bias=t.zeros(64)), ValueError, "put it on A's device"),
    (lambda t, a, b, o: tessel.grouped_gemm(a, b, o, activation="tanh"), ValueError, "activation 'tanh': choose one of"),
    (lambda t, a, b, o: tessel.grouped_gemm(a, b, o, activation="relu", config=mma_sync_config("bfloat16", "bfloat16", True, 80)),
     ValueError, "whose epilogue is 'linear'"),
    # Masked blocks 8196 elements apart: off the 16-byte grid both kernels step between groups on.
    (lambda t, a, b, o: tessel.grouped_gemm(t.zeros(2 * 8196, device="cuda", dtype=t.bfloat16).as_strided((2, 64, 128), (8196, 128, 1)),
                                            b, counts=o),
     ValueError, "A's stride between groups \\(8196 elements\\) is not a multiple of 16 bytes"),
])
def test_refusals_name_the_problem(torch_cuda, call, error, words):
    torch = torch_cuda
    a = torch.zeros(64, 128, device="cuda", dtype=torch.bfloat16)
    b = torch.zeros(2, 128, 64, device="cuda", dtype=torch.bfloat16)
    offs = torch.tensor([32, 64], device="cuda", dtype=torch.int32)
    with pytest.raises(error, match=words):
        call(torch, a, b, offs)


_ACTIVATIONS = {"linear": lambda x: x, "relu": lambda x: x.clamp_min(0), "silu": lambda x: x * x.sigmoid(),
                "gelu": lambda x: 0.5 * x * (1 + (x / 2**0.5).erf())}


@pytest.mark.parametrize("kernel", ["hopper", "mma_sync"])
@pytest.mark.parametrize("activation, per_group", [("silu", True), ("gelu", False), ("relu", True), (None, True)])
def test_bias_and_activation_in_the_epilogue(torch_cuda, kernel, activation, per_group):
    """D_g = act(A_g B_g + bias_g): a bias row per group (an expert's) or one for all, added in
    the epilogue before the activation; empty groups, a tile straddling groups, rows of no group
    left as they were."""
    torch = torch_cuda
    (_hopper if kernel == "hopper" else _ampere_or_later)(torch)
    sizes, n, k = [0, 1, 200, 77], 200, 320
    g, rows = len(sizes), sum(sizes) + 5
    a = torch.rand(rows, k, device="cuda", dtype=torch.bfloat16) * 2 - 1
    b = (torch.rand(g, n, k, device="cuda", dtype=torch.bfloat16) * 2 - 1).transpose(1, 2)  # (G,K,N)
    bias = (torch.rand(g, n, device="cuda") * 8 - 4) if per_group else (torch.rand(n, device="cuda") * 8 - 4)
    ends = torch.tensor(sizes, device="cuda").cumsum(0).to(torch.int32)
    config = None
    if kernel == "mma_sync":
        config = mma_sync_config("bfloat16", "bfloat16", True, 80).replace(epilogue=activation or "linear")
    out = torch.full((rows, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    tessel.grouped_gemm(a, b, ends, out=out, bias=bias, activation=activation, config=config)
    torch.cuda.synchronize()
    act = _ACTIVATIONS[activation or "linear"]
    s = 0
    for i, m in enumerate(sizes):
        if m:
            row = (bias[i] if per_group else bias).to(torch.bfloat16).double()
            ref = act(a[s:s + m].double() @ b[i].double() + row)
            err = (out[s:s + m].double() - ref).abs().max().item()
            assert err <= 2e-2 * max(1.0, ref.abs().max().item()), f"{kernel} {activation}: group {i} max error {err}"
        s += m
    assert torch.isnan(out[s:].float()).all(), f"{kernel}: rows of no group were written"


def test_masked_bias_per_group(torch_cuda):
    """With counts, the bias rows follow the groups (the blocks) too."""
    torch = torch_cuda
    _hopper(torch)
    g, m, n, k, counts = 3, 96, 136, 256, [96, 0, 7]
    a = torch.rand(g, m, k, device="cuda", dtype=torch.float16) * 2 - 1
    b = (torch.rand(g, n, k, device="cuda", dtype=torch.float16) * 2 - 1).transpose(1, 2)
    bias = torch.rand(g, n, device="cuda", dtype=torch.float16) * 8
    out = torch.full((g, m, n), float("nan"), device="cuda", dtype=torch.float16)
    tessel.grouped_gemm(a, b, counts=torch.tensor(counts, device="cuda", dtype=torch.int32), out=out, bias=bias, activation="relu")
    for i, c in enumerate(counts):
        if c:
            ref = (a[i, :c].double() @ b[i].double() + bias[i].double()).clamp_min(0)
            assert (out[i, :c].double() - ref).abs().max().item() <= 2e-2 * max(1.0, ref.abs().max().item()), f"block {i}"
        assert torch.isnan(out[i, c:]).all(), f"block {i}: rows past its count {c} were written"


def test_grouped_mm_op_gradients_match_float64(torch_cuda):
    torch = torch_cuda
    _hopper(torch)
    import tessel.ops  # noqa: F401 (registers torch.ops.tessel.grouped_mm)
    sizes = [64, 0, 200, 33]
    a = (torch.rand(sum(sizes), 256, device="cuda", dtype=torch.bfloat16) * 2 - 1).requires_grad_()
    w = (torch.rand(4, 192, 256, device="cuda", dtype=torch.bfloat16) * 2 - 1).requires_grad_()
    offs = torch.tensor(sizes, device="cuda").cumsum(0).to(torch.int32)
    out = torch.ops.tessel.grouped_mm(a, w.transpose(1, 2), offs)
    g = torch.rand_like(out) - 0.5
    out.backward(g)
    a64, w64 = a.detach().double().requires_grad_(), w.detach().double().requires_grad_()
    ref = torch.cat([a64[s:e] @ w64[i].t() for i, (s, e) in enumerate(zip([0, 64, 64, 264], [64, 64, 264, 297]))])
    ref.backward(g.double())
    for name, got, want in (("out", out, ref), ("grad a", a.grad, a64.grad), ("grad w", w.grad, w64.grad)):
        err = (got.double() - want).abs().max().item()
        assert err <= 2e-2 * max(1.0, want.abs().max().item()), f"{name}: max error {err}"


def test_grouped_mm_op_fake_shapes(torch_cpu):
    torch = torch_cpu
    import tessel.ops  # noqa: F401
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        a = torch.empty(300, 128, dtype=torch.bfloat16)
        b = torch.empty(4, 128, 64, dtype=torch.bfloat16)
        offs = torch.empty(4, dtype=torch.int32)
        out = torch.ops.tessel.grouped_mm(a, b, offs)
        assert tuple(out.shape) == (300, 64) and out.dtype == torch.bfloat16
