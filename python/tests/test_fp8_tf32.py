"""FP8 (torch.ops.tessel.scaled_mm, torch._scaled_mm's semantics; tessel.gemm on FP8 tensors) and
TF32 (float32 through tessel.matmul, tessel.ops.mm, tessel.nn.Linear). CPU tests need only
PyTorch (argument rules, fake kernels); the rest run the Hopper kernels and hold every result to
a float64 reference within the element type's budget, and to torch's own answer."""

import math

import pytest
from fp8_budget import accumulation_budget

import tessel
from tessel import _core


def fp8(torch, *shape, dtype, seed, scale=1.0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return ((torch.rand(*shape, device="cuda", generator=g) * 2 - 1) * scale).to(dtype)


@pytest.fixture
def tf32_switch():
    """set(on): torch.backends.cuda.matmul.allow_tf32 for the test, restored after it."""
    import torch
    before = torch.backends.cuda.matmul.allow_tf32

    def set_(on):
        torch.backends.cuda.matmul.allow_tf32 = on
    yield set_
    torch.backends.cuda.matmul.allow_tf32 = before


def within(torch, got, ref, budget, what):
    """Every element of got within budget (a tensor) of the float64 reference; no NaN."""
    assert not torch.isnan(got).any(), f"{what}: NaN in the result"
    excess = ((got.double() - ref).abs() - budget).max().item()
    assert excess <= 0, f"{what}: an element is {excess:.3g} past its budget"


# ---- CPU: the argument rules and the fake kernel --------------------------------------------------

def test_scaled_mm_rules(torch_cpu):
    torch = torch_cpu
    from tessel import ops
    e4, e5 = torch.float8_e4m3fn, torch.float8_e5m2
    a, w = torch.zeros(32, 64, dtype=e4), torch.zeros(48, 64, dtype=e4)
    one = torch.ones((), dtype=torch.float32)
    cases = [
        (lambda: ops.scaled_mm(a, w.t().contiguous(), one, one), ValueError, "b column-major"),
        (lambda: ops.scaled_mm(a.to(torch.bfloat16), w.t(), one, one), TypeError, "float8_e4m3fn or torch.float8_e5m2"),
        (lambda: ops.scaled_mm(a, w.to(e5).t(), one, one), TypeError, "one FP8 type for both"),
        (lambda: ops.scaled_mm(a, w.t(), torch.ones(32, 1), one), ValueError, "none of torch._scaled_mm's modes"),  # row-wise a, not b
        (lambda: ops.scaled_mm(a, w.t(), one.double(), one), TypeError, "scales are float32"),
        (lambda: ops.scaled_mm(a, w.t(), one, one, out_dtype=e4), TypeError, "FP8 outputs are not supported"),
        (lambda: ops.scaled_mm(a, w.t(), one, one, scale_result=one), ValueError, "scale_result"),
        (lambda: ops.scaled_mm(a, w.t(), one, one, bias=torch.zeros(7)), ValueError, "one value per output column"),
        (lambda: ops.scaled_mm(a, w[:, :32].t(), one, one), ValueError, "a's columns"),
    ]
    for call, error, words in cases:
        with pytest.raises(error, match=words):
            call()


def test_scaled_mm_fake_kernel(torch_cpu):
    torch = torch_cpu
    from torch._subclasses.fake_tensor import FakeTensorMode
    from tessel import ops  # noqa: F401
    with FakeTensorMode():
        a = torch.empty(33, 64, dtype=torch.float8_e4m3fn, device="cuda")
        w = torch.empty(40, 64, dtype=torch.float8_e4m3fn, device="cuda")
        s = torch.empty((), dtype=torch.float32, device="cuda")
        d = torch.ops.tessel.scaled_mm(a, w.t(), s, s, None, None, torch.float32, True)
        assert d.shape == (33, 40) and d.dtype == torch.float32
        assert torch.ops.tessel.scaled_mm(a, w.t(), s, s).dtype == torch.bfloat16  # the default output


def test_tf32_needs_torchs_switch(torch_cpu, tf32_switch):
    torch = torch_cpu
    from tessel import ops  # noqa: F401 (registers torch.ops.tessel)
    tf32_switch(False)
    with pytest.raises(TypeError, match="allow_tf32"):
        torch.ops.tessel.mm(torch.empty(4, 8), torch.empty(8, 4))
    layer = tessel.nn.Linear(8, 4)
    assert not layer.runs_on_tessel(torch.empty(2, 8))  # the CPU, and TF32 off: torch's linear
    assert layer(torch.ones(2, 8)).shape == (2, 4)


# ---- the Hopper kernels ---------------------------------------------------------------------------

def _fp8_budget(torch, a, b, scale, ref, fast):
    """The FP8 GEMM's error budget per element: the accumulation's (fp8_budget.py) and one
    rounding to bf16 (2^-8 relative)."""
    ab = (a.double().abs() @ b.double().abs()) * scale
    return accumulation_budget(ab, a.shape[1], fast) + 2.0**-8 * ref.abs() + 1e-30


@pytest.mark.parametrize("dtype", ["float8_e4m3fn", "float8_e5m2"])
@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("m, n, k", [(512, 384, 1024), (200, 136, 4096), (1, 48, 256)])
def test_scaled_mm_matches_float64_and_torch(hopper, dtype, fast, m, n, k):
    torch = hopper
    dt = getattr(torch, dtype)
    a = fp8(torch, m, k, dtype=dt, seed=1)
    w = fp8(torch, n, k, dtype=dt, seed=2)
    sa = torch.tensor(0.75, device="cuda")
    sb = torch.tensor(1.5, device="cuda")
    bias = fp8(torch, n, dtype=torch.bfloat16, seed=3)
    got = tessel.scaled_mm(a, w.t(), sa, sb, bias=bias, out_dtype=torch.bfloat16, use_fast_accum=fast)
    ref = (a.double() @ w.double().t()) * (0.75 * 1.5) + bias.double()
    within(torch, got, ref, _fp8_budget(torch, a, w.t(), 0.75 * 1.5, ref, fast), f"{dtype} fast={fast}")
    if dtype == "float8_e4m3fn" and min(m, n) % 16 == 0:  # torch._scaled_mm's own shape rule
        want = torch._scaled_mm(a, w.t(), sa, sb, bias=bias, out_dtype=torch.bfloat16, use_fast_accum=fast)
        within(torch, got, want.double(), 2 * _fp8_budget(torch, a, w.t(), 0.75 * 1.5, ref, fast), "against torch._scaled_mm")


def test_scales_are_read_on_the_device_at_each_launch(hopper):
    """A scale changed in place (a training loop's update) changes the next result: the kernel
    reads it, nothing caches its value on the host."""
    torch = hopper
    a = fp8(torch, 256, 512, dtype=torch.float8_e4m3fn, seed=4)
    w = fp8(torch, 128, 512, dtype=torch.float8_e4m3fn, seed=5)
    s = torch.tensor(1.0, device="cuda")
    one = tessel.scaled_mm(a, w.t(), s, s, out_dtype=torch.float32, use_fast_accum=True)
    s.fill_(0.5)
    quarter = tessel.scaled_mm(a, w.t(), s, s, out_dtype=torch.float32, use_fast_accum=True)
    assert torch.equal(quarter, one * 0.25)  # a power of two scales exactly
    with pytest.raises(ValueError, match="put the scales on a's device"):
        tessel.scaled_mm(a, w.t(), s.cpu(), s, out_dtype=torch.float32)


def test_gemm_takes_fp8_tensors(hopper):
    torch = hopper
    a = fp8(torch, 300, 256, dtype=torch.float8_e4m3fn, seed=6)
    w = fp8(torch, 200, 256, dtype=torch.float8_e4m3fn, seed=7)
    d = tessel.gemm(a, w.t(), out_dtype=torch.float32, alpha=2.0)
    ref = 2 * (a.double() @ w.double().t())
    within(torch, d, ref, _fp8_budget(torch, a, w.t(), 2.0, ref, True), "tessel.gemm FP8")
    with pytest.raises(ValueError, match="out_dtype=torch.bfloat16"):
        tessel.gemm(a, w.t())
    with pytest.raises(ValueError, match="K-major"):
        tessel.gemm(a, w.t().contiguous(), out_dtype=torch.float32)


@pytest.mark.parametrize("tile", [(128, 128, 128), (128, 192, 128)])
def test_promoted_tiles_match_float64(hopper, tile):
    """The promoted kernel's tiles, run as configurations: 128 x 192 keeps two sets of 96
    accumulators per thread; ragged M, N and K, promoted accumulation's budget."""
    torch = hopper
    from tessel.jit.config import GemmConfig
    config = GemmConfig(arch="sm90a", element="e4m3", out="bf16", tile=tile, schedule="cooperative_promoted")
    a = fp8(torch, 333, 4160, dtype=torch.float8_e4m3fn, seed=11, scale=448)
    w = fp8(torch, 520, 4160, dtype=torch.float8_e4m3fn, seed=12, scale=448)
    d = torch.full((333, 520), float("nan"), device="cuda", dtype=torch.bfloat16)
    tessel.compile(config)(a, w.t(), out=d)
    ref = a.double() @ w.double().t()
    within(torch, d, ref, _fp8_budget(torch, a, w.t(), 1.0, ref, False), f"promoted {tile}")


@pytest.mark.parametrize("tile_n", [128, 192])
@pytest.mark.parametrize("k", [64, 256, 384, 512, 640, 1152])
def test_promoted_tiles_across_k_tiles_and_tiles(hopper, tile_n, k):
    """The promoted tiles' mainloops that keep the tensor cores busy while a consumer adds up:
    128 x 128 runs two partial-sum sets in turn (mma_promoted_overlapped), 128 x 192 each K tile
    in two halves of 96 columns (mma_promoted_halves). One to five and nine K tiles (odd and even
    counts end on either set), and 2048 x 2048 on the persistent CTAs, so that most CTAs carry the
    ring's stages and phases from one tile into the next (and 2048 ends inside a 192-wide tile)."""
    torch = hopper
    from tessel.jit.config import GemmConfig
    config = GemmConfig(arch="sm90a", element="e4m3", out="bf16", tile=(128, tile_n, 128), schedule="cooperative_promoted")
    a = fp8(torch, 2048, k, dtype=torch.float8_e4m3fn, seed=21, scale=448)
    w = fp8(torch, 2048, k, dtype=torch.float8_e4m3fn, seed=22, scale=448)
    d = torch.full((2048, 2048), float("nan"), device="cuda", dtype=torch.bfloat16)
    tessel.compile(config)(a, w.t(), out=d)
    ref = a.double() @ w.double().t()
    within(torch, d, ref, _fp8_budget(torch, a, w.t(), 1.0, ref, False), f"promoted 128x{tile_n}, K = {k}")


@pytest.mark.parametrize("scheduler", ["persistent", "stream_k"])
def test_fast_fp8_narrow_tile_matches_float64(hopper, scheduler):
    """FP8 on the 128 x 64 tile (fast accumulation) as a configuration, on the problem a decode
    call runs as D^T's (the weights as A, a few tokens as N); stream-K too, which is not shipped."""
    torch = hopper
    from tessel.jit.config import GemmConfig
    config = GemmConfig(arch="sm90a", element="e4m3", out="bf16", tile=(128, 64, 128), scheduler=scheduler)
    for m, n, k in ((4104, 16, 4096), (300, 40, 8320)):
        w = fp8(torch, m, k, dtype=torch.float8_e4m3fn, seed=13, scale=448)  # the weights, as A
        x = fp8(torch, n, k, dtype=torch.float8_e4m3fn, seed=14, scale=448)  # the tokens
        d = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        tessel.compile(config)(w, x.t(), out=d)
        ref = w.double() @ x.double().t()
        within(torch, d, ref, _fp8_budget(torch, w, x.t(), 1.0, ref, True), f"128x64 {scheduler} {m}x{n}x{k}")


@pytest.mark.parametrize("dtype", ["float8_e4m3fn", "float8_e5m2"])
@pytest.mark.parametrize("m, n, k", [(16, 4104, 4096), (1, 320, 8320), (47, 640, 1024), (16, 14336, 1040)])
def test_fast_fp8_decode_on_d_transposed(hopper, dtype, m, n, k):
    """tessel.scaled_mm at decode without a bias: the 128 x 64 or 64 x 64 tile on D^T's problem
    (registry.FP8_NARROW_TILE, FP8_PINGPONG_TILE), D written column-major by the kernel; every
    element of the pre-poisoned D within the budget of the float64 product."""
    torch = hopper
    from tessel.jit import registry
    dt = getattr(torch, dtype)
    a, w = fp8(torch, m, k, dtype=dt, seed=15), fp8(torch, n, k, dtype=dt, seed=16)
    sa, sb = torch.tensor(0.5, device="cuda"), torch.tensor(1.25, device="cuda")
    kernel, reason = tessel.kernel_for(a, w.t(), out_dtype=torch.bfloat16, explain=True)
    tiles = ["x".join(map(str, t)) for t in (registry.FP8_NARROW_TILE, registry.FP8_PINGPONG_TILE)]
    # At most 16 tokens against enough weight rows, e4m3 takes the small-N ring (test_rowwise's ring test).
    ring = dtype == "float8_e4m3fn" and _core.small_n_plan(n, m, k, torch.cuda.get_device_properties(0).multi_processor_count, 1)
    assert (kernel.small_n if ring else any(t in kernel.name for t in tiles)) and "D^T" in reason, (kernel.name, reason)
    got = tessel.scaled_mm(a, w.t(), sa, sb, out_dtype=torch.bfloat16, use_fast_accum=True)
    ref = (a.double() @ w.double().t()) * 0.625
    within(torch, got, ref, _fp8_budget(torch, a, w.t(), 0.625, ref, True), f"{dtype} {m}x{n}x{k} on D^T")


@pytest.mark.parametrize("tile, m, n, k", [("FP8_MID_TILE", 512, 4096, 1024), ("FP8_MID_TILE", 500, 4000, 1008),
                                            ("FP8_MID_TILE", 1536, 640, 384), ("FP8_192_TILE", 768, 4096, 1024),
                                            ("FP8_192_TILE", 700, 4040, 1008), ("FP8_192_TILE", 129, 200, 2048),
                                            ("FP8_PINGPONG_TILE", 64, 4096, 4096), ("FP8_PINGPONG_TILE", 100, 1000, 1040)])
def test_fast_fp8_mid_tiles(hopper, tile, m, n, k):
    """FP8 with fast accumulation on its 128 x 128, 128 x 192 and 64 x 64 ping-pong tiles
    (registry.FP8_MID_TILE, FP8_192_TILE, FP8_PINGPONG_TILE), ragged edges included (N = 4040 and
    200 end inside a 192-wide tile, 100 tokens inside a 64-row one): every element of the
    pre-poisoned D within the budget of the float64 product; and on 132 SMs the dispatcher takes
    each tile where it fills the wave (512 tokens: one wave of 128 tiles of 128x128, where 128x256
    would fill 64 SMs and 128x64 take two; 768x4096: 132 tiles of 128x192, where 128x256 makes 96;
    64x4096: 64 tiles of 64x64 as given, where D^T's 128x64 makes 32)."""
    torch = hopper
    from tessel.jit import registry
    from tessel.jit.config import GemmConfig
    a, w = fp8(torch, m, k, dtype=torch.float8_e4m3fn, seed=17), fp8(torch, n, k, dtype=torch.float8_e4m3fn, seed=18)
    config = GemmConfig(arch="sm90a", element="e4m3", out="bf16", tile=getattr(registry, tile))
    d = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    tessel.compile(config)(a, w.t(), out=d)
    ref = a.double() @ w.double().t()
    within(torch, d, ref, _fp8_budget(torch, a, w.t(), 1.0, ref, True), f"{config.name} {m}x{n}x{k}")
    if n == 4096 and torch.cuda.get_device_properties(0).multi_processor_count == 132:
        kernel, reason = tessel.kernel_for(a, w.t(), out_dtype=torch.bfloat16, explain=True)
        assert kernel.name == config.name, (kernel.name, reason)
        got = tessel.scaled_mm(a, w.t(), torch.tensor(1.0, device="cuda"), torch.tensor(1.0, device="cuda"),
                               out_dtype=torch.bfloat16, use_fast_accum=True)
        assert torch.equal(got, d), "tessel.scaled_mm's D differs from the same kernel's launched directly"


def _tf32_budget(a, b, ref):
    """TF32 keeps 10 of float32's 23 mantissa bits of each operand (2^-10 relative each, truncated
    or rounded), f32 accumulation, one f32 rounding."""
    ab = a.double().abs() @ b.double().abs()
    return (2 * 2.0**-10 + 8 * math.sqrt(a.shape[1]) * 2.0**-23) * ab + 2.0**-23 * ref.abs() + 1e-30


@pytest.mark.parametrize("m, n, k", [(512, 256, 1024), (77, 72, 64), (129, 200, 4096)])
def test_tf32_matmul_and_linear(hopper, tf32_switch, m, n, k):
    torch = hopper
    tf32_switch(True)
    g = torch.Generator(device="cuda").manual_seed(8)
    x = torch.rand(m, k, device="cuda", generator=g) * 2 - 1
    w = torch.rand(n, k, device="cuda", generator=g) * 2 - 1
    y = tessel.matmul(x, w.t())
    ref = x.double() @ w.double().t()
    within(torch, y, ref, _tf32_budget(x, w.t(), ref), "tessel.matmul TF32")
    y2 = tessel.matmul(x, w.t().contiguous())  # B row-major: copied K-major first
    within(torch, y2, ref, _tf32_budget(x, w.t(), ref), "TF32 with a row-major B")
    layer = tessel.nn.Linear(k, n, device="cuda")
    assert layer.runs_on_tessel(x)
    xg = x.clone().requires_grad_()
    out = layer(xg)
    want = xg.double() @ layer.weight.double().t() + layer.bias.double()
    within(torch, out.detach(), want.detach(), _tf32_budget(x, layer.weight.t(), want.detach()) + 1e-6, "Linear TF32")
    out.sum().backward()  # the backward GEMMs on TF32 too
    g_ref = torch.ones(m, n, device="cuda", dtype=torch.float64) @ layer.weight.double()
    assert (xg.grad.double() - g_ref).abs().max().item() <= 4 * 2.0**-10 * g_ref.abs().max().item() * math.sqrt(n)


def test_tf32_bmm(hopper, tf32_switch):
    torch = hopper
    tf32_switch(True)
    a = torch.rand(5, 96, 128, device="cuda") - 0.5
    b = torch.rand(5, 128, 64, device="cuda") - 0.5
    d = tessel.bmm(a, b)
    ref = a.double() @ b.double()
    within(torch, d, ref, _tf32_budget(a[0], b[0], ref[0]).max() * 2, "tessel.bmm TF32")


def test_scaled_mm_opcheck(hopper):
    torch = hopper
    a = fp8(torch, 64, 128, dtype=torch.float8_e4m3fn, seed=9)
    w = fp8(torch, 32, 128, dtype=torch.float8_e4m3fn, seed=10)
    s = torch.tensor(0.5, device="cuda")
    # opcheck's schema test multiplies the inputs, which PyTorch has no FP8 kernel for: the fake
    # kernel's test is the one that applies.
    torch.library.opcheck(torch.ops.tessel.scaled_mm.default, (a, w.t(), s, s, None, None, torch.bfloat16, True),
                          test_utils=("test_faketensor",))
