"""The seed's elementwise add, in tessel's kernel DSL (the CuTe DSL's first program with `cute`
spelled `tessel`). Each thread adds one element; the element count must divide by 256.

    python examples/python/elementwise_add.py      # needs PyTorch and a CUDA GPU
"""

import tessel


@tessel.kernel
def add_kernel(gA: tessel.Tensor, gB: tessel.Tensor, gC: tessel.Tensor):
    tidx, _, _ = tessel.arch.thread_idx()
    bidx, _, _ = tessel.arch.block_idx()
    bdim, _, _ = tessel.arch.block_dim()
    i = bidx * bdim + tidx
    m, n = gA.shape
    gC[i // n, i % n] = gA[i // n, i % n] + gB[i // n, i % n]


@tessel.jit
def add(mA: tessel.Tensor, mB: tessel.Tensor, mC: tessel.Tensor):
    threads = 256
    m, n = mA.shape
    if (m * n) % threads:
        raise ValueError(f"add: {m} x {n} elements do not divide into blocks of {threads} threads")
    add_kernel(mA, mB, mC).launch(grid=((m * n) // threads, 1, 1), block=(threads, 1, 1))


def main():
    import torch
    a = torch.randn(2048, 2048, device="cuda", dtype=torch.float16)
    b = torch.randn_like(a)
    c = torch.zeros_like(a)
    tensors = [tessel.runtime.from_dlpack(t) for t in (a, b, c)]
    compiled = tessel.compile(add, *tensors)  # JIT once, reuse many times
    compiled(*tensors)
    torch.testing.assert_close(c, a + b)
    print("elementwise add: ok")


if __name__ == "__main__":
    main()
