"""An Ampere-style tensor-core GEMM written in the DSL: D = A B^T with cp.async, ldmatrix and
mma.sync (sm_80 and later).

    A (M, K) and B (N, K) row-major (K contiguous: PyTorch's x @ W.t()), D (M, N) row-major;
    f16 or bf16, f32 accumulation; K and the rows of A and B multiples of 8 elements, N and D's even.

A CTA of 4 warps computes a 128 x 128 tile of D; each warp a 64 x 64 quarter of it, as 4 x 8
mma.sync m16n8k16 tiles per 16 of K. A ring of STAGES shared-memory buffers holds 32 of K of the
CTA's A and B rows each; cp.async fills the stage STAGES - 1 ahead of the one the warps read.
Shared rows are 64 bytes (four 16-byte chunks) and swizzled, Swizzle<2,3,3> composed with the
(rows, BK, stages) layout: chunk c of row r is stored at chunk c ^ ((r / 2) % 4), so that the 8
rows one ldmatrix reads fall in 8 different 16-byte bank groups.

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
    warp, lane = tessel.arch.warp_idx(), tessel.arch.lane_idx()
    m0, n0 = by * BM, bx * BN
    wm, wn = (warp // 2) * 64, (warp % 2) * 64  # this warp's quarter of the tile
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

    acc = tessel.make_fragment(4 * 8 * 4, tessel.Float32)  # [mi 4][ni 8][4]: mma.sync's C fragments
    for i in tessel.range(4 * 8 * 4, unroll_full=True):
        acc[i] = 0.0
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
            # A: four 16 x 16 fragments (ldmatrix.x4: lane l gives row l % 16, K chunk l / 16).
            afrag = []
            for mi in tessel.range_constexpr(4):
                row = wm + mi * 16 + lane % 16
                afrag.append(tessel.arch.ldmatrix_x4(chunk(sA[(row, None, s)], ks * 2 + lane // 16)))
            for nj in tessel.range_constexpr(4):
                # B: two n8 x k16 fragments (lane l gives row l % 8 + 8 (l / 16), K chunk (l / 8) % 2).
                row = wn + nj * 16 + lane % 8 + 8 * (lane // 16)
                b0, b1, b2, b3 = tessel.arch.ldmatrix_x4(chunk(sB[(row, None, s)], ks * 2 + (lane // 8) % 2))
                for mi in tessel.range_constexpr(4):
                    for half, (x, y) in enumerate(((b0, b1), (b2, b3))):
                        ni = nj * 2 + half
                        base = (mi * 8 + ni) * 4
                        c = tessel.arch.mma_m16n8k16(afrag[mi], (x, y), [acc[base + e] for e in range(4)], ab)
                        for e in tessel.range_constexpr(4):
                            acc[base + e] = c[e]

    # Epilogue: C fragment registers 0, 1 are columns 2 (lane % 4) and one more of row lane / 4;
    # registers 2, 3 the same columns of row lane / 4 + 8. One 4-byte store per pair.
    for mi in tessel.range_constexpr(4):
        for h in tessel.range_constexpr(2):
            r = m0 + wm + mi * 16 + lane // 4 + 8 * h
            if r < m:
                for ni in tessel.range(8, unroll_full=True):
                    c = n0 + wn + ni * 8 + 2 * (lane % 4)
                    if c < n:
                        pair = tessel.make_fragment(2, ab)
                        pair[0] = acc[(mi * 8 + ni) * 4 + 2 * h]
                        pair[1] = acc[(mi * 8 + ni) * 4 + 2 * h + 1]
                        tessel.make_tensor(gD.iterator + (r * ldd + c), tessel.make_layout(2)).store(pair.load())


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
