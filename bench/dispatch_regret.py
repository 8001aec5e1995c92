#!/usr/bin/env python3
"""What the dispatcher's heuristic gives up against the measurements: for every 16-bit shape that
a sweep in bench/runs timed several shipped Hopper tiles on, the tile the heuristic chooses now
and the fastest one measured.

    python bench/dispatch_regret.py                 # the table (needs the built tessel package)
    python bench/dispatch_regret.py --emit FILE     # the measurements, for tests/host (no GPU, no tessel)
    python bench/dispatch_regret.py --check FILE    # exit 1 where FILE lags bench/runs (a host test)

The measurements are the H100 tables of bench/runs (config_sweep.py, decode_tiles.py and their
kin: a "### MxNxK dtype" heading, a provider column and a column of speed relative to
torch.matmul in the same process). A tile's figure at a shape is the median of its ratios in the
newest run that timed it there (the kernels changed between runs); ratios against torch's call
beside them are comparable across tables, so a shape's candidates need not share one.
Configurations the registry does not ship (other depths, clusters, BN 96 or 256 on 64 rows) are
left out. Rows whose A or B rows start off 32-byte
sectors (K * 2 bytes not a multiple of 32) are kept in the file; the test and the table skip
them, since there the dispatcher runs a cluster twin that the sweeps label apart.

The file's lines (tests/host/dispatch_measured_test.cpp reads them):
    M N K dtype | label = ratio | label = ratio ...
labels as dispatch::label() writes them, with " on D^T" where the tile ran D^T = B^T A^T.
"""

import argparse
import glob
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = os.path.join(HERE, "runs")
HEADING = re.compile(r"^### (\d+)x(\d+)x(\d+)(?: (bf16|f16))?\b")  # header_ab.py's headings name no dtype: bf16
# The registry's Hopper tiles for the 16-bit kinds (include/tessel/gemm/dispatch/hopper_tiles.def),
# as the sweeps name them: config_sweep.py's and decode_tiles.py's short and long names, and
# header_ab.py's specs (BMxBN[:ping][:sk], the build "new" where it compares two; clusters and
# other depths are other configurations).
SCHEDULES = {"coop": "cooperative", "ping": "pingpong"}
SHORT = re.compile(r"^(\d+)x(\d+) (coop|ping|stream-K)( on D\^T)?$")
LONG = re.compile(r"^(\d+)x(\d+)x64 (coop|ping) (persistent|stream_k)$")
SPEC = re.compile(r"^(\d+)x(\d+)((?::ping|:sk)?)(?: new)?$")


def shipped_labels(def_file=os.path.join(HERE, "..", "include", "tessel", "gemm", "dispatch", "hopper_tiles.def")):
    """dispatch::label() of every TESSEL_HOPPER_TILE row."""
    row = re.compile(r"^TESSEL_HOPPER_TILE\((\d+), (\d+), (\d+), (\w+), (\w+),")
    out = set()
    with open(def_file) as f:
        for line in f:
            m = row.match(line)
            if m:
                out.add(f"{m[1]}x{m[2]} {m[4]}" + (" stream-K" if m[5] == "stream_k" else ""))
    return out


def label_of(provider):
    """dispatch::label() of a sweep's provider name (with " on D^T"), or None."""
    m = SHORT.match(provider)
    if m:
        tile = f"{m[1]}x{m[2]}"
        name = f"{tile} cooperative stream-K" if m[3] == "stream-K" else f"{tile} {SCHEDULES[m[3]]}"
        return name + (" on D^T" if m[4] else "")
    m = LONG.match(provider)
    if m:
        return f"{m[1]}x{m[2]} {SCHEDULES[m[3]]}" + (" stream-K" if m[4] == "stream_k" else "")
    m = SPEC.match(provider)
    if m:  # the schedule "auto": cooperative where BM is 128, else ping-pong
        schedule = "pingpong" if m[3] == ":ping" or int(m[1]) < 128 else "cooperative"
        return f"{m[1]}x{m[2]} {schedule}" + (" stream-K" if m[3] == ":sk" else "")
    return None


def ratio_column(header, rows):
    """The index of the column of speed relative to torch.matmul: the header's, else where torch's
    own row reads 1.000 (header_ab.py's tables have no header); None where neither says."""
    for i, cell in enumerate(header or []):
        if "/ torch" in cell or "torch /" in cell:
            return i
    for cells in rows:
        if cells[0] == "torch":
            return next((i for i, c in enumerate(cells) if c == "1.000"), None)
    return None


def sections(path):
    """(shape, header cells or None, rows of cells) of each table of a file under a shape's heading."""
    shape, header, rows = None, None, []
    with open(path) as f:
        for line in list(f) + ["#"]:
            if line.startswith("#"):
                if shape is not None and rows:
                    yield shape, header, rows
                heading = HEADING.match(line)
                shape = (int(heading[1]), int(heading[2]), int(heading[3]), heading[4] or "bf16") if heading else None
                header, rows = None, []
            elif shape is not None and line.startswith("|") and not line.startswith("|--"):
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                if cells[0] == "provider":
                    header = cells
                else:
                    rows.append(cells)


def measurements(runs=RUNS):
    """{(m, n, k, dtype): {label: [ratio, ...]}} over the H100 tables: each tile's ratios from the
    newest run directory that timed it at that shape (the kernels have changed between sessions)."""
    shipped = shipped_labels()
    out, newest = {}, {}
    for path in sorted(glob.glob(os.path.join(runs, "*_h100", "*.md"))):
        run = os.path.basename(os.path.dirname(path))  # dated, so sorted oldest first
        for shape, header, rows in sections(path):
            column = ratio_column(header, rows)
            if column is None:
                continue
            for cells in rows:
                label = label_of(cells[0])
                if label is None or label.removesuffix(" on D^T") not in shipped or column >= len(cells):
                    continue
                try:
                    ratio = float(cells[column])
                except ValueError:
                    continue
                if newest.get((shape, label)) != run:
                    newest[(shape, label)] = run
                    out.setdefault(shape, {})[label] = []
                out[shape][label].append(ratio)
    return {s: v for s, v in out.items() if len(v) >= 2}


def measured_text():
    """The file --emit writes."""
    lines = ["# Generated by bench/dispatch_regret.py --emit from the H100 tables of bench/runs: per shape\n",
             "# (M N K dtype, D = x @ W.t()), each shipped Hopper tile's median speed relative to torch.matmul.\n"]
    for (m, n, k, dtype), labels in sorted(measurements().items()):
        cells = " | ".join(f"{label} = {statistics.median(v):.3f}" for label, v in sorted(labels.items()))
        lines.append(f"{m} {n} {k} {dtype} | {cells}\n")
    return "".join(lines)


def emit(path):
    text = measured_text()
    with open(path, "w") as f:
        f.write(text)
    print(f"{text.count(chr(10)) - 2} shapes written to {path}")


def check(path):
    """Exit 1 with a sentence where `path` is not what --emit would write now."""
    try:
        with open(path) as f:
            same = f.read() == measured_text()
    except OSError as e:
        sys.exit(f"dispatch_regret: cannot read {path}: {e.strerror}")
    if not same:
        print(f"dispatch_regret: {path} differs from the tables in bench/runs; rewrite it with "
              f"python3 bench/dispatch_regret.py --emit {path}", file=sys.stderr)
        sys.exit(1)


def report():
    from tessel.jit import registry

    rows = []
    for (m, n, k, dtype), labels in sorted(measurements().items()):
        if (2 * k) % 32:
            continue
        tiles = registry.hopper_configs(dtype, dtype, "row", "col", "linear")
        choice = registry.choose_oriented(tiles, tiles, m, n, k, 132)
        c = choice.config
        label = f"{c.tile[0]}x{c.tile[1]} {c.schedule}" + (" stream-K" if c.scheduler == "stream_k" else "") + \
            (" on D^T" if choice.transpose_d else "")
        ratios = {name: statistics.median(v) for name, v in labels.items()}
        best = max(ratios, key=ratios.get)
        rows.append((f"{m}x{n}x{k} {dtype}", label, ratios.get(label), best, ratios[best]))
    print("| shape | chosen | its ratio to torch | fastest measured | its ratio | chosen / fastest |")
    print("|---|---|---:|---|---:|---:|")
    shares = []
    for shape, label, got, best, top in rows:
        share = "" if got is None else f"{got / top:.3f}"
        if got is not None:
            shares.append(got / top)
        print(f"| {shape} | {label} | {'-' if got is None else f'{got:.3f}'} | {best} | {top:.3f} | {share} |")
    print(f"\n{len(shares)} of {len(rows)} shapes timed the chosen tile; geomean chosen / fastest "
          f"{statistics.geometric_mean(shares):.4f}; {sum(s < 0.97 for s in shares)} more than 3% off")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--emit", metavar="FILE", help="write the measurements to FILE instead of the table")
    parser.add_argument("--check", metavar="FILE", help="exit 1 where FILE is not what --emit would write")
    args = parser.parse_args()
    if args.emit:
        emit(args.emit)
    elif args.check:
        check(args.check)
    else:
        report()


if __name__ == "__main__":
    main()
