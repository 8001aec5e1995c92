"""The PyTorch layer (tessel/ops.py, tessel/nn.py): torch.library ops, autograd, torch.compile,
batches, tessel.nn.Linear. CPU tests need only PyTorch; the rest a CUDA device, and check every
result against float64 on poisoned (NaN-filled) memory where tessel writes into a given D."""

import math

import pytest

import tessel

TOL = {"bfloat16": 2e-2, "float16": 4e-3}


def rand(torch, *shape, dtype, seed, device):
    g = torch.Generator(device=device).manual_seed(seed)
    return (torch.rand(*shape, device=device, generator=g) * 2 - 1).to(getattr(torch, dtype))


def close(torch, got, want, dtype, scale):
    """|got - want| within the dtype's rounding of values of size `scale` (sqrt(K) for a dot)."""
    assert got.shape == want.shape, (got.shape, want.shape)
    assert not torch.isnan(got).any(), "NaN in the result"
    err = (got.double() - want.double()).abs().max().item()
    assert err <= TOL[dtype] * scale, f"max error {err} above {TOL[dtype] * scale}"


# ---- CPU: registration, fake kernels, errors, the module -------------------------------------

def test_ops_are_registered_with_schemas(torch_cpu):
    torch = torch_cpu
    from tessel import ops  # noqa: F401
    schema = str(torch.ops.tessel.mm.default._schema)
    assert "Tensor a, Tensor b, Tensor? bias=None, str activation=\"linear\"" in schema, schema
    assert "tessel::bmm" in str(torch.ops.tessel.bmm.default._schema)


def test_import_tessel_after_torch_registers_every_op(torch_cpu):
    """`import torch, tessel` is enough for torch.ops.tessel.*: a fresh interpreter, no other
    tessel name touched; `import tessel` alone does not import torch."""
    import subprocess
    import sys
    names = ("mm", "bmm", "grouped_mm", "scaled_mm", "scaled_grouped_mm", "quantize_fp8_1x128", "silu_mul")
    code = ("import torch, tessel\n"
            f"for name in {names!r}:\n"
            "    assert hasattr(torch.ops.tessel, name), name\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    alone = subprocess.run([sys.executable, "-c", "import sys, tessel\nassert 'torch' not in sys.modules"],
                           capture_output=True, text=True, timeout=120)
    assert alone.returncode == 0, alone.stderr[-2000:]


def test_fake_kernels_give_shapes_and_dtypes(torch_cpu):
    torch = torch_cpu
    from torch._subclasses.fake_tensor import FakeTensorMode
    from tessel import ops  # noqa: F401
    with FakeTensorMode():
        a = torch.empty(33, 64, dtype=torch.bfloat16, device="cuda")
        b = torch.empty(64, 40, dtype=torch.bfloat16, device="cuda")
        d = torch.ops.tessel.mm(a, b, None, "relu", torch.float32)
        assert d.shape == (33, 40) and d.dtype == torch.float32 and d.device.type == "cuda"
        a3, b3 = torch.empty(3, 33, 64, dtype=torch.float16), torch.empty(3, 64, 8, dtype=torch.float16)
        assert torch.ops.tessel.bmm(a3, b3).shape == (3, 33, 8)
        y = tessel.linear(torch.empty(2, 5, 64, dtype=torch.bfloat16), torch.empty(16, 64, dtype=torch.bfloat16))
        assert y.shape == (2, 5, 16)
        assert tessel.matmul(torch.empty(4, 1, 7, 64, dtype=torch.float16), torch.empty(3, 64, 9, dtype=torch.float16)).shape \
            == (4, 3, 7, 9)
        with pytest.raises(ValueError, match="a's last extent"):
            torch.ops.tessel.mm(a, a)


@pytest.mark.parametrize("call, error, words", [
    (lambda t: t.ops.tessel.mm(t.empty(4, 8, dtype=t.float32), t.empty(8, 4, dtype=t.float32)), TypeError, "allow_tf32"),
    (lambda t: t.ops.tessel.mm(t.empty(4, 8, dtype=t.float16), t.empty(8, 4, dtype=t.bfloat16)), TypeError, "same dtype"),
    (lambda t: t.ops.tessel.mm(t.empty(2, 4, 8, dtype=t.float16), t.empty(8, 4, dtype=t.float16)), ValueError, "3 dimensions"),
    (lambda t: t.ops.tessel.mm(t.empty(4, 8, dtype=t.float16), t.empty(8, 4, dtype=t.float16), t.empty(5, dtype=t.float16)),
     ValueError, "one value per output column"),
    (lambda t: t.ops.tessel.mm(t.empty(4, 8, dtype=t.float16), t.empty(8, 4, dtype=t.float16), None, "tanh"), ValueError, "activation"),
    (lambda t: t.ops.tessel.bmm(t.empty(2, 4, 8, dtype=t.float16), t.empty(3, 8, 4, dtype=t.float16)), ValueError, "batch count"),
    (lambda t: t.ops.tessel.mm(t.empty(4, 8, dtype=t.float16), t.empty(8, 4, dtype=t.float16)), ValueError, "CUDA tensors"),
    (lambda t: tessel.linear(t.empty(4, 8, dtype=t.float16), t.empty(4, 9, dtype=t.float16)), ValueError, "in_features"),
    (lambda t: tessel.matmul(t.empty((), dtype=t.float16), t.empty(4, dtype=t.float16)), ValueError, "at least 1 dimension"),
])
def test_refusals_name_the_problem(torch_cpu, call, error, words):
    with pytest.raises(error, match=words):
        call(torch_cpu)


def test_linear_is_a_drop_in_for_torch_linear(torch_cpu):
    torch = torch_cpu
    torch.manual_seed(0)
    ref = torch.nn.Linear(24, 16)
    layer = tessel.nn.Linear(24, 16, activation="gelu")
    layer.load_state_dict(ref.state_dict())
    assert set(layer.state_dict()) == {"weight", "bias"}
    ref.load_state_dict(layer.state_dict())
    x = torch.randn(3, 24)
    assert not layer.runs_on_tessel(x)  # CPU float32: torch's linear, then the activation
    assert torch.equal(layer(x), torch.nn.functional.gelu(ref(x)))
    shared = tessel.nn.Linear.from_linear(ref, activation="relu")
    assert shared.weight is ref.weight and shared.bias is ref.bias
    assert "activation=relu" in repr(shared)
    assert tessel.nn.Linear(4, 4, bias=False).bias is None
    with pytest.raises(ValueError, match="activation"):
        tessel.nn.Linear(4, 4, activation="tanh")


# ---- the layer on tessel's kernels (CUDA), and on an emulation of tessel.gemm (CPU) ---------------
# The emulation replaces only the kernel call (ops._gemm) with float32 torch arithmetic, so the
# autograd formulas, the fake kernels, opcheck and torch.compile are tested without a GPU too.

def _emulated_gemm(a, b, c=None, *, alpha=1.0, beta=0.0, out_dtype=None, epilogue=None, out=None):
    import torch
    y = alpha * (a.float() @ b.float())
    if c is not None and beta != 0:
        y = y + beta * c.float()
    y = {None: lambda t: t, "relu": torch.relu, "gelu": torch.nn.functional.gelu, "silu": torch.nn.functional.silu}[epilogue](y)
    if out is not None:
        return out.copy_(y)
    return y.to(out_dtype or a.dtype)


def _emulated_gemm_ex(a, b, c=None, *, beta=0.0, out_dtype=None, epilogue=None, tf32=False, scale_a=None, scale_b=None,
                      promoted=False):
    alpha = (1.0 if scale_a is None else scale_a.item()) * (1.0 if scale_b is None else scale_b.item())
    return _emulated_gemm(a, b, c, alpha=alpha, beta=beta, out_dtype=out_dtype, epilogue=epilogue)


@pytest.fixture(params=["emulated", "cuda"])
def dev(request, monkeypatch):
    """(torch, device): CUDA with tessel's kernels, or the CPU with tessel.gemm emulated."""
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    from tessel import ops
    if request.param == "cuda":
        if not torch.cuda.is_available():
            pytest.skip("no CUDA device (torch.cuda.is_available() is False)")
        return torch, "cuda"
    monkeypatch.setattr(ops, "_gemm", _emulated_gemm)
    monkeypatch.setattr(ops, "_gemm_ex", _emulated_gemm_ex)
    monkeypatch.setattr(ops, "_gemm_batched", lambda a, b, out, tf32=False: out.copy_(a.float() @ b.float()))
    monkeypatch.setattr(tessel.nn.Linear, "runs_on_tessel", lambda self, x: x.dtype in ops._KERNEL_DTYPES)
    return torch, "cpu"

@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("activation", ["linear", "relu", "gelu", "silu"])
@pytest.mark.parametrize("m, n, k", [(256, 384, 128), (77, 72, 64)])
def test_mm_with_bias_and_activation(dev, dtype, activation, m, n, k):
    torch, device = dev
    a, b = rand(torch, m, k, dtype=dtype, seed=1, device=device), rand(torch, n, k, dtype=dtype, seed=2, device=device).t()
    bias = rand(torch, n, dtype=dtype, seed=3, device=device)
    d = torch.ops.tessel.mm(a, b, bias, activation)
    pre = a.double() @ b.double() + bias.double()
    want = {"linear": lambda x: x, "relu": torch.relu, "gelu": torch.nn.functional.gelu,
            "silu": torch.nn.functional.silu}[activation](pre)
    close(torch, d, want, dtype, math.sqrt(k))


def test_gemm_reads_a_repeated_c_as_a_bias(torch_cuda):
    """C with strides (0, 1) (one row over M) and (1, 0) (one column over N): ldc 0."""
    torch = torch_cuda
    for m, n, k in ((256, 256, 64), (100, 72, 40)):  # TMA kernel; Sm80 kernel (unaligned M)
        a, b = rand(torch, m, k, dtype="bfloat16", seed=4, device="cuda"), rand(torch, k, n, dtype="bfloat16", seed=5, device="cuda")
        row, col = rand(torch, n, dtype="float32", seed=6, device="cuda"), rand(torch, m, dtype="float32", seed=7, device="cuda")
        # A repeated column is column-major (strides (1, 0)), and C shares D's layout.
        for c, d in ((row.expand(m, n), torch.full((m, n), float("nan"), device="cuda")),
                     (col[:, None].expand(m, n), torch.full((n, m), float("nan"), device="cuda").t())):
            tessel.gemm(a, b, c, beta=0.5, out=d)
            close(torch, d, a.double() @ b.double() + 0.5 * c.double(), "bfloat16", math.sqrt(k))


@pytest.mark.parametrize("activation", ["linear", "relu", "gelu", "silu"])
def test_mm_gradients_match_torch(dev, activation):
    torch, device = dev
    m, n, k = 192, 136, 96
    a = rand(torch, m, k, dtype="bfloat16", seed=8, device=device).requires_grad_()
    w = rand(torch, n, k, dtype="bfloat16", seed=9, device=device).requires_grad_()
    bias = rand(torch, n, dtype="bfloat16", seed=10, device=device).requires_grad_()
    up = rand(torch, m, n, dtype="bfloat16", seed=11, device=device)
    (torch.ops.tessel.mm(a, w.t(), bias, activation) * up).sum().backward()
    a64, w64, b64 = (t.detach().double().requires_grad_() for t in (a, w, bias))
    act = {"linear": lambda x: x, "relu": torch.relu, "gelu": torch.nn.functional.gelu, "silu": torch.nn.functional.silu}
    (act[activation](a64 @ w64.t() + b64) * up.double()).sum().backward()
    close(torch, a.grad, a64.grad, "bfloat16", 4 * math.sqrt(n))
    close(torch, w.grad, w64.grad, "bfloat16", 4 * math.sqrt(m))
    close(torch, bias.grad, b64.grad, "bfloat16", 4 * math.sqrt(m))


def test_linear_forward_and_backward_match_torch_linear(dev):
    torch, device = dev
    torch.manual_seed(12)
    ref = torch.nn.Linear(256, 320, device=device, dtype=torch.bfloat16)
    for activation in ("silu", "relu", None):
        layer = tessel.nn.Linear.from_linear(ref, activation=activation)
        x = rand(torch, 2, 64, 256, dtype="bfloat16", seed=13, device=device).requires_grad_()
        assert layer.runs_on_tessel(x)
        y = layer(x)
        x64 = x.detach().double().requires_grad_()
        w64, b64 = ref.weight.detach().double().requires_grad_(), ref.bias.detach().double().requires_grad_()
        y64 = torch.nn.functional.linear(x64, w64, b64)
        y64 = {"silu": torch.nn.functional.silu, "relu": torch.relu, None: lambda t: t}[activation](y64)
        close(torch, y, y64, "bfloat16", 2 * math.sqrt(256))
        y.float().square().mean().backward()
        y64.square().mean().backward()
        close(torch, x.grad, x64.grad, "bfloat16", 0.05)
        close(torch, ref.weight.grad, w64.grad, "bfloat16", 0.05)
        ref.zero_grad()
        with torch.no_grad():  # inference: every activation fused
            close(torch, layer(x), y64, "bfloat16", 2 * math.sqrt(256))


@pytest.mark.parametrize("a_shape, b_shape", [
    ((5, 64, 48), (48, 80)),           # a shared weight: one GEMM over the flattened batch
    ((3, 64, 48), (3, 48, 80)),        # a batch
    ((2, 1, 64, 48), (3, 48, 80)),     # broadcast batches
    ((64, 48), (4, 48, 80)),           # a matrix against a batch
    ((48,), (48, 80)), ((64, 48), (48,)), ((48,), (48,)),
])
def test_matmul_has_torch_semantics(dev, a_shape, b_shape):
    torch, device = dev
    a, b = rand(torch, *a_shape, dtype="float16", seed=14, device=device), rand(torch, *b_shape, dtype="float16", seed=15, device=device)
    close(torch, tessel.matmul(a, b), torch.matmul(a.double(), b.double()), "float16", math.sqrt(48))


def test_bmm_with_batch_strides_and_gradients(dev):
    torch, device = dev
    base = rand(torch, 4, 80, 64, dtype="bfloat16", seed=16, device=device)
    a = base.transpose(1, 2)[:, :, :72].requires_grad_()   # (4,64,72), column-major slices
    b = rand(torch, 4, 72, 96, dtype="bfloat16", seed=17, device=device).requires_grad_()
    d = torch.ops.tessel.bmm(a, b)
    close(torch, d, a.double() @ b.double(), "bfloat16", math.sqrt(72))
    d.float().sum().backward()
    ones = torch.ones(4, 64, 96, dtype=torch.float64, device=device)
    close(torch, a.grad, ones @ b.double().transpose(1, 2), "bfloat16", 96)
    close(torch, b.grad, a.double().transpose(1, 2) @ ones, "bfloat16", 64)


def test_opcheck(dev):
    torch, device = dev
    a = rand(torch, 128, 64, dtype="bfloat16", seed=18, device=device).requires_grad_()
    b = rand(torch, 64, 192, dtype="bfloat16", seed=19, device=device).requires_grad_()
    bias = rand(torch, 192, dtype="bfloat16", seed=20, device=device).requires_grad_()
    for activation in ("linear", "relu"):
        torch.library.opcheck(torch.ops.tessel.mm.default, (a, b, bias, activation, None))
    torch.library.opcheck(torch.ops.tessel.mm.default, (a, b, None, "linear", torch.float32))
    a3 = rand(torch, 2, 128, 64, dtype="float16", seed=21, device=device).requires_grad_()
    b3 = rand(torch, 2, 64, 64, dtype="float16", seed=22, device=device).requires_grad_()
    torch.library.opcheck(torch.ops.tessel.bmm.default, (a3, b3, None))


def test_torch_compile_fullgraph(dev):
    torch, device = dev

    class MLP(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.gate = tessel.nn.Linear(128, 256, bias=False, device=device, dtype=torch.bfloat16)
            self.up = tessel.nn.Linear(128, 256, bias=False, device=device, dtype=torch.bfloat16)
            self.down = tessel.nn.Linear(256, 128, device=device, dtype=torch.bfloat16, activation="relu")

        def forward(self, x):
            return self.down(torch.nn.functional.silu(self.gate(x)) * self.up(x))

    torch.manual_seed(23)
    model = MLP()
    x = rand(torch, 96, 128, dtype="bfloat16", seed=24, device=device).requires_grad_()
    compiled = torch.compile(model, fullgraph=True, backend="inductor" if device == "cuda" else "aot_eager")
    y = compiled(x)
    close(torch, y, model(x).detach(), "bfloat16", 1.0)
    y.float().sum().backward()
    assert x.grad is not None and model.gate.weight.grad is not None and not torch.isnan(x.grad).any()


@pytest.mark.parametrize("l, m, n, k", [(64, 128, 128, 512), (7, 200, 136, 64), (3, 8, 16, 4096)])
def test_bmm_one_launch_matches_float64(torch_cuda, l, m, n, k):
    """The Hopper kernel's batch mode (3-D TMA maps, the scheduler's batches): every batch of D
    written, each against its own A and B."""
    torch = torch_cuda
    a = rand(torch, l, m, k, dtype="bfloat16", seed=25, device="cuda")
    b = rand(torch, l, n, k, dtype="bfloat16", seed=26, device="cuda").transpose(1, 2)  # (L,K,N), column-major slices
    d = torch.ops.tessel.bmm(a, b, torch.float32)
    close(torch, d, a.double() @ b.double(), "bfloat16", math.sqrt(k))


def test_batched_launch_refuses_overlapping_d(torch_cuda):
    torch = torch_cuda
    from tessel.gemm import _dispatcher
    a = torch.zeros(2, 64, 64, device="cuda", dtype=torch.float16)
    d = torch.zeros(64, 64, device="cuda", dtype=torch.float16)
    with pytest.raises(ValueError, match="batches would overlap"):
        _dispatcher.run_batched(a[0], a[0], d, 2, a.stride(0), a.stride(0), 64, 0)
    with pytest.raises(ValueError, match="non-negative"):
        _dispatcher.run_batched(a[0], a[0], d, 2, -1, a.stride(0), 4096, 0)


def test_gemm_batched_refuses_mismatched_batches(torch_cpu):
    torch = torch_cpu
    from tessel.gemm import gemm_batched
    a, b = torch.empty(3, 8, 8, dtype=torch.float16), torch.empty(2, 8, 8, dtype=torch.float16)
    with pytest.raises(ValueError, match="one batch count"):
        gemm_batched(a, b, torch.empty(3, 8, 8, dtype=torch.float16))
    with pytest.raises(ValueError, match="3-D"):
        gemm_batched(a[0], a[0], a[0])
