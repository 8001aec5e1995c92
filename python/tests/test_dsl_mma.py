"""The kernel DSL's tiled MMA without a GPU: each thread's share of A, B and C equals the PTX ISA's
fragment layouts of mma.sync m16n8k16 tiled over warps, and a kernel built on it emits the
instructions it should."""

import itertools

import pytest

import tessel
from tessel.dsl.host import HostTensor
from tessel.dsl.tensor import crd2idx, product

ROW = 1000  # a host tensor of stride (ROW, 1): an element's offset spells its (row, column)


def _tiled(permuted=True):
    atom = tessel.MmaF16BF16Op(tessel.Float16)
    perm = (tessel.make_layout((16, 2, 4), stride=(1, 64, 16)), tessel.make_layout((8, 2, 8), stride=(1, 64, 8)), None)
    return tessel.make_tiled_mma(atom, tessel.make_layout((2, 2, 1), stride=(2, 1, 0)), perm if permuted else None)


def _coords(part):
    """{(v, i, j): (row, column)} of a partition of a (ROW, 1)-strided host tensor."""
    out = {}
    sizes = [product(s) if isinstance(s, tuple) else s for s in part.shape]
    for v, i, j in itertools.product(*[range(s) for s in sizes]):
        off = part.offset + crd2idx((v, i, j), part.shape, part.stride)
        out[(v, i, j)] = divmod(off, ROW)
    return out


def _ptx(operand, tidx, v, i, j, permuted=True):
    """The (row, column) PTX gives value v of atom (i, j) of thread tidx, warps (2, 2) row-major;
    permuted: each warp's atoms over a contiguous 64 x 64 quarter; else warps interleaved."""
    warp, lane = divmod(tidx, 32)
    wm, wn = divmod(warp, 2)
    g, t = divmod(lane, 4)

    def place(warp_index, atom_index, atom_extent):
        return warp_index * 64 + atom_index * atom_extent if permuted else (atom_index * 2 + warp_index) * atom_extent

    if operand == "C":
        return place(wm, i, 16) + g + 8 * (v // 2), place(wn, j, 8) + 2 * t + v % 2
    if operand == "A":
        return place(wm, i, 16) + g + 8 * ((v // 2) % 2), j * 16 + 2 * t + v % 2 + 8 * (v // 4)
    return place(wn, i, 8) + g, j * 16 + 2 * t + v % 2 + 8 * (v // 2)  # B: (N, K)


@pytest.mark.parametrize("permuted", [True, False])
@pytest.mark.parametrize("operand,tile", [("C", (128, 128)), ("A", (128, 32)), ("B", (128, 32))])
def test_partitions_are_ptx_fragments(operand, tile, permuted):
    tiled = _tiled(permuted)
    t = HostTensor(tessel.Float32, tile, (ROW, 1), 0, 0, 16)
    seen = set()
    for tidx in range(tiled.size):
        thr = tiled.get_slice(tidx)
        part = getattr(thr, f"partition_{operand}")(t)
        frag = getattr(thr, f"partition_fragment_{operand}")
        for (v, i, j), rc in _coords(part).items():
            assert rc == _ptx(operand, tidx, v, i, j, permuted), (operand, tidx, v, i, j)
            seen.add((rc, tidx % 32 if operand == "C" else None))
        assert part.shape == (((2, 2), 4, 8) if operand == "C" else ((2, 2, 2), 4, 2) if operand == "A" else ((2, 2), 8, 2))
        assert frag is not None
    if operand == "C":  # every element of C held by exactly one thread
        assert len({rc for rc, _ in seen}) == 128 * 128


def test_partition_of_a_tensor_with_dynamic_strides(toolkit):
    """A gmem tile whose row stride is a kernel parameter: the steps are scaled by it."""
    tiled = _tiled()

    @tessel.kernel
    def k(gD: tessel.Tensor):
        tidx, _, _ = tessel.arch.thread_idx()
        thr = tiled.get_slice(tidx)
        tile = tessel.local_tile(gD, (128, 128), (0, 0))
        acc = thr.partition_fragment_C((128, 128))
        acc.fill(1.0)
        thr.partition_C(tile).store(acc.load())

    @tessel.jit
    def run(mD):
        k(mD).launch(grid=1, block=128)

    c = tessel.compile(run, tessel.fake_tensor(tessel.Float32, (256, 256)), target="sm_80")
    assert "st.global" in c.ptx


def test_gemm_emits_one_mma_per_atom(toolkit):
    tiled = _tiled()

    @tessel.kernel
    def k(gA: tessel.Tensor, gB: tessel.Tensor, gD: tessel.Tensor):
        tidx, _, _ = tessel.arch.thread_idx()
        thr = tiled.get_slice(tidx)
        a = thr.partition_fragment_A((128, 16))
        b = thr.partition_fragment_B((128, 16))
        acc = thr.partition_fragment_C((128, 128))
        a.store(thr.partition_A(gA).load())
        b.store(thr.partition_B(gB).load())
        acc.fill(0.0)
        tessel.dsl.gemm(tiled, acc, a, b, acc)
        thr.partition_C(gD).store(acc.load())

    @tessel.jit
    def run(mA, mB, mD):
        k(mA, mB, mD).launch(grid=1, block=128)

    A = HostTensor(tessel.Float16, (128, 16), (16, 1), 0x10000, 0, 16)
    B = HostTensor(tessel.Float16, (128, 16), (16, 1), 0x20000, 0, 16)
    D = HostTensor(tessel.Float32, (128, 128), (128, 1), 0x30000, 0, 16)
    c = tessel.compile(run, A, B, D, target="sm_80")
    assert c.ptx.count("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32") == 4 * 8  # MMA_M x MMA_N x MMA_K


def test_tiled_mma_refusals():
    atom = tessel.MmaF16BF16Op(tessel.BFloat16)
    with pytest.raises(tessel.DSLError, match="along K"):
        tessel.make_tiled_mma(atom, tessel.make_layout((1, 1, 2)))
    with pytest.raises(tessel.DSLError, match="not a permutation"):
        tessel.make_tiled_mma(atom, None, (tessel.make_layout(16, stride=2), None, None))
    with pytest.raises(tessel.DSLError, match="multiple of 16"):
        tessel.make_tiled_mma(atom, None, (tessel.make_layout(24), None, None))
    thirds = tessel.make_tiled_mma(atom, None, (tessel.make_layout((3, 16), stride=(16, 1)), None, None))
    t = HostTensor(tessel.Float32, (48, 8), (8, 1), 0, 0, 16)
    with pytest.raises(tessel.DSLError, match="additively"):  # an atom's 8 rows cut by the permutation's 3
        thirds.get_slice(0).partition_C(t)
    with pytest.raises(tessel.DSLError, match="40 along M is not a multiple of 32"):
        _tiled(False).get_slice(0).partition_C(HostTensor(tessel.Float32, (40, 16), (16, 1), 0, 0, 16))
    with pytest.raises(tessel.DSLError, match="Float16 or BFloat16"):
        tessel.MmaF16BF16Op(tessel.Float32)


def _host(shape, stride, memspace):
    t = HostTensor(tessel.Float16, shape, stride, 0, 0, 16)
    t.memspace = memspace  # what partition_S and retile check; nothing is read
    return t


@pytest.mark.parametrize("operand", ["A", "B"])
def test_ldmatrix_copies_fill_the_mma_fragments(operand):
    """Simulates ldmatrix.x4 from the row addresses partition_S gives each lane (lanes 8q..8q+7:
    rows of matrix q; lane l receives row l / 4, columns 2 (l % 4) and one more of each matrix in
    register q), and checks that register q lands on the fragment values (retile's 2q, 2q + 1)
    that partition_A / _B say hold those very elements."""
    tiled = _tiled()
    tile = (128, 32)
    copy = (tessel.make_tiled_copy_A if operand == "A" else tessel.make_tiled_copy_B)(
        tessel.make_copy_atom(tessel.LdMatrix8x8x16bOp(), tessel.Float16), tiled)
    smem = _host(tile, (ROW, 1), "smem")
    for warp in range(4):
        parts = {}
        for lane in range(32):
            tidx = warp * 32 + lane
            src = copy.get_slice(tidx).partition_S(smem)
            mma = getattr(tiled.get_slice(tidx), f"partition_{operand}")(smem)
            L = tessel.make_layout(mma.shape)
            frag = _host(L.shape, L.stride, "rmem")
            parts[lane] = (src, mma, frag, copy.get_slice(tidx).retile(frag))
        src0 = parts[0][0]
        assert src0.shape[0] == 8 and tuple(src0.stride)[0] == 1  # 8 contiguous elements: one 16-byte row
        rest = [product(s) if isinstance(s, tuple) else s for s in src0.shape[1:]]
        for i, j in itertools.product(range(rest[0]), range(rest[1])):
            rows = {lane: parts[lane][0].offset + crd2idx((0, i, j), src0.shape, parts[lane][0].stride) for lane in range(32)}
            for lane in range(32):
                _, mma, frag, view = parts[lane]
                inverse = {crd2idx(c, frag.shape, frag.stride): c for c in
                           itertools.product(*[range(product(s) if isinstance(s, tuple) else s) for s in frag.shape])}
                for q in range(4):
                    start = rows[8 * q + lane // 4] + 2 * (lane % 4)  # the two elements register q receives
                    for h in range(2):
                        where = crd2idx((2 * q + h, i, j), view.shape, view.stride)
                        v, a, b = inverse[where]
                        held = mma.offset + crd2idx((v, a, b), mma.shape, mma.stride)
                        assert held == start + h, (operand, warp, lane, i, j, q, h)


def test_tiled_mma_draws_as_svg(tmp_path):
    from tessel.dsl.draw import tiled_mma_cells
    tiled = _tiled()
    tile, cells = tiled_mma_cells(tiled, "C")
    assert tile == (128, 128) and len(cells) == 128 * 128 and all(len(p) == 1 for p in cells.values())
    assert cells[(65, 64)] == [(100, 0)]  # thread 100: warp 3 (rows 64.., columns 64..), lane 4: row 1, column 0
    assert cells[(73, 65)] == [(100, 3)]  # its value 3: 8 rows down, one column right
    _, a = tiled_mma_cells(tiled, "A")
    assert sorted(t for t, _ in a[(0, 0)]) == [0, 32]  # the two warps along N share A's rows
    svg = tessel.draw_tiled_mma(_tiled(False), "C", path=tmp_path / "c.svg")  # one round: 32 x 16
    assert svg.startswith("<svg") and (tmp_path / "c.svg").read_text() == svg and svg.count("<rect") == 32 * 16
    with pytest.raises(ValueError, match="'A', 'B' or 'C'"):
        tessel.draw_tiled_mma(tiled, "D")


@pytest.mark.parametrize("n", [256, 64, 8])
def test_wgmma_accumulators_are_ptx_fragments(n):
    """Two consumer warpgroups along M with m64nNk16: every thread's accumulator i at the PTX
    ISA's row 64 wg + 16 w + g + 8 ((i / 2) % 2), column 8 (i / 4) + 2 t + i % 2."""
    atom = tessel.WgmmaF16BF16Op(tessel.BFloat16, tessel.Float32, (64, n, 16))
    tiled = tessel.make_tiled_mma(atom, tessel.make_layout((2, 1, 1)))
    assert tiled.size == 256 and tiled.tile_mnk == (128, n, 16)
    t = HostTensor(tessel.Float32, (128, n), (ROW, 1), 0, 0, 16)
    for tidx in range(256):
        part = tiled.get_slice(tidx).partition_C(t)
        wg, w, lane = tidx // 128, tidx % 128 // 32, tidx % 32
        g, t4 = divmod(lane, 4)
        for (v, i, j), rc in _coords(part).items():
            assert (i, j) == (0, 0)
            assert rc == (64 * wg + 16 * w + g + 8 * (v // 2 % 2), 8 * (v // 4) + 2 * t4 + v % 2), (tidx, v)
    with pytest.raises(tessel.DSLError, match="through descriptors"):
        tiled.get_slice(0).partition_A(HostTensor(tessel.BFloat16, (128, 16), (16, 1), 0, 0, 16))
    with pytest.raises(tessel.DSLError, match=r"\(64, N, 16\)"):
        tessel.WgmmaF16BF16Op(tessel.BFloat16, tessel.Float32, (64, 12, 16))
