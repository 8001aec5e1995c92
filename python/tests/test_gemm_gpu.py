"""tessel.gemm on a GPU, against torch.matmul in float64.

Every element type pair and every layout of A, B and D (row- or column-major, transposed views
included), square and ragged problems, alpha and beta with C, the fused epilogues, a JIT
configuration end to end, and the refusals only real CUDA tensors can provoke. Skipped without
PyTorch or a CUDA device.
"""

import importlib
import itertools

import pytest

import tessel
from tessel.jit import prebuilt
from tessel.jit.config import default_config

pytestmark = pytest.mark.gpu

DTYPES = [("float16", "float32"), ("float16", "float16"), ("bfloat16", "float32"), ("bfloat16", "bfloat16"),
          ("float16", "bfloat16"), ("bfloat16", "float16")]
UNIT_ROUNDOFF = {"float16": 2.0**-11, "bfloat16": 2.0**-8, "float32": 2.0**-24}
MIN_NORMAL = {"float16": 2.0**-14, "bfloat16": 2.0**-126, "float32": 2.0**-126}


def make(torch, rows, cols, dtype, row_major, seed):
    """A rows x cols matrix of values in [-1, 1), stored row-major, or column-major (the transpose
    of a row-major cols x rows tensor: a view, not a copy)."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    if row_major:
        return (torch.rand(rows, cols, device="cuda", generator=g) * 2 - 1).to(getattr(torch, dtype))
    return (torch.rand(cols, rows, device="cuda", generator=g) * 2 - 1).to(getattr(torch, dtype)).t()


def check(torch, D, A, B, C=None, alpha=1.0, beta=0.0, activation=None):
    """D against activation(alpha * A @ B + beta * C) computed in float64 from the same (rounded)
    inputs, element by element within the error budget of include/tessel/verify/tolerance.hpp:
    float32 accumulation over K (8 sqrt(K) machine epsilons of sum |a||b|, epsilon not unit
    roundoff because tensor cores truncate), the epilogue's arithmetic, one rounding to D's type
    and its smallest normal; an activation may stretch the first two by its slope (below 1.2)
    and adds a few float32 roundings of its own."""
    a, b = A.double(), B.double()
    ab = abs(alpha) * (a.abs() @ b.abs())
    ref = alpha * (a @ b)
    cmag = 0.0
    if C is not None and beta != 0:
        ref = ref + beta * C.double()
        cmag = abs(beta) * C.double().abs()
    if activation is not None:
        ref = activation(ref)
    k = A.shape[1]
    eps = 2.0**-23
    out = str(D.dtype).replace("torch.", "")
    budget = (8 * k**0.5 * eps * ab + eps * (ab + cmag)) * (1.2 if activation is not None else 1.0)
    budget = budget + (UNIT_ROUNDOFF[out] + 8 * eps) * ref.abs() + MIN_NORMAL[out]
    err = (D.double() - ref).abs()
    worst = (err / budget).max().item()
    assert worst <= 1.0, f"error {err.max().item():.3g} exceeds the budget (worst share {worst:.2f})"


@pytest.mark.parametrize("ab, out", DTYPES)
@pytest.mark.parametrize("a_row, b_row, d_row", list(itertools.product([True, False], repeat=3)))
def test_every_dtype_and_layout(torch_cuda, ab, out, a_row, b_row, d_row):
    torch = torch_cuda
    for m, n, k in [(256, 192, 128), (200, 136, 72)]:
        A = make(torch, m, k, ab, a_row, 1)
        B = make(torch, k, n, ab, b_row, 2)
        D = make(torch, m, n, out, d_row, 3).zero_()
        D.fill_(float("nan"))  # every element must be written
        result = tessel.gemm(A, B, out=D)
        assert result is D
        torch.cuda.synchronize()
        check(torch, D, A, B)


@pytest.mark.parametrize("ab, out", DTYPES[:4])
def test_alpha_beta_and_c(torch_cuda, ab, out):
    torch = torch_cuda
    A, B = make(torch, 136, 72, ab, True, 4), make(torch, 72, 200, ab, False, 5)
    C = make(torch, 136, 200, out, True, 6)
    D = tessel.gemm(A, B, C, alpha=1.5, beta=-0.5)
    assert D.dtype == C.dtype and D.shape == (136, 200)
    check(torch, D, A, B, C, 1.5, -0.5)
    Ccol = make(torch, 136, 200, out, False, 7)
    Dcol = tessel.gemm(A, B, Ccol, beta=2.0)
    assert Dcol.stride() == (1, 136)  # allocated in C's layout
    check(torch, Dcol, A, B, Ccol, 1.0, 2.0)


def test_in_place_accumulation(torch_cuda):
    torch = torch_cuda
    A, B = make(torch, 128, 64, "float16", True, 8), make(torch, 64, 128, "float16", False, 9)
    C = make(torch, 128, 128, "float32", True, 10)
    before = C.clone()
    tessel.gemm(A, B, C, beta=1.0, out=C)
    check(torch, C, A, B, before, 1.0, 1.0)


def test_default_output_type_and_layout(torch_cuda):
    torch = torch_cuda
    A, B = make(torch, 64, 64, "bfloat16", True, 11), make(torch, 64, 64, "bfloat16", True, 12)
    D = tessel.gemm(A, B)
    assert D.dtype == torch.bfloat16 and D.is_contiguous()
    D32 = tessel.gemm(A, B, out_dtype=torch.float32)
    assert D32.dtype == torch.float32
    check(torch, D32, A, B)


def test_long_k(torch_cuda):
    torch = torch_cuda
    A, B = make(torch, 128, 4096, "bfloat16", True, 13), make(torch, 4096, 128, "bfloat16", False, 14)
    check(torch, tessel.gemm(A, B, out_dtype="float32"), A, B)


@pytest.mark.parametrize("name", ["relu", "gelu", "silu"])
def test_epilogues(torch_cuda, name):
    torch = torch_cuda
    activation = {"relu": torch.relu, "gelu": torch.nn.functional.gelu, "silu": torch.nn.functional.silu}[name]
    A, B = make(torch, 128, 64, "float16", True, 15), make(torch, 64, 192, "float16", False, 16)
    C = make(torch, 128, 192, "float32", True, 17)
    D = tessel.gemm(A, B, C, alpha=2.0, beta=0.5, epilogue=name)
    check(torch, D, A, B, C, 2.0, 0.5, activation)


def test_prebuilt_kernel_when_one_fits(torch_cuda):
    torch = torch_cuda
    A, B = make(torch, 128, 64, "float16", True, 18), make(torch, 64, 128, "float16", False, 19)
    cc = tessel._core.compute_capability(torch.cuda.current_device())
    config = default_config("f16", "f32", "row", "col", hopper=cc == 90)
    kernel = tessel.kernel_for(A, B, out_dtype="float32")
    expected = prebuilt.find(config, cc)
    if expected is None:
        pytest.skip(f"the package has no prebuilt kernel for compute capability {cc}")
    assert kernel is expected
    # An epilogue needs a compiled configuration: not a prebuilt one.
    assert tessel.kernel_for(A, B, out_dtype="float32", epilogue="relu") is not expected


def test_jit_configuration_end_to_end(torch_cuda, tmp_path, monkeypatch):
    """A configuration no prebuilt kernel has: compiled, cached, loaded again from the cache in a
    fresh compile, and run through both entry points."""
    torch = torch_cuda
    monkeypatch.setenv("TESSEL_CACHE_DIR", str(tmp_path))
    from tessel.jit import compiler
    monkeypatch.setattr(compiler, "_memo", {})
    config = tessel.GemmConfig(element="bf16", out="bf16", layout_a="row", layout_b="row", layout_c="col",
                               tile=(128, 256, 32), warp=(64, 64, 32), stages=4)
    k = tessel.compile(config)
    assert not k.cache_hit and k.target == compiler.target_for(tessel._core.compute_capability(torch.cuda.current_device()))
    A, B = make(torch, 300, 64, "bfloat16", True, 20), make(torch, 64, 264, "bfloat16", True, 21)
    D = make(torch, 300, 264, "bfloat16", False, 22)
    k(A, B, out=D)
    check(torch, D, A, B)
    D2 = tessel.gemm(A, B, config=config, out=make(torch, 300, 264, "bfloat16", False, 23))
    check(torch, D2, A, B)
    compiler._memo.clear()
    again = tessel.compile(config)
    assert again.cache_hit and again.seconds < 0.05
    # The transposed problem fits the kernel too: (A B)^T = B^T A^T with B^T and A^T as the
    # operands (column-major views) and a row-major D, which is a column-major D^T.
    Dt = tessel.gemm(B.t(), A.t(), config=config, out=make(torch, 264, 300, "bfloat16", True, 24))
    check(torch, Dt, B.t(), A.t())


def test_current_stream_is_used(torch_cuda):
    """Launched on PyTorch's current stream: while that stream is held up, the default stream
    stays idle (a launch there would wait behind the held-up stream and show as pending)."""
    torch = torch_cuda
    A, B = make(torch, 256, 256, "float16", True, 24), make(torch, 256, 256, "float16", False, 25)
    A2 = make(torch, 256, 256, "float16", True, 26)
    tessel.gemm(A, B, out_dtype="float32")  # compiled and loaded now, not while the stream is held
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        torch.cuda._sleep(100_000_000)  # tens of milliseconds of GPU time
        A.copy_(A2)
        D = tessel.gemm(A, B, out_dtype="float32")
        held_up = not s.query()
        default_idle = torch.cuda.default_stream().query()
    s.synchronize()
    assert held_up and default_idle
    check(torch, D, A2, B)


def test_explicit_stream(torch_cuda):
    torch = torch_cuda
    A, B = make(torch, 128, 128, "bfloat16", True, 32), make(torch, 128, 128, "bfloat16", True, 33)
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    D = torch.empty(128, 128, device="cuda", dtype=torch.float32)
    tessel.gemm(A, B, out=D, stream=s)
    s.synchronize()
    check(torch, D, A, B)


# ---- refusals that need CUDA tensors ------------------------------------------------------------
def test_misaligned_base_address(torch_cuda):
    torch = torch_cuda
    flat = torch.zeros(128 * 64 + 1, device="cuda", dtype=torch.float16)
    A = flat[1:].view(128, 64)
    B = make(torch, 64, 64, "float16", False, 27)
    with pytest.raises(tessel.GemmError, match="base address of A is 0x[0-9a-f]+, not aligned to the 16 bytes") as e:
        tessel.gemm(A, B)
    assert e.value.status == "kErrorMisalignedOperand"


def test_misaligned_leading_dimension(torch_cuda):
    torch = torch_cuda
    A = torch.zeros(128, 68, device="cuda", dtype=torch.float16)[:, :64]
    B = make(torch, 64, 64, "float16", False, 28)
    with pytest.raises(tessel.GemmError, match="leading dimension of A is 68, not a multiple of the 8 elements"):
        tessel.gemm(A, B)


def test_strided_view_is_refused(torch_cuda):
    torch = torch_cuda
    A = torch.zeros(128, 128, device="cuda", dtype=torch.float16)[:, ::2]
    B = make(torch, 64, 64, "float16", False, 29)
    with pytest.raises(tessel.GemmError, match="neither row-major") as e:
        tessel.gemm(A, B)
    assert e.value.status == "kErrorInvalidLayout"


def test_unsupported_dtype_and_mismatch(torch_cuda):
    torch = torch_cuda
    A = torch.zeros(64, 64, device="cuda")
    with pytest.raises(tessel.GemmError, match="A is float32 and B is float32"):
        tessel.gemm(A, A)
    with pytest.raises(tessel.GemmError, match="the columns of A \\(K\\) must equal the rows of B"):
        tessel.gemm(A.half(), torch.zeros(32, 64, device="cuda", dtype=torch.float16))


def test_configuration_that_does_not_fit_the_operands(torch_cuda):
    torch = torch_cuda
    A, B = make(torch, 128, 64, "float16", True, 30), make(torch, 64, 128, "float16", False, 31)
    with pytest.raises(tessel.GemmError, match="takes bfloat16 A and B"):
        tessel.gemm(A, B, config=tessel.GemmConfig(element="bf16"))
    with pytest.raises(tessel.GemmError, match="but the kernel tessel_sm80_gemm_f16_f16_f32_128x128x32_64x64x32_3stage_nn takes"):
        tessel.gemm(A, B, config=tessel.GemmConfig(layout_a="col", layout_b="col"))


def test_torch_read_agrees_with_dlpack_on_cuda(torch_cuda):
    from test_gemm_host import tensors_to_describe
    for t in tensors_to_describe(torch_cuda, "cuda"):
        assert tessel._core.describe_operand(t, "torch") == tessel._core.describe_operand(t, "dlpack"), (t.shape, t.stride(), t.dtype)


def test_dlpack_objects_that_are_not_torch_tensors(torch_cuda):
    """Any __dlpack__ producer: a wrapper that exposes only the protocol takes the DLPack path."""
    torch = torch_cuda

    class Only:
        def __init__(self, t):
            self.t = t

        def __dlpack__(self, **kwargs):
            return self.t.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.t.__dlpack_device__()

    A, B = make(torch, 128, 64, "float16", True, 34), make(torch, 64, 96, "float16", False, 35)
    D = torch.empty(128, 96, device="cuda", dtype=torch.float32)
    torch.cuda.synchronize()
    tessel.gemm(Only(A), Only(B), out=Only(D), stream=torch.cuda.current_stream())
    torch.cuda.synchronize()
    check(torch, D, A, B)


# ---- Hopper: the TMA kernel, where tessel.gemm chooses it ---------------------------------------------
def padded(torch, rows, cols, dtype, row_major, ld, seed):
    """make(), stored with leading dimension `ld` (a view of a wider tensor)."""
    wide = make(torch, rows, ld, dtype, True, seed) if row_major else make(torch, ld, cols, dtype, False, seed)
    return wide[:, :cols] if row_major else wide[:rows, :]


@pytest.mark.parametrize("ab, out", DTYPES[:4])
@pytest.mark.parametrize("a_row, b_row, d_row", list(itertools.product([True, False], repeat=3)))
def test_hopper_every_layout(hopper, ab, out, a_row, b_row, d_row):
    """TN, NT, NN and TT, D either way (a column-major D is the transposed problem), square and
    ragged, through the Hopper kernel the automatic choice takes on compute capability 9.0."""
    torch = hopper
    for m, n, k in [(256, 256, 128), (200, 136, 72), (520, 264, 200)]:
        A, B = make(torch, m, k, ab, a_row, 40), make(torch, k, n, ab, b_row, 41)
        D = make(torch, m, n, out, d_row, 42)
        D.fill_(float("nan"))
        kernel = tessel.kernel_for(A, B, out=D)
        assert kernel.hopper and kernel.name.startswith("tessel_sm90_gemm_"), kernel.name
        tessel.gemm(A, B, out=D)
        torch.cuda.synchronize()
        check(torch, D, A, B)


def test_hopper_k_not_a_multiple_of_8(hopper):
    """TMA reads past K with zeros: only the leading dimensions must be aligned (the Sm80 kernel
    refuses K = 70 outright)."""
    torch = hopper
    A = padded(torch, 192, 70, "bfloat16", True, 72, 43)
    B = padded(torch, 70, 136, "bfloat16", False, 72, 44)
    assert tessel.kernel_for(A, B).hopper
    check(torch, tessel.gemm(A, B, out_dtype="float32"), A, B)


@pytest.mark.parametrize("ab, out", DTYPES[:4])
def test_hopper_alpha_beta_and_c(hopper, ab, out):
    torch = hopper
    A, B = make(torch, 136, 72, ab, True, 45), make(torch, 72, 200, ab, False, 46)
    C = make(torch, 136, 200, out, True, 47)
    assert tessel.kernel_for(A, B, C).hopper
    check(torch, tessel.gemm(A, B, C, alpha=1.5, beta=-0.5), A, B, C, 1.5, -0.5)
    Ccol = make(torch, 136, 200, out, False, 48)
    check(torch, tessel.gemm(A, B, Ccol, beta=2.0), A, B, Ccol, 1.0, 2.0)


ACTIVATIONS = ("relu", "gelu", "silu")


@pytest.mark.parametrize("name", ACTIVATIONS)
@pytest.mark.parametrize("ab, out", [("bfloat16", "bfloat16"), ("float16", "float32")])
def test_hopper_fused_activations(hopper, name, ab, out):
    """relu, gelu and silu fused into the Hopper kernel's linear combination: a kind the registry
    ships them for (bf16 in and out) and one it compiles on first use (f16 in, f32 out), with
    alpha, beta and C, on a ragged problem; D pre-poisoned."""
    torch = hopper
    activation = {"relu": torch.relu, "gelu": torch.nn.functional.gelu, "silu": torch.nn.functional.silu}[name]
    A, B = make(torch, 200, 136, ab, True, 49), make(torch, 136, 264, ab, False, 50)
    C = make(torch, 200, 264, out, True, 56)
    D = torch.full((200, 264), float("nan"), device="cuda", dtype=getattr(torch, out))
    kernel = tessel.kernel_for(A, B, C, out=D, epilogue=name)
    assert kernel.hopper and kernel.name.endswith("_" + name), kernel.name
    tessel.gemm(A, B, C, alpha=1.5, beta=0.5, epilogue=name, out=D)
    torch.cuda.synchronize()
    check(torch, D, A, B, C, 1.5, 0.5, activation)


@pytest.mark.parametrize("tokens, kernel", [(32, "_streamk"), (16, "_small_n_tma_bf16_n16_4box")])
def test_hopper_decode_in_a_cuda_graph(hopper, tmp_path, monkeypatch, tokens, kernel):
    """Decode calls captured in a CUDA graph after tessel.warmup and replayed on new data: 32
    tokens go to a stream-K kernel on D^T's problem, whose fixup workspace comes from PyTorch's
    caching allocator (the graph's pool), so capture needs no call of its own first; 16 tokens to
    the small-N TMA ring."""
    torch = hopper
    from tessel.jit import tuning
    monkeypatch.setenv("TESSEL_CACHE_DIR", str(tmp_path))
    tuning.forget()
    importlib.import_module("tessel.gemm")._dispatcher.clear()
    W = make(torch, 4096, 4096, "bfloat16", True, 64)
    x = make(torch, tokens, 4096, "bfloat16", True, 65)
    [name] = tessel.warmup([(tokens, 4096, 4096)])
    assert name.endswith(kernel), name
    D = torch.full((tokens, 4096), float("nan"), device="cuda", dtype=torch.bfloat16)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        tessel.gemm(x, W.t(), out=D)
    graph.replay()
    torch.cuda.synchronize()
    check(torch, D, x, W.t())
    x.copy_(make(torch, tokens, 4096, "bfloat16", True, 66))
    D.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    check(torch, D, x, W.t())


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("b_row", [False, True])
def test_hopper_mid_token_counts_on_64_row_ping_pong(hopper, dtype, b_row):
    """129-320 tokens: the dispatcher's 64x128 and 64x192 ping-pong tiles (hopper_tiles.def), with
    B K-major (x @ W.t()) and N-major (x @ W), plain, with each fused activation, and with a C
    (beta), on ragged M and K; D NaN-poisoned."""
    torch = hopper
    for m, n, k, tile in [(192, 4096, 4096, "64x128"), (161, 4096, 1040, "64x128"), (160, 6144, 4096, "64x192"),
                          (200, 6144, 1040, "64x192")]:
        A, B = make(torch, m, k, dtype, True, 91), make(torch, k, n, dtype, b_row, 92)
        D = torch.full((m, n), float("nan"), device="cuda", dtype=getattr(torch, dtype))
        name = tessel.kernel_for(A, B, out=D).name
        assert f"_{tile}x64_" in name and "pingpong" in name, (m, n, k, name)
        tessel.gemm(A, B, out=D)
        torch.cuda.synchronize()
        check(torch, D, A, B)
        for act in ACTIVATIONS:
            activation = {"relu": torch.relu, "gelu": torch.nn.functional.gelu, "silu": torch.nn.functional.silu}[act]
            assert f"_{tile}x64_" in tessel.kernel_for(A, B, epilogue=act).name
            check(torch, tessel.gemm(A, B, epilogue=act), A, B, activation=activation)
        C = make(torch, m, n, dtype, True, 93)
        check(torch, tessel.gemm(A, B, C, alpha=0.5, beta=1.5), A, B, C, 0.5, 1.5)


def test_hopper_every_registry_tile(hopper):
    """Every Hopper tile the registry ships (jit/registry.py), given as a configuration, on a
    problem ragged in M, N and K: the tiles tessel.gemm chooses by shape all compute the same D."""
    torch = hopper
    from tessel.jit import registry
    for m, n, k in [(333, 456, 200), (16, 4096, 4096)]:  # the second splits K (stream-K kernels)
        A, B = make(torch, m, k, "bfloat16", True, 57), make(torch, k, n, "bfloat16", False, 58)
        for config in registry.hopper_configs("bf16", "bf16", "row", "col"):
            D = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
            tessel.gemm(A, B, config=config, out=D)
            torch.cuda.synchronize()
            check(torch, D, A, B)


def test_hopper_rows_off_sectors_run_the_cluster_twin(hopper):
    """A's or B's rows starting off 32-byte sectors (bf16 K = 1000, a base 16 bytes off): the
    dispatcher runs the chosen tile's cluster twin (registry.cluster_twin: the wide tiles' 2x1,
    128x64's 1x2) and says so; with every row on a sector (K = 1008) the plain tile. Each D,
    NaN-poisoned, is checked; the twins as configurations too, B K-major and N-major."""
    torch = hopper
    from tessel.jit import registry
    for m, n, k, cluster in [(2000, 2000, 1000, "2x1"), (1000, 4096, 1000, "2x1"), (777, 3000, 1016, "2x1"), (1000, 1000, 1000, "1x2")]:
        x, W = make(torch, m, k, "bfloat16", True, 80), make(torch, n, k, "bfloat16", True, 81)
        D = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        kernel, reason = tessel.kernel_for(x, W.t(), out=D, explain=True)
        assert f"_c{cluster}_" in kernel.name and f"{cluster}-cluster twin" in reason, (m, n, k, kernel.name, reason)
        check(torch, tessel.gemm(x, W.t(), out=D), x, W.t())
        assert f"_c{cluster}_" in tessel.kernel_for(x, W.t(), epilogue="relu").name  # fused epilogues have twins too
        check(torch, tessel.gemm(x, W.t(), epilogue="relu"), x, W.t(), activation=torch.relu)
        aligned = make(torch, m, k + 8, "bfloat16", True, 82)
        assert "_c1x1_" in tessel.kernel_for(aligned, make(torch, n, k + 8, "bfloat16", True, 83).t()).name
        k8 = k + 8  # rows on sectors, the matrix 16 bytes into its allocation
        shifted = torch.empty(m * k8 + 8, device="cuda", dtype=torch.bfloat16)[8:].view(m, k8)
        shifted.copy_(make(torch, m, k8, "bfloat16", True, 84))
        W8 = make(torch, n, k8, "bfloat16", True, 85)
        assert f"_c{cluster}_" in tessel.kernel_for(shifted, W8.t()).name
        check(torch, tessel.gemm(shifted, W8.t()), shifted, W8.t())
    # A decode call at K = 1000 on D^T's problem: one column tile, so no twin (dispatch::twin_fits).
    x, W = make(torch, 32, 1000, "bfloat16", True, 88), make(torch, 14336, 1000, "bfloat16", True, 89)
    kernel, reason = tessel.kernel_for(x, W.t(), explain=True)
    assert "_c1x1_" in kernel.name and "twin" not in reason and "off 32-byte sectors" in reason, (kernel.name, reason)
    check(torch, tessel.gemm(x, W.t()), x, W.t())
    for layout_b, b_row in (("col", False), ("row", True)):
        A, B = make(torch, 333, 1000, "bfloat16", True, 86), make(torch, 1000, 1000, "bfloat16", b_row, 87)
        for config in registry.hopper_configs("bf16", "bf16", "row", layout_b):
            twin = registry.cluster_twin(config)
            if twin is None:
                continue
            D = torch.full((333, 1000), float("nan"), device="cuda", dtype=torch.bfloat16)
            tessel.gemm(A, B, config=twin, out=D)
            torch.cuda.synchronize()
            check(torch, D, A, B)


def test_hopper_batches_with_rows_off_sectors(hopper):
    """A batch whose rows start off 32-byte sectors (K = 1000) runs a cluster twin in the
    kernel's batch mode: with an odd count of row tiles per matrix (600 rows: 5 tiles, the last
    cluster's second CTA past M) no row of one matrix may spill into the next. D NaN-poisoned;
    B row-major (N-major) and column-major slices."""
    torch = hopper
    for l, m, n, k, b_row in [(3, 600, 2048, 1000, True), (4, 1000, 2048, 1000, False), (2, 600, 3072, 1000, False)]:
        g = torch.Generator(device="cuda").manual_seed(90 + l)
        A = (torch.rand(l, m, k, device="cuda", generator=g) * 2 - 1).to(torch.bfloat16)
        W = (torch.rand(l, n, k, device="cuda", generator=g) * 2 - 1).to(torch.bfloat16)
        B = W.transpose(1, 2).contiguous() if b_row else W.transpose(1, 2)  # (l, k, n)
        D = torch.full((l, m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        importlib.import_module("tessel.gemm").gemm_batched(A, B, D)
        torch.cuda.synchronize()
        for i in range(l):
            check(torch, D[i], A[i], B[i])


def test_hopper_edge_tiles_write_d_and_nothing_past_it(hopper):
    """Tiles past M or N store through TMA, which drops what lies past D's edges (the linear
    combination without C, an activation included; with C they store from registers). D is a
    window of a NaN-poisoned buffer with rows and columns beyond it on every side: every element of
    D must be right, and nothing outside it written. Every registry tile and its cluster twin on
    ragged M and N (the last row and column tiles partial, a cluster's second CTA past M), a
    batch, and a C."""
    torch = hopper
    from tessel.jit import registry

    def window(m, n, ld, top=3, left=8):
        big = torch.full((top + m + 5, ld), float("nan"), device="cuda", dtype=torch.bfloat16)
        return big, big[top:top + m, left:left + n]

    def untouched(big, D):
        outside = torch.ones_like(big, dtype=torch.bool)
        r0, c0 = (D.data_ptr() - big.data_ptr()) // 2 // big.stride(0), (D.data_ptr() - big.data_ptr()) // 2 % big.stride(0)
        outside[r0:r0 + D.shape[0], c0:c0 + D.shape[1]] = False
        assert big[outside].isnan().all(), "an element outside D was written"

    configs = registry.hopper_configs("bf16", "bf16", "row", "col")
    configs += [t for t in map(registry.cluster_twin, configs) if t is not None]
    for m, n, k in [(1000, 1000, 1008), (600, 392, 512), (130, 200, 256)]:
        x, W = make(torch, m, k, "bfloat16", True, 80), make(torch, n, k, "bfloat16", True, 81)
        for config in configs:
            for epilogue in ("linear",) if config.scheduler == "stream_k" else ("linear", "relu"):
                big, D = window(m, n, n + 72)
                tessel.gemm(x, W.t(), config=config.replace(epilogue=epilogue), out=D)
                torch.cuda.synchronize()
                check(torch, D, x, W.t(), activation=torch.relu if epilogue == "relu" else None)
                untouched(big, D)
        big, D = window(m, n, n + 72)
        bias = make(torch, 1, n, "bfloat16", True, 82).expand(m, n)
        check(torch, tessel.gemm(x, W.t(), bias, beta=1.0, out=D), x, W.t(), bias, beta=1.0)
        untouched(big, D)
    # A batch: rows past M of one matrix are the next matrix's first rows.
    A = (torch.rand(3, 600, 512, device="cuda") * 2 - 1).to(torch.bfloat16)
    B = (torch.rand(3, 392, 512, device="cuda") * 2 - 1).to(torch.bfloat16).transpose(1, 2)
    D = torch.full((3, 600, 392), float("nan"), device="cuda", dtype=torch.bfloat16)
    importlib.import_module("tessel.gemm").gemm_batched(A, B, D)
    torch.cuda.synchronize()
    for i in range(3):
        check(torch, D[i], A[i], B[i])


def test_hopper_decode_runs_on_d_transposed(hopper):
    """x @ W.t() with a few tokens runs as D^T = W x^T with D^T stored column-major (the weights
    fill the tiles' rows): every registry kernel on that problem, ragged M, N and K, on a
    NaN-poisoned D; tessel.gemm's own choice, with and without a fused activation; and with a
    bias (a C), which keeps the problem as given."""
    torch = hopper
    from tessel import _core
    from tessel.jit import registry
    dispatcher = importlib.import_module("tessel.gemm")._dispatcher
    stream = torch.cuda.current_stream().cuda_stream
    for m, n, k in [(1, 4096, 4096), (7, 1000, 520), (33, 3000, 1024), (48, 8192, 4096)]:
        x, W = make(torch, m, k, "bfloat16", True, 70), make(torch, n, k, "bfloat16", True, 71)
        for config in registry.hopper_configs("bf16", "bf16", "row", "col"):
            D = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
            _core.time_launches(tessel.kernel_for(x, W.t(), config=config), [(x, W.t(), D)], 1, stream, True)
            torch.cuda.synchronize()
            check(torch, D, x, W.t())
        D = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        assert dispatcher.select(x, W.t(), None, D, 0)[1], f"{m}x{n}x{k} did not run on D^T"
        check(torch, tessel.gemm(x, W.t(), out=D), x, W.t())
        check(torch, tessel.gemm(x, W.t(), epilogue="relu"), x, W.t(), activation=torch.relu)
        bias = make(torch, 1, n, "bfloat16", True, 72).expand(m, n)
        assert not dispatcher.select(x, W.t(), bias, D, 0)[1]
        check(torch, tessel.gemm(x, W.t(), bias, beta=1.0), x, W.t(), bias, beta=1.0)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_hopper_decode_on_the_small_n_ring(hopper, dtype):
    """x @ W.t() with at most 16 tokens and enough weight rows runs on the small-N TMA ring on
    D^T's problem (kernel/small_n_rules.hpp), both rings (K below and from 8192) and both widths
    (8 and 16 tokens), ragged sizes, bf16 and f16, on a NaN-poisoned D; 17 tokens and a bias do
    not take it."""
    torch = hopper
    dispatcher = importlib.import_module("tessel.gemm")._dispatcher
    short = {"bfloat16": "bf16", "float16": "f16"}[dtype]
    for m, n, k in [(1, 4096, 4096), (7, 2048, 520), (16, 3000, 1000), (9, 4096, 8192), (3, 28672, 8192)]:
        x, W = make(torch, m, k, dtype, True, 80), make(torch, n, k, dtype, True, 81)
        D = torch.full((m, n), float("nan"), device="cuda", dtype=getattr(torch, dtype))
        kernel, transposed = dispatcher.select(x, W.t(), None, D, 0)
        assert kernel.small_n and transposed and f"_small_n_tma_{short}_" in kernel.name, f"{m}x{n}x{k}: {kernel.name}"
        check(torch, tessel.gemm(x, W.t(), out=D), x, W.t())
        check(torch, tessel.gemm(x, W.t(), alpha=0.5), x, W.t(), alpha=0.5)
    if dtype == "float16":
        return
    # tessel.tune has nothing to time where the ring runs: one kernel, reported as such.
    assert tessel.tune([(16, 4096, 4096)]) == [((16, 4096, 4096), "tessel_sm90_gemm_small_n_tma_bf16_n16_4box", {})]
    x, W = make(torch, 17, 4096, "bfloat16", True, 82), make(torch, 4096, 4096, "bfloat16", True, 83)
    assert not dispatcher.select(x, W.t(), None, torch.empty(17, 4096, device="cuda", dtype=torch.bfloat16), 0)[0].small_n
    bias = make(torch, 1, 4096, "bfloat16", True, 84).expand(16, 4096)
    x16 = x[:16]
    assert not dispatcher.select(x16, W.t(), bias, torch.empty(16, 4096, device="cuda", dtype=torch.bfloat16), 0)[0].small_n


def test_hopper_choice_follows_the_shape(hopper, tmp_path, monkeypatch):
    """The dispatcher chooses by shape: a decode call (16 tokens through a 4096 x 4096 weight, as
    torch.nn.Linear calls it) gets the narrow 128x64 tile, a large square one the 128x256 tile,
    and each says why. (The heuristic's choice: an empty tuning cache.)"""
    torch = hopper
    import importlib
    from tessel.jit import tuning
    monkeypatch.setenv("TESSEL_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("TESSEL_TUNE", raising=False)
    tuning.forget()
    importlib.import_module("tessel.gemm")._dispatcher.clear()
    W = make(torch, 4096, 4096, "bfloat16", True, 59)
    x = make(torch, 32, 4096, "bfloat16", True, 60)
    kernel, reason = tessel.kernel_for(x, W.t(), explain=True)
    assert kernel.name.endswith("_streamk") and "stream-K" in reason, (kernel.name, reason)
    check(torch, tessel.gemm(x, W.t()), x, W.t())
    x16 = make(torch, 16, 4096, "bfloat16", True, 64)  # 16 tokens or fewer: the small-N TMA ring
    kernel, reason = tessel.kernel_for(x16, W.t(), explain=True)
    assert kernel.small_n and "small-N TMA ring" in reason, (kernel.name, reason)
    big = make(torch, 4096, 4096, "bfloat16", True, 61)
    kernel, reason = tessel.kernel_for(big, W.t(), explain=True)
    assert "_128x256x64_" in kernel.name and "4 wave(s)" in reason, (kernel.name, reason)
    assert tessel.warmup([(32, 4096, 4096), (4096, 4096, 4096)]) == [tessel.kernel_for(x, W.t()).name, kernel.name]


def test_hopper_tune_keeps_the_fastest(hopper, tmp_path, monkeypatch):
    """tessel.tune times the heuristic's first candidates, stores the fastest in the tuning cache,
    and tessel.gemm then runs it (and says so); the result is still right."""
    torch = hopper
    import importlib
    from tessel.jit import tuning
    monkeypatch.setenv("TESSEL_CACHE_DIR", str(tmp_path))
    tuning.forget()
    [(shape, name, timings)] = tessel.tune([(32, 4096, 4096)], top=3)
    assert shape == (32, 4096, 4096) and len(timings) == 3 and name in timings and min(timings.values()) == timings[name]
    assert (tmp_path / tuning.FILE).is_file()
    W = make(torch, 4096, 4096, "bfloat16", True, 62)
    x = make(torch, 32, 4096, "bfloat16", True, 63)
    kernel, reason = tessel.kernel_for(x, W.t(), explain=True)
    on_dt = name.endswith(" on D^T")  # the fastest may run on D^T's problem (decode)
    assert kernel.name == name.removesuffix(" on D^T") and reason.startswith("tuned on this GPU"), (kernel.name, reason)
    assert on_dt == ("on D^T's problem" in reason) == importlib.import_module("tessel.gemm")._dispatcher.select(
        x, W.t(), None, torch.empty(32, 4096, device="cuda", dtype=torch.bfloat16), 0)[1]
    check(torch, tessel.gemm(x, W.t()), x, W.t())
    tuning.forget()
    importlib.import_module("tessel.gemm")._dispatcher.clear()


@pytest.mark.parametrize("config", [
    tessel.GemmConfig(arch="sm90a", element="bf16", out="f32", layout_a="col", layout_b="row", tile=(64, 128, 64), schedule="pingpong"),
    tessel.GemmConfig(arch="sm90a", element="f16", out="f16", cluster=(2, 1, 1), tile=(128, 128, 64), stages=5),
    tessel.GemmConfig(arch="sm90a", element="bf16", out="bf16", layout_a="row", layout_b="row", cluster=(2, 1, 1)),
], ids=["nt_pingpong", "tn_c2", "tt_c2"])
def test_hopper_jit_configuration_end_to_end(hopper, tmp_path, monkeypatch, config):
    """A Hopper configuration no prebuilt kernel has: compiled cold (within 20 s), cached, loaded
    again from the cache, and run through both entry points."""
    torch = hopper
    monkeypatch.setenv("TESSEL_CACHE_DIR", str(tmp_path))
    from tessel.jit import compiler
    monkeypatch.setattr(compiler, "_memo", {})
    k = tessel.compile(config)
    assert not k.cache_hit and k.target == "sm_90a" and k.seconds < 20
    ab = {"f16": "float16", "bf16": "bfloat16"}[config.element]
    out = {"f16": "float16", "bf16": "bfloat16", "f32": "float32"}[config.out]
    A = make(torch, 304, 136, ab, config.layout_a == "row", 51)  # a column-major A needs M % 8 == 0
    B = make(torch, 136, 264, ab, config.layout_b == "row", 52)
    D = k(A, B)
    assert D.dtype == getattr(torch, out)
    check(torch, D, A, B)
    check(torch, tessel.gemm(A, B, config=config), A, B)
    compiler._memo.clear()
    again = tessel.compile(config)
    assert again.cache_hit and again.seconds < 0.05


@pytest.mark.parametrize("tile, cluster, schedule, a_row, b_row", [
    ((128, 64, 64), (1, 2, 1), "cooperative", True, False),
    ((128, 64, 64), (2, 2, 1), "cooperative", True, False),
    ((128, 128, 64), (1, 2, 1), "pingpong", True, False),
    ((128, 256, 64), (2, 2, 1), "cooperative", True, True),
    ((128, 128, 64), (1, 2, 1), "cooperative", False, False),
], ids=["64_c1x2", "64_c2x2", "128_pingpong_c1x2", "256_c2x2_tt", "128_c1x2_nn"])
def test_hopper_clusters_along_n(hopper, tile, cluster, schedule, a_row, b_row):
    """Clusters along N share A's loads (each CTA of a cluster row multicasts its half of A's
    stage to the other), 2x2 ones A's and B's. Shapes whose tile counts are odd along M and N, so
    that the last cluster's CTAs past the problem compute zeros and store nothing; K = 1000 (rows
    off 32-byte sectors, the case the clusters are for) and more tiles than clusters (the
    persistent loop); D poisoned first."""
    torch = hopper
    config = tessel.GemmConfig(arch="sm90a", element="bf16", out="bf16", tile=tile, cluster=cluster, schedule=schedule,
                               layout_a="row" if a_row else "col", layout_b="row" if b_row else "col")
    for m, n, k in ((1000, 1000, 1000), (136, 200, 64), (2000, 2088, 1000)):
        A = make(torch, m, k, "bfloat16", a_row, 61)
        B = make(torch, k, n, "bfloat16", b_row, 62)
        D = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        tessel.gemm(A, B, out=D, config=config)
        check(torch, D, A, B)


def test_hopper_many_tiles_and_reused_tensor_maps(hopper):
    """More tiles than resident CTAs (the persistent loop), and a second call on the same memory
    (the launcher reuses its tensor maps) after the operands changed in place."""
    torch = hopper
    A, B = make(torch, 2048, 256, "bfloat16", True, 53), make(torch, 256, 2304, "bfloat16", False, 54)
    D = tessel.gemm(A, B)
    check(torch, D, A, B)
    A.copy_(make(torch, 2048, 256, "bfloat16", True, 55))
    tessel.gemm(A, B, out=D)
    check(torch, D, A, B)


@pytest.mark.parametrize("m, n, k, dtype", [(64, 4096, 4096, "bfloat16"), (112, 1000, 1040, "float16"), (64, 8192, 512, "bfloat16")])
def test_sixty_four_row_tile_with_every_epilogue(hopper, m, n, k, dtype):
    """64 and 112 tokens run the 64x64 ping-pong tile as given (dispatch::choose_oriented, where
    the estimate puts it ahead of D^T's problem): the plain and each fused activation, on a
    NaN-poisoned D, within the float64 budget; ragged N and K included."""
    torch = hopper
    x, W = make(torch, m, k, dtype, True, 80), make(torch, n, k, dtype, True, 81)
    for act, fn in ((None, None), ("relu", torch.relu), ("gelu", torch.nn.functional.gelu), ("silu", torch.nn.functional.silu)):
        kernel, reason = tessel.kernel_for(x, W.t(), epilogue=act, explain=True)
        if act is not None or m == 64:  # 112 tokens take stream-K for the plain call (no fused stream-K kernels)
            assert "_64x64x64_" in kernel.name and "pingpong" in kernel.name, (kernel.name, reason)
        D = torch.full((m, n), float("nan"), device="cuda", dtype=getattr(torch, dtype))
        tessel.gemm(x, W.t(), out=D, epilogue=act)
        check(torch, D, x, W.t(), activation=fn)
