"""A compiled configuration as the launcher's tessel._core.Kernel: the cubin with what the
configuration says about launching it."""

from __future__ import annotations

from .config import ELEMENT_CODES, EPILOGUES, GemmConfig


def load(config: GemmConfig, cubin: bytes, symbol: str, target: str):
    from .. import _core
    c = config
    launch = dict(grouped=c.scheduler == "grouped")
    if c.hopper:
        box_a, box_b = c.tma_boxes
        launch.update(hopper=True, cluster_m=c.cluster[0], cluster_n=c.cluster[1], box_a=box_a, box_b=box_b, fixup_slot_floats=c.fixup_slot_floats,
                      promoted=c.kernel_schedule == "cooperative_promoted", block_scaled=c.block_scaled,
                      rowwise=c.rowwise_scaled)
    return _core.Kernel(cubin, c.name, symbol, target, ELEMENT_CODES[c.element], ELEMENT_CODES[c.out], c.layout_a == "row",
                        c.layout_b == "row", c.layout_c == "row", EPILOGUES.index(c.epilogue), c.tile[0], c.tile[1], c.threads,
                        c.smem_bytes, **launch)
