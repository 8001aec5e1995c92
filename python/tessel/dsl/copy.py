"""Tiled copies: threads that move a tile between memories, each its thread-value layout's values
(the CuTe DSL's make_tiled_copy_tv, get_slice, partition_S / partition_D and copy).

    tiled = tessel.make_tiled_copy_tv(thr_layout, val_layout)   # tiled.tiler_mn: the tile it covers
    thr = tiled.get_slice(tidx)
    tessel.copy(tiled, thr.partition_S(gA_tile), thr.partition_D(sA_tile))

partition_S(tile) is composition(tile, layout_tv)[(thread, None)]: the values of this thread, in
the order of its value layout, so that runs contiguous in both tensors become single 16-byte
accesses when `copy` loads and stores them.
"""

from __future__ import annotations

from .ir import fail
from .tensor import Tensor, composition, make_layout_tv


class TiledCopy:
    """Threads `thr_layout`, each holding a `val_layout` block, raked over a tile of tiler_mn."""

    def __init__(self, thr_layout, val_layout):
        self.tiler_mn, self.layout_tv = make_layout_tv(thr_layout, val_layout)

    def get_slice(self, thread) -> ThrCopy:
        return ThrCopy(self, thread)

    def __repr__(self):
        return f"TiledCopy(tile {self.tiler_mn}, tv {self.layout_tv})"


class ThrCopy:
    """One thread's share of a TiledCopy."""

    def __init__(self, tiled: TiledCopy, thread):
        self.tiled, self.thread = tiled, thread

    def partition_S(self, tile):  # noqa: N802 (CuTe's name)
        if not isinstance(tile, Tensor):
            fail(f"partition_S takes a tensor (one tile of {self.tiled.tiler_mn}); got {type(tile).__name__}")
        return composition(tile, self.tiled.layout_tv)[(self.thread, None)]

    partition_D = partition_S


def make_tiled_copy_tv(thr_layout, val_layout) -> TiledCopy:
    return TiledCopy(thr_layout, val_layout)


def copy(tiled, src, dst):
    """dst = src, element for element (the widest accesses the two tensors' layouts and proven
    alignment allow). `tiled` names the copy the partitions came from (or None)."""
    from .mma import TiledCopyMma, copy_ldmatrix
    if isinstance(tiled, TiledCopyMma):
        return copy_ldmatrix(tiled, src, dst)
    if tiled is not None and not isinstance(tiled, TiledCopy):
        fail(f"copy's first argument is a TiledCopy or an MMA's tiled copy (or None); got {type(tiled).__name__}")
    dst.store(src.load())
