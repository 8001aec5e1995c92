"""GemmConfig: one GEMM kernel configuration, as the JIT generates and caches it.

A configuration names everything that is a template argument of the kernel: the kernel family
(``arch``), element types, operand layouts, tile shapes, pipeline depth, cluster, schedule and
the fused epilogue. Run-time values (problem size, pointers, alpha, beta) are not part of it.

Only the standard library is imported here: the build runs this module to generate the prebuilt
kernels before the extension exists.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

# Element-type spellings accepted, and their canonical short names.
_ELEMENTS = {
    "f16": "f16", "float16": "f16", "half": "f16", "torch.float16": "f16",
    "bf16": "bf16", "bfloat16": "bf16", "torch.bfloat16": "bf16",
    "f32": "f32", "float32": "f32", "float": "f32", "torch.float32": "f32",
}
ELEMENT_CODES = {"f16": 0, "bf16": 1, "f32": 2}  # tessel._core's Element
EPILOGUES = ("linear", "relu", "gelu", "silu")  # tessel._core's Epilogue, in code order
LAYOUTS = ("row", "col")
# Kernel families. Hopper's is named so that a configuration for it gets a clear refusal until the
# JIT generates it.
ARCHS = ("sm80", "sm75")
FUTURE_ARCHS = ("sm90a",)
SCHEDULES = ("auto", "multistage", "twostage")
FUTURE_SCHEDULES = ("warpspecialized", "cooperative", "pingpong")


def element_name(dtype) -> str:
    """'f16', 'bf16' or 'f32' for a torch dtype or a string such as 'bfloat16'."""
    key = str(dtype)
    if key not in _ELEMENTS:
        raise ValueError(f"element type {dtype!r}: tessel's GEMM kernels take float16 and bfloat16 inputs "
                         "and float32, float16 or bfloat16 outputs")
    return _ELEMENTS[key]


def _triple(value, what):
    try:
        t = tuple(int(v) for v in value)
    except TypeError:
        raise ValueError(f"{what} must be three integers (M, N, K), not {value!r}") from None
    if len(t) != 3 or min(t) <= 0:
        raise ValueError(f"{what} must be three positive integers (M, N, K), not {value!r}")
    return t


@dataclass(frozen=True)
class GemmConfig:
    """A GEMM kernel configuration: D = epilogue(alpha * A @ B + beta * C).

    arch:      kernel family: "sm80" (cp.async multistage / two-stage mainloop, mma.sync m16n8k16;
               runs on sm_80 and newer, sm_90a included) or "sm75" (two stages, m16n8k8, float16).
    element:   A and B element type: "f16" or "bf16" (torch dtypes accepted).
    out:       C and D element type: "f32", "f16" or "bf16".
    layout_a:  "row" (A is M x K with K contiguous) or "col"; layout_b likewise for B (K x N);
    layout_c:  for C and D (M x N).
    tile:      threadblock tile (M, N, K); warp: warp tile (M, N, K), same K.
    stages:    shared-memory pipeline depth (sm80: >= 3 multistage, 2 two-stage; sm75: 2).
    cluster:   thread-block cluster shape; (1, 1, 1) until the JIT generates Hopper kernels.
    schedule:  "auto" (by stages), "multistage" or "twostage".
    epilogue:  "linear", or the linear combination followed by "relu", "gelu" (erf) or "silu".
    """

    arch: str = "sm80"
    element: str = "f16"
    out: str = "f32"
    layout_a: str = "row"
    layout_b: str = "col"
    layout_c: str = "row"
    tile: tuple = (128, 128, 32)
    warp: tuple = (64, 64, 32)
    stages: int = 3
    cluster: tuple = (1, 1, 1)
    schedule: str = "auto"
    epilogue: str = "linear"

    def __post_init__(self):
        set_ = lambda name, value: object.__setattr__(self, name, value)  # noqa: E731 (frozen dataclass)
        set_("element", element_name(self.element))
        set_("out", element_name(self.out))
        set_("tile", _triple(self.tile, "tile"))
        set_("warp", _triple(self.warp, "warp"))
        set_("cluster", _triple(self.cluster, "cluster"))
        set_("stages", int(self.stages))
        self._validate()

    # ---- rules --------------------------------------------------------------------------------
    def _validate(self):
        if self.arch in FUTURE_ARCHS:
            raise ValueError(f"arch {self.arch!r}: the JIT does not generate Hopper kernels (gemm_sm90.hpp) yet; "
                             "use arch='sm80', whose kernels compile for and run on sm_90a")
        if self.arch not in ARCHS:
            raise ValueError(f"arch {self.arch!r}: choose one of {', '.join(ARCHS)}")
        if self.element == "f32":
            raise ValueError("element 'f32': the tensor-core kernels take float16 or bfloat16 A and B")
        if self.arch == "sm75" and self.element != "f16":
            raise ValueError(f"element {self.element!r} with arch 'sm75': Turing's m16n8k8 instruction takes float16 only")
        for name in ("layout_a", "layout_b", "layout_c"):
            if getattr(self, name) not in LAYOUTS:
                raise ValueError(f"{name} {getattr(self, name)!r}: choose 'row' or 'col'")
        if self.epilogue not in EPILOGUES:
            raise ValueError(f"epilogue {self.epilogue!r}: choose one of {', '.join(EPILOGUES)}")
        if self.cluster != (1, 1, 1):
            raise ValueError(f"cluster {self.cluster}: thread-block clusters belong to Hopper (sm90a) configurations, "
                             "which the JIT does not generate yet; use (1, 1, 1)")
        if self.schedule in FUTURE_SCHEDULES:
            raise ValueError(f"schedule {self.schedule!r} is a Hopper schedule, which the JIT does not generate yet; "
                             "use 'auto', 'multistage' or 'twostage'")
        if self.schedule not in SCHEDULES:
            raise ValueError(f"schedule {self.schedule!r}: choose one of {', '.join(SCHEDULES)}")
        if self.arch == "sm75" and self.stages != 2:
            raise ValueError(f"stages {self.stages} with arch 'sm75': Turing has no cp.async, so its mainloop has exactly 2 stages")
        if self.stages < 2:
            raise ValueError(f"stages {self.stages}: at least 2")
        if self.schedule == "multistage" and self.stages < 3:
            raise ValueError("schedule 'multistage' needs stages >= 3 (2 stages is the 'twostage' schedule)")
        if self.schedule == "twostage" and self.stages != 2:
            raise ValueError(f"schedule 'twostage' has exactly 2 stages, not {self.stages}")
        (tm, tn, tk), (wm, wn, wk) = self.tile, self.warp
        if tk != wk:
            raise ValueError(f"warp {self.warp}: the warp tile's K must equal the threadblock tile's K ({tk})")
        if tm % wm or tn % wn:
            raise ValueError(f"tile {self.tile} is not a whole number of warp tiles {self.warp} in M and N")
        if wm % 16 or wn % 16 or wk % 16:
            raise ValueError(f"warp {self.warp}: ldmatrix reads 16x16 blocks, so the warp tile's M, N and K must be multiples of 16")
        if (self.layout_a == "row" or self.layout_b == "col") and tk % 32:
            raise ValueError(f"tile {self.tile}: a K-major operand's shared-memory tile needs K to be a multiple of 32")
        if self.layout_a == "col" and tm % 64:
            raise ValueError(f"tile {self.tile}: column-major A (M contiguous) needs the tile's M to be a multiple of 64")
        if self.layout_b == "row" and tn % 64:
            raise ValueError(f"tile {self.tile}: row-major B (N contiguous) needs the tile's N to be a multiple of 64")
        if self.threads > 1024:
            raise ValueError(f"tile {self.tile} over warp {self.warp} needs {self.threads} threads; a CTA has at most 1024")

    # ---- derived ------------------------------------------------------------------------------
    @property
    def threads(self) -> int:
        """Threads per CTA: one warp per warp tile."""
        return 32 * (self.tile[0] // self.warp[0]) * (self.tile[1] // self.warp[1])

    @property
    def smem_bytes(self) -> int:
        """Dynamic shared memory: every stage of the A and B tiles (16-bit elements, unpadded; the
        two-stage mainloop keeps one stage in shared memory and one in registers)."""
        tm, tn, tk = self.tile
        buffered = 1 if self.stages == 2 else self.stages
        return 2 * (tm + tn) * tk * buffered

    @property
    def instruction(self) -> tuple:
        return (16, 8, 8) if self.arch == "sm75" else (16, 8, 16)

    @property
    def name(self) -> str:
        """tessel_sm80_gemm_f16_f16_f32_128x128x32_64x64x32_3stage_tn, as device::Gemm::name()
        spells it, with the C layout and the epilogue appended when they are not the defaults."""
        shape = lambda t: "x".join(map(str, t))  # noqa: E731
        name = (f"tessel_{self.arch}_gemm_{self.element}_{self.element}_{self.out}_{shape(self.tile)}_{shape(self.warp)}_"
                f"{self.stages}stage_{'t' if self.layout_a == 'row' else 'n'}{'n' if self.layout_b == 'col' else 't'}")
        if self.layout_c == "col":
            name += "_dcol"
        if self.epilogue != "linear":
            name += f"_{self.epilogue}"
        return name

    def key(self) -> dict:
        """Every field, as plain values (the cache key's part from the configuration)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def replace(self, **changes) -> "GemmConfig":
        return dataclasses.replace(self, **changes)
