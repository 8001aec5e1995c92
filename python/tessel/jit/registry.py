"""The kernels tessel ships, and which one a problem gets: the registry and the dispatcher's heuristic.

The registry is every configuration built into the package (python/kernels.cmake compiles each
with nvcc; prebuilt.py finds them). A kind of problem (element types, A's and B's layouts, the
epilogue) has one or more of them; `choose` picks among a kind's kernels from the problem's
shape and the GPU's SM count, so that tessel.gemm never compiles on the hot path:

    kind                                                  Hopper kernels shipped
    f16/bf16 in, same out, A row, B row or col (x @ W,    128x256 coop, 128x192 coop, 128x128 ping-pong,
      x @ W.t()): the calls models make                   128x64 coop, 64x64, 64x128 and 64x192
                                                          ping-pong, with linear, relu, gelu, silu;
                                                          128x64 and 128x128 coop stream-K, linear;
                                                          128x256 and 128x192 coop on 2x1 clusters,
                                                          128x64 coop on 1x2, every epilogue
                                                          (cluster_twin: rows off 32-byte sectors)
    every other plain kind (f32 out, column-major A)      128x256 coop
    FP8 e4m3 in, bf16 out, A row, B col (torch._scaled_mm)  128x256, 128x192, 128x128, 128x64 coop and
                                                          64x64 ping-pong; promoted: 128x128 and
                                                          128x192 coop (promoted_width)
    the same with blockwise scales (1x128 A, 128x128 B)    128x128 and 128x192 coop block-scaled (tessel.scaled_mm only)
    TF32 (float32 in and out), A row, B col               128x256 coop
    any 16-bit kind on Ampere/Turing, or operands TMA     the Sm80 (or sm75) default tile
      cannot read (FP8 and TF32: Hopper only)

A decode call (M short of every tile's rows, no C) runs as D^T = B^T A^T with D^T stored
column-major, on the narrowest N tiles of D^T's kind (`choose_oriented`; from 64 to 127 tokens
where the estimate puts D^T's problem ahead of the problem as given; the 64-row tiles only for
token counts that fill three quarters of their last one); up to 16 tokens in bf16
the dispatcher takes the small-N TMA ring (jit/small_n.py) before asking here. FP8 with fast
accumulation has its 128x64 and 64x64 tiles for that (FP8_NARROW_TILE, FP8_PINGPONG_TILE).

The heuristic (`estimate`, `choose`, ...) is C++'s (include/tessel/gemm/dispatch/heuristic.hpp),
asked through tessel._core, so that the C++ front door, tessel-prof's dispatch mode and this
module give one answer; the tiles and the figures it models are hopper_tiles.def's, which this
module reads for the configurations it ships. `reason` says in words which term decided.

Only the standard library is imported at module level (see config.py); the extension on first use.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .config import EPILOGUES, WIDE_PROMOTED_RATE, GemmConfig, block_scaled_config, default_config, promoted_wide_tile
from .paths import include_dir
from .sm90_rules import ELEMENT_BYTES, FP8


@dataclass(frozen=True)
class HopperTile:
    """One Hopper tile the registry ships (hopper_tiles.def; the figures the heuristic models it
    by stay in C++, which reads them from the same file)."""
    tile: tuple
    schedule: str
    # "stream_k": the K loop divided among CTAs when tiles are fewer than SMs (decode); shipped
    # for the linear combination only.
    scheduler: str = "persistent"


def _read_tiles() -> tuple:
    """hopper_tiles.def's TESSEL_HOPPER_TILE rows, in order: the one list of the Hopper tiles."""
    text = (include_dir() / "tessel" / "gemm" / "dispatch" / "hopper_tiles.def").read_text()
    rows = []
    for line in text.splitlines():
        match = re.fullmatch(r"\s*TESSEL_HOPPER_TILE\(([^)]*)\)\s*", line)
        if match:
            bm, bn, bk, schedule, scheduler = (f.strip() for f in match.group(1).split(",")[:5])
            rows.append(HopperTile((int(bm), int(bn), int(bk)), schedule, scheduler))
    if not rows:
        raise RuntimeError("hopper_tiles.def lists no TESSEL_HOPPER_TILE: the package's headers are incomplete")
    return tuple(rows)


HOPPER_TILES = _read_tiles()


def _read_twins() -> tuple:
    """hopper_tiles.def's TESSEL_CLUSTER_TWIN rows as (tile, schedule, cluster): the tiles also
    shipped on clusters, which the dispatcher runs where A's or B's rows straddle 32-byte sectors."""
    text = (include_dir() / "tessel" / "gemm" / "dispatch" / "hopper_tiles.def").read_text()
    rows = []
    for line in text.splitlines():
        match = re.fullmatch(r"\s*TESSEL_CLUSTER_TWIN\(([^)]*)\)\s*", line)
        if match:
            bm, bn, bk, schedule, cluster_m, cluster_n = (f.strip() for f in match.group(1).split(","))
            rows.append(((int(bm), int(bn), int(bk)), schedule, (int(cluster_m), int(cluster_n), 1)))
    return tuple(rows)


CLUSTER_TWINS = _read_twins()


def cluster_twin(config: GemmConfig) -> GemmConfig | None:
    """The cluster twin of a shipped configuration (hopper_tiles.def, TESSEL_CLUSTER_TWIN), or
    None: 16-bit kinds of the full set, any epilogue, a persistent tile of the twins' list. Where
    B's layout keeps the cluster from splitting the tile's own B stage (128x192 with B N-major on
    2x1: three 64-column boxes), the first twin of the list that it can split (128x256's).
    NOTES: at 3000x3000x1000 with B N-major (rows 2000 bytes apart) 128x256's twin ran 51.6 us
    against 128x192's 60.0 (bench/runs/2026-12-05e_h100, run 6)."""
    own = next((row for row in CLUSTER_TWINS if row[:2] == (config.tile, config.kernel_schedule)), None)
    if own is None or config.arch != "sm90a" or not _full_set(config.element, config.out, config.layout_a) or \
            config.scheduler != "persistent" or config.cluster != (1, 1, 1):
        return None
    for tile, schedule, cluster in (own,) + CLUSTER_TWINS:
        try:
            return config.replace(tile=tile, schedule=schedule, cluster=cluster)
        except ValueError:  # ConfigError: this operand layout cannot be split between the cluster's CTAs
            continue
    return None


# FP8 with fast accumulation (A row, B col, the linear combination) ships three tiles beside the
# default. 128 x 64: decode (fewer than 128 tokens) runs D^T's problem on it (the weights in the
# tile's rows, the tokens as its N), and the heuristic also picks it as given where its tiles fill
# the SMs better. NOTES: on the default 128 x 256 a decode call's one row tile left most SMs idle
# (0.62-0.78x torch._scaled_mm); through tessel.scaled_mm it is now 0.99, 0.96, 0.89 and 1.07x at
# 16, 64, 128 and 256 tokens (H100; bench/NOTES.md, "The grouped FP8 crash found; FP8 decode on
# 128x64"). 128 x 128: where 128 x 256 leaves a wave partly empty and 128 x 64 needs two, as at
# 512 and 1536 tokens (0.96 and 0.98x torch against 0.85 and 0.82; hopper_tiles.def's
# TESSEL_MODELLED_TILE row says what the heuristic knows of it). 128 x 192: where its tiles fill a
# wave that 128 x 256 leaves a quarter empty, as at 768x4096 (0.93x torch against 0.81). 64 x 64
# ping-pong: 64-127 tokens, where the heuristic weighs the problem as given against D^T's
# (dispatch::choose_oriented): 0.96-1.01x torch at 64-128 tokens against 4096 weight rows, where
# 128 x 64 ran 0.84-0.92 (H100, bench/runs/2026-12-06c_h100 run 6).
FP8_NARROW_TILE = (128, 64, 128)
FP8_MID_TILE = (128, 128, 128)
FP8_192_TILE = (128, 192, 128)
FP8_PINGPONG_TILE = (64, 64, 128)
FP8_FAST_TILES = (FP8_MID_TILE, FP8_192_TILE, FP8_NARROW_TILE, FP8_PINGPONG_TILE)  # shipped after the default, in this order


def _full_set(element: str, out: str, layout_a: str) -> bool:
    """Whether a kind gets every Hopper tile: 16-bit in and the same type out, A row-major."""
    return element in ("f16", "bf16") and out == element and layout_a == "row"


def hopper_configs(element: str, out: str, layout_a: str, layout_b: str, epilogue: str = "linear",
                   promoted: bool = False) -> list[GemmConfig]:
    """The Hopper kernels shipped for a kind, the default (128x256 cooperative) first; empty for an
    epilogue outside the full set's kinds (those compile on first use). `promoted`: FP8 with
    promoted accumulation (one kernel, 128 x 128, which promoted_width widens by shape)."""
    if not _full_set(element, out, layout_a):
        if epilogue != "linear":
            return []
        default = default_config(element, out, layout_a, layout_b, hopper=True, promoted=promoted)
        fp8_fast = element in FP8 and not promoted and (layout_a, layout_b) == ("row", "col")
        return [default] + ([default.replace(tile=t) for t in FP8_FAST_TILES] if fp8_fast else [])
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
                    twins = (cluster_twin(c) for e in EPILOGUES for c in hopper_configs(element, result, layout_a, layout_b, e))
                    out += list(dict.fromkeys(t for t in twins if t is not None))  # 128x192's may be 128x256's
    # The PyTorch layer's kinds beyond 16 bits: torch._scaled_mm's e4m3 -> bf16 (fast and promoted
    # accumulation, and block-scaled) and float32 on TF32; the other FP8 kinds compile on first use.
    for element, result, promoted in (("e4m3", "bf16", False), ("e4m3", "bf16", True), ("tf32", "f32", False)):
        out += hopper_configs(element, result, "row", "col", promoted=promoted)
    out.append(wide_promoted(default_config("e4m3", "bf16", "row", "col", hopper=True, promoted=True)))
    # torch._scaled_mm's blockwise scales (e4m3 -> bf16): tessel.scaled_mm launches it directly
    # (gemm.gemm_block_scaled), never the dispatcher's choice by shape.
    out += [block_scaled_config(), block_scaled_config(tile_n=192)]
    return out


@dataclass(frozen=True)
class Estimate:
    config: GemmConfig
    seconds: float
    tiles: int
    waves: int
    compute: float  # seconds of the waves' mainloops and epilogues
    memory: float   # seconds of the operands' bytes at DRAM speed


def _core():
    """The extension module, imported on first use: the build step imports this module before
    the extension exists (it needs configs() only)."""
    from .. import _core as core
    return core


def _candidate(config: GemmConfig) -> tuple:
    """A configuration as the C++ heuristic's candidate: (BM, BN, BK, schedule, stream_k)."""
    return (*config.tile, config.kernel_schedule, config.scheduler == "stream_k")


def _estimate(config: GemmConfig, answer: tuple) -> Estimate:
    _, seconds, tiles, waves, compute, memory = answer
    return Estimate(config, seconds, tiles, waves, compute, memory)


def _element_bytes(configs: list[GemmConfig]) -> int:
    """The operands' bytes of a kind's candidates, which the model's rate and bytes scale with
    (dispatch::estimate): 1 for FP8, 4 for TF32, 2 for the 16-bit kinds."""
    return ELEMENT_BYTES.get(configs[0].element, 2) if configs else 2


def estimate(config: GemmConfig, m: int, n: int, k: int, sm_count: int) -> Estimate:
    """The modelled time of `config` on an M x N x K problem (see the module's docstring)."""
    return _estimate(config, _core().dispatch_estimate(_candidate(config), m, n, k, sm_count, _element_bytes([config])))


def ranked(candidates: list[GemmConfig], m: int, n: int, k: int, sm_count: int) -> list[Estimate]:
    """The candidates' estimates, fastest first; among equals (all bound by the same bytes) the one
    with the least compute, which has the most slack."""
    answers = _core().dispatch_ranked([_candidate(c) for c in candidates], m, n, k, sm_count, _element_bytes(candidates))
    return [_estimate(candidates[a[0]], a) for a in answers]


def choose(candidates: list[GemmConfig], m: int, n: int, k: int, sm_count: int) -> tuple[GemmConfig, str]:
    """The candidate with the least estimated time, and why, in a sentence."""
    choice = choose_oriented(candidates, [], m, n, k, sm_count)
    return choice.config, choice.reason


@dataclass(frozen=True)
class Choice:
    """A kernel for a problem, whether it runs on D^T's problem, and why in a sentence."""
    config: GemmConfig
    transpose_d: bool
    reason: str


def with_cluster_twin(choice: Choice, rows_straddle: bool, m: int, n: int, sms: int) -> Choice:
    """`choice` for D = A @ B of M x N on `sms` SMs; where A's or B's rows start off 32-byte
    sectors (`rows_straddle`: dispatch::rows_straddle_sectors) its reason says so and how to avoid
    it, and where its tile has a cluster twin that fits the problem (dispatch::twin_fits, on D^T's
    problem where the choice runs that), it runs on the twin."""
    if not rows_straddle:
        return choice
    reason = choice.reason + _core().dispatch_straddling_rows_reason()
    twin = cluster_twin(choice.config)
    rows, cols = (n, m) if choice.transpose_d else (m, n)
    if twin is None or not _core().dispatch_twin_fits(twin.tile[0], twin.tile[1], twin.cluster[0], twin.cluster[1], rows, cols, sms):
        return Choice(choice.config, choice.transpose_d, reason)
    other = "" if twin.tile == choice.config.tile else \
        f" ({twin.tile[0]}x{twin.tile[1]}'s: {choice.config.tile[0]}x{choice.config.tile[1]}'s B stage cannot be split between two CTAs)"
    return Choice(twin, choice.transpose_d, reason + _core().dispatch_cluster_twin_reason(twin.cluster[0], twin.cluster[1]) + other)


def wide_promoted(config: GemmConfig) -> GemmConfig:
    """The promoted per-tensor FP8 kernel's wide variant of `config` (its 128 x 128 tile): 128 x 192
    tiles, each K tile's wgmma in two halves of 96 columns (collective mma_promoted_halves)."""
    return config.replace(tile=(128, 192, config.tile[2]))


def promoted_width(choice: Choice, m: int, n: int, sms: int) -> Choice:
    """`choice` for D of M x N on `sms` SMs; where it is the promoted per-tensor FP8 kernel, its
    width by waves (config.promoted_wide_tile, on D^T's problem where the choice runs that): the
    wide variant where its waves take less time, and the reason says which."""
    c = choice.config
    if c.schedule != "cooperative_promoted" or c.tile[:2] != (128, 128):
        return choice
    rows, cols = (n, m) if choice.transpose_d else (m, n)
    base = f"{choice.reason}; " if choice.transpose_d else ""
    if not promoted_wide_tile(rows, cols, sms):
        return Choice(c, choice.transpose_d, f"{base}the promoted kernel on 128x128 tiles, whose waves take less time than those "
                                             f"of 128x192 tiles at {WIDE_PROMOTED_RATE}x the rate")
    return Choice(wide_promoted(c), choice.transpose_d,
                  f"{base}the promoted kernel on 128x192 tiles, whose waves at "
                  f"{WIDE_PROMOTED_RATE}x the 128x128 tile's rate take less time than 128x128's")


def refine(choice: Choice, rows_straddle: bool, m: int, n: int, sms: int) -> Choice:
    """The heuristic's `choice` as it runs: the promoted kernel's width (promoted_width), then the
    cluster twin where rows straddle sectors (with_cluster_twin)."""
    return with_cluster_twin(promoted_width(choice, m, n, sms), rows_straddle, m, n, sms)


def transposes(m: int, n: int, candidates: list[GemmConfig]) -> bool:
    """Whether D = A @ B (D row-major, M x N) may run as D^T = B^T A^T with D^T stored
    column-major, among D^T's `candidates` (dispatch::transposes: M short of the widest tiles'
    rows and N not short of the narrowest's, and a tile 64 wide at most to take the tokens as its
    N); choose_oriented decides."""
    return _core().dispatch_transposes(m, n, [_candidate(c) for c in candidates])


def narrowest_n(configs: list[GemmConfig]) -> list[GemmConfig]:
    """The configurations of the narrowest BN: the ones D^T's problem runs on."""
    return [configs[i] for i in _core().dispatch_narrowest_n([_candidate(c) for c in configs])]


def choose_oriented(candidates: list[GemmConfig], transposed: list[GemmConfig], m: int, n: int, k: int, sm_count: int,
                    straddle: bool = False) -> Choice:
    """dispatch::choose_oriented: `choose` over D^T's problem (N x M x K, among the narrowest of
    `transposed`: the kernels of that kind; empty where D cannot be transposed) where `transposes`
    says it may run and M is short of every tile's rows; where M fills the narrowest tile's rows
    (its last one at least three quarters full) but not the widest's, over both problems, the
    faster by the estimate; else over the problem as given. `straddle`: A's or B's rows start off
    32-byte sectors, where tiles without a cluster twin that fits are modelled slower
    (dispatch::ranked)."""
    index, on_dt, reason = _core().dispatch_choose_oriented([_candidate(c) for c in candidates],
                                                            [_candidate(c) for c in transposed], m, n, k, sm_count,
                                                            _element_bytes(candidates or transposed), straddle)
    return Choice((transposed if on_dt else candidates)[index], on_dt, reason)
