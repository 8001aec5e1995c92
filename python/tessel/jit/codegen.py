"""C++ source for one GemmConfig: an explicit instantiation of tessel's Sm75/Sm80 kernel (Hopper's
is codegen_sm90's).

The kernel template is tessel::gemm::kernel::gemm_kernel<Config>; the source instantiates it
for a tessel::jit::GemmKernelConfig built from the configuration, and NVRTC (or nvcc, for the
prebuilt kernels) compiles it. The launcher (tessel._core) fills the kernel's parameter block
as a plain struct, so the source also asserts the block's layout, the thread count and the
shared-memory size the Python side computed: a change to the C++ side that breaks them stops
the compilation instead of corrupting a launch.

Only the standard library is imported here (see config.py).
"""

from __future__ import annotations

from . import codegen_sm90, cxx
from .config import GemmConfig

_CPP_ELEMENT = {"f16": "tessel::half_t", "bf16": "tessel::bfloat16_t", "f32": "float"}
_CPP_LAYOUT = {"row": "tessel::gemm::RowMajor", "col": "tessel::gemm::ColumnMajor"}
_CPP_ARCH = {"sm80": "tessel::arch::Sm80", "sm75": "tessel::arch::Sm75"}

# The kernel template a source instantiates, in tessel::gemm::kernel: the dense one, or the grouped
# walk (scheduler "grouped").
_KERNEL_NAMES = {False: "gemm_kernel", True: "gemm_grouped_kernel"}


def _kernel_name(config: GemmConfig) -> str:
    return _KERNEL_NAMES[config.scheduler == "grouped"]


def _mangled_prefix(name: str) -> str:
    """How every instantiation of tessel::gemm::kernel::<name> starts, mangled."""
    return f"_ZN6tessel4gemm6kernel{len(name)}{name}"


KERNEL_SYMBOL_PREFIX = _mangled_prefix(_KERNEL_NAMES[False])  # the dense kernel's


def _shape(t) -> str:
    return f"tessel::gemm::GemmShape<{t[0]}, {t[1]}, {t[2]}>"


def epilogue_type(config: GemmConfig) -> str:
    """The linear combination, with the configuration's activation (the one every kernel runs)."""
    out = _CPP_ELEMENT[config.out]
    if config.epilogue == "linear":
        return f"tessel::epilogue::LinearCombination<{out}>"
    return f"tessel::epilogue::LinearCombination<{out}, {out}, {codegen_sm90.CPP_ACTIVATION[config.epilogue]}>"


def config_type(config: GemmConfig) -> str:
    return ("tessel::jit::GemmKernelConfig<\n"
            f"    {_CPP_ELEMENT[config.element]}, {_CPP_LAYOUT[config.layout_a]}, {_CPP_LAYOUT[config.layout_b]},\n"
            f"    {_CPP_ELEMENT[config.out]}, {_CPP_LAYOUT[config.layout_c]}, {_CPP_ARCH[config.arch]},\n"
            f"    {_shape(config.tile)}, {_shape(config.warp)}, {_shape(config.instruction)},\n"
            f"    {epilogue_type(config)}, {config.stages}>")


def kernel_expression(config: GemmConfig) -> str:
    """NVRTC's name expression for the kernel `config` instantiates."""
    return codegen_sm90.KERNEL_EXPRESSION if config.hopper else f"&tessel::gemm::kernel::{_kernel_name(config)}<tessel_jit::Config>"


def symbol_prefix(config: GemmConfig) -> str:
    """How the mangled name of the kernel of `config` starts (for cubins nvcc compiled)."""
    return codegen_sm90.KERNEL_SYMBOL_PREFIX if config.hopper else _mangled_prefix(_kernel_name(config))


def source(config: GemmConfig) -> str:
    """The translation unit for `config`."""
    if config.hopper:
        return codegen_sm90.source(config)
    grouped = config.scheduler == "grouped"
    includes = ['#include "tessel/jit/sm80_gemm.hpp"']
    if grouped:
        includes.append('#include "tessel/gemm/kernel/sm80_gemm_grouped.hpp"')
    # The launcher fills one block for every configuration (kernel/gemm_params.hpp's Sm80LaunchParams,
    # or Sm80GroupedLaunchParams).
    match = "TESSEL_SM80_GROUPED_PARAMS_MATCH" if grouped else "TESSEL_SM80_PARAMS_MATCH"
    params = "GemmGroupedParams" if grouped else "GemmParams"
    asserts = [f"static_assert({match}(Params), "
               f'"this configuration\'s {params} is not the launcher\'s block (kernel/gemm_params.hpp)");']
    asserts.append(f"static_assert(Config::kThreads == {config.threads}, "
                   '"the launch uses GemmConfig.threads threads: update it to the kernel\'s");')
    asserts.append(f"static_assert(Config::kSharedStorageSize == {config.smem_bytes}, "
                   '"the launch gives GemmConfig.smem_bytes of shared memory: update it to the kernel\'s");')
    return "\n".join([
        *cxx.banner(config, "codegen"),
        *includes,
        "",
        "namespace tessel_jit {",
        f"using Config = {config_type(config)};",
        f"using Params = tessel::gemm::kernel::{params}<Config>;",
        *asserts,
        "}  // namespace tessel_jit",
        "",
        f"template __global__ void tessel::gemm::kernel::{_kernel_name(config)}<tessel_jit::Config>(",
        f"    tessel::gemm::kernel::{params}<tessel_jit::Config>);",
        "",
    ])
