"""C++ source for one Hopper GemmConfig (arch "sm90a"): the kernel
tessel::gemm::kernel::sm90_gemm_tma_warpspecialized<Cfg, Fusion>, with Cfg and Fusion built by the
collective builders exactly as a C++ user builds them for GemmUniversalAdapter, and explicitly
instantiated for NVRTC (or nvcc, for the prebuilt kernels).

The launcher (tessel._core) fills the kernel's Sm90GemmParams as a plain struct, encodes the three
TMA descriptors (A and B with the box sizes below, D in the TMA-store epilogue's boxes) and launches with the thread count, shared memory and
cluster size below, so the source asserts all of them against the C++ types: a change on the C++
side that breaks one stops the compilation instead of corrupting a launch.

Only the standard library is imported here (see config.py).
"""

from __future__ import annotations

from . import cxx, sm90_rules
from .config import GemmConfig


KERNEL_EXPRESSION = "&tessel::gemm::kernel::sm90_gemm_tma_warpspecialized<tessel_jit::Config, tessel_jit::Fusion>"
KERNEL_SYMBOL_PREFIX = "_ZN6tessel4gemm6kernel29sm90_gemm_tma_warpspecialized"

# tf32: float32 in memory, which the Hopper kernel's wgmma reads as TF32 (arch/wgmma_sm90.hpp).
_CPP_ELEMENT = {"f16": "tessel::half_t", "bf16": "tessel::bfloat16_t", "f32": "float", "tf32": "float",
                "e4m3": "tessel::float_e4m3_t", "e5m2": "tessel::float_e5m2_t"}
_CPP_LAYOUT = {"row": "tessel::gemm::RowMajor", "col": "tessel::gemm::ColumnMajor"}
_CPP_SCHEDULE = {"cooperative": "tessel::gemm::collective::KernelTmaWarpSpecializedCooperative",
                 "pingpong": "tessel::gemm::collective::KernelTmaWarpSpecializedPingpong",
                 "cooperative_promoted": "tessel::gemm::collective::KernelTmaWarpSpecializedCooperativeFP8Promoted",
                 "cooperative_blockscaled": "tessel::gemm::collective::KernelTmaWarpSpecializedCooperativeFP8BlockScaled"}
_BITS = {"f16": 16, "bf16": 16, "f32": 32, "tf32": 32, "e4m3": 8, "e5m2": 8}
# The fused activations (epilogue/fusion/activation_fn.hpp), applied by the linear combination
# (epilogue/linear_combination.hpp); codegen.py's Sm80 sources name them the same way.
CPP_ACTIVATION = {"linear": "tessel::epilogue::fusion::Identity", "relu": "tessel::epilogue::fusion::ReLU",
                   "gelu": "tessel::epilogue::fusion::GeluErf", "silu": "tessel::epilogue::fusion::SiLU"}


def _cpp_bool(b: bool) -> str:
    return "true" if b else "false"


def _types(config: GemmConfig) -> list[str]:
    el, out = _CPP_ELEMENT[config.element], _CPP_ELEMENT[config.out]
    bm, bn, bk = config.tile
    stages = ("tessel::gemm::collective::StageCountAutoCarveout<int(sizeof(typename Epilogue::SharedStorage))>"
              if config.stages == "auto" else f"tessel::gemm::collective::StageCount<{config.stages}>")
    align_ab, align_cd = 128 // _BITS[config.element], 128 // _BITS[config.out]
    return [
        f"using Tile = tessel::gemm::GemmShape<{bm}, {bn}, {bk}>;",
        f"using Cluster = tessel::gemm::GemmShape<{config.cluster[0]}, {config.cluster[1]}, 1>;",
        "using Epilogue = typename tessel::gemm::collective::EpilogueBuilder<",
        "    tessel::arch::Sm90, tessel::gemm::OpClassTensorOp, Tile, Cluster, tessel::gemm::collective::EpilogueTileAuto,",
        f"    float, float, {out}, tessel::gemm::RowMajor, {align_cd}, {out}, tessel::gemm::RowMajor, {align_cd},",
        "    tessel::gemm::collective::EpilogueTmaWarpSpecialized,",
        f"    tessel::epilogue::LinearCombination<{out}, {out}, {CPP_ACTIVATION[config.epilogue]}>>::CollectiveOp;",
        "using Mainloop = typename tessel::gemm::collective::CollectiveBuilder<",
        f"    tessel::arch::Sm90, tessel::gemm::OpClassTensorOp, {el}, {_CPP_LAYOUT[config.layout_a]}, {align_ab},",
        f"    {el}, {_CPP_LAYOUT[config.layout_b]}, {align_ab}, float, Tile, Cluster,",
        f"    {stages},",
        f"    {_CPP_SCHEDULE[config.kernel_schedule]}>::CollectiveOp;",
        "// D through shared memory and TMA stores: the launcher encodes D's tensor map (and, where D's",
        "// alignment does not allow TMA, clears tma_store_d and the kernel stores from registers).",
        f"using Config = tessel::gemm::kernel::Sm90Rebind<Mainloop, false, {_cpp_bool(config.scheduler == 'stream_k')}, Epilogue::kTmaStoreD, "
        f"{_cpp_bool(config.scheduler == 'grouped')}, {_cpp_bool(config.rowwise_scaled)}>;",
        "using Fusion = typename Epilogue::FusionCallbacks;",
        "using Params = tessel::gemm::kernel::Sm90GemmParams<Fusion>;",
    ]


def _asserts(config: GemmConfig) -> list[str]:
    # The launcher fills one block for every configuration (kernel/sm90_params.hpp's Sm90LaunchParams).
    out = ["static_assert(TESSEL_SM90_PARAMS_MATCH(Params), "
           '"this configuration\'s Sm90GemmParams is not the launcher\'s block (kernel/sm90_params.hpp)");']
    (a_in, a_out), (b_in, b_out) = config.tma_boxes
    checks = [
        (f"Config::kThreads == {config.threads}", "the launch uses GemmConfig.threads threads"),
        (f"Config::kSmemBytes <= {config.smem_bytes}", "the launch gives GemmConfig.smem_bytes of shared memory, less than the kernel's kSmemBytes"),
        (f"Config::kSmemBytes == {sm90_rules.smem_bytes(config.tile, config.stage_count, config.block_scaled)}",
         "sm90_rules.smem_bytes counts shared memory otherwise than the kernel"),
        (f"Config::Stages == {config.stage_count}", "GemmConfig.stage_count (the builder's auto rule in sm90_rules.py) differs"),
        (f"Config::ClusterM == {config.cluster[0]} && Config::ClusterN == {config.cluster[1]}", "the launch uses GemmConfig.cluster"),
        (f"Config::BoxesA::kBoxInner == {a_in} && Config::BoxesA::kBoxOuter == {a_out}",
         "the launcher encodes A's tensor map with GemmConfig.tma_boxes[0]"),
        (f"Config::BoxesB::kBoxInner == {b_in} && Config::BoxesB::kBoxOuter == {b_out}",
         "the launcher encodes B's tensor map with GemmConfig.tma_boxes[1]"),
        ("Config::kSmemBytes <= tessel::gemm::collective::kSm90SmemBytes", "the stages do not fit in shared memory"),
        (f"Config::kStreamK == {_cpp_bool(config.scheduler == 'stream_k')}", "the launcher fills a Decomposition for stream_k kernels only"),
        (f"Config::kGrouped == {_cpp_bool(config.scheduler == 'grouped')}", "the launcher fills the groups for grouped kernels only"),
        (f"!Config::kStreamK || 256 * Config::kMmaM * Config::Mma::kAccumulators == {config.fixup_slot_floats}",
         "the launcher sizes the fixup workspace with GemmConfig.fixup_slot_floats"),
        ("Config::kTmaStoreD && Epilogue::kTmaStoreD && Config::Stages == Mainloop::Stages",
         "the launcher encodes D's tensor map for a TMA-store epilogue whose buffers the stages leave room for"),
        (f"Config::kBlockScaled == {_cpp_bool(config.block_scaled)}", "the launcher fills the block scales for block-scaled kernels only"),
        (f"Config::kRowwiseScales == {_cpp_bool(config.rowwise_scaled)}",
         "the launcher fills the row-wise scales for row-wise scaled kernels only"),
        ("sizeof(tessel::gemm::kernel::BlockScaleTensor) == 32", "the launcher writes BlockScaleTensor as {ptr, row, k, batch}"),
    ]
    if config.block_scaled:
        checks += [
            (f"tessel::gemm::kernel::kScaleGroup == {sm90_rules.SCALE_GROUP}",
             "sm90_rules.SCALE_GROUP counts the scale ring otherwise than the kernel"),
            (f"Config::kScaleBytes + Config::ScaleRing::kSlots * 16 == "
             f"{sm90_rules.scale_ring_bytes(config.tile[0], config.tile[1], config.stage_count)}",
             "sm90_rules.scale_ring_bytes counts the scale ring otherwise than the kernel"),
            ("tessel::gemm::kernel::kBlockScaleK == 128 && tessel::gemm::kernel::kBlockScaleN == 128",
             "tessel.scaled_mm and the launcher take scales per 128 of K and 128 rows of B"),
        ]
    out += [f'static_assert({cond}, "{why}: update it to the kernel\'s");' for cond, why in checks]
    return out


def source(config: GemmConfig) -> str:
    """The translation unit for a Hopper `config`."""
    return "\n".join([
        *cxx.banner(config, "codegen_sm90"),
        '#include "tessel/gemm/collective/sm90_builder.hpp"',
        '#include "tessel/gemm/kernel/sm90_gemm_tma_warpspecialized.hpp"',
        "",
        "namespace tessel_jit {",
        *_types(config),
        *_asserts(config),
        "}  // namespace tessel_jit",
        "",
        "// The kernel is instantiated by naming it: NVRTC from the name expression it is given, nvcc from",
        "// this reference (an explicit instantiation would have to repeat the parameters' annotations).",
        "#if !defined(__CUDACC_RTC__)",
        "void const* tessel_jit_kernel() {",
        "  return reinterpret_cast<void const*>(&tessel::gemm::kernel::sm90_gemm_tma_warpspecialized<tessel_jit::Config, tessel_jit::Fusion>);",
        "}",
        "#endif",
        "",
    ])
