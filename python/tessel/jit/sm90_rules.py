"""What the Hopper kernel (tessel::gemm::kernel::sm90_gemm_tma_warpspecialized, built by
collective::CollectiveBuilder) can be instantiated with, and the numbers the launcher needs from a
configuration: stage count, shared memory and the TMA boxes. Each rule is one of the kernel's or
the builder's static_asserts, said before NVRTC would; the generated source asserts the numbers
against the C++ (codegen.py), so a rule that drifts stops a compilation instead of a launch.

Standard library only (see config.py).
"""

from __future__ import annotations

from .status import refuse

SMEM_BYTES = 227 * 1024  # collective::kSm90SmemBytes: what one CTA may have
THREADS = 384            # a producer warpgroup and two consumer warpgroups
# kernel::kSm90TmaStoreBytes: the generated kernels store D through shared memory and TMA (two
# buffers of 64 rows x 128 bytes per consumer warpgroup), where D's alignment allows.
EPILOGUE_BYTES = 2 * 2 * 64 * 128
# kernel::kScaleGroup: the block-scaled kernels load their scales in groups of this many K blocks.
SCALE_GROUP = 16
# "cooperative_promoted": FP8 with promoted accumulation (KernelTmaWarpSpecializedCooperativeFP8Promoted);
# "cooperative_blockscaled": FP8 with per-block scales of A and B, promoted
# (KernelTmaWarpSpecializedCooperativeFP8BlockScaled, kernel/sm90_block_scales.hpp).
SCHEDULES = ("auto", "cooperative", "pingpong", "cooperative_promoted", "cooperative_blockscaled")
SCHEDULERS = ("persistent", "stream_k", "grouped")
# Sm90KernelConfig's clusters (M, N, 1): the CTAs along M share B's loads, those along N A's (TMA multicast).
CLUSTERS = ((1, 1, 1), (2, 1, 1), (1, 2, 1), (2, 2, 1))  # kernel::PersistentScheduler, StreamKScheduler, GroupedScheduler
TILE_N = (64, 128, 192, 256)  # the kernel's static_assert on BN
SCHEDULE_NAMES = {"cooperative": "coop", "pingpong": "pingpong", "cooperative_promoted": "coop_promoted",
                  "cooperative_blockscaled": "coop_blockscaled"}  # ::kName
# The schedules that keep a second set of accumulators, promoted every K tile (BM 128, BN <= 192).
PROMOTED = ("cooperative_promoted", "cooperative_blockscaled")
BLOCK_SCALE_K = 128  # kernel::kBlockScaleK: elements of K per scale, A's and B's
BLOCK_SCALE_N = 128  # kernel::kBlockScaleN: rows of B (columns of D) per scale of B
# Bytes of one A or B element: a stage's K is one 128-byte swizzle row of them (Sm90KernelConfig::BK).
ELEMENT_BYTES = {"f16": 2, "bf16": 2, "e4m3": 1, "e5m2": 1, "tf32": 4}
FP8 = ("e4m3", "e5m2")
# A and B types the instruction reads only K-major (it transposes 16-bit types alone).
K_MAJOR_ONLY = ("e4m3", "e5m2", "tf32")


def tile_k(element: str) -> int:
    """The tile's K: one 128-byte swizzle row (64 of f16 or bf16, 128 of FP8, 32 of TF32)."""
    return 128 // ELEMENT_BYTES[element]


def schedule(tile_m: int, requested: str) -> str:
    """The builder's KernelScheduleAuto: cooperative when BM is a multiple of 128."""
    if requested != "auto":
        return requested
    return "cooperative" if tile_m % 128 == 0 else "pingpong"


def is_cooperative(kind: str) -> bool:
    return kind in ("cooperative", "cooperative_promoted", "cooperative_blockscaled")


def scale_slots(stages: int) -> int:
    """kernel::sm90_scale_slots: the block scales' ring, enough groups for the stages' look-ahead."""
    return (stages + SCALE_GROUP - 1) // SCALE_GROUP + 1


def scale_blocks_b(tile_n: int) -> int:
    """kernel::sm90_scale_blocks_b: the blocks of B's scales one tile's columns lie in (two for BN
    192, whose tiles start 0 or 64 columns into a block)."""
    return 1 if tile_n <= BLOCK_SCALE_N else 2


def scale_ring_bytes(tile_m: int, tile_n: int, stages: int) -> int:
    """kernel::sm90_scale_ring_bytes: per slot SCALE_GROUP K blocks of A's box (BM rows and up to
    3 before them), per block of B a box of SCALE_GROUP + 4 floats in its own 128 bytes, and a
    full and an empty barrier."""
    slot_floats = SCALE_GROUP * (tile_m + 4) + scale_blocks_b(tile_n) * ((SCALE_GROUP + 4 + 31) // 32 * 32)
    return scale_slots(stages) * (slot_floats * 4 + 16)


def epilogue_bytes(block_scaled: bool = False) -> int:
    """kernel::sm90_tma_store_bytes(sm90_epilogue_buffers(...)): the block-scaled kernels keep one
    buffer per consumer warpgroup, the others two."""
    return EPILOGUE_BYTES // 2 if block_scaled else EPILOGUE_BYTES


def stage_bytes(tile) -> int:
    """One 128-byte swizzle row of K per row of A and of B."""
    return (tile[0] + tile[1]) * 128


def smem_bytes(tile, stages: int, block_scaled: bool = False) -> int:
    """kernel::sm90_smem_bytes: the stages, the block scales' ring, the epilogue's buffers, the
    barriers (full and empty per stage, and the fixup's flag) and 1024 bytes of alignment slack."""
    ring = scale_ring_bytes(tile[0], tile[1], stages) if block_scaled else 0
    return stages * stage_bytes(tile) + ring + epilogue_bytes(block_scaled) + 2 * stages * 8 + 16 + 1024


def auto_stages(tile, carveout: int = EPILOGUE_BYTES, block_scaled: bool = False) -> int:
    """collective::detail::stage_count for StageCountAutoCarveout<sizeof(SharedStorage)>: the
    epilogue's buffers, 1024 bytes of alignment slack and 16 bytes of barriers per stage. For
    block-scaled kernels, whose ring grows with the stages, the builder's
    kernel::sm90_fitting_stages(8, ...) instead: the most stages up to 8 that fit."""
    if block_scaled:
        return next((s for s in range(8, 1, -1) if smem_bytes(tile, s, True) <= SMEM_BYTES), 0)
    return (SMEM_BYTES - carveout - 1024) // (stage_bytes(tile) + 16)


def launch_smem_bytes(tile, stages: int, block_scaled: bool = False) -> int:
    """What the launch gives: kSmemBytes and 128 bytes more, within a CTA's limit, so that a few
    bytes of bookkeeping the kernel keeps beside its barriers need no change here (the source
    asserts that this covers the kernel's kSmemBytes)."""
    return min(smem_bytes(tile, stages, block_scaled) + 128, SMEM_BYTES)


def fixup_slot_floats(tile) -> int:
    """GemmUniversalAdapter::kSlotFloats of a cooperative BM-128 tile: 256 consumer threads times
    the BN / 2 accumulators of one m64nBN wgmma each."""
    return 256 * (tile[0] // 2 // 64) * (tile[1] // 2)


def boxes(tile, k_major: bool, rows: int, split: int) -> tuple:
    """(inner, outer) of one TMA box of an operand's stage (OperandBoxes): K-major, BK elements
    of K by rows/split rows; MN-major, 64 elements along M or N by BK rows of K."""
    bk = tile[2]
    return (bk, rows // split) if k_major else (64, bk)


def validate(c) -> None:
    """Raises ConfigError for a configuration the Hopper kernel cannot be built with."""
    bm, bn, bk = c.tile
    cluster_m, cluster_n = c.cluster[0], c.cluster[1]
    if c.warp is not None:
        refuse("kErrorNotSupported", f"warp {c.warp} with arch 'sm90a': the Hopper kernel has no warp tile (two consumer "
                                     "warpgroups share the CTA tile); leave warp out")
    if c.schedule not in SCHEDULES:
        refuse("kErrorNotSupported", f"schedule {c.schedule!r} with arch 'sm90a': choose one of {', '.join(SCHEDULES)}")
    if c.layout_c != "row":
        refuse("kErrorInvalidLayout", "layout_c 'col' with arch 'sm90a': the Hopper kernel writes D row-major; tessel.gemm "
                                      "runs a column-major D as the transposed problem D^T = B^T A^T on a row-major kernel, "
                                      "so give layout_c='row' (and the layouts of B^T and A^T)")
    if bk != tile_k(c.element):
        refuse("kErrorNotSupported", f"tile {c.tile} with arch 'sm90a' and element {c.element!r}: the tile's K must be one "
                                     f"128-byte swizzle row, {tile_k(c.element)} elements of {c.element}")
    if c.element in K_MAJOR_ONLY and (c.layout_a != "row" or c.layout_b != "col"):
        refuse("kErrorInvalidLayout", f"element {c.element!r} with layout_a {c.layout_a!r} and layout_b {c.layout_b!r}: wgmma reads "
                                      f"{c.element} A and B K-major only; give layout_a='row' and layout_b='col'")
    if c.schedule == "cooperative_promoted" and c.element not in FP8:
        refuse("kErrorNotSupported", f"schedule 'cooperative_promoted' with element {c.element!r}: promoted accumulation is for "
                                     "FP8 (e4m3, e5m2); 16-bit and TF32 kernels accumulate in f32 already")
    if c.schedule == "cooperative_blockscaled" and c.scaling == "rowwise":
        refuse("kErrorNotSupported", "scaling 'rowwise' with schedule 'cooperative_blockscaled': row-wise and per-block scales are "
                                     "two recipes, and a kernel applies one (Sm90KernelConfig's static_assert)")
    if c.schedule == "cooperative_blockscaled" and c.element not in FP8:
        refuse("kErrorNotSupported", f"schedule 'cooperative_blockscaled' with element {c.element!r}: per-block scales are for "
                                     "FP8 (e4m3, e5m2) A and B")
    if c.schedule in PROMOTED and (bm != 128 or bn > 192 or c.scheduler == "stream_k"):
        refuse("kErrorNotSupported", f"tile {c.tile} with schedule {c.schedule!r} and scheduler {c.scheduler!r}: the promoted "
                                     "kernel keeps a second set of accumulators, so BM must be 128 and BN at most 192, and "
                                     "it does not split K (the persistent or grouped scheduler)")
    if c.schedule == "cooperative_blockscaled" and BLOCK_SCALE_N % bn and bn != 192:
        refuse("kErrorNotSupported", f"tile {c.tile} with schedule 'cooperative_blockscaled': a tile's columns must lie in "
                                     f"one {BLOCK_SCALE_N}-row block of B's scales (BN 64 or 128) or span two (BN 192)")
    if bn not in TILE_N:
        refuse("kErrorNotSupported", f"tile {c.tile} with arch 'sm90a': BN must be 64, 128, 192 or 256 (a wgmma N)")
    kind = schedule(bm, c.schedule)
    if is_cooperative(kind) and bm != 128:
        refuse("kErrorNotSupported", f"tile {c.tile} with the cooperative schedule: BM must be 128 (each of the two "
                                     "consumer warpgroups computes 64 rows); use BM 64 with schedule='pingpong'")
    if kind == "pingpong" and bm not in (64, 128):
        refuse("kErrorNotSupported", f"tile {c.tile} with the ping-pong schedule: BM must be 64 or 128 (one consumer "
                                     "warpgroup computes the whole tile)")
    if kind == "pingpong" and (bm // 64) * bn // 2 > 128:
        refuse("kErrorNotSupported", f"tile {c.tile} with the ping-pong schedule: a consumer warpgroup would hold "
                                     f"{(bm // 64) * bn // 2} accumulators per thread, more than 128; use BN <= "
                                     f"{256 * 64 // bm} or the cooperative schedule")
    if c.scheduler not in SCHEDULERS:
        refuse("kErrorNotSupported", f"scheduler {c.scheduler!r} with arch 'sm90a': choose one of {', '.join(SCHEDULERS)}")
    if c.scheduler == "stream_k" and (not is_cooperative(kind) or bm != 128 or c.cluster != (1, 1, 1)):
        refuse("kErrorNotSupported", f"scheduler 'stream_k' with tile {c.tile}, the {kind} schedule and cluster {c.cluster}: "
                                     "split-K and stream-K run with the cooperative schedule, BM 128 and no cluster")
    if c.scheduler == "grouped" and (not is_cooperative(kind) or c.cluster != (1, 1, 1)):
        refuse("kErrorNotSupported", f"scheduler 'grouped' with the {kind} schedule and cluster {c.cluster}: grouped GEMM "
                                     "runs with the cooperative schedule and no cluster")
    if c.cluster not in CLUSTERS:
        refuse("kErrorNotSupported", f"cluster {c.cluster}: the Hopper kernel takes clusters of 1 or 2 CTAs along M by 1 or 2 "
                                     "along N: " + ", ".join(map(str, CLUSTERS)))
    if c.layout_b == "row" and (bn // 64) % cluster_m:
        refuse("kErrorNotSupported", f"tile {c.tile} with cluster {c.cluster} and row-major B: each CTA of a cluster column "
                                     f"loads a 64-column slice of B's stage, so BN must be a multiple of {64 * cluster_m}")
    if c.layout_a == "col" and (bm // 64) % cluster_n:
        refuse("kErrorNotSupported", f"tile {c.tile} with cluster {c.cluster} and column-major A: each CTA of a cluster row "
                                     f"loads a 64-row slice of A's stage, so BM must be a multiple of {64 * cluster_n}")
    stages = c.stage_count
    if stages < 2:
        refuse("kErrorNotSupported", f"stages {c.stages}: the Hopper pipeline needs at least 2")
    scaled = c.schedule == "cooperative_blockscaled"
    need = smem_bytes(c.tile, stages, scaled)
    if need > SMEM_BYTES:
        refuse("kErrorNotSupported", f"stages {stages} with tile {c.tile}: {need} bytes of shared memory, more than the "
                                     f"{SMEM_BYTES} a CTA may have; use at most {auto_stages(c.tile, block_scaled=scaled)} "
                                     "stages, or stages='auto'")
