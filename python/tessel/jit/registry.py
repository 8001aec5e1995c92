"""The kernels tessel ships, and which one a problem gets: the registry and the dispatcher's heuristic.

The registry is every configuration built into the package (python/kernels.cmake compiles each
with nvcc; prebuilt.py finds them). A kind of problem (element types, A's and B's layouts, the
epilogue) has one or more of them; `choose` picks among a kind's kernels from the problem's
shape and the GPU's SM count, so that tessel.gemm never compiles on the hot path:

    kind                                                  Hopper kernels shipped
    f16/bf16 in, same out, A row, B row or col (x @ W,    128x256 coop, 128x192 coop, 128x128 ping-pong,
      x @ W.t()): the calls models make                   128x64 coop, with linear, relu, gelu, silu;
                                                          128x64 and 128x128 coop stream-K, linear
    every other plain kind (f32 out, column-major A)      128x256 coop
    FP8 e4m3 in, bf16 out, A row, B col (torch._scaled_mm)  128x256 coop; 128x128 coop promoted
    the same with blockwise scales (1x128 A, 128x128 B)    128x128 coop block-scaled (tessel.scaled_mm only)
    TF32 (float32 in and out), A row, B col               128x256 coop
    any 16-bit kind on Ampere/Turing, or operands TMA     the Sm80 (or sm75) default tile
      cannot read (FP8 and TF32: Hopper only)

A decode call (M short of every tile's rows, no C) runs as D^T = B^T A^T with D^T stored
column-major, on the narrowest N tile of D^T's kind (`choose_oriented`); up to 16 tokens in bf16
the dispatcher takes the small-N TMA ring (jit/small_n.py) before asking here.

The heuristic (`estimate`) models a persistent data-parallel launch: the tiles run in waves of
one per SM, a partial wave costs a whole one, and each tile costs its k-steps (the whole tile's
MMA work, padding rows included, at that tile's measured rate, and never less than the
shortest k-step measured) plus the part of its epilogue the schedule cannot hide; the whole
launch costs at least the time to stream the operands' bytes from DRAM. Its constants are fitted to H200 measurements (bench/NOTES.md, "The front door's
heuristic"); `reason` says in words which term decided.

Only the standard library is imported here (see config.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .config import EPILOGUES, GemmConfig, block_scaled_config, default_config


@dataclass(frozen=True)
class HopperTile:
    """One Hopper tile the registry ships, with what the heuristic knows of it."""
    tile: tuple
    schedule: str
    # Mainloop throughput per SM as a share of the dense peak, on large problems (measured).
    efficiency: float
    # Share of the epilogue's time that shows: the cooperative schedule's two warpgroups store
    # after the mainloop of the tile; ping-pong stores one tile while the other warpgroup computes.
    epilogue_exposed: float
    # "stream_k": the K loop divided among CTAs when tiles are fewer than SMs (decode); shipped
    # for the linear combination only.
    scheduler: str = "persistent"


# NOTES: measured on the H200 through tessel.gemm's own launch, every candidate on every shape of
# bench/front_door.py (bench/NOTES.md, "The front door's heuristic"), D through TMA: 128x256
# cooperative runs its k-steps at 0.71 of the dense peak, 128x192 at 0.70, 128x128 ping-pong at
# 0.67, 128x64 at 0.48; the stream-K kernels at 0.60 (128x128) and 0.44 (128x64). The TMA store
# drains while the next tile runs, so about half of a cooperative tile's epilogue shows.
# 128x256 wins where the waves come out even; 128x192 for ragged N (6144x3000x4096: 0.93 against
# 128x256's 0.90 of cuBLAS); 128x128 ping-pong for short K, where the epilogue is a large share
# of a tile (8192x8192x256); the narrow tiles where there are few tiles (decode, M of 1-64
# tokens): no k-step takes less than 0.28 us, 0.5 us where M is short of the tile (_STEP_FLOOR), so a narrow tile
# only wins where it puts more SMs to work.
HOPPER_TILES = (
    HopperTile((128, 256, 64), "cooperative", 0.71, 0.5),
    HopperTile((128, 192, 64), "cooperative", 0.70, 0.5),
    HopperTile((128, 128, 64), "pingpong", 0.67, 0.25),
    HopperTile((128, 64, 64), "cooperative", 0.48, 0.5),
    HopperTile((128, 64, 64), "cooperative", 0.44, 0.5, "stream_k"),
    HopperTile((128, 128, 64), "cooperative", 0.60, 0.5, "stream_k"),
)
# The data-parallel tile with the most tiles per problem: where even it leaves SMs idle, stream-K.
_NARROWEST = min((t.tile for t in HOPPER_TILES if t.scheduler == "persistent"), key=lambda t: t[0] * t[1])
_FIXUP_STEPS = 4  # k-steps' worth of time a split tile's partials cost (written, read, summed)
# NOTES: stream-K where a _NARROWEST data-parallel grid would leave more than half the SMs idle.
# On D^T's decode problems (bench/runs/2026-12-04b_h200, run 3) 128x64 data-parallel ran 9%
# faster than stream-K with 64 tiles on 132 SMs (8192x64x8192: the weights stream at 3.3 TB/s
# from 64 SMs, and the split costs its fixup), stream-K 40% faster with 32 tiles (4096x64x14336);
# at 128x6144x4096, 96 tiles, data-parallel 128x64 was 18% faster than the 128x128 stream-K the
# old threshold (1.0) chose. Where M is short of the tile's rows (a decode D with a C, which stays
# as given), each data-parallel CTA streams only its BN rows of the weights per stage, half of
# what a full 128-row tile of them is, and stream-K paid from fewer tiles than SMs on: 64 tiles
# of 1x4096x4096 ran 20% faster on 128x64 stream-K than data-parallel (same run).
_STREAM_K_BELOW = 0.45
_STREAM_K_BELOW_PARTIAL = 1.0

# H200 figures the estimate is in (any Hopper part scales the same way: only ratios matter).
_PEAK_PER_SM = 989e12 / 132  # dense bf16 FLOP/s of one SM
_EPILOGUE_PER_ELEMENT = 1e-6 / (128 * 256)  # ~1 us to write a 128x256 tile out (bench/NOTES.md)
_STEP_FLOOR = 0.28e-6  # seconds: the shortest k-step measured (barriers, TMA issue, wgmma wait)
_STEP_FLOOR_PARTIAL = 0.5e-6  # the same where M is less than the tile's rows
_DRAM = 3.3e12  # bytes/s the kernels stream from DRAM at best (16x28672x8192)
_LAUNCH = 4e-6  # seconds of a launch's fixed cost: start, pipeline fill, last epilogue


def _full_set(element: str, out: str, layout_a: str) -> bool:
    """Whether a kind gets every Hopper tile: 16-bit in and the same type out, A row-major."""
    return element in ("f16", "bf16") and out == element and layout_a == "row"


def hopper_configs(element: str, out: str, layout_a: str, layout_b: str, epilogue: str = "linear",
                   promoted: bool = False) -> list[GemmConfig]:
    """The Hopper kernels shipped for a kind, the default (128x256 cooperative) first; empty for an
    epilogue outside the full set's kinds (those compile on first use). `promoted`: FP8 with
    promoted accumulation (one kernel, 128 x 128)."""
    if not _full_set(element, out, layout_a):
        return [default_config(element, out, layout_a, layout_b, hopper=True, promoted=promoted)] if epilogue == "linear" else []
    return [GemmConfig(arch="sm90a", element=element, out=out, layout_a=layout_a, layout_b=layout_b, tile=t.tile,
                       schedule=t.schedule, epilogue=epilogue, scheduler=t.scheduler)
            for t in HOPPER_TILES if epilogue == "linear" or t.scheduler == "persistent"]


def configs() -> list[GemmConfig]:
    """The prebuilt set: the Sm80 default of every plain kind, and the Hopper kernels above."""
    out = []
    for element in ("f16", "bf16"):
        for result in ("f32", element):
            for layout_a in ("row", "col"):
                for layout_b in ("row", "col"):
                    out.append(default_config(element, result, layout_a, layout_b))
                    for epilogue in EPILOGUES:
                        out += hopper_configs(element, result, layout_a, layout_b, epilogue)
    # The PyTorch layer's kinds beyond 16 bits: torch._scaled_mm's e4m3 -> bf16 (fast and promoted
    # accumulation, and block-scaled) and float32 on TF32; the other FP8 kinds compile on first use.
    for element, result, promoted in (("e4m3", "bf16", False), ("e4m3", "bf16", True), ("tf32", "f32", False)):
        out += hopper_configs(element, result, "row", "col", promoted=promoted)
    # torch._scaled_mm's blockwise scales (e4m3 -> bf16): tessel.scaled_mm launches it directly
    # (gemm.gemm_block_scaled), never the dispatcher's choice by shape.
    out.append(block_scaled_config())
    return out


@dataclass(frozen=True)
class Estimate:
    config: GemmConfig
    seconds: float
    tiles: int
    waves: int
    compute: float  # seconds of the waves' mainloops and epilogues
    memory: float   # seconds of the operands' bytes at DRAM speed


def _tile_of(config: GemmConfig) -> HopperTile:
    for t in HOPPER_TILES:
        if t.tile == config.tile and t.schedule == config.kernel_schedule and t.scheduler == config.scheduler:
            return t
    return HOPPER_TILES[0]


def estimate(config: GemmConfig, m: int, n: int, k: int, sm_count: int, element_bytes: int = 2) -> Estimate:
    """The modelled time of `config` on an M x N x K problem (see the module's docstring)."""
    t = _tile_of(config)
    bm, bn, bk = config.tile
    tiles = math.ceil(m / bm) * math.ceil(n / bn)
    waves = math.ceil(tiles / sm_count)
    k_steps = math.ceil(k / bk)
    # NOTES: the floor is higher where the tile's rows run past M (decode): TMA fills the missing
    # rows with zeros, and a 128x64 k-step took 0.54 us at 16 rows against 0.28 us at 128 (run 6).
    # The same fill runs past N in D^T's problem, whose N is the tokens.
    step = max(2 * bm * bn * bk / (_PEAK_PER_SM * t.efficiency), _STEP_FLOOR_PARTIAL if m < bm or n < bn else _STEP_FLOOR)
    epilogue = bm * bn * _EPILOGUE_PER_ELEMENT * t.epilogue_exposed
    compute = waves * (k_steps * step + epilogue)
    if config.scheduler == "stream_k":
        # Where even the narrowest data-parallel tile leaves SMs idle, the tiles' k-steps spread
        # over every SM, each split tile's partials added once. Elsewhere the data-parallel
        # kernels were as fast or faster (run 6), so stream-K is modelled slower there.
        most_tiles = math.ceil(m / _NARROWEST[0]) * math.ceil(n / _NARROWEST[1])
        if most_tiles < (_STREAM_K_BELOW_PARTIAL if m < bm else _STREAM_K_BELOW) * sm_count:
            compute = (math.ceil(tiles * k_steps / sm_count) + _FIXUP_STEPS) * step + epilogue
        else:
            compute *= 1.03
    memory = element_bytes * (m * k + k * n + m * n) / _DRAM
    return Estimate(config, _LAUNCH + max(compute, memory), tiles, waves, compute, memory)


def ranked(candidates: list[GemmConfig], m: int, n: int, k: int, sm_count: int) -> list[Estimate]:
    """The candidates' estimates, fastest first; among equals (all bound by the same bytes) the one
    with the least compute, which has the most slack."""
    return sorted((estimate(c, m, n, k, sm_count) for c in candidates), key=lambda e: (round(e.seconds, 9), e.compute))


def choose(candidates: list[GemmConfig], m: int, n: int, k: int, sm_count: int) -> tuple[GemmConfig, str]:
    """The candidate with the least estimated time, and why, in a sentence."""
    if len(candidates) == 1:
        return candidates[0], "the only kernel shipped for this kind of problem"
    best, runner = ranked(candidates, m, n, k, sm_count)[:2]
    bound = "streaming the operands" if best.memory > best.compute else "its waves of tiles"
    reason = (f"{_label(best.config)}: {best.tiles} tiles in {best.waves} wave(s) on {sm_count} SMs, "
              f"modelled {best.seconds * 1e6:.1f} us, bound by {bound}; next {_label(runner.config)} "
              f"at {runner.seconds * 1e6:.1f} us")
    return best.config, reason


@dataclass(frozen=True)
class Choice:
    """A kernel for a problem, whether it runs on D^T's problem, and why in a sentence."""
    config: GemmConfig
    transpose_d: bool
    reason: str


def transposes(m: int, n: int, candidates: list[GemmConfig]) -> bool:
    """Whether D = A @ B (D row-major, M x N) is better run as D^T = B^T A^T with D^T stored
    column-major, among D^T's `candidates`: where M is short of every tile's rows and N is not
    (decode: a few tokens against many weight rows), so that the tiles' rows hold weights
    instead of padding, and a tile 64 wide at most takes the tokens as its N (narrowest_n's
    NOTES: wider ones ran D^T's problem slower than the problem as given; the FP8 kinds ship
    128 and 256 only)."""
    rows = min(c.tile[0] for c in candidates)
    return m < rows <= n and min(c.tile[1] for c in candidates) <= 64


def narrowest_n(configs: list[GemmConfig]) -> list[GemmConfig]:
    """The configurations of the narrowest BN: the ones D^T's problem runs on.
    NOTES: on D^T's problem N is the tokens, and a tile's columns past them cost far more than
    their share of the MMA: at 28672x16x8192 a k-step took 0.54 us on 128x64 tiles, 0.83 on
    128x128 and 2.7 on 128x256 (bench/runs/2026-12-04b_h200, run 3), where the model's floor is
    0.5 for all three."""
    narrowest = min(c.tile[1] for c in configs)
    return [c for c in configs if c.tile[1] == narrowest]


def choose_oriented(candidates: list[GemmConfig], transposed: list[GemmConfig], m: int, n: int, k: int, sm_count: int) -> Choice:
    """`choose` over the problem as given, or over D^T's (N x M x K, among the narrowest of
    `transposed`: the kernels of that kind; empty where D cannot be transposed) where
    `transposes` says so."""
    if transposed and transposes(m, n, transposed):
        config, reason = choose(narrowest_n(transposed), n, m, k, sm_count)
        return Choice(config, True, f"D^T = B^T A^T ({n}x{m}x{k}, D^T column-major: M = {m} would fill "
                                    f"{m} of a tile's {config.tile[0]} rows): {reason}")
    config, reason = choose(candidates, m, n, k, sm_count)
    return Choice(config, False, reason)


def _label(config: GemmConfig) -> str:
    """'128x64 cooperative' (and ' stream-K')."""
    tile = "x".join(map(str, config.tile[:2]))
    return f"{tile} {config.kernel_schedule}" + (" stream-K" if config.scheduler == "stream_k" else "")
