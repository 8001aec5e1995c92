"""tessel.pipeline: shared-memory stages handed between a TMA producer and its consumers on
mbarriers (the CuTe DSL's PipelineTmaAsync and PipelineState).

    pipe = tessel.pipeline.TmaPipeline(smem, stages=4, tx_bytes=STAGE_BYTES, consumers=2)
    pipe.init()                            # one thread, before a barrier of the whole CTA
    state = tessel.pipeline.PipelineState(4)
    # producer thread:                     # each consumer warpgroup's leader:
    pipe.producer_acquire(state)           pipe.consumer_wait(state)
    tma_load(..., pipe.full(state), ...)   ... wgmma on stage state.index ...
    state.advance()                        pipe.consumer_release(state); state.advance()

Stage s has a `full` barrier (one producer arrival plus the TMA bytes) and an `empty` one
(`consumers` arrivals). In a cluster whose CTAs multicast loads into each other's stages
(TmaPipeline(..., cluster_size=2) with tma_load(..., multicast_mask=)), a stage is empty only
when the consumers of every CTA it is written into have released it: each consumer arrives on
the empty barrier of every CTA, which expects consumers x cluster_size arrivals; tx_bytes stays
what lands in one CTA's stage (its own loads and its peers' multicasts into it). A state counts stages handed over so far: its index is count % stages
and its phase the parity of count / stages. A fresh barrier counts as having completed the phase
before its first, so the producer's first pass over the ring does not wait.
"""

from __future__ import annotations

from . import dtypes as T
from . import hopper
from .ir import Value, as_value, builder, fail


class PipelineState:
    """A position in the ring: a C++ counter declared where the state is made (before the loops
    that advance it)."""

    def __init__(self, stages: int, start=0, _count=None):
        if not (isinstance(stages, int) and stages >= 1):
            fail(f"PipelineState's stage count is a compile-time integer >= 1, not {stages!r}")
        self.stages = stages
        if _count is not None:
            self._count = _count
        else:
            b = builder()
            self._name = b.fresh("pipe_count")
            b.emit(f"int {self._name} = {as_value(start, T.Int32).expr};")
            self._count = Value(self._name, T.Int32, b.block)

    @property
    def count(self) -> Value:
        return self._count

    @property
    def index(self):
        return self._count % self.stages

    @property
    def phase(self):
        return (self._count // self.stages) & 1

    def advance(self, n: int = 1):
        if not hasattr(self, "_name"):
            fail("this pipeline state is a read-only view (previous()); advance the state it came from")
        builder().emit(f"{self._name} += {int(n)};")

    def previous(self) -> PipelineState:
        """The stage before this one (a view: it does not advance)."""
        return PipelineState(self.stages, _count=self._count - 1)


class TmaPipeline:
    """`stages` stages, each filled by TMA loads of `tx_bytes` bytes and read by `consumers`
    arrivals' worth of consumers."""

    def __init__(self, smem, stages: int, tx_bytes: int, consumers: int, cluster_size: int = 1):
        for name, v in (("stages", stages), ("tx_bytes", tx_bytes), ("consumers", consumers), ("cluster_size", cluster_size)):
            if not (isinstance(v, int) and v >= 1):
                fail(f"TmaPipeline's {name} is a compile-time integer >= 1, not {v!r}")
        if cluster_size > 16:
            fail(f"TmaPipeline's cluster_size {cluster_size}: a multicast reaches at most 16 CTAs")
        self.stages, self.tx_bytes, self.consumers, self.cluster_size = stages, tx_bytes, consumers, cluster_size
        self._full = smem.allocate_array(T.Uint64, stages, byte_alignment=8)
        self._empty = smem.allocate_array(T.Uint64, stages, byte_alignment=8)

    def init(self):
        """Initialise the barriers: call from one thread, then synchronise the CTA (with
        cluster_size > 1: the cluster, tessel.arch.cluster_sync(), before any other CTA arrives)."""
        for s in range(self.stages):
            hopper.mbarrier_init(self._full.iterator + s, 1)
            hopper.mbarrier_init(self._empty.iterator + s, self.consumers * self.cluster_size)
        hopper.mbarrier_init_fence()

    def full(self, state: PipelineState):
        """The barrier the stage's TMA loads complete on."""
        return self._full.iterator + state.index

    def producer_acquire(self, state: PipelineState):
        """Wait until the consumers released the stage, then arrive on its full barrier announcing
        tx_bytes of loads."""
        hopper.mbarrier_wait(self._empty.iterator + state.index, state.phase ^ 1)
        hopper.mbarrier_arrive_and_expect_tx(self._full.iterator + state.index, self.tx_bytes)

    def consumer_wait(self, state: PipelineState):
        """Wait until the stage's loads have landed."""
        hopper.mbarrier_wait(self._full.iterator + state.index, state.phase)

    def consumer_release(self, state: PipelineState):
        """One arrival on the stage's empty barrier (call it from one thread per consumer); with
        cluster_size > 1, on that barrier in every CTA of the cluster, since their producers'
        multicast loads write into this CTA's stage too."""
        if self.cluster_size == 1:
            hopper.mbarrier_arrive(self._empty.iterator + state.index)
            return
        for rank in range(self.cluster_size):
            hopper.mbarrier_arrive_cluster(self._empty.iterator + state.index, rank)
