"""The JIT: generated source, NVRTC compilation for sm_80 and sm_90a (no GPU needed), the disk
cache (hits, invalidation by any header, damaged entries) and compile errors."""

import json
import os
import shutil
import subprocess

import pytest

import tessel
from tessel import _core
from tessel.jit import cache, codegen, codegen_sm90, compiler, cubin, paths, prebuilt, registry


def test_source_spells_the_configuration():
    src = codegen.source(tessel.GemmConfig(element="bf16", out="bf16", layout_a="col", epilogue="gelu", stages=4))
    assert "tessel::bfloat16_t, tessel::gemm::ColumnMajor, tessel::gemm::ColumnMajor" in src
    assert "tessel::epilogue::LinearCombination<tessel::bfloat16_t, tessel::bfloat16_t, tessel::epilogue::fusion::GeluErf>" in src
    assert "static_assert(Config::kThreads == 128" in src and f"kSharedStorageSize == {2 * 256 * 32 * 4}" in src
    assert "template __global__ void tessel::gemm::kernel::gemm_kernel<tessel_jit::Config>(" in src
    linear = codegen.source(tessel.GemmConfig())
    assert "fusion::" not in linear and "tessel::epilogue::LinearCombination<float>" in linear


def test_params_match_holds_each_configuration_to_the_launchers_block(toolkit):
    """Every generated Sm75/Sm80 source asserts TESSEL_SM80_PARAMS_MATCH, and the assert tells a
    block of the launcher's layout (any element types, any activation) from one that moved."""
    from tessel.jit import compiler, nvrtc
    for config in (tessel.GemmConfig(), tessel.GemmConfig(element="bf16", out="bf16", epilogue="gelu")):
        assert "static_assert(TESSEL_SM80_PARAMS_MATCH(Params)" in codegen.source(config)
    probe = "\n".join([
        '#include "tessel/gemm/kernel/gemm_params.hpp"',
        "namespace k = tessel::gemm::kernel;",
        "struct Half { using ElementA = tessel::half_t; using ElementB = tessel::half_t; using ElementC = float;",
        "  using Epilogue = tessel::epilogue::LinearCombination<float>::OutputOp; };",
        "struct Wide { using ElementA = tessel::half_t; using ElementB = tessel::half_t; using ElementC = float;",
        "  struct Scalars { double alpha, beta; }; struct Epilogue { Scalars params; }; };",
        "static_assert(TESSEL_SM80_PARAMS_MATCH(k::GemmParams<Half>), \"same layout\");",
        "static_assert(!TESSEL_SM80_PARAMS_MATCH(k::GemmParams<Wide>), \"a moved member is told\");",
    ])
    nvrtc.compile_program(probe, "params_match_probe.cu", compiler.options("sm_80"))


def test_compiles_for_sm90a(toolkit, cache_dir):
    """Cold, without the cache (so nothing is written), for the Hopper target. How long it takes
    is measured by bench/python_gemm.py, not here: a timed test fails on a loaded CI machine."""
    k = tessel.compile(tessel.GemmConfig(element="bf16", out="bf16"), target="sm_90a", use_cache=False)
    assert not k.cache_hit and k.target == "sm_90a" and not cache_dir.exists()
    assert cubin.sm_version(k.cubin) == 90
    assert cubin.functions(k.cubin) == [k.symbol]
    assert k.symbol.startswith(codegen.KERNEL_SYMBOL_PREFIX + "INS_3jit16GemmKernelConfigI13__nv_bfloat16")


def test_compiles_for_sm80(seed_entry):
    """The seed is GemmConfig() compiled for sm_80 (conftest.py)."""
    key, d = seed_entry
    data = (d / f"{key}.cubin").read_bytes()
    meta = json.loads((d / f"{key}.json").read_text())
    assert cubin.sm_version(data) == 80 and meta["target"] == "sm_80"
    assert cubin.functions(data) == [meta["symbol"]]
    assert meta["symbol"].startswith(codegen.KERNEL_SYMBOL_PREFIX + "INS_3jit16GemmKernelConfigI6__half")


def test_every_layout_and_epilogue_compiles(toolkit, cache_dir):
    """Both operand layouts (K-major and MN-major shared-memory tiles, ldmatrix and its .trans
    form), a column-major D, the two-stage schedule and a fused activation, in one compile each."""
    for config in [tessel.GemmConfig(layout_a="col", layout_b="row", layout_c="col", epilogue="silu", out="f16"),
                   tessel.GemmConfig(element="bf16", stages=2, tile=(64, 128, 32), warp=(32, 64, 32), epilogue="relu"),
                   tessel.GemmConfig(arch="sm75", stages=2)]:
        k = tessel.compile(config, target="sm_90a")
        assert cubin.functions(k.cubin) == [k.symbol], config


def test_cache_hit_and_timing(seeded_cache, cache_dir):
    meta = json.loads((cache_dir / f"{seeded_cache}.json").read_text())
    assert meta["name"] == tessel.GemmConfig().name and meta["config"]["tile"] == [128, 128, 32] and meta["compile_seconds"] > 0
    warm = tessel.compile(tessel.GemmConfig(), target="sm_80")
    assert warm.cache_hit and warm.symbol == meta["symbol"] and warm.cubin == (cache_dir / f"{seeded_cache}.cubin").read_bytes()
    assert tessel.compile(tessel.GemmConfig(), target="sm_80") is warm  # and once loaded, from memory


def test_key_depends_on_configuration_and_target(toolkit):
    base = compiler.cache_key(tessel.GemmConfig(), "sm_90a")
    assert compiler.cache_key(tessel.GemmConfig(), 90) == base == compiler.cache_key(tessel.GemmConfig(), "9.0")
    others = [compiler.cache_key(tessel.GemmConfig(), "sm_80"), compiler.cache_key(tessel.GemmConfig(stages=4), "sm_90a"),
              compiler.cache_key(tessel.GemmConfig(epilogue="relu"), "sm_90a"), compiler.cache_key(tessel.GemmConfig(layout_c="col"), "sm_90a")]
    assert len({base, *others}) == 5


def test_seeded_entry_is_a_hit(seeded_cache):
    k = tessel.compile(tessel.GemmConfig(), target="sm_80")
    assert k.cache_hit and k.key == seeded_cache


def test_any_header_change_invalidates(seeded_cache, include_copy):
    cfg = tessel.GemmConfig()
    assert compiler.cache_key(cfg, "sm_80") == seeded_cache  # the copy has the same contents
    # A header the kernel does not even include: the key covers all of them.
    header = include_copy / "tessel" / "layout" / "runtime" / "print.hpp"
    original = header.read_text()
    header.write_text(original + "\n// edited\n")
    edited = tessel.compile(cfg, target="sm_80")
    assert not edited.cache_hit and edited.key != seeded_cache
    header.write_text(original)
    back = tessel.compile(cfg, target="sm_80")
    assert back.cache_hit and back.key == seeded_cache


def test_damaged_entry_is_recompiled(seeded_cache, cache_dir):
    path = cache_dir / f"{seeded_cache}.cubin"
    symbol = json.loads((cache_dir / f"{seeded_cache}.json").read_text())["symbol"]
    path.write_bytes(path.read_bytes()[:1000])
    assert cache.load(seeded_cache) is None
    again = tessel.compile(tessel.GemmConfig(), target="sm_80")
    # (NVRTC's output is not byte-for-byte reproducible, so the entry is compared with itself.)
    assert not again.cache_hit and path.read_bytes() == again.cubin and again.symbol == symbol
    assert cache.load(seeded_cache) is not None
    (cache_dir / f"{seeded_cache}.json").write_text("{not json")
    assert cache.load(seeded_cache) is None


def test_clear(seeded_cache, cache_dir):
    assert cache.clear() == 2 and not list(cache_dir.iterdir())


def test_compile_error_carries_nvrtc_log(toolkit, cache_dir, include_copy):
    """A header that does not compile: CompileError with NVRTC's diagnostics, nothing cached."""
    gemm_hpp = include_copy / "tessel" / "gemm" / "kernel" / "gemm_params.hpp"
    gemm_hpp.write_text(gemm_hpp.read_text().replace("struct GemmParams {", "struct GemmParams { this does not parse;", 1))
    with pytest.raises(tessel.CompileError) as e:
        tessel.compile(tessel.GemmConfig(), target="sm_80")
    assert "NVRTC could not compile tessel_sm80_gemm_f16_f16_f32_128x128x32_64x64x32_3stage_tn.cu" in str(e.value)
    assert "gemm_params.hpp" in e.value.log and "error" in e.value.log
    assert "GemmKernelConfig" in e.value.source
    assert not cache_dir.exists() or not list(cache_dir.iterdir())


def test_static_assert_of_a_config_reaches_the_user(toolkit, cache_dir, monkeypatch):
    """When the Python side's idea of the kernel is wrong (here: the shared-memory size), the
    compilation stops with the assertion's sentence rather than launching with wrong numbers."""
    monkeypatch.setattr(tessel.GemmConfig, "smem_bytes", property(lambda self: 12345))
    with pytest.raises(tessel.CompileError, match="the launch gives GemmConfig.smem_bytes of shared memory"):
        tessel.compile(tessel.GemmConfig(), target="sm_80")


# ---- Hopper (arch "sm90a") ------------------------------------------------------------------------
HOPPER = {
    "tn_coop_c1": tessel.GemmConfig(arch="sm90a", element="bf16", out="bf16"),
    "nt_pingpong": tessel.GemmConfig(arch="sm90a", element="f16", out="f32", layout_a="col", layout_b="row", tile=(64, 128, 64),
                                     schedule="pingpong"),
    "tn_coop_c2": tessel.GemmConfig(arch="sm90a", element="f16", out="f16", cluster=(2, 1, 1)),
}


def test_hopper_source_is_the_builders():
    src = codegen.source(HOPPER["tn_coop_c1"])
    assert "tessel::gemm::collective::CollectiveBuilder<" in src and "tessel::gemm::collective::EpilogueBuilder<" in src
    assert "StageCountAutoCarveout<int(sizeof(typename Epilogue::SharedStorage))>" in src
    assert "KernelTmaWarpSpecializedCooperative" in src and "GemmShape<1, 1, 1>" in src
    assert "&tessel::gemm::kernel::sm90_gemm_tma_warpspecialized<tessel_jit::Config, tessel_jit::Fusion>" in src
    pp = codegen.source(HOPPER["nt_pingpong"])
    assert "tessel::half_t, tessel::gemm::ColumnMajor, 8,\n    tessel::half_t, tessel::gemm::RowMajor, 8" in pp
    assert "KernelTmaWarpSpecializedPingpong" in pp and "Config::BoxesA::kBoxInner == 64 && Config::BoxesA::kBoxOuter == 64" in pp
    assert "StageCount<" not in codegen.source(HOPPER["tn_coop_c2"]).replace("StageCountAuto", "")


def test_hopper_sources_assert_the_launchers_params():
    """One parameter block (kernel/sm90_params.hpp): every generated Hopper source asserts that its
    configuration's Sm90GemmParams is the block the launcher fills, for any tile, schedule,
    epilogue and element type."""
    for config in registry.configs():
        if config.arch == "sm90a":
            assert "TESSEL_SM90_PARAMS_MATCH(Params)" in codegen_sm90.source(config), config.name


@pytest.mark.parametrize("which", list(HOPPER))
def test_hopper_compiles_for_sm90a(toolkit, cache_dir, which):
    """Cold, without the cache: the three kinds the issue names (TN cooperative, NT ping-pong, a
    2x1 cluster). Compile times are bench/python_gemm.py's to measure."""
    config = HOPPER[which]
    k = tessel.compile(config, target="sm_90a", use_cache=False)
    assert not k.cache_hit and not cache_dir.exists() and k.seconds > 0
    assert cubin.sm_version(k.cubin) == 90 and cubin.functions(k.cubin) == [k.symbol]
    assert k.symbol.startswith(codegen_sm90.KERNEL_SYMBOL_PREFIX + "INS1_16Sm90KernelConfigI")
    kernel = k.kernel
    assert kernel.hopper and kernel.name == config.name and kernel.threads == 384 and kernel.smem == config.smem_bytes


def test_hopper_cache_hit_and_invalidation(toolkit, cache_dir, include_copy):
    config = HOPPER["nt_pingpong"]
    cold = tessel.compile(config, target="sm_90a")
    assert not cold.cache_hit and (cache_dir / f"{cold.key}.cubin").is_file()
    compiler._memo.clear()
    warm = tessel.compile(config, target="sm_90a")
    assert warm.cache_hit and warm.key == cold.key and warm.symbol == cold.symbol
    meta = json.loads((cache_dir / f"{cold.key}.json").read_text())
    assert meta["config"]["arch"] == "sm90a" and meta["name"] == config.name and meta["target"] == "sm_90a"
    # Another configuration, and an edit to the kernel's header, are other keys.
    assert compiler.cache_key(config.replace(stages=4), "sm_90a") != cold.key
    header = include_copy / "tessel" / "gemm" / "kernel" / "sm90_gemm_tma_warpspecialized.hpp"
    header.write_text(header.read_text() + "\n// edited\n")
    compiler._memo.clear()
    edited = tessel.compile(config, target="sm_90a")
    assert not edited.cache_hit and edited.key != cold.key


def test_hopper_needs_the_arch_specific_target():
    for target in ("sm_80", "sm_90", "sm_100a"):
        with pytest.raises(ValueError, match=f"compiles for the target sm_90a only .*not {target}") as e:
            tessel.compile(HOPPER["tn_coop_c1"], target=target)
        assert e.value.status == "kErrorArchMismatch"


def test_hopper_assertions_reach_the_user(toolkit, cache_dir, monkeypatch):
    """The launcher's numbers are asserted against the kernel's: a launch with too little shared
    memory, or boxes the kernel does not load, stops the compilation."""
    monkeypatch.setattr(tessel.GemmConfig, "smem_bytes", property(lambda self: 1024))
    with pytest.raises(tessel.CompileError, match="less than the kernel's kSmemBytes"):
        tessel.compile(HOPPER["tn_coop_c1"], target="sm_90a")
    monkeypatch.undo()
    monkeypatch.setattr(tessel.GemmConfig, "tma_boxes", property(lambda self: ((64, 64), (64, 64))))
    with pytest.raises(tessel.CompileError, match="the launcher encodes A's tensor map with GemmConfig.tma_boxes"):
        tessel.compile(HOPPER["tn_coop_c1"], target="sm_90a")


def test_hopper_kernel_traits_are_checked():
    message = "a Hopper kernel needs a cluster of 1 or 2 CTAs along M and N, both TMA boxes and a row-major D"
    with pytest.raises(ValueError, match=message):
        _core.Kernel(b"", "k", "s", "sm_90a", 0, 2, True, False, True, 0, 128, 256, 384, 1024, hopper=True, cluster_m=1)
    with pytest.raises(ValueError, match=message):
        _core.Kernel(b"", "k", "s", "sm_90a", 0, 2, True, False, True, 0, 128, 256, 384, 1024, hopper=True, cluster_n=4,
                     box_a=(64, 64), box_b=(64, 256))


@pytest.mark.parametrize("target", ["compute_80", "sm80", "ampere", "sm_9"])
def test_bad_targets(target):
    with pytest.raises(ValueError, match="give a real architecture"):
        tessel.compile(tessel.GemmConfig(), target=target)


def test_arch_newer_than_the_target_is_refused():
    """An Sm80 kernel compiled for sm_75 would have its body compiled out: refused up front."""
    with pytest.raises(ValueError, match="arch 'sm80' needs sm_80 or newer, but the target is sm_75: use arch='sm75'"):
        tessel.compile(tessel.GemmConfig(), target="sm_75")
    with pytest.raises(ValueError, match="tessel's kernels need sm_75 or newer"):
        tessel.compile(tessel.GemmConfig(arch="sm75", stages=2), target="sm_70")


def test_compile_takes_a_config():
    with pytest.raises(TypeError, match="takes a GemmConfig"):
        tessel.compile({"tile": (128, 128, 32)}, target="sm_80")


def test_no_device_means_give_a_target():
    if _core.device_count() > 0:
        pytest.skip("a CUDA device is present")
    with pytest.raises(RuntimeError, match="no CUDA device to compile for .*pass target="):
        tessel.compile(tessel.GemmConfig())


def test_target_for_compute_capability():
    assert [compiler.target_for(cc) for cc in (80, 86, 89, 90, 100)] == ["sm_80", "sm_86", "sm_89", "sm_90a", "sm_100"]
    runs = [(t, cc) for t in ("sm_80", "sm_86", "sm_90a", "sm_90") for cc in (75, 80, 86, 89, 90, 100) if _core.target_runs_on(t, cc)]
    assert runs == [("sm_80", 80), ("sm_80", 86), ("sm_80", 89), ("sm_86", 86), ("sm_86", 89), ("sm_90a", 90), ("sm_90", 90)]


def test_headers_are_installed_with_the_package():
    inc = paths.include_dir()
    assert (inc / "tessel" / "jit" / "sm80_gemm.hpp").is_file() and (inc / "tessel" / "gemm" / "kernel" / "gemm.hpp").is_file()
    assert {p.name for p in paths.std_dir().iterdir()} >= {"cstdint", "type_traits", "utility", "array", "climits", "cstddef", "cstdio"}


# ---- the prebuilt kernels ------------------------------------------------------------------------
def test_prebuilt_set_covers_every_plain_call():
    for hopper in (False, True):
        configs = [c for c in prebuilt.configs() if c.hopper == hopper and c.element in ("f16", "bf16")]
        combos = {(c.element, c.out, c.layout_a, c.layout_b) for c in configs if c.epilogue == "linear"}
        assert len(combos) == 16 and all(c.layout_c == "row" for c in configs)
        assert ("bf16", "f32", "col", "row") in combos and ("f16", "f16", "row", "col") in combos
        assert len(configs) == len(set(configs)) and len({c.name for c in configs}) == len(configs)
    # The kinds models call (x @ W and x @ W.t(), 16-bit in and out) get every Hopper tile of the
    # registry, with each fused activation; the rest the default tile.
    hopper = [c for c in prebuilt.configs() if c.hopper]
    for element in ("f16", "bf16"):
        for layout_b in ("row", "col"):
            for epilogue in ("linear", "relu", "gelu", "silu"):
                shipped = {(t.tile, t.schedule) for t in registry.HOPPER_TILES if epilogue == "linear" or t.scheduler == "persistent"}
                tiles = {(c.tile, c.kernel_schedule) for c in hopper if (c.element, c.out, c.layout_a, c.layout_b, c.epilogue) ==
                         (element, element, "row", layout_b, epilogue)}
                assert tiles == shipped
    assert {c.tile for c in hopper if c.out == "f32" and c.element != "tf32"} == {(128, 256, 64)}
    # Beyond 16 bits: torch._scaled_mm's e4m3 -> bf16 with both accumulations (fast: the wide tile,
    # the 128x128 and 128x192 ones and decode's narrow ones; promoted: 128x128, and 128x192 on 2x1
    # clusters) and with blockwise scales (128x128 and 128x192), and TF32.
    wide = {(c.element, c.out, c.tile, c.kernel_schedule) for c in hopper if c.element not in ("f16", "bf16")}
    assert wide == {("e4m3", "bf16", (128, 256, 128), "cooperative"), ("e4m3", "bf16", (128, 64, 128), "cooperative"),
                    ("e4m3", "bf16", (64, 64, 128), "pingpong"),
                    ("e4m3", "bf16", (128, 128, 128), "cooperative"), ("e4m3", "bf16", (128, 192, 128), "cooperative"),
                    ("e4m3", "bf16", (128, 128, 128), "cooperative_promoted"),
                    ("e4m3", "bf16", (128, 192, 128), "cooperative_promoted"),
                    ("e4m3", "bf16", (128, 128, 128), "cooperative_blockscaled"),
                    ("e4m3", "bf16", (128, 192, 128), "cooperative_blockscaled"), ("tf32", "f32", (128, 256, 32), "cooperative")}
    assert prebuilt.archs(HOPPER["tn_coop_c1"], ["80", "90a"]) == ["90a"] and prebuilt.archs(tessel.GemmConfig(), ["80"]) == ["80"]


def test_installed_prebuilt_kernels():
    entries = prebuilt.manifest()
    if not entries:
        pytest.skip("the package was built without nvcc (no prebuilt kernels)")
    configs = [prebuilt._config(e) for e in entries]
    # All of the set, or the part a build chose (TESSEL_PYTHON_KERNEL_FILTER), nothing else.
    assert {c.name for c in configs} <= {c.name for c in prebuilt.configs()} and len(configs) == len(set(configs))
    for entry, config in zip(entries, configs):
        for target, file in entry["cubins"].items():
            data = (prebuilt.KERNEL_DIR / file).read_bytes()
            assert cubin.sm_version(data) == int(target[3:].rstrip("af"))
            assert len([f for f in cubin.functions(data) if f.startswith(codegen.symbol_prefix(config))]) == 1
    target = next(iter(entries[0]["cubins"]))
    cc = int(target[3:].rstrip("af"))
    k = prebuilt.find(configs[0], cc)
    assert k is not None and k.target == target and k.name == configs[0].name
    assert prebuilt.find(configs[0].replace(epilogue="relu"), cc) is None
    assert prebuilt.find(configs[0], 75) is None


def test_nvcc_compiles_the_generated_source(tmp_path):
    """The prebuilt kernels are the JIT's sources compiled by nvcc (python/kernels.cmake), with
    the real standard library instead of the NVRTC stand-ins: one of them, to prove the source
    serves both compilers, and that nvcc names the kernel as NVRTC does."""
    nvcc = shutil.which("nvcc")
    if not nvcc:
        pytest.skip("nvcc is not on PATH")
    cfg = tessel.GemmConfig(element="bf16", layout_b="row")
    src = tmp_path / "k.cu"
    src.write_text(codegen.source(cfg))
    out = tmp_path / "k.cubin"
    subprocess.run([nvcc, "-cubin", "-std=c++20", "-O3", "-DNDEBUG", "--expt-relaxed-constexpr", "-arch=sm_90a",
                    f"-I{paths.include_dir()}", "-o", str(out), str(src)], check=True, capture_output=True)
    data = out.read_bytes()
    assert cubin.sm_version(data) == 90
    symbol = cubin.kernel_symbol(data, codegen.KERNEL_SYMBOL_PREFIX)
    assert symbol.startswith(codegen.KERNEL_SYMBOL_PREFIX + "INS_3jit16GemmKernelConfigI13__nv_bfloat16")


def test_nvcc_compiles_the_generated_hopper_source(toolkit, cache_dir, tmp_path):
    """The prebuilt Hopper kernels: nvcc with <cuda.h>'s CUtensorMap, NVRTC with tessel's stand-in,
    the same kernel name either way."""
    nvcc = shutil.which("nvcc")
    if not nvcc:
        pytest.skip("nvcc is not on PATH")
    config = HOPPER["tn_coop_c2"]
    src = tmp_path / "k.cu"
    src.write_text(codegen.source(config))
    out = tmp_path / "k.cubin"
    subprocess.run([nvcc, "-cubin", "-std=c++20", "-DNDEBUG", "--expt-relaxed-constexpr", "-arch=sm_90a", "-Xptxas", "-O1",
                    f"-I{paths.include_dir()}", "-o", str(out), str(src)], check=True, capture_output=True)
    symbol = cubin.kernel_symbol(out.read_bytes(), codegen.symbol_prefix(config))
    assert symbol == tessel.compile(config, target="sm_90a").symbol


def test_nvcc_and_nvrtc_name_the_kernel_alike(seed_entry, tmp_path):
    nvcc = shutil.which("nvcc")
    if not nvcc:
        pytest.skip("nvcc is not on PATH")
    key, d = seed_entry
    src = tmp_path / "k.cu"
    src.write_text(codegen.source(tessel.GemmConfig()))
    out = tmp_path / "k.cubin"
    subprocess.run([nvcc, "-cubin", "-std=c++20", "-DNDEBUG", "--expt-relaxed-constexpr", "-arch=sm_80", "-Xptxas", "-O0",
                    f"-I{paths.include_dir()}", "-o", str(out), str(src)], check=True, capture_output=True)
    assert cubin.functions(out.read_bytes()) == [json.loads((d / f"{key}.json").read_text())["symbol"]]


def test_cache_dir_default(monkeypatch, tmp_path):
    monkeypatch.delenv("TESSEL_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache.cache_dir() == tmp_path / "tessel" / "jit"
    monkeypatch.setenv("TESSEL_CACHE_DIR", "/somewhere/else")
    assert str(cache.cache_dir()) == "/somewhere/else"


def test_environment_is_not_consulted_for_paths_that_exist(monkeypatch, tmp_path):
    monkeypatch.setenv("TESSEL_INCLUDE_DIR", str(tmp_path))  # no headers there: ignored
    assert paths.include_dir() != tmp_path
    assert os.path.isdir(paths.include_dir())
