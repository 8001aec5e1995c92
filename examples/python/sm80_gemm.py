"""An Ampere-style tensor-core GEMM written in the DSL: D = A B^T with cp.async, ldmatrix and
mma.sync (sm_80 and later).

    A (M, K) and B (N, K) row-major (K contiguous: PyTorch's x @ W.t()), D (M, N) row-major;
    f16 or bf16, f32 accumulation; K and the rows of A and B multiples of 8 elements, N and D's even.

A CTA of 4 warps computes a 128 x 128 tile of D with a tiled MMA (`tessel.make_tiled_mma`) of the
mma.sync m16n8k16 atom: warps 2 x 2, each over a 64 x 64 quarter (the permutations put a warp's 4
atoms along M and 8 along N side by side), so each thread holds a (4 values, 4, 8) fragment of
the accumulators. ldmatrix copies (`make_tiled_copy_A` / `_B`) fill the A and B fragments of each
16 of K from shared memory; `tessel.dsl.gemm` runs the atoms. A ring of STAGES shared-memory buffers
holds 32 of K of the CTA's A and B rows each; cp.async fills the stage STAGES - 1 ahead of the one
the warps read. Shared rows are 64 bytes (four 16-byte chunks) and swizzled, Swizzle<2,3,3>
composed with the (rows, BK, stages) layout: chunk c of row r is stored at chunk c ^ ((r / 2) %
4), so that the 8 rows one ldmatrix reads fall in 8 different 16-byte bank groups. The epilogue
stores each thread's accumulator pairs through the same partition of D, predicated by an
identity tensor's coordinates.

    python examples/python/sm80_gemm.py       # needs PyTorch and an sm_80 or later GPU
"""

import tessel

BM, BN, BK = 128, 128, 32
STAGES = 3
THREADS = 128
CHUNKS = BK // 8  # 16-byte chunks in a row of BK 16-bit elements
# Element offset bits: 0-2 inside a chunk, 3-4 the chunk, 5 and up the row. The chunk bits are
# XORed with row bits 1-2 (offset bits 6-7).
SWIZZLE = (2, 3, 3)


def chunk(t, index):
    """The 8-element (16-byte) chunk `index` of a row view `t`."""
    return tessel.local_tile(t, (8,), (index,))


@tessel.kernel(launch_bounds=(THREADS, 1))
def gemm_kernel(gA: tessel.Tensor, gB: tessel.Tensor, gD: tessel.Tensor, ab: tessel.Constexpr):
    m, k = gA.shape
    n = gB.shape[0]
    lda = tessel.assume(gA.stride[0], divby=8)
    ldb = tessel.assume(gB.stride[0], divby=8)
    ldd = tessel.assume(gD.stride[0], divby=2)
    smem = tessel.SmemAllocator()
    sw = tessel.make_swizzle(*SWIZZLE)
    sA = smem.allocate_tensor(ab, tessel.composition(sw, tessel.make_layout((BM, BK, STAGES), stride=(BK, 1, BM * BK))),
                              byte_alignment=128)  # (BM, BK, stage), swizzled
    sB = smem.allocate_tensor(ab, tessel.composition(sw, tessel.make_layout((BN, BK, STAGES), stride=(BK, 1, BN * BK))),
                              byte_alignment=128)  # (BN, BK, stage), swizzled
    tidx, _, _ = tessel.arch.thread_idx()
    bx, by, _ = tessel.arch.block_idx()
    m0, n0 = by * BM, bx * BN
    k_tiles = (k + BK - 1) // BK

    # Stage s of K tile kt: each thread copies 4 chunks of A and 4 of B (rows beyond M or N, and K
    # past its end, are zero-filled by the predicate).
    def load_stage(s, kt):
        for i in tessel.range_constexpr(BM * CHUNKS // THREADS):
            idx = tidx + i * THREADS
            row, c = idx // CHUNKS, idx % CHUNKS
            kk = kt * BK + c * 8
            kc = tessel.assume(tessel.select(kk < k, kk, 0), divby=8)  # in bounds, and still 16 bytes aligned
            ra = tessel.select(m0 + row < m, m0 + row, 0)
            src = tessel.make_tensor(gA.iterator + (ra * lda + kc), tessel.make_layout(8))
            dst = chunk(sA[(row, None, s)], c)
            tessel.arch.cp_async(dst, src, 16, pred=(m0 + row < m) and (kk < k))
            rb = tessel.select(n0 + row < n, n0 + row, 0)
            srcb = tessel.make_tensor(gB.iterator + (rb * ldb + kc), tessel.make_layout(8))
            dstb = chunk(sB[(row, None, s)], c)
            tessel.arch.cp_async(dstb, srcb, 16, pred=(n0 + row < n) and (kk < k))

    tiled = tiled_mma(ab)
    thr = tiled.get_slice(tidx)
    ldsm = tessel.make_copy_atom(tessel.LdMatrix8x8x16bOp(), ab)
    s2r_a, s2r_b = tessel.make_tiled_copy_A(ldsm, tiled), tessel.make_tiled_copy_B(ldsm, tiled)
    thr_a, thr_b = s2r_a.get_slice(tidx), s2r_b.get_slice(tidx)
    acc = thr.partition_fragment_C((BM, BN))  # (V, MMA_M, MMA_N): (4, 4, 8) Float32
    acc.fill(0.0)
    tCrA = thr.partition_fragment_A((BM, 16))  # one k16 step of A: (8, 4, 1)
    tCrB = thr.partition_fragment_B((BN, 16))  # (4, 8, 1)
    for s in tessel.range_constexpr(STAGES - 1):
        if s < k_tiles:
            load_stage(s, s)
        tessel.arch.cp_async_commit_group()

    for kt in range(k_tiles):
        tessel.arch.cp_async_wait_group(STAGES - 2)  # K tile kt has landed (this thread's copies) ...
        tessel.arch.sync_threads()                     # ... and everyone's; stage kt - 1 is free
        nxt = kt + STAGES - 1
        if nxt < k_tiles:
            load_stage(nxt % STAGES, nxt)
        tessel.arch.cp_async_commit_group()
        s = kt % STAGES
        for ks in tessel.range_constexpr(BK // 16):
            sA_k = tessel.local_tile(sA[(None, None, s)], (BM, 16), (0, ks))  # (BM, 16)
            sB_k = tessel.local_tile(sB[(None, None, s)], (BN, 16), (0, ks))  # (BN, 16)
            tessel.copy(s2r_a, thr_a.partition_S(sA_k), thr_a.retile(tCrA))
            tessel.copy(s2r_b, thr_b.partition_S(sB_k), thr_b.retile(tCrB))
            tessel.dsl.gemm(tiled, acc, tCrA, tCrB, acc)

    # Epilogue: each pair of accumulators (v0 = 0, 1: adjacent columns) as one 4-byte store, where
    # its row and columns lie inside D (N is even, so a pair is all in or all out).
    gD_tile = tessel.make_tensor(gD.iterator + (m0 * ldd + n0), tessel.make_layout((BM, BN), stride=(ldd, 1)))
    tCgD = thr.partition_C(gD_tile)                                  # (V, MMA_M, MMA_N) of D
    tCcD = thr.partition_C(tessel.make_identity_tensor((BM, BN)))  # their (row, column) in the tile
    for i in tessel.range_constexpr(4):
        for h in tessel.range_constexpr(2):
            for j in tessel.range(8, unroll_full=True):
                if tessel.elem_less(tCcD[((0, h), i, j)], (m - m0, n - n0)):
                    tCgD[((None, h), i, j)].store(acc[((None, h), i, j)].load())


def tiled_mma(ab):
    """The CTA's MMA: m16n8k16 atoms, warps 2 x 2 (warp = 2 wm + wn), each warp's 4 x 8 atoms over a
    contiguous 64 x 64 quarter of the tile."""
    atom = tessel.MmaF16BF16Op(ab, tessel.Float32, (16, 8, 16))
    return tessel.make_tiled_mma(atom, tessel.make_layout((2, 2, 1), stride=(2, 1, 0)),
                                 (tessel.make_layout((16, 2, 4), stride=(1, 64, 16)),
                                  tessel.make_layout((8, 2, 8), stride=(1, 64, 8)), None))


@tessel.jit
def gemm(mA: tessel.Tensor, mB: tessel.Tensor, mD: tessel.Tensor):
    (m, k), (n, k2) = mA.shape, mB.shape
    if k != k2 or tuple(mD.shape) != (m, n):
        raise ValueError(f"gemm: A is {m} x {k}, B is {n} x {k2} and D is {mD.shape}: need A (M, K), B (N, K), D (M, N)")
    ab = mA.element_type
    if ab not in (tessel.Float16, tessel.BFloat16) or mB.element_type is not ab or mD.element_type is not ab:
        raise ValueError("gemm: A, B and D are all Float16 or all BFloat16")
    for name, t, elems, align in (("A", mA, 8, 16), ("B", mB, 8, 16), ("D", mD, 2, 4)):
        if t.stride[1] != 1 or t.stride[0] % elems or t.align < align:
            raise ValueError(f"gemm: {name} must be row-major with a row stride that is a multiple of {elems} elements and a "
                             f"{align}-byte-aligned address (A and B: cp.async copies 16 bytes; D: pairs of elements); it "
                             f"is {t.describe()}")
    if k % 8 or n % 2:
        raise ValueError(f"gemm: K ({k}) must be a multiple of 8 and N ({n}) even")
    gemm_kernel(mA, mB, mD, ab).launch(grid=(-(-n // BN), -(-m // BM), 1), block=(THREADS, 1, 1))


def main():
    import torch
    m, n, k = 1000, 776, 520
    a = torch.rand(m, k, device="cuda", dtype=torch.float16) * 2 - 1
    b = torch.rand(n, k, device="cuda", dtype=torch.float16) * 2 - 1
    d = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    gemm(a, b, d)
    torch.testing.assert_close(d.float(), a.float() @ b.float().t(), atol=0.05, rtol=0.01)
    print("sm80 gemm: ok")


if __name__ == "__main__":
    main()
