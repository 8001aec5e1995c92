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

from . import sm90_rules
from .status import ConfigError, integer, refuse, refuse_type

# Element-type spellings accepted, and their canonical short names.
_ELEMENTS = {
    "f16": "f16", "float16": "f16", "half": "f16", "torch.float16": "f16",
    "bf16": "bf16", "bfloat16": "bf16", "torch.bfloat16": "bf16",
    "f32": "f32", "float32": "f32", "float": "f32", "torch.float32": "f32",
    "e4m3": "e4m3", "float8_e4m3fn": "e4m3", "torch.float8_e4m3fn": "e4m3",
    "e5m2": "e5m2", "float8_e5m2": "e5m2", "torch.float8_e5m2": "e5m2",
    "tf32": "tf32",
}
ELEMENT_CODES = {"f16": 0, "bf16": 1, "f32": 2, "e4m3": 3, "e5m2": 4, "tf32": 5}  # tessel._core's Element
OUTPUTS = ("f32", "f16", "bf16")  # what C and D may be
EPILOGUES = ("linear", "relu", "gelu", "silu")  # tessel._core's Epilogue, in code order
LAYOUTS = ("row", "col")
# Kernel families: Hopper's TMA/wgmma kernel, and the mma.sync kernels of Ampere and Turing.
ARCHS = ("sm80", "sm75", "sm90a")
SCHEDULES = ("auto", "multistage", "twostage")
# How FP8 scales reach D: "tensor" (one scale each for A and B, folded into alpha, or none) or
# "rowwise" (a scale per row of A and per column of D on the accumulators: Sm90KernelConfig's
# kRowwiseScales). Per-block scales are a mainloop's work: schedule "cooperative_blockscaled".
SCALINGS = ("tensor", "rowwise")
# The most dynamic shared memory one CTA may have on each GPU generation, by SM number (the
# opt-in limit of the CUDA C++ Programming Guide's technical specifications). sm_90's is the
# Hopper kernel's own constant. compile() holds a configuration to its target's; GemmConfig to
# the largest, which no GPU exceeds.
SMEM_PER_CTA = {75: 64 * 1024, 80: 163 * 1024, 86: 99 * 1024, 87: 163 * 1024, 89: 99 * 1024,
                90: sm90_rules.SMEM_BYTES, 100: 227 * 1024, 120: 99 * 1024}


def element_name(dtype) -> str:
    """'f16', 'bf16', 'f32', 'e4m3', 'e5m2' or 'tf32' for a torch dtype or a string such as 'bfloat16'."""
    key = str(dtype)
    if key not in _ELEMENTS:
        refuse("kErrorInvalidDataType", f"element type {dtype!r}: tessel's GEMM kernels take float16, bfloat16, FP8 "
                                        "(float8_e4m3fn, float8_e5m2) and TF32 inputs and float32, float16 or bfloat16 outputs")
    return _ELEMENTS[key]


def _triple(value, what):
    if not isinstance(value, (tuple, list)):
        refuse_type(f"{what} must be a tuple of three integers (M, N, K), not {type(value).__name__} {value!r}")
    t = tuple(integer(v, f"every number of {what}", "an integer") for v in value)
    if len(t) != 3 or min(t) <= 0:
        refuse("kErrorNotSupported", f"{what} must be three positive integers (M, N, K), not {value!r}")
    return t


def _stages(value, hopper: bool):
    if value is None:
        return "auto" if hopper else 3
    if hopper and value == "auto":
        return value
    return integer(value, "stages", "a number or 'auto'" if hopper else "a number (an integer, 2 or more)")


@dataclass(frozen=True)
class GemmConfig:
    """A GEMM kernel configuration: D = epilogue(alpha * A @ B + beta * C).

    arch:      kernel family: "sm80" (cp.async multistage / two-stage mainloop, mma.sync m16n8k16;
               runs on sm_80 and newer, sm_90a included), "sm75" (two stages, m16n8k8, float16) or
               "sm90a" (TMA, wgmma, warp-specialized persistent CTAs; compute capability 9.0 only).
    element:   A and B element type: "f16" or "bf16"; for sm90a also "e4m3", "e5m2" (FP8) and "tf32"
               (float32 in memory on TF32 tensor cores), with A row-major and B column-major
               (torch dtypes accepted).
    out:       C and D element type: "f32", "f16" or "bf16".
    layout_a:  "row" (A is M x K with K contiguous) or "col"; layout_b likewise for B (K x N);
    layout_c:  for C and D (M x N).
    tile:      threadblock tile (M, N, K); default (128, 128, 32), sm90a (128, 256, 64): K is one
               128-byte swizzle row (64 of f16/bf16, 128 of FP8, 32 of tf32), BN 64, 128, 192 or
               256, BM 128 cooperative, 64 or 128 ping-pong.
    warp:      warp tile (M, N, K), same K; default (64, 64, 32); none for sm90a.
    stages:    shared-memory pipeline depth (sm80: >= 3 multistage, 2 two-stage; sm75: 2; default 3),
               or for sm90a "auto" (the default: as many as fit, the collective builder's rule).
    cluster:   thread-block cluster shape: (1, 1, 1), or for sm90a (2, 1, 1) (the CTAs along M share
               B's loads: TMA multicast), (1, 2, 1) (along N, sharing A's) or (2, 2, 1).
    schedule:  sm80: "auto" (by stages), "multistage" or "twostage"; sm90a: "auto" (cooperative
               for BM 128, else ping-pong), "cooperative", "pingpong", or for FP8
               "cooperative_promoted" (each K tile's sum added into f32 registers: BM 128, BN <= 192)
               and "cooperative_blockscaled" (promoted, each K tile's sum times per-block scales of A,
               per row and 128 of K, and of B, per 128 x 128 block: BN 64 or 128, no cluster; run by
               tessel.scaled_mm with block scales only).
    epilogue:  "linear", or the linear combination followed by "relu", "gelu" (erf) or "silu"
               (every kernel family).
    scheduler: sm90a: "persistent" (whole tiles over persistent CTAs) or "stream_k" (the K loop
               split among CTAs where tiles are few: data-parallel, split-K or stream-K, chosen
               per problem as GemmUniversalAdapter's StreamKScheduler chooses; cooperative, BM 128,
               no cluster), or "grouped" (the tiles of G problems of one N and K with ragged M,
               tessel.grouped_gemm; cooperative, no cluster). sm80 / sm75: "persistent" (one CTA per
               tile) or "grouped" (the same groups on a persistent grid; A and D row-major).
    scaling:   "tensor" (the default: FP8's per-tensor scales multiply alpha) or, sm90a FP8 only,
               "rowwise": each accumulator times a scale of its row of A and of its column of D
               before the epilogue (torch._scaled_mm's and torch._scaled_grouped_mm's row-wise
               mode; run by tessel.scaled_mm and tessel.grouped_gemm with row-wise scales). Any
               schedule but "cooperative_blockscaled", any scheduler.
    """

    arch: str = "sm80"
    element: str = "f16"
    out: str = "f32"
    layout_a: str = "row"
    layout_b: str = "col"
    layout_c: str = "row"
    tile: tuple | None = None
    warp: tuple | None = None
    stages: int | str | None = None
    cluster: tuple = (1, 1, 1)
    schedule: str = "auto"
    epilogue: str = "linear"
    scheduler: str = "persistent"
    scaling: str = "tensor"

    def __post_init__(self):
        set_ = lambda name, value: object.__setattr__(self, name, value)  # noqa: E731 (frozen dataclass)
        hopper = self.arch == "sm90a"
        set_("element", element_name(self.element))
        set_("out", element_name(self.out))
        default_tile = (128, 256, sm90_rules.tile_k(self.element)) if hopper and self.element in sm90_rules.ELEMENT_BYTES else \
            (128, 256, 64) if hopper else (128, 128, 32)
        set_("tile", _triple(self.tile if self.tile is not None else default_tile, "tile"))
        if not hopper or self.warp is not None:
            set_("warp", _triple(self.warp if self.warp is not None else (64, 64, 32), "warp"))
        set_("cluster", _triple(self.cluster, "cluster"))
        set_("stages", _stages(self.stages, hopper))
        self._validate_common()
        if hopper:
            sm90_rules.validate(self)
        else:
            self._validate_mma_sync()

    # ---- rules --------------------------------------------------------------------------------
    def _validate_common(self):
        if self.arch not in ARCHS:
            refuse("kErrorNotSupported", f"arch {self.arch!r}: choose one of {', '.join(ARCHS)}")
        if self.element == "f32":
            refuse("kErrorInvalidDataType", "element 'f32': the tensor-core kernels take float16 or bfloat16 A and B, FP8 "
                                            "('e4m3', 'e5m2') or 'tf32' (float32 read by TF32 tensor cores) with arch 'sm90a'")
        if self.out not in OUTPUTS:
            refuse("kErrorInvalidDataType", f"out {self.out!r}: C and D are float32, float16 or bfloat16")
        if self.element in sm90_rules.K_MAJOR_ONLY and self.arch != "sm90a":
            refuse("kErrorNotSupported", f"element {self.element!r} with arch {self.arch!r}: tessel's FP8 and TF32 kernels are "
                                         "the Hopper kernels; use arch='sm90a'")
        for name in ("layout_a", "layout_b", "layout_c"):
            if getattr(self, name) not in LAYOUTS:
                refuse("kErrorInvalidLayout", f"{name} {getattr(self, name)!r}: choose 'row' or 'col'")
        if self.epilogue not in EPILOGUES:
            refuse("kErrorNotSupported", f"epilogue {self.epilogue!r}: choose one of {', '.join(EPILOGUES)}")
        if self.scaling not in SCALINGS:
            refuse("kErrorNotSupported", f"scaling {self.scaling!r}: choose one of {', '.join(SCALINGS)}")
        if self.scaling == "rowwise" and (self.arch != "sm90a" or self.element not in sm90_rules.FP8):
            refuse("kErrorNotSupported", f"scaling 'rowwise' with arch {self.arch!r} and element {self.element!r}: row-wise scales "
                                         "are for FP8 (e4m3, e5m2) on the Hopper kernel (arch='sm90a')")

    def _validate_mma_sync(self):
        if self.arch == "sm75" and self.element != "f16":
            refuse("kErrorInvalidDataType", f"element {self.element!r} with arch 'sm75': Turing's m16n8k8 instruction takes float16 only")
        if self.cluster != (1, 1, 1):
            refuse("kErrorNotSupported", f"cluster {self.cluster}: thread-block clusters belong to Hopper (sm90a) configurations; "
                                         "use (1, 1, 1), or arch='sm90a'")
        if self.scheduler not in ("persistent", "grouped"):
            refuse("kErrorNotSupported", f"scheduler {self.scheduler!r} is a Hopper tile scheduler: use arch='sm90a', or 'persistent' "
                                         "or 'grouped'")
        if self.scheduler == "grouped" and (self.layout_a != "row" or self.layout_c != "row"):
            refuse("kErrorNotSupported", "scheduler 'grouped': the groups are rows of A and D, so layout_a and layout_c must be 'row'")
        if self.schedule in sm90_rules.SCHEDULES[1:]:
            refuse("kErrorNotSupported", f"schedule {self.schedule!r} is a Hopper schedule: use arch='sm90a', or 'auto', "
                                         "'multistage' or 'twostage'")
        if self.schedule not in SCHEDULES:
            refuse("kErrorNotSupported", f"schedule {self.schedule!r}: choose one of {', '.join(SCHEDULES)}")
        if self.arch == "sm75" and self.stages != 2:
            refuse("kErrorNotSupported", f"stages {self.stages} with arch 'sm75': Turing has no cp.async, so its mainloop has exactly 2 stages")
        if self.stages < 2:
            refuse("kErrorNotSupported", f"stages {self.stages}: at least 2")
        if self.schedule == "multistage" and self.stages < 3:
            refuse("kErrorNotSupported", "schedule 'multistage' needs stages >= 3 (2 stages is the 'twostage' schedule)")
        if self.schedule == "twostage" and self.stages != 2:
            refuse("kErrorNotSupported", f"schedule 'twostage' has exactly 2 stages, not {self.stages}")
        (tm, tn, tk), (wm, wn, wk) = self.tile, self.warp
        if tk != wk:
            refuse("kErrorNotSupported", f"warp {self.warp}: the warp tile's K must equal the threadblock tile's K ({tk})")
        if tm % wm or tn % wn:
            refuse("kErrorNotSupported", f"tile {self.tile} is not a whole number of warp tiles {self.warp} in M and N")
        if wm % 16 or wn % 16 or wk % 16:
            refuse("kErrorNotSupported", f"warp {self.warp}: ldmatrix reads 16x16 blocks, so the warp tile's M, N and K must be multiples of 16")
        if (self.layout_a == "row" or self.layout_b == "col") and tk % 32:
            refuse("kErrorNotSupported", f"tile {self.tile}: a K-major operand's shared-memory tile needs K to be a multiple of 32")
        if self.layout_a == "col" and tm % 64:
            refuse("kErrorNotSupported", f"tile {self.tile}: column-major A (M contiguous) needs the tile's M to be a multiple of 64")
        if self.layout_b == "row" and tn % 64:
            refuse("kErrorNotSupported", f"tile {self.tile}: row-major B (N contiguous) needs the tile's N to be a multiple of 64")
        if self.threads > 1024:
            refuse("kErrorNotSupported", f"tile {self.tile} over warp {self.warp} needs {self.threads} threads; a CTA has at most 1024")
        most = max(SMEM_PER_CTA.values())
        if self.smem_bytes > most:
            refuse("kErrorNotSupported", f"tile {self.tile} with {self.stages} stages needs {self.smem_bytes} bytes of shared memory, "
                                         f"more than the {most} any GPU gives one CTA: use fewer stages or a smaller tile")

    # ---- derived ------------------------------------------------------------------------------
    @property
    def hopper(self) -> bool:
        return self.arch == "sm90a"

    @property
    def threads(self) -> int:
        """Threads per CTA: one warp per warp tile; three warpgroups on Hopper."""
        if self.hopper:
            return sm90_rules.THREADS
        return 32 * (self.tile[0] // self.warp[0]) * (self.tile[1] // self.warp[1])

    @property
    def stage_count(self) -> int:
        """The pipeline depth as a number: stages, or what 'auto' resolves to."""
        return sm90_rules.auto_stages(self.tile, block_scaled=self.block_scaled) if self.stages == "auto" else self.stages

    @property
    def kernel_schedule(self) -> str:
        """sm90a: 'cooperative' or 'pingpong' ('auto' resolved as the builder resolves it)."""
        return sm90_rules.schedule(self.tile[0], self.schedule)

    @property
    def smem_bytes(self) -> int:
        """Dynamic shared memory: every stage of the A and B tiles (16-bit elements, unpadded; the
        two-stage mainloop keeps one stage in shared memory and one in registers). On Hopper also
        the stages' barriers and the slack for aligning the base to the swizzle's 1024 bytes."""
        if self.hopper:
            return sm90_rules.launch_smem_bytes(self.tile, self.stage_count, self.block_scaled)
        tm, tn, tk = self.tile
        buffered = 1 if self.stages == 2 else self.stages
        return 2 * (tm + tn) * tk * buffered

    @property
    def block_scaled(self) -> bool:
        """sm90a FP8 with per-block scales of A and B (schedule 'cooperative_blockscaled')."""
        return self.hopper and self.schedule == "cooperative_blockscaled"

    @property
    def rowwise_scaled(self) -> bool:
        """sm90a FP8 with a scale per row of A and per column of D (scaling 'rowwise')."""
        return self.scaling == "rowwise"

    @property
    def tma_boxes(self) -> tuple:
        """sm90a: ((inner, outer) of A's TMA box, the same of B's), as OperandBoxes has them."""
        return (sm90_rules.boxes(self.tile, self.layout_a == "row", self.tile[0], self.cluster[1]),
                sm90_rules.boxes(self.tile, self.layout_b == "col", self.tile[1], self.cluster[0]))

    @property
    def fixup_slot_floats(self) -> int:
        """sm90a stream-K: floats of one CTA's partial tile in the fixup workspace (256 consumer
        threads, BN / 2 accumulators each); 0 for data-parallel kernels."""
        return sm90_rules.fixup_slot_floats(self.tile) if self.scheduler == "stream_k" else 0

    @property
    def instruction(self) -> tuple:
        return (16, 8, 8) if self.arch == "sm75" else (16, 8, 16)

    @property
    def name(self) -> str:
        """tessel_sm80_gemm_f16_f16_f32_128x128x32_64x64x32_3stage_tn, as device::Gemm::name()
        spells it, with the C layout and the epilogue appended when they are not the defaults;
        tessel_sm90_gemm_bf16_bf16_bf16_128x256x64_c1x1_4stage_coop_tn as GemmUniversalAdapter::name()."""
        shape = lambda t: "x".join(map(str, t))  # noqa: E731
        layouts = f"{'t' if self.layout_a == 'row' else 'n'}{'n' if self.layout_b == 'col' else 't'}"
        if self.hopper:
            name = (f"tessel_sm90_gemm_{self.element}_{self.element}_{self.out}_{shape(self.tile)}_c{self.cluster[0]}x{self.cluster[1]}_"
                    f"{self.stage_count}stage_{sm90_rules.SCHEDULE_NAMES[self.kernel_schedule]}_{layouts}")
            name += {"stream_k": "_streamk", "grouped": "_grouped"}.get(self.scheduler, "")
            name += "_rowwise" if self.rowwise_scaled else ""
            return name if self.epilogue == "linear" else f"{name}_{self.epilogue}"

        name = f"tessel_{self.arch}_gemm_{self.element}_{self.element}_{self.out}_{shape(self.tile)}_{shape(self.warp)}_{self.stages}stage_{layouts}"
        if self.layout_c == "col":
            name += "_dcol"
        if self.scheduler == "grouped":
            name += "_grouped"
        if self.epilogue != "linear":
            name += f"_{self.epilogue}"
        return name

    def key(self) -> dict:
        """Every field, as plain values (the cache key's part from the configuration)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def replace(self, **changes) -> "GemmConfig":
        return dataclasses.replace(self, **changes)


def default_config(element: str, out: str, layout_a: str, layout_b: str, epilogue: str = "linear", *, hopper: bool = False,
                   promoted: bool = False):
    """The configuration tessel.gemm's automatic choice runs for a kind of problem (D row-major):
    the default tile of its kernel family; for FP8 with promoted accumulation, the promoted
    kernel's widest tile (128 x 128). The prebuilt kernels are these (prebuilt.py)."""
    arch = {"arch": "sm90a"} if hopper else {}
    if promoted:
        arch.update(tile=(128, 128, sm90_rules.tile_k(element_name(element))), schedule="cooperative_promoted")
    return GemmConfig(element=element, out=out, layout_a=layout_a, layout_b=layout_b, layout_c="row", epilogue=epilogue, **arch)


# The block-scaled 128 x 192 tile's rate per SM over the 128 x 128 tile's once their waves are
# counted: 1.11-1.24 at seven shapes, 1.16 at the median, with each K tile of the wide tile in
# halves of 96 columns (H100, 2026-12-06, bench/NOTES.md "Promoted and block-scaled FP8 128x192 in
# halves"; 4096^3 and 2048x4096, both at the boundary of 1.125, had opposite winners by 1.5-1.7%).
WIDE_BLOCK_SCALED_RATE = 1.16
# The promoted per-tensor 128 x 192 tile (its K tiles in halves of 96 columns), the same against the
# promoted 128 x 128 tile (two partial-sum sets): 0.99-1.14 at seven shapes, 1.04 at the median;
# at 1.05 the rule chose the faster tile at all seven (H100, 2026-12-06, the same section).
WIDE_PROMOTED_RATE = 1.05


def _waves_time(m: int, n: int, sms: int, bn: int, rate: float) -> float:
    """The time of D of m x n on 128 x bn tiles, in units of one 128 x 128 tile's time at rate 1:
    whole waves of `sms` tiles, each wave as long as one tile of bn columns at `rate`."""
    tiles = -(-m // 128) * -(-n // bn)
    return -(-tiles // max(sms, 1)) * bn / 128 / rate


def block_scaled_tile_n(m: int, n: int, sms: int) -> int:
    """BN of the block-scaled tile tessel.scaled_mm runs for D of m x n on `sms` SMs: 192 where
    its waves (of 128 x 192 tiles, at WIDE_BLOCK_SCALED_RATE) take less time than 128 x 128's,
    else 128 (an empty problem too: nothing to gain from another kernel). E.g. 4096 x 7168 on 132
    SMs: 10 waves of 192 columns against 14 of 128, so 192; 256 x 384: one wave of either, so 128
    (the narrower tile finishes its one wave sooner)."""
    return 192 if _waves_time(m, n, sms, 192, WIDE_BLOCK_SCALED_RATE) < _waves_time(m, n, sms, 128, 1.0) else 128


def promoted_wide_tile(m: int, n: int, sms: int) -> bool:
    """Whether the promoted per-tensor FP8 kernel runs D of m x n (as the kernel runs it) on 128 x
    192 tiles rather than 128 x 128: where its waves (at WIDE_PROMOTED_RATE) take less time. E.g.
    on 132 SMs, 8192 x 7168: 19 waves of 192 columns against 28 of 128, so the wide tile; 4096 x
    7168: 10 against 14, 1429 against 1400 in 128-column units at the rate, so 128 x 128."""
    return _waves_time(m, n, sms, 192, WIDE_PROMOTED_RATE) < _waves_time(m, n, sms, 128, 1.0)


def block_scaled_config(element: str = "e4m3", out: str = "bf16", tile_n: int = 128) -> GemmConfig:
    """The kernels block-scaled FP8 runs on (tessel.scaled_mm with torch._scaled_mm's blockwise
    scales): 128 x tile_n x 128, cooperative, promoted, D row-major. tile_n 128 (a tile's columns in
    one 128-row block of B's scales) or 192 (the widest the promoted accumulators allow, over two
    blocks); block_scaled_tile_n chooses by shape."""
    return GemmConfig(arch="sm90a", element=element, out=out, layout_a="row", layout_b="col", layout_c="row",
                      tile=(128, tile_n, sm90_rules.BLOCK_SCALE_K), schedule="cooperative_blockscaled")
