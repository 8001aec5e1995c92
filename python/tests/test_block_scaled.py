"""Block-scaled FP8 (torch._scaled_mm's blockwise scales through torch.ops.tessel.scaled_mm) and
its quantizer (tessel.quantize_fp8_1x128).

Host tests need no GPU: the configuration's numbers, the launcher's refusals on DLPack
descriptions without memory, and (with PyTorch) the argument rules through the real op and the
fake kernel. The GPU tests run the block-scaled Hopper kernel against a float64 reference over
the dequantized operands, with scales that change by up to 2^8 from block to block so that a
scale applied to the wrong rows, columns or K block errs far past the budget, and against
torch._scaled_mm where this PyTorch computes blockwise scales.
"""

import struct

import pytest
from dlpack_fake import FakeArray
from launch_checks import reaches_device, refused

import tessel
from tessel import _core
from tessel.jit import codegen_sm90, prebuilt, quantize, registry, sm90_rules
from tessel.jit.config import GemmConfig, block_scaled_config
from tessel.jit.status import ConfigError

BLK = 128


def blocks(x: int) -> int:
    return -(-x // BLK)


# ---- the configuration and the parameter block (no PyTorch) --------------------------------------

def test_the_block_scaled_configuration():
    """128 x 128 x 128 cooperative and promoted; the scales ride a ring of their own, two slots of
    16 K blocks (8592 bytes each with its barriers), and D goes out through one buffer per
    warpgroup: room for 6 stages, not 7."""
    c = block_scaled_config()
    assert c.name == "tessel_sm90_gemm_e4m3_e4m3_bf16_128x128x128_c1x1_6stage_coop_blockscaled_tn"
    assert c.block_scaled and c.kernel_schedule == "cooperative_blockscaled" and c.tma_boxes == ((128, 128), (128, 128))
    assert sm90_rules.scale_slots(6) == 2 and sm90_rules.scale_ring_bytes(128, 128, 6) == 2 * (4 * (16 * 132 + 32) + 16) and c.stage_count == 6
    assert c.smem_bytes == sm90_rules.smem_bytes(c.tile, 6, True) + 128 <= sm90_rules.SMEM_BYTES
    assert sm90_rules.smem_bytes(c.tile, 7, True) > sm90_rules.SMEM_BYTES
    assert c in registry.configs() and not GemmConfig(arch="sm90a", element="e4m3", out="bf16").block_scaled
    # The dispatcher's choice by shape never returns it: tessel.scaled_mm launches it directly.
    assert all(not k.block_scaled for k in registry.hopper_configs("e4m3", "bf16", "row", "col", promoted=True))
    assert "coop_blockscaled" in GemmConfig(arch="sm90a", element="e4m3", out="bf16", tile=(128, 64, 128),
                                            schedule="cooperative_blockscaled").name


def test_the_block_scaled_tile_follows_the_waves():
    """tessel.scaled_mm's block-scaled tile (config.block_scaled_tile_n): 128x192 where its waves
    take less time at its measured rate, 128x128 where the wider tile leaves more of a wave empty."""
    from tessel.jit.config import WIDE_BLOCK_SCALED_RATE, block_scaled_tile_n
    assert 1.0 < WIDE_BLOCK_SCALED_RATE < 1.5
    for m, n in ((4096, 7168), (8192, 7168), (4096, 18432), (2048, 4096)):  # 10 waves against 14; 19/28; 24/35; 3/4
        assert block_scaled_tile_n(m, n, 132) == 192, (m, n)
    for m, n in ((256, 384), (128, 128), (4096, 256), (0, 4096)):  # one wave of either: the narrower tile is done sooner
        assert block_scaled_tile_n(m, n, 132) == 128, (m, n)
    assert block_scaled_config(tile_n=block_scaled_tile_n(4096, 7168, 132)).tile == (128, 192, 128)
    assert block_scaled_config(tile_n=192) in registry.configs()


def test_the_wide_block_scaled_configuration():
    """128 x 192: a tile's columns start 0 or 64 into a block of B's scales and end in the next, so
    a slot holds two boxes of B (128 bytes each); 40 KB stages leave room for 4 of them."""
    c = GemmConfig(arch="sm90a", element="e4m3", out="bf16", tile=(128, 192, 128), schedule="cooperative_blockscaled")
    assert sm90_rules.scale_blocks_b(192) == 2 and sm90_rules.scale_blocks_b(128) == sm90_rules.scale_blocks_b(64) == 1
    assert sm90_rules.scale_ring_bytes(128, 192, 4) == 2 * (4 * (16 * 132 + 2 * 32) + 16)
    assert c.stage_count == 4 and sm90_rules.smem_bytes(c.tile, 5, True) > sm90_rules.SMEM_BYTES
    assert c.name == "tessel_sm90_gemm_e4m3_e4m3_bf16_128x192x128_c1x1_4stage_coop_blockscaled_tn"


@pytest.mark.parametrize("kwargs, words", [
    (dict(element="bf16", tile=(128, 128, 64)), "per-block scales are for FP8"),
    (dict(element="e4m3", tile=(128, 256, 128)), "BN at most 192"),
    (dict(element="e4m3", tile=(128, 128, 128), cluster=(2, 1, 1), scheduler="grouped"), "scheduler 'grouped'"),
    (dict(element="e4m3", tile=(128, 160, 128)), "one 128-row block of B.s scales \\(BN 64 or 128\\) or span two"),
    (dict(element="e4m3", tile=(128, 128, 128), scheduler="stream_k"), "it does not split K"),
])
def test_block_scaled_configurationsrefused(kwargs, words):
    with pytest.raises(ConfigError, match=words):
        GemmConfig(arch="sm90a", out="bf16", schedule="cooperative_blockscaled", **kwargs)


def test_grouped_block_scaled_configuration(toolkit):
    """tessel.grouped_gemm's kernel for per-block scales: the block-scaled tile on the grouped
    scheduler, which the rules allow (the promoted kernels refuse only stream-K, as the C++
    kernel's static_asserts do) and NVRTC compiles for sm_90a."""
    from tessel.grouped import block_scaled_config as grouped_block_scaled
    c = grouped_block_scaled()
    assert c.block_scaled and c.scheduler == "grouped" and c.tile == block_scaled_config().tile
    assert c.name.endswith("_coop_blockscaled_tn_grouped")
    promoted = GemmConfig(arch="sm90a", element="e4m3", out="bf16", tile=(128, 128, 128), schedule="cooperative_promoted",
                          scheduler="grouped")
    assert promoted.scheduler == "grouped"
    k = tessel.compile(c, target="sm_90a", use_cache=False)
    assert "KernelTmaWarpSpecializedCooperativeFP8BlockScaled" in codegen_sm90.source(c) and k.target == "sm_90a"


def test_the_scales_sit_where_the_kernel_reads_them():
    """Sm90GemmParams::scales is filled in the launcher's block, which the block-scaled source
    asserts is its own (kernel/sm90_params.hpp), with the scale ring's sizes."""
    source = codegen_sm90.source(block_scaled_config())
    assert "TESSEL_SM90_PARAMS_MATCH(Params)" in source
    assert "KernelTmaWarpSpecializedCooperativeFP8BlockScaled" in source
    assert "tessel::gemm::kernel::kScaleGroup == 16" in source
    assert "Config::kScaleBytes + Config::ScaleRing::kSlots * 16 == 17184" in source


def test_the_quantize_kernels_source_and_parameters():
    assert struct.calcsize(quantize.PACKING) == quantize.PARAMS_LAYOUT["size"]
    offsets, at = [], 0
    for code in quantize.PACKING[1:]:
        offsets.append(at)
        at += struct.calcsize("<" + code)
    # Three int64 strides make up ds: the last three fields.
    assert offsets[:8] == [quantize.PARAMS_LAYOUT[n] for n in ("x", "ldx", "m", "k", "q", "ldq", "scales", "ds")]
    for element in quantize.INPUTS:
        src = quantize.source(element)
        assert '#include "tessel/quant/fp8_quantize.hpp"' in src and "float_e4m3_t" in src
        assert quantize.name(element) == f"tessel_quantize_fp8_1x128_{element}_e4m3"
    with pytest.raises(ValueError, match="bf16 or f16"):
        quantize.name("f32")


def test_installed_quantize_kernels():
    entries = prebuilt.quantize_manifest()
    if not entries:
        pytest.skip("the package was built without nvcc (no prebuilt kernels)")
    from tessel.jit import cubin
    assert {e["input"] for e in entries} == set(quantize.INPUTS)
    for entry in entries:
        for target, file in entry["cubins"].items():
            data = (prebuilt.KERNEL_DIR / file).read_bytes()
            assert cubin.sm_version(data) == int(target[3:].rstrip("af"))
            assert cubin.kernel_symbol(data, quantize.KERNEL_SYMBOL_PREFIX)
    target = next(iter(entries[0]["cubins"]))
    found = prebuilt.find_quantize(entries[0]["input"], int(target[3:].rstrip("af")))
    assert found is not None and found[2] == target
    assert prebuilt.find_quantize("bf16", 75) is None


# ---- the launcher's refusals (DLPack descriptions, no GPU) ----------------------------------------

M, N, K = 256, 384, 512


def _kernel(block_scaled=True, element=3):
    box = (128, 128)
    return _core.Kernel(b"not a cubin", "test_blockscaled", "test_symbol", "sm_90a", element, 1, True, False, True, 0, 128, 128,
                        384, 200000, hopper=True, box_a=box, box_b=box, block_scaled=block_scaled)


def _operands(m=M, n=N, k=K, b_strides=None):
    a = FakeArray((m, k), "float8_e4m3fn", ptr=0x7F0000100000)
    b = FakeArray((k, n), "float8_e4m3fn", strides=b_strides or (1, k), ptr=0x7F0000200000)
    d = FakeArray((m, n), "bfloat16", ptr=0x7F0000400000)
    return a, b, d


def _run(kernel, a, b, d, sa=0x7F0000500000, sb=0x7F0000600000, sa_strides=(1, M), sb_strides=(blocks(K), 1)):
    _core.Dispatcher(None).run_block_scaled(kernel, a, b, None, d, 0.0, 0, sa, sa_strides, sb, sb_strides)


def test_block_scaled_launch_checks():
    a, b, d = _operands()
    reaches_device(lambda: _run(_kernel(), a, b, d))
    refused(lambda: _run(_kernel(block_scaled=False), a, b, d), "kErrorNotSupported", "applies no block scales")
    refused(lambda: _run(_kernel(), a, b, d, sa=0), "kErrorInvalidProblem", "without scale_a or scale_b")
    refused(lambda: _run(_kernel(), a, b, d, sa=0x7F0000500002), "kErrorMisalignedOperand", "4-byte aligned")
    refused(lambda: _run(_kernel(), a, b, d, sa_strides=(-1, M)), "kErrorInvalidProblem", "strides >= 0")
    # A row-major B with a column-major D would be the transposed problem, whose scales differ.
    rb = FakeArray((K, N), "float8_e4m3fn", ptr=0x7F0000200000)
    refused(lambda: _run(_kernel(), a, rb, d), "kErrorInvalidLayout", "not transposed")
    bf = FakeArray((M, N), "float16", ptr=0x7F0000400000)
    refused(lambda: _run(_kernel(), a, b, bf), "kErrorInvalidDataType", "takes float8_e4m3fn A and B and bfloat16 D")
    # The kernel's argument checks: TMA reads A and B, so K must be 16-byte aligned.
    a2, b2, d2 = _operands(k=520)
    refused(lambda: _run(_kernel(), a2, b2, d2), "kErrorMisalignedOperand", "")


def test_a_block_scaled_kernel_needs_its_scales():
    """run_kernel (tessel.compile(config)(A, B)) has no scales to give: refused, not launched
    with null scales."""
    a, b, d = _operands()
    refused(lambda: _core.Dispatcher(None).run_kernel(_kernel(), a, b, None, d, 1.0, 0.0, 0), "kErrorNotSupported",
             "applies per-block scales")
    with pytest.raises(ValueError, match="Hopper FP8 kernel"):
        _kernel(element=1)


# ---- the argument rules and the fake kernels (PyTorch, CPU) ---------------------------------------

def _block_scales(torch, m, n, k, device="cpu"):
    """scale_a (M, ceil(K/128)) strides (1, M) and scale_b (ceil(K/128), ceil(N/128)) strides
    (1, ceil(K/128)): torch._scaled_mm's blockwise layouts."""
    sa = torch.ones(blocks(k), m, device=device).t()
    sb = torch.ones(blocks(n), blocks(k), device=device).t()
    return sa, sb


def test_block_scaled_rules(torch_cpu):
    torch = torch_cpu
    from tessel import ops
    e4, e5 = torch.float8_e4m3fn, torch.float8_e5m2
    m, n, k = 64, 256, 384
    a, w = torch.zeros(m, k, dtype=e4), torch.zeros(n, k, dtype=e4)
    sa, sb = _block_scales(torch, m, n, k)
    cases = [
        (lambda: ops.scaled_mm(a, w.t(), sa[:, :2], sb), ValueError, r"scale_a \(M, ceil\(K/128\)\) = \(64, 3\)"),
        (lambda: ops.scaled_mm(a, w.t(), sa, sb.t()), ValueError, r"scale_b \(ceil\(K/128\), ceil\(N/128\)\) = \(3, 2\)"),
        (lambda: ops.scaled_mm(a, w.t(), torch.ones(m, 2), torch.ones(2, n)), ValueError, "none of torch._scaled_mm's modes"),
        (lambda: ops.scaled_mm(a, w.t(), sa.double(), sb), TypeError, "scales are float32"),
        (lambda: ops.scaled_mm(a, w.t(), sa, sb.half()), TypeError, "scales are float32"),
        (lambda: ops.scaled_mm(a.to(e5), w.to(e5).t(), sa, sb), TypeError, "block scales run on the e4m3 kernel"),
        (lambda: ops.scaled_mm(a, w.t(), sa, sb, out_dtype=torch.float32), TypeError, "writes bfloat16"),
        (lambda: ops.scaled_mm(a, w.t(), sa, sb, bias=torch.zeros(7)), ValueError, "one value per output column"),
    ]
    k2 = 200  # not a multiple of 16: TMA cannot read the rows
    a2, w2 = torch.zeros(m, k2, dtype=e4), torch.zeros(n, k2, dtype=e4)
    cases.append((lambda: ops.scaled_mm(a2, w2.t(), *_block_scales(torch, m, n, k2)), ValueError, "multiples of 16"))
    for call, error, words in cases:
        with pytest.raises(error, match=words):
            call()


def test_block_scaled_fake_kernel(torch_cpu):
    """The fake kernel follows the real one's rules and gives its output's shape and dtype."""
    torch = torch_cpu
    from torch._subclasses.fake_tensor import FakeTensorMode
    from tessel import ops  # noqa: F401 (registers torch.ops.tessel)
    m, n, k = 200, 384, 4096
    with FakeTensorMode():
        a = torch.empty(m, k, dtype=torch.float8_e4m3fn, device="cuda")
        w = torch.empty(n, k, dtype=torch.float8_e4m3fn, device="cuda")
        sa, sb = _block_scales(torch, m, n, k, device="cuda")
        d = torch.ops.tessel.scaled_mm(a, w.t(), sa, sb)
        assert d.shape == (m, n) and d.dtype == torch.bfloat16
        d = torch.ops.tessel.scaled_mm(a, w.t(), sa, sb, torch.empty(n, dtype=torch.bfloat16, device="cuda"), None,
                                       torch.bfloat16, True)
        assert d.shape == (m, n)
        with pytest.raises(ValueError, match="none of torch._scaled_mm's modes"):
            torch.ops.tessel.scaled_mm(a, w.t(), sa[:100], sb)
        with pytest.raises(TypeError, match="writes bfloat16"):
            torch.ops.tessel.scaled_mm(a, w.t(), sa, sb, None, None, torch.float16)


def test_quantize_rules_and_fake_kernel(torch_cpu):
    torch = torch_cpu
    from torch._subclasses.fake_tensor import FakeTensorMode
    from tessel import ops
    x = torch.zeros(8, 256, dtype=torch.bfloat16)
    cases = [
        (lambda: ops.quantize_fp8_1x128(torch.zeros(2, 8, 256, dtype=torch.bfloat16)), ValueError, "give an \\(M, K\\) matrix"),
        (lambda: ops.quantize_fp8_1x128(x.float()), TypeError, "torch.bfloat16 or torch.float16"),
        (lambda: ops.quantize_fp8_1x128(torch.zeros(8, 130, dtype=torch.bfloat16)), ValueError, "not a multiple of 4"),
        (lambda: ops.quantize_fp8_1x128(torch.zeros(256, 8, dtype=torch.float16).t()), ValueError, "must be row-major"),
        (lambda: ops.quantize_fp8_1x128(x), ValueError, "runs on a CUDA device"),
    ]
    for call, error, words in cases:
        with pytest.raises(error, match=words):
            call()
    with FakeTensorMode():
        x = torch.empty(200, 4160, dtype=torch.float16, device="cuda")
        q, s = torch.ops.tessel.quantize_fp8_1x128(x)
        assert q.shape == (200, 4160) and q.dtype == torch.float8_e4m3fn
        assert s.shape == (200, 33) and s.stride() == (1, 200) and s.dtype == torch.float32
        with pytest.raises(ValueError, match="not a multiple of 4"):
            torch.ops.tessel.quantize_fp8_1x128(torch.empty(4, 6, dtype=torch.float16, device="cuda"))
    assert tessel.quantize_fp8_1x128 is ops.quantize_fp8_1x128


def test_block_scaled_on_the_cpu_isrefused(torch_cpu):
    """CPU tensors pass the argument rules and stop at the launcher's operand checks."""
    torch = torch_cpu
    from tessel import ops
    a, w = torch.zeros(64, 256, dtype=torch.float8_e4m3fn), torch.zeros(128, 256, dtype=torch.float8_e4m3fn)
    with pytest.raises(tessel.GemmError, match="A is on the CPU"):
        ops.scaled_mm(a, w.t(), *_block_scales(torch, 64, 128, 256))


# ---- the Hopper kernel ----------------------------------------------------------------------------

def _fp8(torch, rows, cols, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return ((torch.rand(rows, cols, device="cuda", generator=g) * 2 - 1) * 448).to(torch.float8_e4m3fn)


def _scales(torch, shape, seed):
    """Positive scales 2^e * (0.5 .. 1.5) with e in [-4, 4]: neighbouring blocks differ by up to 2^8."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    e = torch.randint(-4, 5, shape, device="cuda", generator=g).float()
    return torch.exp2(e) * (0.5 + torch.rand(shape, device="cuda", generator=g)) / 448


def _expand_a(sa, k):
    return sa.repeat_interleave(BLK, dim=1)[:, :k]  # (M,K): each row's scale of each element


def _expand_b(sb, n, k):
    return sb.t().repeat_interleave(BLK, dim=0)[:n].repeat_interleave(BLK, dim=1)[:, :k]  # (N,K)


def _reference(torch, a, w, sa, sb):
    """The dequantized operands' product in float64, and the sum of the products' magnitudes (the
    accumulation's error scales with it)."""
    n, k = w.shape
    ad = a.double() * _expand_a(sa.double(), k)
    wd = w.double() * _expand_b(sb.double(), n, k)
    return ad @ wd.t(), ad.abs() @ wd.abs().t()


def _within_budget(torch, got, ref, ab, what):
    """bf16's rounding of D (2^-8 relative) and the promoted accumulation's error: f32 sums of
    each block's tensor-core partial, bounded by 2^-12 of the magnitudes' sum (at K = 4096 that
    is about 1% of a typical |D|, where a misplaced scale errs by its whole factor)."""
    assert got.dtype == torch.bfloat16 and not torch.isnan(got).any(), f"{what}: NaN in D"
    budget = 2.0**-8 * ref.abs() + 2.0**-12 * ab + 1e-30
    excess = ((got.double() - ref).abs() - budget).max().item()
    assert excess <= 0, f"{what}: an element is {excess:.3g} past its budget"
    rel = ((got.double() - ref).norm() / ref.norm()).item()
    assert rel < 4e-3, f"{what}: |D - ref| / |ref| = {rel:.2e}"


def _close_rms(torch, got, ref, bound, what):
    rel = ((got.double() - ref).norm() / ref.norm()).item()
    assert rel < bound, f"{what}: |D - ref| / |ref| = {rel:.2e}"


@pytest.mark.parametrize("m, n, k", [(200, 384, 4096), (256, 384, 1024), (128, 128, 128), (1, 256, 512), (77, 320, 4160),
                                     (300, 136, 2048)])
def test_block_scaled_matches_float64(hopper, m, n, k):
    torch = hopper
    a, w = _fp8(torch, m, k, 1), _fp8(torch, n, k, 2)
    sa = _scales(torch, (blocks(k), m), 3).t()  # (M,KB):(1,M), torch's layout: TMA carries the scales
    sb = _scales(torch, (blocks(n), blocks(k)), 4).t()  # (KB,NB):(1,KB)
    got = tessel.scaled_mm(a, w.t(), sa, sb, out_dtype=torch.bfloat16)
    ref, ab = _reference(torch, a, w, sa, sb)
    _within_budget(torch, got, ref, ab, f"{m}x{n}x{k}")
    # Other strides run the kernel's scale warp: the same scales, the same sums, the same bits.
    warp = tessel.scaled_mm(a, w.t(), sa.contiguous(), sb.contiguous())
    assert torch.equal(warp, got), f"{m}x{n}x{k}: the scale warp's result differs from TMA's"


@pytest.mark.parametrize("cluster", [(1, 1, 1), (2, 1, 1), (1, 2, 1)])
@pytest.mark.parametrize("m, n, k", [(200, 448, 4160), (77, 320, 4096), (256, 192, 1024), (300, 640, 640), (130, 384, 384)])
def test_wide_block_scaled_tile_matches_float64(hopper, m, n, k, cluster):
    """The 128 x 192 tile: its column tiles start on a block of B's scales (n0 = 0, 384) or half-way
    into one (n0 = 192), and at N = 448 the last tile's second block lies past N; alone and on
    clusters (each CTA its own scale ring, A's or B's stages shared). K tiles: 33, 32, 8, 5 and 3
    (each in two halves of 96 columns: mma_promoted_halves)."""
    torch = hopper
    from tessel.gemm import gemm_block_scaled
    wide = GemmConfig(arch="sm90a", element="e4m3", out="bf16", tile=(128, 192, 128), schedule="cooperative_blockscaled",
                      cluster=cluster)
    a, w = _fp8(torch, m, k, 5), _fp8(torch, n, k, 6)
    sa = _scales(torch, (blocks(k), m), 7).t()
    sb = _scales(torch, (blocks(n), blocks(k)), 8).t()
    got = gemm_block_scaled(a, w.t(), scale_a=sa, scale_b=sb, config=wide)
    ref, ab = _reference(torch, a, w, sa, sb)
    _within_budget(torch, got, ref, ab, f"128x192 {m}x{n}x{k}")
    warp = gemm_block_scaled(a, w.t(), scale_a=sa.contiguous(), scale_b=sb.contiguous(), config=wide)
    assert torch.equal(warp, got), f"128x192 {m}x{n}x{k}: the scale warp's result differs from TMA's"
    with pytest.raises(ValueError, match="cooperative_blockscaled"):
        gemm_block_scaled(a, w.t(), scale_a=sa, scale_b=sb, config=GemmConfig(arch="sm90a", element="e4m3", out="bf16"))


@pytest.mark.parametrize("tile_n", [128, 192])
@pytest.mark.parametrize("strides", ["torch", "contiguous", "both_by_tma"])
def test_grouped_block_scaled_matches_float64(hopper, strides, tile_n):
    """tessel.grouped_gemm with per-block scales: groups of 0, 200, 77 and 1 rows (5 rows past the
    last group, which stay as they were), each group's rows against its own dequantized weights;
    the 128x128 tile (its choice here) and the 128x192 one (given as config: N = 384 puts a column
    tile half-way into a block of B's scales)."""
    torch = hopper
    sizes, n, k = [0, 200, 77, 1], 384, 1024
    rows, g = sum(sizes) + 5, len(sizes)
    a, w = _fp8(torch, rows, k, 21), torch.stack([_fp8(torch, n, k, 22 + i) for i in range(g)])
    sa = _scales(torch, (blocks(k), rows), 30).t()  # (rows,KB):(1,rows)
    sb = _scales(torch, (g, blocks(k), blocks(n)), 31)  # (G,KB,NB)
    if strides == "contiguous":
        sa, sb = sa.contiguous(), sb.transpose(1, 2).contiguous().transpose(1, 2)
    elif strides == "both_by_tma":
        # A's scales row-contiguous with a 16-byte K stride and B's K-contiguous (torch._scaled_mm's
        # blockwise layouts): TMA carries both (block_scales_fit_tma), the path
        # bench/grouped_bench.py --fp8 takes. Group 3 starts on row 277, not a multiple of 4: A's
        # box from that row began off 16 bytes and stopped the kernel with an illegal
        # instruction (H100, 2026-12-05c run 1); the box now starts at row 276.
        sa = _scales(torch, (blocks(k), (rows + 3) // 4 * 4), 32)[:, :rows].t()  # (rows,KB):(1,284)
        sb = sb.transpose(1, 2).contiguous().transpose(1, 2)
    ends = torch.tensor(sizes, device="cuda").cumsum(0).to(torch.int32)
    out = torch.full((rows, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    cfg = tessel.grouped.kernel_for(a, w.transpose(1, 2), ends, scale_a=sa, scale_b=sb)
    assert cfg.block_scaled and cfg.scheduler == "grouped" and cfg.tile == (128, 128, 128)
    given = tessel.grouped.block_scaled_config(192) if tile_n == 192 else None
    tessel.grouped_gemm(a, w.transpose(1, 2), ends, out=out, scale_a=sa, scale_b=sb, config=given)
    start = 0
    for i, m in enumerate(sizes):
        if m:
            ref, ab = _reference(torch, a[start:start + m], w[i], sa[start:start + m], sb[i])
            _within_budget(torch, out[start:start + m], ref, ab, f"group {i} ({strides} scales)")
        start += m
    assert torch.isnan(out[start:].float()).all(), "rows of no group were written"


def test_grouped_block_scaled_tile_follows_the_waves(hopper):
    """8 experts 4096 -> 14336: 4096 routed tokens take the 128x192 tile (10% faster there on the
    H100), 231 the 128x128 one (config.block_scaled_tile_n over all of A's rows)."""
    torch = hopper
    from tessel.jit.config import block_scaled_tile_n
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    w = torch.empty(8, 14336, 256, device="cuda", dtype=torch.float8_e4m3fn).transpose(1, 2)
    sb = torch.ones(8, 2, 112, device="cuda")
    for tokens in (4096, 231):
        a = torch.empty(tokens, 256, device="cuda", dtype=torch.float8_e4m3fn)
        ends = torch.full((8,), tokens, device="cuda", dtype=torch.int32)
        cfg = tessel.grouped.kernel_for(a, w, ends, scale_a=torch.ones(2, tokens, device="cuda").t(), scale_b=sb)
        assert cfg.tile == (128, block_scaled_tile_n(tokens, 14336, sms), 128), (tokens, cfg.name)
    assert block_scaled_tile_n(4096, 14336, 132) == 192 and block_scaled_tile_n(231, 14336, 132) == 128


@pytest.mark.parametrize("strides", ["contiguous", "rows"])
def test_grouped_block_scaled_masked_matches_float64(hopper, strides):
    """Per-block scales with counts (decode under CUDA graphs, DeepGEMM's masked layout): A and its
    scales batched by group, (G, M, K) and (G, M, ceil(K/128)); each group's first counts[g] rows
    against its own dequantized weights, the rest of its block left as it was."""
    torch = hopper
    g, m, n, k = 4, 96, 256, 640
    counts = [0, 96, 5, 300]  # 300: past the block, counts as 96
    a = torch.stack([_fp8(torch, m, k, 40 + i) for i in range(g)])
    w = torch.stack([_fp8(torch, n, k, 50 + i) for i in range(g)])
    sa = _scales(torch, (g, m, blocks(k)), 60)  # (G,M,KB) contiguous
    if strides == "rows":
        sa = _scales(torch, (g, blocks(k), m), 60).transpose(1, 2)  # (G,M,KB):(KB*M,1,M), each group torch's layout
    sb = _scales(torch, (g, blocks(k), blocks(n)), 61)
    out = torch.full((g, m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    tessel.grouped_gemm(a, w.transpose(1, 2), counts=torch.tensor(counts, device="cuda", dtype=torch.int32), out=out,
                        scale_a=sa, scale_b=sb)
    for i, c in enumerate(min(c, m) for c in counts):
        if c:
            ref, ab = _reference(torch, a[i, :c], w[i], sa[i, :c], sb[i])
            _within_budget(torch, out[i, :c], ref, ab, f"block {i} ({strides} scales)")
        assert torch.isnan(out[i, c:].float()).all(), f"block {i}: rows past its count {c} were written"


def test_block_scaled_bias_and_layout_of_the_result(hopper):
    torch = hopper
    m, n, k = 200, 384, 1024
    a, w = _fp8(torch, m, k, 5), _fp8(torch, n, k, 6)
    sa, sb = _scales(torch, (blocks(k), m), 7).t(), _scales(torch, (blocks(n), blocks(k)), 8).t()
    bias = (torch.rand(n, device="cuda") * 100).to(torch.bfloat16)
    got = torch.ops.tessel.scaled_mm(a, w.t(), sa, sb, bias, None, torch.bfloat16, True)  # use_fast_accum is ignored
    ref, ab = _reference(torch, a, w, sa, sb)
    _within_budget(torch, got, ref + bias.double(), ab + bias.double().abs(), "with bias")
    assert got.is_contiguous() and got.shape == (m, n)


def test_block_scaled_against_torch(hopper):
    """torch._scaled_mm's own blockwise mode (1x128 scales of a, 128x128 of b), where this PyTorch
    and cuBLAS have it."""
    torch = hopper
    m, n, k = 256, 384, 4096
    a, w = _fp8(torch, m, k, 9), _fp8(torch, n, k, 10)
    sa, sb = _scales(torch, (blocks(k), m), 11).t(), _scales(torch, (blocks(n), blocks(k)), 12).t()
    try:
        want = torch._scaled_mm(a, w.t(), sa, sb, out_dtype=torch.bfloat16)
    except (RuntimeError, NotImplementedError, ValueError, TypeError) as e:
        pytest.skip(f"torch._scaled_mm has no blockwise mode here ({torch.__version__}): {str(e).splitlines()[0]}")
    got = tessel.scaled_mm(a, w.t(), sa, sb)
    ref, ab = _reference(torch, a, w, sa, sb)
    _within_budget(torch, got, ref, ab, "tessel")
    # cuBLAS accumulates in its own way: held to the reference and to tessel by rms only, which a
    # scale read otherwise than tessel reads it would still break by far.
    _close_rms(torch, want, ref, 1e-2, "torch._scaled_mm against the float64 reference")
    _close_rms(torch, got, want.double(), 1e-2, "tessel against torch._scaled_mm")


def _blocky(torch, rows, cols, seed, block_rows=1):
    """Uniform values in [-1, 1) times 2^e, e in [-6, 6] drawn per block of block_rows x 128."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    v = torch.rand(rows, cols, device="cuda", generator=g) * 2 - 1
    e = torch.randint(-6, 7, (-(-rows // block_rows), blocks(cols)), device="cuda", generator=g).float()
    rows_of = torch.arange(rows, device="cuda") // block_rows
    return v * torch.exp2(e[rows_of].repeat_interleave(BLK, dim=1)[:, :cols])


def _amax_blocks(torch, x):
    """amax of each (row, block of 128) of x (M, K) as float32, K padded with zeros."""
    m, k = x.shape
    pad = torch.nn.functional.pad(x.float().abs(), (0, blocks(k) * BLK - k))
    return pad.view(m, blocks(k), BLK).amax(dim=2)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("m, k", [(200, 4096), (3, 4160), (128, 100)])
def test_quantize_round_trip(hopper, dtype, m, k):
    torch = hopper
    x = _blocky(torch, m, k, 13).to(getattr(torch, dtype))
    x[1, :BLK] = 0  # a block of zeros: scale 1, q 0
    q, s = tessel.quantize_fp8_1x128(x)
    assert q.dtype == torch.float8_e4m3fn and q.shape == (m, k)
    assert s.dtype == torch.float32 and s.shape == (m, blocks(k)) and s.stride() == (1, m)
    amax = _amax_blocks(torch, x)
    # NOTES: amax / 448 in float64, then rounded: the correctly rounded f32 quotient the kernel's
    # division gives (torch's float32 `amax / 448` multiplies by a rounded 1/448 on the GPU, and
    # differs from it in the last bit).
    want = torch.where(amax > 0, (amax.double() / 448).float(), torch.ones_like(amax))
    assert torch.equal(s, want), "a scale is not amax / 448 of its block"
    assert torch.all(q[1, :BLK].float() == 0)
    # e4m3 keeps 3 mantissa bits: half an ulp is 2^-4 of the value (2^-10 of the scale below 2^-6),
    # with a little room for the f32 rounding of x * (448 / amax).
    deq = q.float() * _expand_a(s, k)
    err = (deq - x.float()).abs()
    assert (err <= (2.0**-4 * x.float().abs() + 2.0**-10 * _expand_a(s, k)) * (1 + 2.0**-10)).all()
    # Each block uses e4m3's whole range: its largest element is +-448.
    top = torch.nn.functional.pad(q.float().abs(), (0, blocks(k) * BLK - k)).view(m, blocks(k), BLK).amax(dim=2)
    assert torch.equal(top[amax > 0], torch.full_like(top[amax > 0], 448.0))


def test_quantize_of_a_strided_view(hopper):
    """Rows of a wider matrix (row stride > K) and a view that starts mid-vector both quantize as
    their contiguous copies do."""
    torch = hopper
    big = _blocky(torch, 64, 1024, 14).to(torch.bfloat16)
    for view in (big[:, :512], big[:, 4:516], big.view(-1)[2:2 + 64 * 512].view(64, 512)):
        q, s = tessel.quantize_fp8_1x128(view)
        q2, s2 = tessel.quantize_fp8_1x128(view.contiguous())
        assert torch.equal(s, s2) and torch.equal(q.view(torch.uint8), q2.view(torch.uint8))


def _quantize_weight(torch, w):
    """w (N, K) per 128 x 128 block on the host side of the test: (q (N, K) e4m3, scales (NB, KB))."""
    n, k = w.shape
    nb, kb = blocks(n), blocks(k)
    pad = torch.nn.functional.pad(w.float(), (0, kb * BLK - k, 0, nb * BLK - n))
    amax = pad.abs().view(nb, BLK, kb, BLK).amax(dim=(1, 3))
    scale = torch.where(amax > 0, amax / 448, torch.ones_like(amax))
    q = (pad / scale.repeat_interleave(BLK, 0).repeat_interleave(BLK, 1)).to(torch.float8_e4m3fn)[:n, :k]
    return q, scale


@pytest.mark.parametrize("m, n, k", [(200, 384, 4096), (64, 256, 1024)])
def test_quantize_then_scaled_mm_end_to_end(hopper, m, n, k):
    """bf16 activations through tessel.quantize_fp8_1x128, weights per 128 x 128 block, then the
    block-scaled GEMM: within the FP8 budget of the unquantized product (e4m3's 3 mantissa bits
    err by about 4% rms per product; the C++ test bounds the same at 5%)."""
    torch = hopper
    x = _blocky(torch, m, k, 15).to(torch.bfloat16)
    w = _blocky(torch, n, k, 16, block_rows=BLK).to(torch.bfloat16)
    qa, sa = tessel.quantize_fp8_1x128(x)
    qw, sw = _quantize_weight(torch, w)
    d = tessel.scaled_mm(qa, qw.t(), sa, sw.t())  # scale_b (KB,NB):(1,KB)
    exact = x.double() @ w.double().t()
    rel = ((d.double() - exact).norm() / exact.norm()).item()
    assert rel < 0.05, f"|D - x @ w.T| / |x @ w.T| = {rel:.3f}"
    ref, ab = _reference(torch, qa, qw, sa, sw.t())
    _within_budget(torch, d, ref, ab, "against the dequantized operands")
    try:
        want = torch._scaled_mm(qa, qw.t(), sa, sw.t(), out_dtype=torch.bfloat16)
    except (RuntimeError, NotImplementedError, ValueError, TypeError):
        return  # no blockwise torch._scaled_mm here: test_block_scaled_against_torch says so
    _close_rms(torch, d, want.double(), 1e-2, "tessel against torch._scaled_mm")


def test_block_scaled_runs_the_wide_tile_where_it_is_chosen(hopper):
    """2048 x 4096: 3 waves of 128x192 tiles against 4 of 128x128 on 132 SMs, so tessel.scaled_mm
    runs the wide tile, and says so."""
    torch = hopper
    m, n, k = 2048, 4096, 640
    a, w = _fp8(torch, m, k, 11), _fp8(torch, n, k, 12)
    sa, sb = _scales(torch, (blocks(k), m), 13).t(), _scales(torch, (blocks(n), blocks(k)), 14).t()
    kernel, reason = tessel.kernel_for(a, w.t(), out_dtype=torch.bfloat16, block_scaled=True, explain=True)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    from tessel.jit.config import block_scaled_tile_n
    assert ("128x192x128" in kernel.name) == (block_scaled_tile_n(m, n, sms) == 192), (kernel.name, sms)
    assert ("128x192" in reason) == ("128x192x128" in kernel.name), reason
    got = tessel.scaled_mm(a, w.t(), sa, sb, out_dtype=torch.bfloat16)
    ref, ab = _reference(torch, a, w, sa, sb)
    _within_budget(torch, got, ref, ab, f"{m}x{n}x{k} on {kernel.name}")


def test_block_scaled_explain_and_opcheck(hopper):
    torch = hopper
    m, n, k = 64, 128, 256
    a, w = _fp8(torch, m, k, 17), _fp8(torch, n, k, 18)
    kernel, why = tessel.kernel_for(a, w.t(), block_scaled=True, explain=True)
    assert kernel.block_scaled and "coop_blockscaled" in kernel.name and "block-scaled" in why
    sa, sb = _scales(torch, (blocks(k), m), 19).t(), _scales(torch, (blocks(n), blocks(k)), 20).t()
    torch.library.opcheck(torch.ops.tessel.scaled_mm.default, (a, w.t(), sa, sb, None, None, torch.bfloat16, False),
                          test_utils=("test_faketensor",))
    x = _blocky(torch, m, k, 21).to(torch.bfloat16)
    torch.library.opcheck(torch.ops.tessel.quantize_fp8_1x128.default, (x,), test_utils=("test_faketensor",))
    # An empty problem launches nothing.
    empty = tessel.scaled_mm(a[:0], w.t(), sa[:0], sb)
    assert empty.shape == (0, n)

