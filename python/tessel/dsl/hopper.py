"""sm_90a instructions for @tessel.kernel: mbarriers, TMA loads, wgmma and register budgets (the
CuTe DSL's cute.arch and cpasync pieces a Hopper GEMM is built from). tessel.arch holds them.

Addresses are `Pointer`s into shared memory (`tensor.iterator + k`); a TMA descriptor is the
kernel's `TmaDescriptor` argument (host side: tessel.make_tma_descriptor). The PTX is the
C++ library's (include/tessel/arch/{mbarrier,tma,wgmma}_sm90.hpp), spelled as inline asm here so
that a kernel needs no header and compiles in NVRTC in a fraction of a second.
"""

from __future__ import annotations

from . import dtypes as T
from .device import DeviceTensor, Pointer
from .ir import Value, as_value, builder, fail


def _need(what: str):
    b = builder()
    if b.sm < 90 or not b.target.endswith("a"):
        fail(f"{what} needs sm_90a (the architecture-specific Hopper target); this kernel is compiled for {b.target}")
    b.features.add("sm90")
    return b


def _smem(p, what: str) -> str:
    """The 32-bit shared-memory address of a Pointer (or a tensor's first element)."""
    if isinstance(p, DeviceTensor):
        p = p.iterator
    if not isinstance(p, Pointer):
        fail(f"{what} takes a shared-memory pointer (tensor.iterator + k); got {type(p).__name__}")
    if p.memspace != "smem":
        fail(f"{what} takes a pointer into shared memory; this one is in {p.memspace}")
    return f"tessel_dsl::smem_addr({p.expr})"


def _u32(x) -> str:
    return as_value(x, T.Uint32).expr if not isinstance(x, Value) else f"static_cast<unsigned>({x.expr})"


def _i32(x) -> str:
    return as_value(x, T.Int32).expr if not isinstance(x, Value) else f"static_cast<int>({x.expr})"


# ---- mbarriers ---------------------------------------------------------------------------------------

def mbarrier_init(bar, count: int):
    """mbarrier.init: the barrier at `bar` (a Uint64 in shared memory) expects `count` arrivals per phase."""
    b = _need("mbarrier_init")
    b.emit(f'asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"({_smem(bar, "mbarrier_init")}), "r"({_u32(count)}));')


def mbarrier_init_fence():
    """Makes initialised barriers visible to the async proxy (TMA) and to the other threads."""
    _need("mbarrier_init_fence").emit('asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");')


def mbarrier_arrive(bar):
    b = _need("mbarrier_arrive")
    b.emit(f'asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"({_smem(bar, "mbarrier_arrive")}) : "memory");')


def mbarrier_arrive_and_expect_tx(bar, nbytes):
    """Arrive once and announce `nbytes` of transactions (TMA bytes) the phase also waits for."""
    b = _need("mbarrier_arrive_and_expect_tx")
    b.emit(f'asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: '
           f'"r"({_smem(bar, "mbarrier_arrive_and_expect_tx")}), "r"({_u32(nbytes)}) : "memory");')


def mbarrier_wait(bar, phase):
    """Blocks until the barrier's phase of parity `phase` (0 or 1) has completed."""
    b = _need("mbarrier_wait")
    b.emit(f"tessel_dsl::mbarrier_wait({_smem(bar, 'mbarrier_wait')}, {_u32(phase)});")


# ---- TMA ---------------------------------------------------------------------------------------------

class TmaDescriptor:
    """A TMA descriptor (CUtensorMap) inside a kernel: the kernel's __grid_constant__ parameter."""

    def __init__(self, name: str, box, dtype, rank: int):
        self.name, self.box, self.element_type, self.rank = name, box, dtype, rank

    @property
    def box_bytes(self) -> int:
        n = self.element_type.width
        for x in self.box:
            n *= x
        return n


def _desc(d, what) -> TmaDescriptor:
    if not isinstance(d, TmaDescriptor):
        fail(f"{what} takes a TMA descriptor (a kernel argument made by tessel.make_tma_descriptor); got {type(d).__name__}")
    return d


def tma_prefetch_descriptor(desc):
    b = _need("tma_prefetch_descriptor")
    b.emit(f'asm volatile("prefetch.tensormap [%0];" :: "l"(&{_desc(desc, "tma_prefetch_descriptor").name}) : "memory");')


def _tma_coord(d: TmaDescriptor, coord, what: str, first_slot: int):
    """(dimensions, "%k, ..." operand slots, the "r"(...) operands) of a TMA coordinate: innermost
    first, as the descriptor's dimensions; a 2-D tensor's coordinate gets the batch 0."""
    coord = tuple(coord) if isinstance(coord, (tuple, list)) else (coord,)
    if len(coord) == d.rank - 1:
        coord = coord + (0,)  # a 2-D tensor is the descriptor's one batch
    if len(coord) != d.rank:
        fail(f"{what}: the descriptor has {d.rank} dimensions; the coordinate has {len(coord)}")
    slots = ", ".join(f"%{first_slot + i}" for i in range(len(coord)))
    return len(coord), slots, ", ".join(f'"r"({_i32(c)})' for c in coord)


def tma_load(desc, dst, bar, coord, multicast_mask=None):
    """cp.async.bulk.tensor: one box of `desc` at element coordinates `coord` (innermost first,
    as the descriptor's dimensions) into shared memory at `dst`, completing on mbarrier `bar`.
    multicast_mask (a 16-bit CTA mask, may be dynamic): the same box into every CTA of the
    cluster whose bit is set, at `dst`'s offset, each completing on the barrier at `bar`'s offset
    there (kernels launched with cluster=)."""
    b = _need("tma_load")
    d = _desc(desc, "tma_load")
    n, slots, args = _tma_coord(d, coord, "tma_load", 3)
    if multicast_mask is None:
        b.emit(f'asm volatile("cp.async.bulk.tensor.{n}d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, '
               f'{{{slots}}}], [%2];" :: "r"({_smem(dst, "tma_load")}), "l"(&{d.name}), "r"({_smem(bar, "tma_load")}), {args} '
               ': "memory");')
        return
    if isinstance(multicast_mask, int) and not 0 < multicast_mask < 1 << 16:
        fail(f"tma_load's multicast_mask {multicast_mask!r}: a mask of the cluster's CTAs, 1 .. 0xffff")
    mask = f"static_cast<unsigned short>({_u32(multicast_mask)})"
    b.emit(f'asm volatile("cp.async.bulk.tensor.{n}d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster '
           f'[%0], [%1, {{{slots}}}], [%2], %{3 + n};" :: "r"({_smem(dst, "tma_load")}), "l"(&{d.name}), '
           f'"r"({_smem(bar, "tma_load")}), {args}, "h"({mask}) : "memory");')


# ---- clusters ----------------------------------------------------------------------------------------

def cluster_cta_rank() -> Value:
    """This CTA's rank in its cluster (%cluster_ctarank): 0 .. cluster size - 1."""
    b = _need("cluster_cta_rank")
    r = b.fresh("cta_rank")
    b.emit(f"int {r};")
    b.emit(f'asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"({r}));')
    return Value(r, T.Int32, b.block)


def cluster_arrive(relaxed: bool = False):
    """barrier.cluster.arrive: this thread has arrived at the cluster-wide barrier. Release
    semantics by default: the thread's earlier writes are visible to every thread of the cluster
    past its wait, and the arrive waits for them (a GPU-scope fence in SASS). relaxed=True orders
    nothing and waits for nothing: enough where all there is to publish is barrier initialisation,
    which mbarrier_init_fence (fence.mbarrier_init.release.cluster) publishes on its own, as at a
    kernel's start (the C++ kernels' arch::cluster_sync_relaxed)."""
    if not isinstance(relaxed, bool):
        fail(f"cluster_arrive's relaxed is a Python bool, known when the kernel is compiled; got {relaxed!r}")
    sem = "relaxed" if relaxed else "release"
    _need("cluster_arrive").emit(f'asm volatile("barrier.cluster.arrive.{sem}.aligned;" ::: "memory");')


def cluster_wait():
    """barrier.cluster.wait (acquire): waits until every thread of every CTA in the cluster arrived."""
    _need("cluster_wait").emit('asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");')


def cluster_sync(relaxed: bool = False):
    """Every thread of every CTA in the cluster arrives, then waits for the others (after the
    mbarriers are initialised, before any CTA arrives on another's). relaxed: as cluster_arrive's."""
    cluster_arrive(relaxed)
    cluster_wait()


def mbarrier_arrive_cluster(bar, cta_rank):
    """Arrive on the barrier at `bar`'s offset in the shared memory of cluster CTA `cta_rank`
    (which may be this CTA): mapa, then a remote arrive with CTA-scope release, as the C++
    library's arch/cluster_sm90.hpp does (a cluster-scope release cost its 2x1-cluster kernels
    more than half their throughput)."""
    b = _need("mbarrier_arrive_cluster")
    b.emit(f'asm volatile("{{\\n.reg .b32 remote;\\nmapa.shared::cluster.u32 remote, %0, %1;\\n'
           f'mbarrier.arrive.shared::cluster.b64 _, [remote];\\n}}" :: "r"({_smem(bar, "mbarrier_arrive_cluster")}), '
           f'"r"({_u32(cta_rank)}) : "memory");')


def tma_store(desc, src, coord):
    """cp.async.bulk.tensor (shared to global): one box of `desc` at `coord` from shared memory at
    `src`, in this thread's bulk group (commit with tma_store_commit_group). TMA leaves out what
    falls outside the tensor."""
    b = _need("tma_store")
    d = _desc(desc, "tma_store")
    n, slots, args = _tma_coord(d, coord, "tma_store", 2)
    b.emit(f'asm volatile("cp.async.bulk.tensor.{n}d.global.shared::cta.bulk_group [%0, {{{slots}}}], [%1];" :: '
           f'"l"(&{d.name}), "r"({_smem(src, "tma_store")}), {args} : "memory");')


def tma_store_commit_group():
    _need("tma_store_commit_group").emit('asm volatile("cp.async.bulk.commit_group;" ::: "memory");')


def tma_store_wait_read(n: int):
    """Waits until all but this thread's newest `n` bulk groups have read their shared memory (it
    may be overwritten then)."""
    if not (isinstance(n, int) and 0 <= n <= 7):
        fail(f"tma_store_wait_read({n!r}): a compile-time count in 0..7")
    _need("tma_store_wait_read").emit(f'asm volatile("cp.async.bulk.wait_group.read {n};" ::: "memory");')


def tma_store_wait_all():
    """Waits until this thread's bulk stores are complete (their writes performed)."""
    _need("tma_store_wait_all").emit('asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");')


def swizzle_128b(byte_offset):
    """The 128-byte swizzle TMA and wgmma use, on a byte offset into a 1024-byte-aligned buffer:
    the 16-byte chunk bits [4, 7) XORed with the row bits [7, 10) (Swizzle<3,4,3>)."""
    from .swizzle import Swizzle
    return Swizzle(3, 4, 3)(byte_offset)


# ---- register budgets --------------------------------------------------------------------------------

def _regs(n, what):
    if not (isinstance(n, int) and 24 <= n <= 256 and n % 8 == 0):
        fail(f"{what}({n!r}): a compile-time register count, a multiple of 8 in 24..256")
    return n


def warpgroup_reg_alloc(n: int):
    """setmaxnreg.inc: this warpgroup may use up to `n` registers per thread."""
    _need("warpgroup_reg_alloc").emit(f'asm volatile("setmaxnreg.inc.sync.aligned.u32 {_regs(n, "warpgroup_reg_alloc")};");')


def warpgroup_reg_dealloc(n: int):
    """setmaxnreg.dec: this warpgroup gives its registers above `n` per thread back."""
    _need("warpgroup_reg_dealloc").emit(f'asm volatile("setmaxnreg.dec.sync.aligned.u32 {_regs(n, "warpgroup_reg_dealloc")};");')


# ---- wgmma -------------------------------------------------------------------------------------------

def make_wgmma_desc(ptr, swizzle: int = 128):
    """The shared-memory matrix descriptor of a K-major operand laid out by TMA with a `swizzle`-byte
    swizzle (rows of `swizzle` bytes, 8-row groups 8 * swizzle bytes apart), starting at `ptr`."""
    b = _need("make_wgmma_desc")
    if swizzle not in (32, 64, 128):
        fail(f"make_wgmma_desc: a swizzle of 32, 64 or 128 bytes, not {swizzle!r}")
    return b.let(T.Uint64, f"tessel_dsl::wgmma_desc<{swizzle}>({_smem(ptr, 'make_wgmma_desc')})", "desc")


def wgmma_fence():
    _need("wgmma_fence").emit('asm volatile("wgmma.fence.sync.aligned;" ::: "memory");')


def wgmma_commit_group():
    _need("wgmma_commit_group").emit('asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");')


def wgmma_wait_group(n: int):
    if not (isinstance(n, int) and 0 <= n <= 7):
        fail(f"wgmma_wait_group({n!r}): a compile-time count in 0..7")
    _need("wgmma_wait_group").emit(f'asm volatile("wgmma.wait_group.sync.aligned {n};" ::: "memory");')


def _fragment(acc, count, what) -> DeviceTensor:
    if not (isinstance(acc, DeviceTensor) and acc.memspace == "rmem" and acc.element_type is T.Float32):
        fail(f"{what} accumulates into a Float32 register fragment (tessel.make_fragment)")
    if not isinstance(acc.offset, int):
        fail(f"{what}: the fragment must be at a compile-time offset")
    if _size(acc) < count:
        fail(f"{what} needs {count} Float32 registers; the fragment has {_size(acc)}")
    return acc


def _size(acc) -> int:
    from .tensor import product
    return product(acc._shape) if isinstance(acc._shape, tuple) else acc._shape


def fence_registers(acc):
    """Keeps the compiler from moving reads or writes of the fragment's registers across an
    in-flight wgmma (before wgmma_wait_group returns, they belong to the tensor core)."""
    b = _need("fence_registers")
    acc = _fragment(acc, 0, "fence_registers")
    b.emit(f'for (int i_ = 0; i_ < {_size(acc)}; ++i_) asm volatile("" : "+f"({acc.base}[{acc.offset} + i_]) :: "memory");')


_WGMMA_TYPES = {T.Float16: ("f16", 16), T.BFloat16: ("bf16", 16), T.Float8E4M3: ("e4m3", 32), T.Float8E5M2: ("e5m2", 32)}


def wgmma(acc, desc_a, desc_b, n: int, ab_type, accumulate=True):
    """wgmma.mma_async m64nNk(16|32): acc (N/2 Float32 registers of the 64 x N tile) += A B, A and
    B K-major in shared memory (descriptors from make_wgmma_desc). `accumulate` false (may be
    dynamic) starts from zero instead."""
    b = _need("wgmma")
    if n not in range(8, 257, 8):
        fail(f"wgmma's N is a multiple of 8 in 8..256, not {n!r}")
    kind = _WGMMA_TYPES.get(ab_type)
    if kind is None:
        fail(f"wgmma multiplies Float16, BFloat16, Float8E4M3 or Float8E5M2, not {ab_type!r}")
    acc = _fragment(acc, n // 2, "wgmma")
    r = n // 2
    name, k = kind
    regs = ", ".join(f"%{i}" for i in range(r))
    outs = ", ".join(f'"+f"({acc.base}[{acc.offset + i}])' for i in range(r))
    scale = "1" if accumulate is True else "0" if accumulate is False else f"static_cast<int>({as_value(accumulate).expr})"
    trans = ", 0, 0" if k == 16 else ""
    b.emit(f'asm volatile("{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{r + 2}, 0;\\n'
           f'wgmma.mma_async.sync.aligned.m64n{n}k{k}.f32.{name}.{name} {{{regs}}}, %{r}, %{r + 1}, p, 1, 1{trans};\\n}}\\n" '
           f': {outs} : "l"({as_value(desc_a).expr}), "l"({as_value(desc_b).expr}), "r"({scale}));')


__all__ = [
    "TmaDescriptor", "cluster_arrive", "cluster_cta_rank", "cluster_sync", "cluster_wait", "fence_registers",
    "make_wgmma_desc", "mbarrier_arrive", "mbarrier_arrive_and_expect_tx", "mbarrier_arrive_cluster", "mbarrier_init",
    "mbarrier_init_fence", "mbarrier_wait", "swizzle_128b", "tma_load", "tma_prefetch_descriptor", "tma_store",
    "tma_store_commit_group", "tma_store_wait_all", "tma_store_wait_read", "warpgroup_reg_alloc",
    "warpgroup_reg_dealloc", "wgmma", "wgmma_commit_group", "wgmma_fence", "wgmma_wait_group",
]
