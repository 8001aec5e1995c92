"""GemmConfig: its rules, names and derived values, without compiling anything."""

import pytest

from tessel import GemmConfig


def test_defaults_and_name():
    c = GemmConfig()
    assert (c.arch, c.element, c.out, c.layout_a, c.layout_b, c.layout_c) == ("sm80", "f16", "f32", "row", "col", "row")
    assert c.name == "tessel_sm80_gemm_f16_f16_f32_128x128x32_64x64x32_3stage_tn"  # device::Gemm::name()'s spelling
    assert GemmConfig(layout_a="col", layout_b="row", layout_c="col", epilogue="relu", element="bf16", out="bf16").name == \
        "tessel_sm80_gemm_bf16_bf16_bf16_128x128x32_64x64x32_3stage_nt_dcol_relu"


def test_dtype_spellings_normalise():
    assert GemmConfig(element="bfloat16", out="float32") == GemmConfig(element="bf16", out="f32")
    assert GemmConfig(element="torch.float16").element == "f16"


def test_derived_values():
    c = GemmConfig(tile=(128, 256, 32), warp=(64, 64, 32), stages=4)
    assert c.threads == 256 and c.smem_bytes == 2 * (128 + 256) * 32 * 4
    two = GemmConfig(stages=2)
    assert two.smem_bytes == 2 * 256 * 32  # one stage in shared memory, one in registers
    assert GemmConfig(arch="sm75", stages=2).instruction == (16, 8, 8) and c.instruction == (16, 8, 16)


def test_hashable_and_comparable():
    assert len({GemmConfig(), GemmConfig(), GemmConfig(stages=4)}) == 2
    assert GemmConfig().replace(stages=4) == GemmConfig(stages=4)


@pytest.mark.parametrize("kwargs, message", [
    (dict(arch="sm70"), "arch 'sm70': choose one of"),
    (dict(element="f32"), "take float16 or bfloat16 A and B, FP8"),
    (dict(element="int8"), "element type 'int8'"),
    (dict(arch="sm75", element="bf16", stages=2), "Turing's m16n8k8 instruction takes float16 only"),
    (dict(arch="sm75", stages=3), "exactly 2 stages"),
    (dict(layout_a="rowmajor"), "layout_a 'rowmajor'"),
    (dict(epilogue="tanh"), "epilogue 'tanh'"),
    (dict(cluster=(2, 1, 1)), "thread-block clusters belong to Hopper"),
    (dict(schedule="pingpong"), "is a Hopper schedule"),
    (dict(schedule="fast"), "schedule 'fast'"),
    (dict(schedule="multistage", stages=2), "needs stages >= 3"),
    (dict(schedule="twostage", stages=3), "has exactly 2 stages"),
    (dict(stages=1), "at least 2"),
    (dict(tile=(128, 128, 32), warp=(64, 64, 64)), "warp tile's K must equal"),
    (dict(tile=(128, 96, 32), warp=(64, 64, 32)), "not a whole number of warp tiles"),
    (dict(tile=(128, 120, 32), warp=(64, 40, 32)), "multiples of 16"),
    (dict(tile=(128, 128, 16), warp=(64, 64, 16)), "multiple of 32"),
    (dict(layout_a="col", tile=(96, 128, 32), warp=(32, 64, 32)), "column-major A"),
    (dict(layout_b="row", tile=(128, 96, 32), warp=(64, 32, 32)), "row-major B"),
    (dict(tile=(256, 256, 32), warp=(32, 32, 32)), "1024"),
    (dict(tile=(128, 128)), "three positive integers"),
    (dict(tile=(0, 128, 32)), "three positive integers"),
])
def test_rules(kwargs, message):
    with pytest.raises(ValueError, match=message):
        GemmConfig(**kwargs)


# ---- Hopper (arch "sm90a") ---------------------------------------------------------------------------
def test_hopper_defaults_and_name():
    c = GemmConfig(arch="sm90a", element="bf16", out="bf16")
    assert (c.tile, c.warp, c.stages, c.cluster, c.kernel_schedule) == ((128, 256, 64), None, "auto", (1, 1, 1), "cooperative")
    assert c.stage_count == 4 and c.threads == 384  # the builder's rule: (227 KiB - 32 KiB - 1024) // (384 * 128 + 16)
    assert c.name == "tessel_sm90_gemm_bf16_bf16_bf16_128x256x64_c1x1_4stage_coop_tn"  # GemmUniversalAdapter::name()
    assert c.tma_boxes == ((64, 128), (64, 256))
    p = GemmConfig(arch="sm90a", layout_a="col", layout_b="row", tile=(64, 128, 64), cluster=(2, 1, 1), stages=5)
    assert p.kernel_schedule == "pingpong" and p.name == "tessel_sm90_gemm_f16_f16_f32_64x128x64_c2x1_5stage_pingpong_nt"
    assert p.tma_boxes == ((64, 64), (64, 64))  # MN-major: 64-wide chunks by BK rows of K
    assert GemmConfig(arch="sm90a", cluster=(2, 1, 1)).tma_boxes[1] == (64, 128)  # B's stage split over the cluster
    # Along N the CTAs share A: its stage splits, and the name carries both extents.
    q = GemmConfig(arch="sm90a", element="bf16", out="bf16", tile=(128, 64, 64), cluster=(1, 2, 1))
    assert q.name == "tessel_sm90_gemm_bf16_bf16_bf16_128x64x64_c1x2_8stage_coop_tn" and q.tma_boxes == ((64, 64), (64, 64))
    assert GemmConfig(arch="sm90a", cluster=(2, 2, 1)).tma_boxes == ((64, 64), (64, 128))
    assert GemmConfig(arch="sm90a", layout_a="col", tile=(128, 128, 64), cluster=(1, 2, 1)).tma_boxes[0] == (64, 64)


def test_hopper_shared_memory_covers_the_kernel():
    c = GemmConfig(arch="sm90a", stages=3)
    stages_bytes = 3 * (128 + 256) * 128
    assert stages_bytes + 32 * 1024 + 48 + 16 + 1024 <= c.smem_bytes <= 227 * 1024  # and the TMA store's buffers
    # The registry's tiles with the stages the TMA store leaves room for.
    assert [GemmConfig(arch="sm90a", tile=t, schedule=s).stage_count for t, s in
            [((128, 192, 64), "cooperative"), ((128, 128, 64), "pingpong"), ((128, 64, 64), "cooperative")]] == [4, 6, 8]


def _refused(status, message, **kwargs):
    with pytest.raises(ValueError, match=message) as e:
        GemmConfig(**kwargs)
    assert e.value.status == status
    assert str(e.value).startswith({"kErrorNotSupported": "Error Not Supported: ", "kErrorInvalidLayout": "Error Invalid Layout: ",
                                    "kErrorInvalidDataType": "Error Invalid Data Type: "}[status])


@pytest.mark.parametrize("kwargs, message", [
    (dict(tile=(128, 256, 32)), "the tile's K must be one 128-byte swizzle row"),
    (dict(tile=(128, 96, 64)), "BN must be 64, 128, 192 or 256"),
    (dict(tile=(256, 128, 64)), "with the cooperative schedule: BM must be 128"),
    (dict(tile=(64, 128, 64), schedule="cooperative"), "with the cooperative schedule: BM must be 128"),
    (dict(tile=(128, 256, 64), schedule="pingpong"), "would hold 256 accumulators per thread"),
    (dict(cluster=(4, 1, 1)), "clusters of 1 or 2 CTAs along M by 1 or 2"),
    (dict(cluster=(1, 4, 1)), "clusters of 1 or 2 CTAs along M by 1 or 2"),
    (dict(cluster=(1, 1, 2)), "clusters of 1 or 2 CTAs along M by 1 or 2"),
    (dict(layout_b="row", tile=(128, 64, 64), cluster=(2, 1, 1)), "BN must be a multiple of 128"),
    (dict(layout_b="row", tile=(128, 192, 64), cluster=(2, 2, 1)), "BN must be a multiple of 128"),
    (dict(layout_a="col", tile=(64, 128, 64), cluster=(1, 2, 1)), "BM must be a multiple of 128"),
    (dict(stages=5), "more than the 232448 a CTA may have; use at most 4 stages"),
    (dict(stages=1), "at least 2"),
    (dict(stages="many"), "a number or 'auto'"),
    (dict(warp=(64, 64, 64)), "has no warp tile"),
    (dict(schedule="multistage"), "choose one of auto, cooperative, pingpong"),
])
def test_hopper_rules(kwargs, message):
    _refused("kErrorNotSupported", message, arch="sm90a", **kwargs)


def test_stream_k_scheduler():
    c = GemmConfig(arch="sm90a", element="bf16", out="bf16", tile=(128, 64, 64), scheduler="stream_k")
    assert c.name == "tessel_sm90_gemm_bf16_bf16_bf16_128x64x64_c1x1_8stage_coop_tn_streamk" and c.fixup_slot_floats == 256 * 32
    assert GemmConfig(arch="sm90a").fixup_slot_floats == 0
    _refused("kErrorNotSupported", "split-K and stream-K run with the cooperative schedule, BM 128 and no cluster",
             arch="sm90a", tile=(128, 128, 64), schedule="pingpong", scheduler="stream_k")
    _refused("kErrorNotSupported", "split-K and stream-K run with the cooperative schedule", arch="sm90a", cluster=(2, 1, 1),
             scheduler="stream_k")
    _refused("kErrorNotSupported", "choose one of persistent, stream_k", arch="sm90a", scheduler="split")
    _refused("kErrorNotSupported", "is a Hopper tile scheduler", scheduler="stream_k")


def test_hopper_column_major_d_is_the_transposed_problem():
    _refused("kErrorInvalidLayout", "the Hopper kernel writes D row-major", arch="sm90a", layout_c="col")


@pytest.mark.parametrize("element, short", [("e4m3", "e4m3"), ("float8_e4m3fn", "e4m3"), ("torch.float8_e5m2", "e5m2")])
def test_fp8_configurations(element, short):
    """FP8 is a Hopper type: K is 128 elements (one 128-byte swizzle row), A row-major and B
    column-major, the output 16 or 32 bits; promoted accumulation keeps BN <= 192."""
    c = GemmConfig(arch="sm90a", element=element, out="bf16")
    assert c.element == short and c.tile == (128, 256, 128) and c.tma_boxes == ((128, 128), (128, 256))
    assert c.name == f"tessel_sm90_gemm_{short}_{short}_bf16_128x256x128_c1x1_4stage_coop_tn"
    p = GemmConfig(arch="sm90a", element=element, out="bf16", tile=(128, 128, 128), schedule="cooperative_promoted")
    assert p.name.endswith("coop_promoted_tn")
    _refused("kErrorNotSupported", "FP8 and TF32 kernels are the Hopper kernels", element=element)
    _refused("kErrorNotSupported", "128 elements of", arch="sm90a", element=element, tile=(128, 256, 64))
    _refused("kErrorInvalidLayout", "K-major only", arch="sm90a", element=element, out="bf16", layout_b="row")
    _refused("kErrorInvalidDataType", "C and D are float32, float16 or bfloat16", arch="sm90a", element="bf16", out=element)
    _refused("kErrorNotSupported", "BN at most 192", arch="sm90a", element=element, out="bf16", schedule="cooperative_promoted")


def test_tf32_configurations():
    c = GemmConfig(arch="sm90a", element="tf32", out="f32")
    assert c.tile == (128, 256, 32) and c.tma_boxes == ((32, 128), (32, 256))
    assert c.name == "tessel_sm90_gemm_tf32_tf32_f32_128x256x32_c1x1_4stage_coop_tn"
    _refused("kErrorNotSupported", "promoted accumulation is for FP8", arch="sm90a", element="tf32", tile=(128, 128, 32),
             schedule="cooperative_promoted")
    _refused("kErrorInvalidLayout", "K-major only", arch="sm90a", element="tf32", layout_a="col")


def test_status_of_other_refusals():
    _refused("kErrorInvalidDataType", "element type 'int8'", element="int8")
    _refused("kErrorInvalidLayout", "layout_b 'columns'", arch="sm90a", layout_b="columns")
    _refused("kErrorNotSupported", "arch 'sm100a': choose one of sm80, sm75, sm90a", arch="sm100a")
