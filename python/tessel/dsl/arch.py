"""tessel.arch: the thread's place in the grid, barriers, and the memory and MMA instructions
that kernels build on (the CuTe DSL's cute.arch).

Each function emits its instruction where it is called in a @tessel.kernel; the indices are
Int32 values, as the CuTe DSL's.
"""

from __future__ import annotations

from . import dtypes as T
from .device import DeviceTensor
from .ir import Value, as_value, builder, fail


def _xyz(name):
    b = builder()
    return tuple(b.let(T.Int32, f"static_cast<int>({name}.{c})") for c in "xyz")


def thread_idx():
    """(x, y, z) of this thread in its block."""
    return _xyz("threadIdx")


def block_idx():
    """(x, y, z) of this block in the grid."""
    return _xyz("blockIdx")


def block_dim():
    """(x, y, z) threads per block."""
    return _xyz("blockDim")


def grid_dim():
    """(x, y, z) blocks in the grid."""
    return _xyz("gridDim")


def lane_idx():
    """This thread's lane in its warp (0..31)."""
    return builder().let(T.Int32, "static_cast<int>(threadIdx.x & 31u)")


def warp_idx():
    """This thread's warp in its block, counting x fastest, made uniform across the warp (so that
    branches on it do not diverge)."""
    return builder().let(T.Int32, "__shfl_sync(0xffffffffu, static_cast<int>((threadIdx.x + blockDim.x * (threadIdx.y + "
                                  "blockDim.y * threadIdx.z)) / 32u), 0)")


def sync_threads():
    """__syncthreads: every thread of the block waits here."""
    builder().emit("__syncthreads();")


barrier = sync_threads


def named_barrier(barrier_id, num_threads: int):
    """bar.sync on barrier `barrier_id` (1..15; 0 is __syncthreads') for `num_threads` threads. The
    id may be dynamic (one barrier per warpgroup, say); it must then be uniform across each warp."""
    if not (isinstance(num_threads, int) and num_threads % 32 == 0 and num_threads > 0):
        fail(f"named_barrier's thread count {num_threads!r}: a compile-time multiple of 32")
    if isinstance(barrier_id, Value):
        if not barrier_id.dtype.is_integer:
            fail(f"barrier id: an integer, not a {barrier_id.dtype.name}")
        builder().emit(f'asm volatile("bar.sync %0, {num_threads};" :: "r"(static_cast<int>({barrier_id.expr})) : "memory");')
        return
    if not (isinstance(barrier_id, int) and 0 <= barrier_id < 16):
        fail(f"barrier id {barrier_id!r}: an integer in 0..15")
    builder().emit(f'asm volatile("bar.sync {barrier_id}, {num_threads};" ::: "memory");')


def sync_warp():
    builder().emit("__syncwarp();")


def fence_view_async_shared():
    """fence.proxy.async.shared::cta: makes generic-proxy writes to shared memory visible to the
    async proxy (TMA, wgmma) (sm_90)."""
    _need(90, "fence_view_async_shared")
    builder().emit('asm volatile("fence.proxy.async.shared::cta;" ::: "memory");')


def _need(sm: int, what: str):
    b = builder()
    if b.sm < sm:
        fail(f"{what} needs sm_{sm} or later; this kernel is compiled for {b.target}")


def _addr(t: DeviceTensor, what: str, memspace: str):
    if not isinstance(t, DeviceTensor):
        fail(f"{what} takes a tensor; got {type(t).__name__}")
    if t.memspace != memspace:
        fail(f"{what} takes a {memspace} tensor; this one is in {t.memspace}")
    return t._pointer()


def cp_async(dst: DeviceTensor, src: DeviceTensor, nbytes: int = 16, pred=None):
    """cp.async.cg (16 bytes) or .ca (4, 8): `nbytes` from global `src` to shared `dst`, both at
    their first element; with a false `pred` the destination is zero-filled (sm_80)."""
    _need(80, "cp_async")
    if nbytes not in (4, 8, 16):
        fail(f"cp_async copies 4, 8 or 16 bytes, not {nbytes!r}")
    for t, name in ((dst, "destination"), (src, "source")):
        if isinstance(t, DeviceTensor) and t.address_align() % nbytes:
            fail(f"cp_async's {name} is aligned to {t.address_align()} bytes only; a {nbytes}-byte copy needs {nbytes}")
    d, s = _addr(dst, "cp_async's destination", "smem"), _addr(src, "cp_async's source", "gmem")
    kind = "cg" if nbytes == 16 else "ca"
    b = builder()
    if pred is None:
        b.emit(f'asm volatile("cp.async.{kind}.shared.global [%0], [%1], {nbytes};" :: "r"((unsigned)__cvta_generic_to_shared({d})), "l"({s}) : "memory");')
    else:
        p = as_value(pred)
        b.emit(f'asm volatile("cp.async.{kind}.shared.global [%0], [%1], {nbytes}, %2;" :: "r"((unsigned)__cvta_generic_to_shared({d})), "l"({s}), "r"(({p.expr}) ? {nbytes} : 0) : "memory");')


def cp_async_commit_group():
    _need(80, "cp_async_commit_group")
    builder().emit('asm volatile("cp.async.commit_group;" ::: "memory");')


def cp_async_wait_group(n: int):
    """Waits until at most `n` committed cp.async groups are still in flight."""
    _need(80, "cp_async_wait_group")
    if not isinstance(n, int) or n < 0:
        fail(f"cp_async_wait_group's count {n!r}: a compile-time integer >= 0")
    builder().emit(f'asm volatile("cp.async.wait_group {n};" ::: "memory");')


def ldmatrix_x4(src: DeviceTensor, transpose: bool = False):
    """ldmatrix.sync.aligned.m8n8.x4.b16: four 8x8 b16 matrices from shared memory; lane i gives
    the row address `src` of row i % 8 of matrix i / 8. Returns four Uint32 (two b16 each)."""
    _need(75, "ldmatrix_x4")
    a = _addr(src, "ldmatrix_x4", "smem")
    b = builder()
    regs = [b.fresh("lm") for _ in range(4)]
    b.emit(f"unsigned {', '.join(regs)};")
    t = ".trans" if transpose else ""
    b.emit(f'asm volatile("ldmatrix.sync.aligned.m8n8.x4{t}.shared.b16 {{%0, %1, %2, %3}}, [%4];" : "=r"({regs[0]}), '
           f'"=r"({regs[1]}), "=r"({regs[2]}), "=r"({regs[3]}) : "r"((unsigned)__cvta_generic_to_shared({a})));')
    return tuple(Value(r, T.Uint32, b.block) for r in regs)


def mma_m16n8k16(a, b_, c, dtype=T.Float16):
    """mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}: D = A B + C with A four Uint32, B two,
    C and the result four Float32 (the PTX fragment layouts) (sm_80)."""
    _need(80, "mma_m16n8k16")
    if len(a) != 4 or len(b_) != 2 or len(c) != 4:
        fail("mma_m16n8k16 takes A as four Uint32, B as two and C as four Float32")
    kind = {T.Float16: "f16", T.BFloat16: "bf16"}.get(dtype)
    if kind is None:
        fail(f"mma_m16n8k16 multiplies Float16 or BFloat16, not {dtype!r}")
    bld = builder()
    d = [bld.fresh("acc") for _ in range(4)]
    bld.emit(f"float {', '.join(d)};")
    cs = [as_value(x, T.Float32).expr for x in c]
    aa = [as_value(x, T.Uint32).expr for x in a]
    bb = [as_value(x, T.Uint32).expr for x in b_]
    bld.emit(f'asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.{kind}.{kind}.f32 {{%0,%1,%2,%3}}, {{%4,%5,%6,%7}}, '
             f'{{%8,%9}}, {{%10,%11,%12,%13}};" : "=f"({d[0]}), "=f"({d[1]}), "=f"({d[2]}), "=f"({d[3]}) : "r"({aa[0]}), '
             f'"r"({aa[1]}), "r"({aa[2]}), "r"({aa[3]}), "r"({bb[0]}), "r"({bb[1]}), "f"({cs[0]}), "f"({cs[1]}), '
             f'"f"({cs[2]}), "f"({cs[3]}));')
    return tuple(Value(x, T.Float32, bld.block) for x in d)


# sm_90a: mbarriers, TMA, wgmma, register budgets (hopper.py).
from .hopper import (  # noqa: E402,F401
    cluster_arrive, cluster_cta_rank, cluster_sync, cluster_wait, mbarrier_arrive_cluster,
    fence_registers, make_wgmma_desc, mbarrier_arrive, mbarrier_arrive_and_expect_tx, mbarrier_init, mbarrier_init_fence,
    mbarrier_wait, swizzle_128b, tma_load, tma_prefetch_descriptor, tma_store, tma_store_commit_group, tma_store_wait_all,
    tma_store_wait_read, warpgroup_reg_alloc, warpgroup_reg_dealloc, wgmma, wgmma_commit_group, wgmma_fence, wgmma_wait_group,
)
