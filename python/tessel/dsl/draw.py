"""SVG pictures of thread-value layouts: which thread holds which element of a tile.

    tiler, tv = tessel.make_layout_tv(thr, val)
    svg = tessel.draw_tv_layout(tiler, tv, "tv.svg")
    svg = tessel.draw_tiled_mma(tiled_mma, "C", path="mma_c.svg")   # a tiled MMA's share of C

A TV layout maps (thread, value) to an offset in an M x N tile, column-major (CuTe's convention:
offset = m + M n). Each cell of the tile is drawn with the thread and value that reach it, coloured
by thread; a cell reached by no pair is left white and one reached twice is outlined in red, so
that a layout that does not cover its tile once shows where.
"""

from __future__ import annotations

from pathlib import Path

MAX_CELLS = 1 << 16  # larger tiles are refused: the picture would be tens of megabytes
_PALETTE = ("#b3cde3", "#ccebc5", "#decbe4", "#fed9a6", "#ffffcc", "#e5d8bd", "#fddaec", "#f2f2f2",
            "#a6cee3", "#b2df8a", "#fb9a99", "#fdbf6f", "#cab2d6", "#ffff99", "#8dd3c7", "#bebada")


def _layout(x):
    from .. import layout as eager
    if not isinstance(x, eager.Layout):
        raise TypeError(f"draw_tv_layout takes a layout of ints (tessel.make_layout_tv's second result); got {type(x).__name__}")
    return x


def tv_cells(tiler_mn, layout_tv) -> dict:
    """{(m, n): [(thread, value), ...]} for every pair of `layout_tv`, on the M x N tile."""
    from .. import layout as eager
    tv = _layout(layout_tv)
    if not (isinstance(tiler_mn, tuple) and len(tiler_mn) == 2 and all(isinstance(x, int) and x >= 1 for x in tiler_mn)):
        raise ValueError(f"draw_tv_layout's tiler is (M, N), two positive ints; got {tiler_mn!r}")
    m_, n_ = tiler_mn
    if m_ * n_ > MAX_CELLS:
        raise ValueError(f"draw_tv_layout: a {m_} x {n_} tile has more than {MAX_CELLS} cells; draw a smaller one")
    if eager.rank(tv) != 2:
        raise ValueError(f"draw_tv_layout: a TV layout has two modes (thread, value); {tv} has {eager.rank(tv)}")
    threads, values = eager.size(eager.layout(tv, 0)), eager.size(eager.layout(tv, 1))
    cells: dict = {}
    for t in range(threads):
        for v in range(values):
            off = tv((t, v))
            if not 0 <= off < m_ * n_:
                raise ValueError(f"draw_tv_layout: thread {t}, value {v} reaches offset {off}, outside the {m_} x {n_} tile")
            cells.setdefault((off % m_, off // m_), []).append((t, v))
    return cells


def draw_tv_layout(tiler_mn, layout_tv, path=None, cell: int = 36) -> str:
    """The SVG text of the TV layout on its tile (written to `path` too, when given)."""
    return _svg(tiler_mn, tv_cells(tiler_mn, layout_tv), f"TV layout {layout_tv}", path, cell)


def tiled_mma_cells(tiled_mma, operand: str = "C", tile=None) -> tuple:
    """((rows, columns), {(row, column): [(thread, value), ...]}) of a tiled MMA's operand
    ("A": M x K, "B": N x K, "C": M x N) over `tile` (default: one round of the tiled atoms),
    each thread's values numbered as its partition_fragment holds them."""
    import itertools

    from .host import HostTensor
    from .mma import TiledMma
    from .tensor import crd2idx, product
    from . import dtypes as T
    if not isinstance(tiled_mma, TiledMma):
        raise TypeError(f"draw_tiled_mma takes a TiledMma (tessel.make_tiled_mma(...)); got {type(tiled_mma).__name__}")
    if operand not in ("A", "B", "C"):
        raise ValueError(f"draw_tiled_mma's operand is 'A', 'B' or 'C', not {operand!r}")
    axes = {"A": (0, 2), "B": (1, 2), "C": (0, 1)}[operand]
    tile = tuple(tile) if tile is not None else tuple(tiled_mma.tile_mnk[a] for a in axes)
    if len(tile) != 2 or tile[0] * tile[1] > MAX_CELLS:
        raise ValueError(f"draw_tiled_mma: the tile is (rows, columns) of at most {MAX_CELLS} cells; got {tile}")
    index = HostTensor(T.Float32, tile, (1, tile[0]), 0, 0, 16)  # an element's offset is its column-major index
    cells: dict = {}
    for t in range(tiled_mma.size):
        part = getattr(tiled_mma.get_slice(t), f"partition_{operand}")(index)
        sizes = [product(x) for x in part.shape]
        for v, coord in enumerate(itertools.product(*[range(x) for x in reversed(sizes)])):
            off = part.offset + crd2idx(tuple(reversed(coord)), part.shape, part.stride)
            cells.setdefault((off % tile[0], off // tile[0]), []).append((t, v))
    return tile, cells


def draw_tiled_mma(tiled_mma, operand: str = "C", tile=None, path=None, cell: int = 36) -> str:
    """The SVG text of which thread holds which element of a tiled MMA's A, B or C. Warps side by
    side along N hold the same elements of A (along M, of B): those cells are outlined as held twice."""
    tile, cells = tiled_mma_cells(tiled_mma, operand, tile)
    return _svg(tile, cells, f"{tiled_mma!r}, {operand}", path, cell)


def _svg(tiler_mn, cells, title, path, cell) -> str:
    m_, n_ = tiler_mn
    pad = 24
    w, h = n_ * cell + 2 * pad, m_ * cell + 2 * pad + 16
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="monospace" font-size="{cell // 4}">',
           f'<text x="{pad}" y="{pad - 8}" font-size="12">{title} on a {m_} x {n_} tile</text>']
    for (m, n), pairs in sorted(cells.items()):
        t, v = pairs[0]
        x, y = pad + n * cell, pad + m * cell
        stroke = ' stroke="red" stroke-width="2"' if len(pairs) > 1 else ' stroke="black" stroke-width="0.5"'
        out.append(f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="{_PALETTE[t % len(_PALETTE)]}"{stroke}/>')
        out.append(f'<text x="{x + cell / 2}" y="{y + cell * 0.42}" text-anchor="middle">T{t}</text>')
        out.append(f'<text x="{x + cell / 2}" y="{y + cell * 0.8}" text-anchor="middle">V{v}</text>')
    for m in range(m_):
        for n in range(n_):
            if (m, n) not in cells:
                x, y = pad + n * cell, pad + m * cell
                out.append(f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="white" stroke="black" stroke-width="0.5"/>')
    out.append("</svg>")
    svg = "\n".join(out) + "\n"
    if path is not None:
        Path(path).write_text(svg)
    return svg
