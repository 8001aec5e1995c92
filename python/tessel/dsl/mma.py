"""Tiled MMA: warps that cover a tile of C with one tensor-core instruction each, and the share of
A, B and C each thread holds (the CuTe DSL's MmaAtom, make_tiled_mma, get_slice, partition_A /
partition_B / partition_C, partition_fragment_* and gemm).

    atom = tessel.MmaF16BF16Op(tessel.Float16, tessel.Float32, (16, 8, 16))   # mma.sync m16n8k16
    tiled = tessel.make_tiled_mma(atom, atom_layout_mnk=tessel.make_layout((2, 2, 1), stride=(2, 1, 0)))
    thr = tiled.get_slice(tidx)
    tCrC = thr.partition_fragment_C((128, 128))       # (V, MMA_M, MMA_N) registers
    tCrA = thr.partition_fragment_A((128, 16))        # (V, MMA_M, MMA_K)
    tCrA.store(thr.partition_A(sA_tile).load())       # this thread's elements of A's tile
    tessel.dsl.gemm(tiled, tCrC, tCrA, tCrB, tCrC)    # every atom of the tile, k outermost
    thr.partition_C(gD_tile).store(tCrC.load())       # (V, MMA_M, MMA_N) of D, any strides

How a partition is found (CuTe's thrfrg_C, written as coordinates): an atom's thread-value
layouts map (thread, value) to a column-major index in its (M, K), (N, K) or (M, N) tile. Each
leaf of those is split into a step along the tile's rows or along its columns (so a tensor with
any strides, dynamic ones included, can be partitioned: a step is scaled by the tensor's stride
along that axis). The atoms are laid out by `atom_layout_mnk` (warps along M, N, K) and repeated
over the tile; `permutation_mnk` reorders the rows (columns, K) the tiled atoms cover, as CuTe's
permutation tilers do:

    row = P_M(m_atom + atom_M * (warp_m + A_M * rest_m)) + size(P_M) * rest_p

For m16n8k16 and a warp layout (2, 2) with P_M = (16, 2, 4):(1, 64, 16), warp_m's 2 warps each
own 64 contiguous rows, and rest_m's 4 atoms step by 16 rows inside them. A permutation must map
the sum of the steps to the sum of their images (checked on every row it covers), so each thread's
share stays a layout.
"""

from __future__ import annotations

import itertools

from .. import layout as eager
from . import dtypes as T
from .ir import Value, builder, fail
from .tensor import Tensor, _add, _div, _mod, _mul, crd2idx, leaves, make_layout, product


def _flat(layout) -> list:
    """(extent, stride) of each leaf of an eager layout, in colexicographic order."""
    shape, stride = layout.shape, layout.stride
    return list(zip(leaves(shape), leaves(stride)))


def _split(extent: int, stride: int, rows: int, what: str) -> list:
    """One leaf of an atom's TV layout over a column-major (rows, cols) tile as steps along one
    axis each: [(extent, axis, stride along that axis)], their extents multiplying to `extent`."""
    out = []
    while extent > 1:
        if stride % rows == 0:
            out.append((extent, 1, stride // rows))
            break
        if rows % stride:
            fail(f"{what}: a step of {stride} in a tile of {rows} rows crosses columns unevenly")
        c = rows // stride  # steps before the index leaves the column
        if extent <= c:
            out.append((extent, 0, stride))
            break
        if extent % c:
            fail(f"{what}: {extent} steps of {stride} do not divide into columns of {rows} rows")
        out.append((c, 0, stride))
        extent, stride = extent // c, stride * c
    return out or [(1, 0, 0)]


class MmaAtom:
    """One warp-level MMA instruction: D (M, N) = A (M, K) B (N, K)^T + C over `threads` threads.
    tv_a, tv_b, tv_c map (thread, value) to the column-major index into the atom's (M, K), (N, K)
    and (M, N) tiles (CuTe's ALayout, BLayout, CLayout)."""

    def __init__(self, name, shape_mnk, threads, tv_a, tv_b, tv_c, ab, acc, call):
        self.name, self.shape_mnk, self.threads = name, tuple(shape_mnk), threads
        self.tv_a, self.tv_b, self.tv_c = tv_a, tv_b, tv_c
        self.ab, self.acc = ab, acc
        self._call = call  # (a registers, b registers, c values) -> d values

    def __repr__(self):
        return f"MmaAtom({self.name}, {self.shape_mnk}, {self.ab.name} -> {self.acc.name})"


def MmaF16BF16Op(ab_dtype, acc_dtype=T.Float32, shape_mnk=(16, 8, 16)) -> MmaAtom:  # noqa: N802 (the CuTe DSL's name)
    """mma.sync.aligned.m16n8k16 (sm_80): Float16 or BFloat16 operands, Float32 accumulators. The
    fragment layouts are the PTX ISA's: with g = lane / 4 and t = lane % 4, A's value i is row
    g + 8 ((i / 2) % 2), column 2t + i % 2 + 8 (i / 4); B's value i is column g (of N), K row
    2t + i % 2 + 8 (i / 2); C's value i is row g + 8 (i / 2), column 2t + i % 2."""
    from . import arch
    if ab_dtype not in (T.Float16, T.BFloat16):
        fail(f"MmaF16BF16Op multiplies Float16 or BFloat16, not {getattr(ab_dtype, 'name', ab_dtype)}")
    if acc_dtype is not T.Float32:
        fail(f"MmaF16BF16Op accumulates in Float32 here, not {getattr(acc_dtype, 'name', acc_dtype)}")
    if tuple(shape_mnk) != (16, 8, 16):
        fail(f"MmaF16BF16Op's shape is (16, 8, 16) (m16n8k16), not {tuple(shape_mnk)}")
    tv_a = eager.Layout(((4, 8), (2, 2, 2)), ((32, 1), (16, 8, 128)))
    tv_b = eager.Layout(((4, 8), (2, 2)), ((16, 1), (8, 64)))
    tv_c = eager.Layout(((4, 8), (2, 2)), ((32, 1), (16, 8)))

    def call(a, b, c):
        return arch.mma_m16n8k16(a, b, c, ab_dtype)

    return MmaAtom("SM80_16x8x16", (16, 8, 16), 32, tv_a, tv_b, tv_c, ab_dtype, acc_dtype, call)


def WgmmaF16BF16Op(ab_dtype, acc_dtype=T.Float32, shape_mnk=(64, 256, 16)) -> MmaAtom:  # noqa: N802
    """wgmma.mma_async m64nNk16 (sm_90a) over a warpgroup of 128 threads, A and B from shared memory
    (descriptors: tessel.arch.make_wgmma_desc, issued with tessel.arch.wgmma), Float32
    accumulators in registers. Its C layout is the PTX ISA's: warp w of the warpgroup holds rows
    16w.., and with g = lane / 4, t = lane % 4 its value i is row 16w + g + 8 ((i / 2) % 2),
    column 8 (i / 4) + 2t + i % 2. partition_C and partition_fragment_C place the accumulators;
    A and B have no register partition (they stay in shared memory)."""
    if ab_dtype not in (T.Float16, T.BFloat16):
        fail(f"WgmmaF16BF16Op multiplies Float16 or BFloat16, not {getattr(ab_dtype, 'name', ab_dtype)}")
    if acc_dtype is not T.Float32:
        fail(f"WgmmaF16BF16Op accumulates in Float32 here, not {getattr(acc_dtype, 'name', acc_dtype)}")
    m, n, k = tuple(shape_mnk)
    if m != 64 or k != 16 or n not in range(8, 257, 8):
        fail(f"WgmmaF16BF16Op's shape is (64, N, 16) with N a multiple of 8 in 8..256, not {tuple(shape_mnk)}")
    tv_c = eager.Layout(((4, 8, 4), (2, 2, n // 8)), ((128, 1, 16), (64, 8, 512)))
    return MmaAtom(f"SM90_64x{n}x16_SS", (64, n, 16), 128, None, None, tv_c, ab_dtype, acc_dtype, None)


# The three operands: (which atom TV layout, tile axes as (M/N/K index of axis 0, of axis 1)).
_OPERANDS = {"A": ("tv_a", (0, 2)), "B": ("tv_b", (1, 2)), "C": ("tv_c", (0, 1))}


class TiledMma:
    """`atom` repeated over warps laid out by `atom_layout_mnk` and over the tile (see the file
    comment); `permutation_mnk` optionally reorders the rows, columns and K the atoms cover."""

    def __init__(self, atom: MmaAtom, atom_layout_mnk=None, permutation_mnk=None):
        if not isinstance(atom, MmaAtom):
            fail(f"make_tiled_mma takes an MmaAtom (tessel.MmaF16BF16Op(...)); got {type(atom).__name__}")
        L = make_layout((1, 1, 1)) if atom_layout_mnk is None else atom_layout_mnk
        L = L if isinstance(L, eager.Layout) else make_layout(L)
        if not isinstance(L, eager.Layout) or eager.rank(L) != 3:
            fail(f"atom_layout_mnk is a layout of ints of rank 3 (warps along M, N, K); got {L}")
        self.atom, self.atom_layout_mnk = atom, L
        self.atoms_mnk = tuple(eager.size(eager.layout(L, i)) for i in range(3))
        if self.atoms_mnk[2] != 1:
            fail(f"atom_layout_mnk {L}: atoms side by side along K would need their partial sums added; use 1 along K")
        strides = [leaves(eager.layout(L, i).stride)[0] if self.atoms_mnk[i] > 1 else 0 for i in range(3)]
        self.thr_layout_vmnk = eager.Layout((atom.threads, *self.atoms_mnk), (1, *[atom.threads * s for s in strides]))
        n = eager.size(self.thr_layout_vmnk)
        if sorted(self.thr_layout_vmnk(i) for i in range(n)) != list(range(n)):
            fail(f"atom_layout_mnk {L} is not compact: its warps must be numbered 0..{self.atoms_mnk[0] * self.atoms_mnk[1] - 1}")
        self.permutation_mnk = []
        for i, p in enumerate(permutation_mnk or (None, None, None)):
            span = atom.shape_mnk[i] * self.atoms_mnk[i]
            P = make_layout(span) if p is None else (p if isinstance(p, eager.Layout) else make_layout(p))
            if not isinstance(P, eager.Layout) or eager.size(P) % span:
                fail(f"permutation_mnk[{i}] {P}: a layout of ints whose size is a multiple of {span} (the atoms' extent)")
            if sorted(P(j) for j in range(eager.size(P))) != list(range(eager.size(P))):
                fail(f"permutation_mnk[{i}] {P} is not a permutation of 0..{eager.size(P) - 1}")
            self.permutation_mnk.append(P)

    @property
    def size(self) -> int:
        """Threads of the tiled MMA."""
        return eager.size(self.thr_layout_vmnk)

    @property
    def tile_mnk(self) -> tuple:
        """The extent one round of the tiled atoms covers (the permutations' sizes)."""
        return tuple(eager.size(P) for P in self.permutation_mnk)

    def get_slice(self, thread) -> ThrMma:
        return ThrMma(self, thread)

    def _plan(self, operand: str, tile_shape, copy=None):
        """For one operand over a tile of `tile_shape` (its two axes): the thread's steps and the
        value modes, each step as (extent, axis, eager layout of the step's coordinate -> offset
        along the axis). `copy`: (lane steps, value steps, atoms per copy along axis 0) of a copy
        whose tile is `group` atoms (ldmatrix: a lane gives one row address) in place of the
        atom's own thread-value layout."""
        what = f"partition_{operand}"
        tv_name, axes = _OPERANDS[operand]
        tv = getattr(self.atom, tv_name)
        if tv is None:
            fail(f"{what}: {self.atom.name} reads {operand} from shared memory through descriptors; it has no "
                 "per-thread share of it")
        shape = tuple(tile_shape)
        if len(shape) != 2 or not all(isinstance(s, int) for s in shape):
            fail(f"{what}: the tile is 2-D with extents of ints (tile it first); got the shape {shape}")
        ext = [self.atom.shape_mnk[a] for a in axes]  # the atom's extent along each axis
        span = [self.permutation_mnk[a] for a in axes]
        for i in range(2):
            if shape[i] % eager.size(span[i]):
                fail(f"{what}: the tile's extent {shape[i]} along {'MNK'[axes[i]]} is not a multiple of "
                     f"{eager.size(span[i])}, the tiled MMA's")
        thr_steps, val_steps, mode_steps = [], [], ([], [])
        thr_shape, val_shape = eager.layout(tv, 0), eager.layout(tv, 1)
        for extent, stride in _flat(thr_shape):
            thr_steps += _split(extent, stride, ext[0], what)
        for extent, stride in _flat(val_shape):
            val_steps += _split(extent, stride, ext[0], what)
        group = 1
        if copy is not None:
            thr_steps, val_steps, group = copy
        # The warps' and the repeats' steps, in the permuted (tiled) coordinates of each axis.
        warp_steps = []
        for i in range(2):
            a = axes[i]
            warp_steps.append((self.atoms_mnk[a], i, ext[i]))
            per_warp = eager.size(span[i]) // (ext[i] * self.atoms_mnk[a])  # atoms of one warp in one round
            g = group if i == 0 else 1
            if per_warp % g:
                fail(f"{what}: a copy of {g} atoms along {'MNK'[a]} does not divide the {per_warp} atoms a warp holds there")
            if g > 1:  # the copy's lanes reach the warp's next atoms
                thr_steps = thr_steps + [(g, i, ext[i] * self.atoms_mnk[a])]
            mode_steps[i].append((per_warp // g, i, ext[i] * self.atoms_mnk[a] * g))
        self._check_additive(what, span, thr_steps + val_steps + warp_steps + mode_steps[0] + mode_steps[1])

        def place(steps):
            return [(e, i, eager.composition(span[i], eager.Layout(e, d))) for e, i, d in steps]

        # The rounds of the whole tiled MMA over the tile (not permuted: whole rounds).
        rounds = [(shape[i] // eager.size(span[i]), i, eager.Layout(shape[i] // eager.size(span[i]), eager.size(span[i])))
                  for i in range(2)]
        threads = place(thr_steps)
        warps = {axes[i]: place([warp_steps[i]])[0] for i in range(2)}
        modes = (place(mode_steps[0]) + [rounds[0]], place(mode_steps[1]) + [rounds[1]])
        return threads, warps, place(val_steps), modes

    @staticmethod
    def _check_additive(what, span, steps):
        """Each permutation maps a sum of steps to the sum of the steps' images (else a thread's
        share is no layout)."""
        for i in range(2):
            P = span[i]
            axis = [(e, d) for e, ax, d in steps if ax == i and e > 1]
            try:
                image = [eager.composition(P, eager.Layout(e, d)) for e, d in axis]
            except eager.LayoutError as e:
                fail(f"{what}: the permutation {P} does not map the tiled atoms' steps additively ({e}); permute whole "
                     "atoms (blocks of the atom's extent)")
            for coord in itertools.product(*[range(e) for e, _ in axis]):
                if P(sum(c * d for c, (_, d) in zip(coord, axis))) != sum(L(c) for c, L in zip(coord, image)):
                    fail(f"{what}: the permutation {P} does not map the tiled atoms' steps additively; permute whole "
                         "atoms (blocks of the atom's extent)")

    def __repr__(self):
        return f"TiledMma({self.atom.name}, atoms {self.atom_layout_mnk}, tile {self.tile_mnk})"


class ThrMma:
    """One thread's share of a TiledMma."""

    def __init__(self, tiled: TiledMma, thread):
        self.tiled = tiled
        v, m, nn, k = (_mod(_div(thread, d), s) if s > 1 else 0
                       for s, d in zip(leaves(tiled.thr_layout_vmnk.shape), leaves(tiled.thr_layout_vmnk.stride)))
        self.thread, self.lane, self.warp_mnk = thread, v, (m, nn, k)

    def _partition(self, operand, tensor, copy=None):
        what = f"partition_{operand}"
        if not isinstance(tensor, Tensor):
            fail(f"{what} takes a tensor (a 2-D tile); got {type(tensor).__name__}")
        shape = tensor.shape
        if len(leaves(shape)) != 2 or not isinstance(shape, tuple):
            fail(f"{what} takes a 2-D tile with flat modes; this tensor's shape is {shape}")
        plan = self.tiled._plan(operand, shape, copy)
        if isinstance(tensor, IdentityTensor):  # each coordinate is a layout of its own
            parts = [self._layout(plan, stride, T.Int32) for _, stride in tensor.parts]
            return IdentityTensor(parts[0][0], [(_add(off, o), st) for (off, _), (_, st, o) in zip(tensor.parts, parts)])
        out_shape, out_stride, offset = self._layout(plan, tensor.stride, getattr(tensor, "itype", T.Int32))
        return tensor._with_layout(out_shape, out_stride, offset)

    def _layout(self, plan, stride, itype):
        """(shape, stride, offset) of this thread's share, for a tile with `stride` along its two axes."""
        threads, warps, values, modes = plan
        # The thread's offset: its lane over the atom's thread steps, its warp over the warps'.
        offset, lane = 0, self.lane
        for e, i, L in threads:
            c = _mod(lane, e) if e > 1 else 0
            lane = _div(lane, e) if e > 1 else lane
            offset = _add(offset, _mul(crd2idx(c, L.shape, L.stride, itype), stride[i]))
        for a, (e, i, L) in warps.items():
            if e > 1:
                offset = _add(offset, _mul(crd2idx(self.warp_mnk[a], L.shape, L.stride, itype), stride[i]))

        def mode(steps):
            ext, strd = [], []
            for _e, i, L in steps:
                for s, d in _flat(L):
                    if s > 1:
                        ext.append(s)
                        strd.append(_mul(d, stride[i]))
            if not ext:
                return 1, 0
            return (ext[0], strd[0]) if len(ext) == 1 else (tuple(ext), tuple(strd))

        parts = [mode(values), mode(modes[0]), mode(modes[1])]
        return tuple(p[0] for p in parts), tuple(p[1] for p in parts), offset

    def partition_A(self, tensor):  # noqa: N802 (CuTe's names)
        """This thread's elements of an (M, K) tile of A: (V, MMA_M, MMA_K)."""
        return self._partition("A", tensor)

    def partition_B(self, tensor):  # noqa: N802
        """This thread's elements of an (N, K) tile of B: (V, MMA_N, MMA_K)."""
        return self._partition("B", tensor)

    def partition_C(self, tensor):  # noqa: N802
        """This thread's elements of an (M, N) tile of C or D: (V, MMA_M, MMA_N)."""
        return self._partition("C", tensor)

    def _fragment(self, operand, tile_shape, dtype):
        from .device import make_fragment
        _, _, values, modes = self.tiled._plan(operand, tuple(tile_shape))
        shape = tuple(_extents(s) for s in (values, modes[0], modes[1]))
        return make_fragment(make_layout(shape), dtype)

    def partition_fragment_A(self, tile_shape, dtype=None):  # noqa: N802
        """Registers for this thread's share of an (M, K) tile of A: (V, MMA_M, MMA_K), compact."""
        return self._fragment("A", tile_shape, dtype or self.tiled.atom.ab)

    def partition_fragment_B(self, tile_shape, dtype=None):  # noqa: N802
        return self._fragment("B", tile_shape, dtype or self.tiled.atom.ab)

    def partition_fragment_C(self, tile_shape, dtype=None):  # noqa: N802
        return self._fragment("C", tile_shape, dtype or self.tiled.atom.acc)


# ---- coordinates as a tensor ------------------------------------------------------------------------

class IdentityTensor(Tensor):
    """make_identity_tensor(shape): a tensor whose element at a coordinate is that coordinate (a
    tuple of Int32), with no memory; partitioned as a tile of C is, it gives each thread the rows
    and columns of its values, for predicates (CuTe's identity tensor). `parts`: one (offset,
    stride) per coordinate, over the shared shape."""

    memspace = "coord"

    def __init__(self, shape, parts=None):
        shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
        if parts is None:
            parts = [(0, tuple(1 if j == k else 0 for j in range(len(shape)))) for k in range(len(shape))]
        self.parts = parts
        super().__init__(T.Int32, shape, parts[0][1], 16)

    def _with_layout(self, shape, stride, offset=0):
        fail("an identity tensor is partitioned (partition_C) or indexed; the other algebra on it is not supported here")

    def __getitem__(self, coord):
        from .tensor import _has_none, slice_layout
        if _has_none(coord):
            cut = [slice_layout(coord, self.shape, st) for _, st in self.parts]
            ks = cut[0][1]
            shape = ks[0] if len(ks) == 1 else tuple(ks)
            return IdentityTensor(shape, [(_add(off, o), kd[0] if len(kd) == 1 else tuple(kd))
                                          for (off, _), (o, _, kd) in zip(self.parts, cut)])
        return tuple(_add(off, crd2idx(coord, self.shape, st)) for off, st in self.parts)

    def __repr__(self):
        return f"IdentityTensor {self.shape} o {[st for _, st in self.parts]}"


def make_identity_tensor(shape) -> IdentityTensor:
    return IdentityTensor(shape)


def elem_less(a, b):
    """Every coordinate of `a` below the same one of `b` (CuTe's elem_less): a Boolean."""
    from .ir import binary
    if len(a) != len(b):
        fail(f"elem_less compares coordinates of one rank; got {len(a)} and {len(b)}")
    out = None
    for x, y in zip(a, b):
        c = x < y
        out = c if out is None else (out and c) if isinstance(out, bool) and isinstance(c, bool) else binary("&", out, c)
    return out


# ---- ldmatrix: shared memory to an MMA's A and B fragments ------------------------------------------

class LdMatrix8x8x16bOp:  # noqa: N801 (the CuTe DSL's name)
    """ldmatrix.sync.aligned.m8n8.x4 (sm_75 and later): four 8 x 8 matrices of 16-bit elements from
    shared memory, one row address per lane (lanes 8q..8q+7 give matrix q's rows), each thread
    receiving two adjacent elements of each matrix in one 32-bit register."""

    def __init__(self, transpose: bool = False, num_matrices: int = 4):
        if transpose or num_matrices != 4:
            fail("LdMatrix8x8x16bOp: the untransposed x4 form is the one here (transpose=False, num_matrices=4)")
        self.transpose, self.num_matrices = transpose, num_matrices


class CopyAtom:
    def __init__(self, op, dtype):
        if not isinstance(op, LdMatrix8x8x16bOp):
            fail(f"make_copy_atom takes a copy operation (tessel.LdMatrix8x8x16bOp()); got {type(op).__name__}")
        if dtype not in (T.Float16, T.BFloat16):
            fail(f"ldmatrix moves 16-bit elements (Float16, BFloat16), not {getattr(dtype, 'name', dtype)}")
        self.op, self.dtype = op, dtype


def make_copy_atom(op, dtype) -> CopyAtom:
    return CopyAtom(op, dtype)


# Per operand of the m16n8k16 atom: the lanes' row addresses as steps (extent, axis, stride in the
# atom's tile), the 8 elements one row address covers, and the atoms one x4 fills along axis 0.
# A: matrix q = lane / 8 is rows 8 (q % 2).. and K 8 (q / 2).., the order of a0a1, a2a3, a4a5, a6a7.
# B: matrix q is K 8 (q % 2).. of atom q / 2 (two n8 atoms), the order of b0b1, b2b3 of each.
_LDSM_STEPS = {"A": ([(16, 0, 1), (2, 1, 8)], [(8, 1, 1)], 1), "B": ([(8, 0, 1), (2, 1, 8)], [(8, 1, 1)], 2)}


class TiledCopyMma:
    """ldmatrix copies that fill `tiled_mma`'s A or B fragments (make_tiled_copy_A / _B)."""

    def __init__(self, atom: CopyAtom, tiled: TiledMma, operand: str):
        if not isinstance(atom, CopyAtom):
            fail(f"make_tiled_copy_{operand} takes a copy atom (tessel.make_copy_atom(...)); got {type(atom).__name__}")
        if not isinstance(tiled, TiledMma) or tiled.atom.name != "SM80_16x8x16":
            fail(f"make_tiled_copy_{operand}: ldmatrix feeds the m16n8k16 MMA (tessel.MmaF16BF16Op); got {tiled!r}")
        if atom.dtype is not tiled.atom.ab:
            fail(f"make_tiled_copy_{operand}: the copy moves {atom.dtype.name} and the MMA multiplies {tiled.atom.ab.name}")
        self.atom, self.tiled, self.operand = atom, tiled, operand

    def get_slice(self, thread) -> ThrCopyMma:
        return ThrCopyMma(self, thread)


class ThrCopyMma:
    def __init__(self, tiled_copy: TiledCopyMma, thread):
        self.tiled_copy = tiled_copy
        self._thr = tiled_copy.tiled.get_slice(thread)

    def partition_S(self, tensor):  # noqa: N802 (CuTe's names)
        """This lane's rows of a shared-memory tile of the operand: (8, CPY_0, CPY_1), the 8
        contiguous elements whose address the lane gives for each x4 (one atom of A, two of B)."""
        tc = self.tiled_copy
        if getattr(tensor, "memspace", None) != "smem":
            fail(f"ldmatrix reads shared memory; partition_S got a tensor in {getattr(tensor, 'memspace', '?')}")
        return self._thr._partition(tc.operand, tensor, _LDSM_STEPS[tc.operand])

    def retile(self, frag):
        """A fragment of partition_fragment_A/B seen as the copy fills it: ((V, atoms), CPY_0, CPY_1),
        the x4's four registers in order."""
        group = _LDSM_STEPS[self.tiled_copy.operand][2]
        if not isinstance(frag, Tensor) or getattr(frag, "memspace", None) != "rmem" or len(frag.shape) != 3:
            fail("retile takes a register fragment of partition_fragment_A / _B")
        (vs, v0), (ms, m0), (ks, k0) = zip(frag.shape, frag.stride)
        n = product(ms)
        if group == 1:
            return frag
        if isinstance(ms, tuple) or n % group:
            fail(f"retile: the fragment's {n} atoms along its first mode do not pair up for ldmatrix")
        return frag._with_layout(((vs, group), n // group, ks), ((v0, m0), m0 * group, k0))


def make_tiled_copy_A(atom, tiled_mma) -> TiledCopyMma:  # noqa: N802
    return TiledCopyMma(atom, tiled_mma, "A")


def make_tiled_copy_B(atom, tiled_mma) -> TiledCopyMma:  # noqa: N802
    return TiledCopyMma(atom, tiled_mma, "B")


def copy_ldmatrix(tiled_copy: TiledCopyMma, src, dst):
    """One ldmatrix.x4 per copy tile: src (8, rest...) from partition_S, dst ((V, atoms), rest...)
    from retile, with the same rest modes."""
    from . import arch
    rest_s, rest_d = src.shape[1:], dst.shape[1:]
    if tuple(product(r) for r in rest_s) != tuple(product(r) for r in rest_d):
        fail(f"copy: the source's copies {rest_s} and the destination's {rest_d} differ")
    if product(src.shape[0]) != 8 or product(dst.shape[0]) != 8:
        fail("copy: an ldmatrix.x4 moves 8 elements per lane (partition_S's first mode, retile's first mode)")
    for idx in itertools.product(*[range(product(r)) for r in rest_s]):
        row = src[(None, *idx)]
        regs = arch.ldmatrix_x4(row)
        d = dst[(None, *idx)]
        for r, reg in enumerate(regs):
            lo, hi = (crd2idx(v, d.shape, d.stride) for v in (2 * r, 2 * r + 1))
            if hi != lo + 1:
                fail("copy: a 32-bit register of ldmatrix lands on two fragment elements that are not adjacent")
            builder().emit(f"*reinterpret_cast<unsigned*>(&{d.base}[{_add(d.offset, lo)}]) = {reg.expr};")


def _extents(steps):
    ext = [s for _, _, L in steps for s, _ in _flat(L) if s > 1]
    return 1 if not ext else ext[0] if len(ext) == 1 else tuple(ext)


def make_tiled_mma(atom, atom_layout_mnk=None, permutation_mnk=None) -> TiledMma:
    return TiledMma(atom, atom_layout_mnk, permutation_mnk)


def _u32(frag, offset) -> Value:
    """Two 16-bit register elements at `offset`, `offset + 1` as one 32-bit register."""
    return Value(f"(*reinterpret_cast<unsigned const*>(&{frag.base}[{offset}]))", T.Uint32, builder().block)


def gemm(tiled: TiledMma, d, a, b, c):
    """d = a b + c for every atom of the tile, on register fragments (the CuTe DSL's cute.gemm,
    spelled tessel.dsl.gemm: tessel.gemm is the front door on PyTorch tensors): a (V, MMA_M, MMA_K), b
    (V, MMA_N, MMA_K), c and d (V, MMA_M, MMA_N), as partition_fragment_* makes them. K outermost,
    then M, then N."""
    atom = tiled.atom
    if atom._call is None:
        fail(f"gemm: {atom.name} reads A and B from shared memory; issue it with tessel.arch.wgmma on descriptors "
             "(tessel.arch.make_wgmma_desc), its accumulators placed by partition_fragment_C")
    for name, t, dtype in (("A", a, atom.ab), ("B", b, atom.ab), ("C", c, atom.acc), ("D", d, atom.acc)):
        if not isinstance(t, Tensor) or getattr(t, "memspace", None) != "rmem":
            fail(f"gemm's {name} is a register fragment (partition_fragment_{'C' if name == 'D' else name}); "
                 f"got {t!r}")
        if t.element_type is not dtype:
            fail(f"gemm's {name} holds {t.element_type.name}; {atom.name} takes {dtype.name} there")
        if len(t.shape) != 3:
            fail(f"gemm's {name} is (V, MMA_x, MMA_y); its shape is {t.shape}")
    ma, ka = product(a.shape[1]), product(a.shape[2])
    nb, kb = product(b.shape[1]), product(b.shape[2])
    mc, nc = product(c.shape[1]), product(c.shape[2])
    if (ma, nb, kb) != (mc, nc, ka) or (product(d.shape[1]), product(d.shape[2])) != (mc, nc):
        fail(f"gemm: A has {ma} x {ka} atoms (M x K), B {nb} x {kb} (N x K), C {mc} x {nc}, D "
             f"{product(d.shape[1])} x {product(d.shape[2])}: they must agree")
    for name, t in (("A", a), ("B", b)):
        vs = _v_offsets(t)
        if any(vs[j] + 1 != vs[j + 1] for j in range(0, len(vs), 2)):
            fail(f"gemm's {name}: its values pair up into 32-bit registers, so each pair must be adjacent in the fragment "
                 f"(make it with partition_fragment_{name})")
    for k in range(ka):
        for m in range(mc):
            for n in range(nc):
                ra = [_u32(a, o) for o in _pairs(a, m, k)]
                rb = [_u32(b, o) for o in _pairs(b, n, k)]
                cs = [c[(v, m, n)] for v in range(product(c.shape[0]))]
                out = atom._call(ra, rb, cs)
                for v, x in enumerate(out):
                    d[(v, m, n)] = x


def _v_offsets(t) -> list:
    return [crd2idx(v, t.shape[0], t.stride[0]) for v in range(product(t.shape[0]))]


def _pairs(t, i, k) -> list:
    base = _add(t.offset, crd2idx((0, i, k), t.shape, t.stride))
    return [_add(base, o) for o in _v_offsets(t)[::2]]
