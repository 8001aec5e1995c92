"""A vectorized elementwise add through a thread-value layout: each thread owns a 4 x 8 block of
the tile (8 contiguous elements per row, one 16-byte access for f16), the threads rake over a
16 x 256 tile, and each block adds one tile. The shape must divide into tiles.

    python examples/python/vectorized_add.py       # needs PyTorch and a CUDA GPU
"""

import tessel


@tessel.kernel
def vadd_kernel(gA: tessel.Tensor, gB: tessel.Tensor, gC: tessel.Tensor, tiled: tessel.Constexpr):
    tidx, _, _ = tessel.arch.thread_idx()
    bidx, _, _ = tessel.arch.block_idx()
    # gX is ((TileM, TileN), (RestM, RestN)): the block takes its tile ...
    blkA = gA[((None, None), bidx)]  # (TileM, TileN)
    blkB = gB[((None, None), bidx)]  # (TileM, TileN)
    blkC = gC[((None, None), bidx)]  # (TileM, TileN)
    # ... and the tiled copy's thread-value layout maps (thread, value) to the tile: the thread
    # takes its values.
    thr = tiled.get_slice(tidx)
    thrA = thr.partition_S(blkA)  # (V)
    thrB = thr.partition_S(blkB)  # (V)
    thrC = thr.partition_D(blkC)  # (V)
    thrC[None] = thrA.load() + thrB.load()


def tiled_copy_for(dtype_bytes: int):
    """Threads (4, 32) row-major, each holding (4, 16 / dtype_bytes) values row-major: one 16-byte
    access per row of a thread's block."""
    thr = tessel.make_layout((4, 32), stride=(32, 1))
    vec = 16 // dtype_bytes
    val = tessel.make_layout((4, vec), stride=(vec, 1))
    return tessel.make_tiled_copy_tv(thr, val)


@tessel.jit
def vadd(mA: tessel.Tensor, mB: tessel.Tensor, mC: tessel.Tensor):
    tiled = tiled_copy_for(mA.element_type.width)
    tiler = tiled.tiler_mn
    m, n = mA.shape
    if m % tiler[0] or n % tiler[1]:
        raise ValueError(f"vadd: {m} x {n} does not divide into {tiler[0]} x {tiler[1]} tiles")
    gA = tessel.zipped_divide(mA, tiler)  # ((TileM, TileN), (RestM, RestN))
    gB = tessel.zipped_divide(mB, tiler)
    gC = tessel.zipped_divide(mC, tiler)
    blocks = (m // tiler[0]) * (n // tiler[1])
    vadd_kernel(gA, gB, gC, tiled).launch(grid=(blocks, 1, 1), block=(128, 1, 1))


def main():
    import torch
    a = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
    b = torch.randn_like(a)
    c = torch.zeros_like(a)
    tensors = [tessel.from_dlpack(t) for t in (a, b, c)]
    compiled = tessel.compile(vadd, *tensors)
    compiled(*tensors)
    torch.testing.assert_close(c, a + b)
    print("vectorized add: ok")


if __name__ == "__main__":
    main()
