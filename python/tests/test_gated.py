"""SiLU-and-multiply (tessel.silu_mul, tessel/gated.py) and tessel.nn.GatedMLP: the kernels'
source and compilation without a GPU; on a CUDA device, both kernels against float64 on every
width path (16-byte packs, the tail, misaligned views), autograd, opcheck, torch.compile, and
the block against torch's own."""

import struct

import pytest

from tessel.jit import elementwise

# Relative to each value plus 5% of the largest: the sigmoid is the special-function unit's
# (__expf, __fdividef: a few f32 ulp), which near silu's turning points is absolute, not relative.
TOL = {"float32": 1e-4, "float16": 1e-3, "bfloat16": 8e-3}


def test_parameter_layouts_pack_as_the_launcher_packs():
    for name, layout in elementwise.PARAMS_LAYOUT.items():
        params = [p for p in layout if p != "size"]
        assert [layout[p] for p in params] == [8 * i for i in range(len(params))], name
        assert struct.calcsize(f"<{len(params) - 1}Qq") == layout["size"], name
        assert params[-1] == "n"


def test_source_and_expressions():
    for element, cpp in elementwise.ELEMENTS.items():
        src = elementwise.source(element)
        assert '#include "tessel/elementwise/silu_mul.hpp"' in src
        assert f"kThreads == {elementwise.THREADS}" in src
        assert elementwise.expression("silu_mul", element, 8) == f"tessel::elementwise::silu_mul_kernel<{cpp}, 8>"
    assert elementwise.vector("bf16", True) == 8 and elementwise.vector("f32", True) == 4
    assert elementwise.vector("f16", False) == 1
    with pytest.raises(ValueError, match="elementwise kernels take f32, f16, bf16, not 'e4m3'"):
        elementwise.source("e4m3")


@pytest.mark.parametrize("target", ["sm_90a", "sm_80"])
def test_the_kernels_compile_and_are_cached(toolkit, cache_dir, monkeypatch, target):
    monkeypatch.setattr(elementwise, "_memo", {})
    kernels = elementwise.compile_kernels("bf16", target)
    assert set(kernels) == {(k, v) for k in elementwise.KERNELS for v in (1, 8)}
    for (kernel, vec), (cubin, symbol) in kernels.items():
        assert cubin[:4] == b"\x7fELF" and symbol.startswith("_ZN6tessel11elementwise"), (kernel, vec, symbol)
        assert (kernel + "_kernel") in symbol
    assert len(list(cache_dir.glob("*.cubin"))) == 1
    monkeypatch.setattr(elementwise, "_memo", {})
    again = elementwise.compile_kernels("bf16", target)  # from the disk cache: same bytes, same names
    assert again == kernels and len(list(cache_dir.glob("*.cubin"))) == 1


# ---- CPU: fake kernels and errors ----------------------------------------------------------------

def test_fake_kernels_and_argument_errors(torch_cpu):
    torch = torch_cpu
    from torch._subclasses.fake_tensor import FakeTensorMode
    from tessel import ops
    with FakeTensorMode():
        g = torch.empty(3, 5, 7, dtype=torch.bfloat16, device="cuda")
        h = torch.ops.tessel.silu_mul(g, torch.empty_like(g))
        assert h.shape == g.shape and h.dtype == g.dtype
        dg, du = torch.ops.tessel.silu_mul_backward(h, g, g)
        assert dg.shape == du.shape == g.shape
    g = torch.zeros(4, 6, dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="u has shape \\(4, 5\\) and g \\(4, 6\\).*one shape"):
        ops.silu_mul(g, torch.zeros(4, 5, dtype=torch.bfloat16))
    with pytest.raises(TypeError, match="u is torch.float16 and g torch.bfloat16"):
        ops.silu_mul(g, torch.zeros(4, 6, dtype=torch.float16))
    with pytest.raises(TypeError, match="g is torch.int32; the kernel takes float32, float16 or bfloat16"):
        ops.silu_mul(torch.zeros(4, 6, dtype=torch.int32), torch.zeros(4, 6, dtype=torch.int32))
    with pytest.raises(ValueError, match="on cpu; the kernel runs on a CUDA device"):
        ops.silu_mul(g, g)


def test_gated_mlp_module_on_the_cpu(torch_cpu):
    torch = torch_cpu
    import tessel
    torch.manual_seed(0)
    mlp = tessel.nn.GatedMLP(16, 40)
    assert sorted(mlp.state_dict()) == ["down_proj.weight", "gate_proj.weight", "up_proj.weight"]
    x = torch.randn(3, 16)
    want = mlp.down_proj.weight @ (torch.nn.functional.silu(mlp.gate_proj.weight @ x.T) * (mlp.up_proj.weight @ x.T))
    torch.testing.assert_close(mlp(x), want.T)
    lin = [torch.nn.Linear(16, 40, bias=False), torch.nn.Linear(16, 40, bias=False), torch.nn.Linear(40, 16, bias=False)]
    shared = tessel.nn.GatedMLP.from_projections(*lin)
    assert shared.up_proj.weight is lin[1].weight
    with pytest.raises(ValueError, match="do not make a block"):
        tessel.nn.GatedMLP.from_projections(lin[0], lin[2], lin[1])


# ---- on the device -------------------------------------------------------------------------------

def _reference(torch, g, u, dh=None):
    x, y = g.double(), u.double()
    s = torch.sigmoid(x)
    if dh is None:
        return x * s * y
    d = dh.double()
    return d * y * s * (1 + x * (1 - s)), d * x * s


def _close(torch, got, want, dtype):
    assert not torch.isnan(got).any(), "NaN in the result"
    if want.numel() == 0:
        return
    err = ((got.double() - want).abs() / (want.abs() + 0.05 * want.abs().max() + 1e-30)).max().item()
    assert err <= TOL[dtype], f"{dtype}: worst relative error {err:.2e} above {TOL[dtype]:.0e}"


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32"])
@pytest.mark.parametrize("shape", [(4096, 1000), (3, 7), (1, 8), (13, 9, 11), (0, 5)])
def test_forward_and_backward_against_float64(torch_cuda, dtype, shape):
    torch = torch_cuda
    from tessel import gated
    gen = torch.Generator(device="cuda").manual_seed(sum(shape) + len(dtype))
    g, u, dh = ((torch.rand(*shape, device="cuda", generator=gen) * 16 - 8).to(getattr(torch, dtype)) for _ in range(3))
    h = gated.silu_mul(g, u)
    assert h.shape == g.shape and h.dtype == g.dtype and h.is_contiguous()
    _close(torch, h, _reference(torch, g, u), dtype)
    dg, du = gated.silu_mul_backward(dh, g, u)
    want_g, want_u = _reference(torch, g, u, dh)
    _close(torch, dg, want_g, dtype)
    _close(torch, du, want_u, dtype)


def test_misaligned_and_strided_views(torch_cuda):
    """A view starting 2 bytes into a 16-byte pack runs the one-element kernels; a transposed view
    is made contiguous; both agree with float64, and the pack path touches nothing past n."""
    torch = torch_cuda
    from tessel import gated
    base = (torch.rand(2, 8 * 1000 + 1, device="cuda") * 8 - 4).to(torch.bfloat16)
    g, u = base[0, 1:], base[1, 1:]  # 8000 elements from an odd element: not 16-byte aligned
    assert g.data_ptr() % 16
    _close(torch, gated.silu_mul(g, u), _reference(torch, g, u), "bfloat16")
    gt, ut = base[:, :64].t(), base[:, 64:128].t()  # (64, 2), strides (1, 8001)
    _close(torch, gated.silu_mul(gt, ut), _reference(torch, gt, ut), "bfloat16")
    # Outputs of an odd count land exactly: poison a larger buffer and check the words past the end.
    n = 8 * 37 + 5
    g, u = base[0, :n].clone(), base[1, :n].clone()
    out = torch.full((n + 64,), float("nan"), device="cuda", dtype=torch.bfloat16)
    gated._launch("silu_mul", (g, u), (out[:n],))
    _close(torch, out[:n], _reference(torch, g, u), "bfloat16")
    assert torch.isnan(out[n:]).all(), "the kernel wrote past n"


def test_autograd_opcheck_and_compile(torch_cuda):
    torch = torch_cuda
    import tessel
    from tessel import ops
    g = (torch.rand(64, 96, device="cuda", dtype=torch.float32) * 8 - 4).requires_grad_()
    u = (torch.rand(64, 96, device="cuda", dtype=torch.float32) * 8 - 4).requires_grad_()
    h = ops.silu_mul(g, u)
    dh = torch.rand_like(h)
    dg, du = torch.autograd.grad(h, (g, u), dh)
    gr, ur = g.detach().double().requires_grad_(), u.detach().double().requires_grad_()
    want_g, want_u = torch.autograd.grad(torch.nn.functional.silu(gr) * ur, (gr, ur), dh.double())
    torch.testing.assert_close(dg.double(), want_g, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(du.double(), want_u, rtol=1e-4, atol=1e-4)
    torch.library.opcheck(torch.ops.tessel.silu_mul.default, (g.detach().bfloat16(), u.detach().bfloat16()))
    torch.library.opcheck(torch.ops.tessel.silu_mul_backward.default,
                          (dh.bfloat16(), g.detach().bfloat16(), u.detach().bfloat16()))
    compiled = torch.compile(lambda a, b: tessel.silu_mul(a, b) * 2, fullgraph=True)
    torch.testing.assert_close(compiled(g.detach(), u.detach()), 2 * ops.silu_mul(g.detach(), u.detach()))


def test_gated_mlp_matches_torch_block(hopper):
    """The block forward and backward against the same parameters in torch.nn.Linear layers."""
    torch = hopper
    import tessel
    torch.manual_seed(1)
    lin = [torch.nn.Linear(256, 704, bias=False), torch.nn.Linear(256, 704, bias=False), torch.nn.Linear(704, 256, bias=False)]
    lin = [layer.to("cuda", torch.bfloat16) for layer in lin]
    mlp = tessel.nn.GatedMLP.from_projections(*lin)
    x = (torch.rand(200, 256, device="cuda") * 2 - 1).to(torch.bfloat16).requires_grad_()
    results = []
    for forward in (lambda t: lin[2](torch.nn.functional.silu(lin[0](t)) * lin[1](t)), mlp):
        for p in mlp.parameters():
            p.grad = None
        x.grad = None
        y = forward(x)
        y.float().square().mean().backward()
        results.append([y.detach()] + [t.grad.clone() for t in (x, *mlp.parameters())])
    for got, want in zip(*reversed(results)):
        rel = ((got.double() - want.double()).norm() / want.double().norm()).item()
        assert rel <= 1e-2, rel
