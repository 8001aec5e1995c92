"""A Hopper GEMM written in the DSL: D = act(A B^T + bias), warp-specialized and persistent.

    A (M, K) and B (N, K) row-major (K contiguous: PyTorch's x @ W.t()), D (M, N) row-major,
    bias (N,) optional; bf16 or f16, f32 accumulation.

Each CTA runs three warpgroups. Warpgroup 0 is the producer: one thread issues the TMA loads of
A and B into a ring of STAGES shared-memory buffers (128-byte swizzle, the layout wgmma reads).
Warpgroups 1 and 2 are the consumers (the cooperative schedule): each computes 64 of the tile's
128 rows by wgmma m64n256k16 over every stage, hands the stage back, and runs the epilogue: bias,
activation and rounding in registers, then 64-column subtiles through two swizzled shared-memory
buffers per consumer, each sent by one TMA store. A tessel.pipeline.TmaPipeline (a full and an
empty mbarrier per stage) carries the ring. CTAs walk the tiles persistently, in bands of GROUP_M tile rows (L2 reuse of B).

    python examples/python/hopper_gemm.py       # needs PyTorch and an sm_90a GPU
"""

import tessel

BM, BN, BK = 128, 256, 64  # BK: one 128-byte swizzle row of a 16-bit type
STAGES = 4
GROUP_M = 8
THREADS = 384
PRODUCER_REGS, CONSUMER_REGS = 40, 232  # per-thread budgets (setmaxnreg) of the two roles
STAGE_BYTES = (BM + BN) * BK * 2
EPI_COLS = 64  # columns of one epilogue subtile: a 128-byte row of D, one TMA store box (EPI_COLS x 64 rows)
EPI_BARRIER = 4  # named barriers 4 and 5: the epilogue of consumer 0 and of consumer 1


@tessel.kernel(launch_bounds=(THREADS, 1))
def gemm_kernel(tma_a, tma_b, tma_d, gD: tessel.Tensor, gBias: tessel.Tensor, k: tessel.Int32, ab: tessel.Constexpr,
                act: tessel.Constexpr, has_bias: tessel.Constexpr, cluster_m: tessel.Constexpr):
    m, n = gD.shape
    smem = tessel.SmemAllocator()
    sA = smem.allocate_array(ab, STAGES * BM * BK, byte_alignment=1024)  # [stage][BM rows x 128 bytes]
    sB = smem.allocate_array(ab, STAGES * BN * BK, byte_alignment=1024)  # [stage][BN rows x 128 bytes]
    sD = smem.allocate_array(ab, 2 * 2 * 64 * EPI_COLS, byte_alignment=1024)  # [consumer][buffer][64 rows x 128 bytes]
    # Per stage a full barrier (the TMA bytes landed) and an empty one (both consumers are done;
    # in a cluster, both consumers of every CTA, since B's halves are multicast into all of them).
    pipe = tessel.pipeline.TmaPipeline(smem, STAGES, STAGE_BYTES, consumers=2, cluster_size=cluster_m)

    tidx, _, _ = tessel.arch.thread_idx()
    bidx, _, _ = tessel.arch.block_idx()
    grid, _, _ = tessel.arch.grid_dim()
    warpgroup = tessel.arch.warp_idx() // 4
    tiles_m = (m + BM - 1) // BM
    tiles_n = (n + BN - 1) // BN
    tiles = tiles_m * tiles_n
    k_tiles = (k + BK - 1) // BK
    # The tiles a CTA walks: its own, or in a cluster of cluster_m CTAs along M its cluster's
    # (cluster_m tile rows sharing one column of B), of which it takes the row of its rank.
    first, step, count, rows_of_tiles, rank = bidx, grid, tiles, tiles_m, 0
    if tessel.const_expr(cluster_m > 1):
        rank = tessel.arch.cluster_cta_rank()
        rows_of_tiles = (tiles_m + cluster_m - 1) // cluster_m
        first, step, count = bidx // cluster_m, grid // cluster_m, rows_of_tiles * tiles_n

    if tidx == 0:
        tessel.arch.tma_prefetch_descriptor(tma_a)
        tessel.arch.tma_prefetch_descriptor(tma_b)
        tessel.arch.tma_prefetch_descriptor(tma_d)
        pipe.init()
    if tessel.const_expr(cluster_m > 1):
        # Every CTA's barriers are initialised before a peer arrives on them. NOTES: relaxed, since
        # pipe.init()'s fence.mbarrier_init publishes them; a release arrive makes every thread wait
        # for its writes first, before the producer's first load (bench/NOTES.md, "Small GEMMs").
        tessel.arch.cluster_sync(relaxed=True)
    else:
        tessel.arch.sync_threads()

    if warpgroup == 0:
        # Producer. NOTES: it needs few registers; giving them up lets the consumers hold 128
        # accumulators each without spilling.
        tessel.arch.warpgroup_reg_dealloc(PRODUCER_REGS)
        if tidx == 0:
            state = tessel.pipeline.PipelineState(STAGES)  # runs on across tiles: the next tile's loads overlap the epilogue
            tile = first
            while tile < count:
                tm, tn = raster(tile, rows_of_tiles, tiles_n)
                if tessel.const_expr(cluster_m > 1):
                    tm = tm * cluster_m + rank  # past tiles_m on a ragged edge: loads zeros, stores nothing
                for kt in range(k_tiles):
                    pipe.producer_acquire(state)
                    s = state.index
                    tessel.arch.tma_load(tma_a, sA.iterator + s * (BM * BK), pipe.full(state), (kt * BK, tm * BM))
                    if tessel.const_expr(cluster_m > 1):
                        # This CTA's share of B's rows, into the same place of every CTA's stage.
                        part = BN // cluster_m
                        tessel.arch.tma_load(tma_b, sB.iterator + s * (BN * BK) + rank * (part * BK), pipe.full(state),
                                             (kt * BK, tn * BN + rank * part), multicast_mask=(1 << cluster_m) - 1)
                    else:
                        tessel.arch.tma_load(tma_b, sB.iterator + s * (BN * BK), pipe.full(state), (kt * BK, tn * BN))
                    state.advance()
                tile = tile + step
    else:
        tessel.arch.warpgroup_reg_alloc(CONSUMER_REGS)
        wg = warpgroup - 1  # this consumer's 64 rows of the tile
        leader = tidx % 128 == 0
        acc = tessel.make_fragment(BN // 2, tessel.Float32)  # the 64 x 256 accumulators, wgmma's layout
        state = tessel.pipeline.PipelineState(STAGES)
        tile = first
        while tile < count:
            tm, tn = raster(tile, rows_of_tiles, tiles_n)
            if tessel.const_expr(cluster_m > 1):
                tm = tm * cluster_m + rank
            for i in tessel.range(BN // 2, unroll_full=True):  # a C++ loop: short source, unrolled by the compiler
                acc[i] = 0.0
            for kt in range(k_tiles):
                pipe.consumer_wait(state)
                s = state.index
                tessel.arch.wgmma_fence()
                for kk in tessel.range_constexpr(BK // 16):
                    # K-major, 128-byte rows: row r of a stage at r * 128 bytes, K step of 16 at +32 bytes.
                    da = tessel.arch.make_wgmma_desc(sA.iterator + s * (BM * BK) + wg * (64 * BK) + kk * 16)
                    db = tessel.arch.make_wgmma_desc(sB.iterator + s * (BN * BK) + kk * 16)
                    tessel.arch.wgmma(acc, da, db, BN, ab, accumulate=True)
                tessel.arch.wgmma_commit_group()
                # Keep this K tile's wgmma in flight; once the one before it is done, its stage is
                # free for the producer.
                tessel.arch.wgmma_wait_group(1)
                if kt > 0 and leader:
                    pipe.consumer_release(state.previous())
                state.advance()
            tessel.arch.wgmma_wait_group(0)
            tessel.arch.fence_registers(acc)
            if k_tiles > 0 and leader:
                pipe.consumer_release(state.previous())
            epilogue(tma_d, sD, gBias, acc, tm * BM + wg * 64, tn * BN, n, wg, leader, act, has_bias)
            tile = tile + step
        if leader:
            tessel.arch.tma_store_wait_all()  # D is written before the CTA retires
    if tessel.const_expr(cluster_m > 1):
        tessel.arch.cluster_sync()  # no CTA retires while a peer may still arrive on its barriers


@tessel.jit
def raster(tile, tiles_m, tiles_n):
    """(tile row, tile column) of linear tile `tile`: bands of GROUP_M tile rows, column by column
    inside a band, so that the CTAs running at once share B's columns in L2."""
    band = GROUP_M * tiles_n
    first = (tile // band) * GROUP_M
    rows = tessel.select(tiles_m - first < GROUP_M, tiles_m - first, GROUP_M)
    inner = tile % band
    return first + inner % rows, inner // rows


@tessel.jit
def epilogue(tma_d, sD, gBias, acc, row0, col0, n, wg, leader, act, has_bias):
    """act(acc + bias) rounded to D's type, out through shared memory and TMA: the warpgroup's 64 x
    256 accumulators go in four subtiles of 64 x EPI_COLS, each written into one of the
    warpgroup's two buffers (128-byte swizzle, as TMA reads) and sent by one TMA store; a buffer is
    refilled once the store issued from it two subtiles ago has read it. TMA leaves out the rows
    and columns past D's edge. Accumulators 4j+2h and 4j+2h+1 are columns 8j + 2(lane % 4) and
    one more of row 16 warp + lane / 4 + 8h (wgmma's layout), one 4-byte shared store per pair.
    NOTES: the loop over j is a C++ loop that the compiler unrolls (accumulator indices must fold
    to constants, or the accumulators move to local memory); unrolled here in Python, the source
    NVRTC parses is several times longer and the cold compile slower."""
    tidx, _, _ = tessel.arch.thread_idx()
    t = tidx % 128
    w, lane = t // 32, t % 32
    width = sD.element_type.width  # bytes
    for sub in tessel.range_constexpr(BN // EPI_COLS):
        buf = sD.iterator + (wg * 2 + sub % 2) * (64 * EPI_COLS)  # 4 subtiles a tile: buffers alternate across tiles too
        if leader:
            tessel.arch.tma_store_wait_read(1)
        tessel.arch.named_barrier(EPI_BARRIER + wg, 128)
        for j in tessel.range(EPI_COLS // 8, unroll_full=True):
            c8 = sub * (EPI_COLS // 8) + j
            cl = 8 * j + 2 * (lane % 4)  # column within the subtile
            c = col0 + 8 * c8 + 2 * (lane % 4)
            for h in tessel.range_constexpr(2):
                rl = 16 * w + lane // 4 + 8 * h  # row within the 64
                pair = tessel.make_fragment(2, sD.element_type)
                for e in tessel.range_constexpr(2):
                    x = acc[4 * c8 + 2 * h + e]
                    if tessel.const_expr(has_bias):
                        x = x + gBias[tessel.select(c + e < n, c + e, 0)].to(tessel.Float32)
                    pair[e] = activate(x, act)
                at = tessel.assume(tessel.arch.swizzle_128b(rl * 128 + cl * width) // width, divby=2)
                tessel.make_tensor(buf + at, tessel.make_layout(2)).store(pair.load())
        tessel.arch.fence_view_async_shared()  # the stores above, before the TMA store reads them
        tessel.arch.named_barrier(EPI_BARRIER + wg, 128)
        if leader:
            tessel.arch.tma_store(tma_d, buf, (col0 + sub * EPI_COLS, row0))
            tessel.arch.tma_store_commit_group()


@tessel.jit
def activate(x, act):
    if tessel.const_expr(act == "relu"):
        return tessel.math.maximum(x, 0.0)
    if tessel.const_expr(act == "silu"):
        return x * tessel.math.rcp(1.0 + tessel.math.exp(-x))
    if tessel.const_expr(act == "gelu"):  # the tanh form
        return 0.5 * x * (1.0 + tessel.math.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))
    return x


ACTIVATIONS = ("none", "relu", "silu", "gelu")


def sm_count(device: int) -> int:
    import torch
    return torch.cuda.get_device_properties(device).multi_processor_count


@tessel.jit
def gemm(mA: tessel.Tensor, mB: tessel.Tensor, mD: tessel.Tensor, mBias: tessel.Tensor, act: tessel.Constexpr = "none",
         has_bias: tessel.Constexpr = True, cluster_m: tessel.Constexpr = 1):
    (m, k), (n, k2) = mA.shape, mB.shape
    if k != k2 or tuple(mD.shape) != (m, n):
        raise ValueError(f"gemm: A is {m} x {k}, B is {n} x {k2} and D is {mD.shape}: need A (M, K), B (N, K), D (M, N)")
    if act not in ACTIVATIONS:
        raise ValueError(f"gemm: act is one of {ACTIVATIONS}, not {act!r}")
    ab = mA.element_type
    if ab not in (tessel.Float16, tessel.BFloat16) or mB.element_type is not ab or mD.element_type is not ab:
        raise ValueError("gemm: A, B and D are all Float16 or all BFloat16")
    if k % 8 or n % 8 or mD.stride[0] % 8:
        raise ValueError(f"gemm: K ({k}), N ({n}) and D's row stride ({mD.stride[0]}) must be multiples of 8 elements "
                         "(TMA's 16-byte rows and strides)")
    if cluster_m not in (1, 2):
        raise ValueError(f"gemm: cluster_m is 1 or 2 (CTAs along M sharing B's tile by multicast), not {cluster_m!r}")
    tma_a = tessel.make_tma_descriptor(mA, box=(BK, BM))
    tma_b = tessel.make_tma_descriptor(mB, box=(BK, BN // cluster_m))
    tma_d = tessel.make_tma_descriptor(mD, box=(EPI_COLS, 64))
    sms = sm_count(mA.device) if mA.device is not None and mA.device >= 0 else 132
    clusters = -(-(-(-m // BM)) // cluster_m) * -(-n // BN)  # cluster_m tile rows (one B tile) per cluster
    gemm_kernel(tma_a, tma_b, tma_d, mD, mBias, tessel.Int32(k), ab, act, has_bias, cluster_m).launch(
        grid=(max(1, min(clusters, sms // cluster_m)) * cluster_m, 1, 1), block=(THREADS, 1, 1), cluster=(cluster_m, 1, 1))


def main():
    import torch
    m, n, k = 4096, 4096, 4096
    a = torch.rand(m, k, device="cuda", dtype=torch.bfloat16) * 2 - 1
    b = torch.rand(n, k, device="cuda", dtype=torch.bfloat16) * 2 - 1
    bias = torch.rand(n, device="cuda", dtype=torch.bfloat16)
    d = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    gemm(a, b, d, bias, "relu")
    ref = torch.relu(a.float() @ b.float().t() + bias.float())
    torch.testing.assert_close(d.float(), ref, atol=0.1, rtol=0.02)
    print("hopper gemm: ok")


if __name__ == "__main__":
    main()
