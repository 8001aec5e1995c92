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
    (dict(arch="sm90a"), "the JIT does not generate Hopper kernels"),
    (dict(arch="sm70"), "arch 'sm70': choose one of"),
    (dict(element="f32"), "take float16 or bfloat16 A and B"),
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
