#!/usr/bin/env python3
"""Fuzz test of tessel-prof's command line: random valid and malformed command lines and input
files, each run in a child process under a memory limit and a timeout.

Every run fails the test on a signal, a timeout, an escaped C++ exception ("terminate called",
"bad_alloc", "what():", the guard's "out of memory"), an exit status outside 0-3, or a nonzero
exit without exactly one line "tessel-prof: ..." on stderr. A valid analyze run must exit 0 and
its CSV must hold the arithmetic of analyze mode: tiles = ceil(M/BM) ceil(N/BN) batch (whole
clusters), waves = tiles / slots, tile efficiency in (0, 1], nothing "inf" or "nan". The fixed
cases are the regressions of issue 16, each refused with its exit status and sentence.

No GPU is needed: CUDA_VISIBLE_DEVICES=-1 hides any, so profile mode exits 3 (a clean refusal).

  prof_fuzz.py --exe build/tools/prof/tessel-prof --limits tools/prof/core/limits.hpp \
               --sample tests/host/data/prof_sample.csv --workdir build/fuzz [--runs 220] [--seed 16]
"""

import argparse
import csv
import math
import os
import random
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzz_common  # noqa: E402  (the limits every fuzz test runs its children under)

TIMEOUT_S = 30  # per run; a run normally takes milliseconds, but loading cuBLAS is slow

# The limits of tools/prof/core/limits.hpp, read from it by read_limits (one place for them).
MAX_EXTENT = MAX_TILE = MAX_SMS = MAX_CTAS = MIN_RATE = MAX_RATE = None


def read_limits(path):
    """The numeric constants (`inline constexpr T kName = 123;`) of core/limits.hpp."""
    with open(path) as f:
        found = dict(re.findall(r"constexpr\s+[\w:]+\s+(k\w+)\s*=\s*([0-9.e+-]+);", f.read()))
    global MAX_EXTENT, MAX_TILE, MAX_SMS, MAX_CTAS, MIN_RATE, MAX_RATE
    try:
        MAX_EXTENT, MAX_TILE = int(found["kMaxExtent"]), int(found["kMaxTileExtent"])
        MAX_SMS, MAX_CTAS = int(found["kMaxSmCount"]), int(found["kMaxCtasPerSm"])
        MIN_RATE, MAX_RATE = float(found["kMinRate"]), float(found["kMaxRate"])
    except KeyError as e:
        sys.exit(f"prof_fuzz: {path} has no constant {e}; expected tools/prof/core/limits.hpp")

ESCAPED = re.compile(r"terminate called|bad_alloc|what\(\):|tessel-prof: out of memory|Segmentation|Aborted")
NONFINITE = re.compile(r"(?<![A-Za-z])(inf|nan)(?![A-Za-z])", re.IGNORECASE)


class Failure(Exception):
    pass


class Runner:
    """Runs command lines of tessel-prof, several at a time: each run mostly waits for the loader
    (cuBLAS is large). One thread starts them all, so preexec_fn (the limits) is safe to use."""

    def __init__(self, exe, workdir):
        self.exe = exe
        self.workdir = workdir
        self.env = dict(os.environ, CUDA_VISIBLE_DEVICES="-1")
        self.workers = max(2, os.cpu_count() or 1)

    def run_all(self, commands):
        """For each (args, stdout_path or None): (status, stdout, stderr), or a Failure for a signal
        or a timeout. In the order given."""
        results = [None] * len(commands)
        pending = list(enumerate(commands))
        running = []  # (index, process, stdout file, stderr file, deadline, whether stdout is read)
        while pending or running:
            while pending and len(running) < self.workers:
                i, (args, stdout_path) = pending.pop(0)
                out = open(stdout_path or os.path.join(self.workdir, f"stdout_{i}"), "w+b")
                err = open(os.path.join(self.workdir, f"stderr_{i}"), "w+b")
                p = subprocess.Popen([self.exe] + args, stdout=out, stderr=err, env=self.env, cwd=self.workdir,
                                     preexec_fn=fuzz_common.limit_memory(fuzz_common.DEFAULT_MEMORY_BYTES))
                running.append((i, p, out, err, time.monotonic() + TIMEOUT_S, stdout_path is None))
            still = []
            for job in running:
                i, p, out, err, deadline, read_out = job
                if p.poll() is None and time.monotonic() < deadline:
                    still.append(job)
                    continue
                if p.returncode is None:
                    p.kill()
                    p.wait()
                    results[i] = Failure(f"timed out after {TIMEOUT_S} s")
                else:
                    results[i] = self._result(p.returncode, out, err, read_out)
                out.close()
                err.close()
            running = still
            time.sleep(0.002)
        return results

    @staticmethod
    def _result(rc, out, err, read_out):
        def text(f):
            f.seek(0)
            return f.read().decode("utf-8", "replace")
        stderr = text(err)
        if rc < 0:
            return Failure(f"killed by signal {-rc}\nstderr: {stderr[:2000]}")
        return rc, text(out) if read_out else "", stderr


def outcome(result):
    """(status, stdout, stderr) of a run_all result; raises its Failure."""
    if isinstance(result, Failure):
        raise result
    return result


def check_clean(rc, out, err, mode):
    """The rules every run obeys, valid or not."""
    if ESCAPED.search(out) or ESCAPED.search(err):
        raise Failure(f"an escaped exception or crash in the output (status {rc})\nstderr: {err[:2000]}")
    if rc not in (0, 1, 2, 3):
        raise Failure(f"exit status {rc}, not one of the documented 0-3\nstderr: {err[:2000]}")
    if rc != 0:
        lines = err.split("\n")
        if err == "" or not err.endswith("\n") or len(lines) != 2 or not err.startswith("tessel-prof: "):
            raise Failure(f"exit status {rc} without exactly one line 'tessel-prof: ...' on stderr: {err[:2000]!r}")
    elif mode != "profile" and err:
        raise Failure(f"exit 0 with something on stderr: {err[:2000]!r}")
    if NONFINITE.search(out):
        raise Failure("'inf' or 'nan' in the output:\n" + out[:4000])


def ceil_div(a, b):
    return -(-a // b)


def check_analysis_csv(path, expect=None):
    """Analyze mode's arithmetic, row by row, from its CSV. `expect`: the shapes and tiles the
    command line asked for, when the generator knows them."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise Failure("the analysis CSV has no rows")
    for r in rows:
        m, n, k, batch = (int(r[c]) for c in ("m", "n", "k", "batch"))
        tm, tn = int(r["tile_m"]), int(r["tile_n"])
        cm, cn, _ = (int(x) for x in r["cluster"].split("x"))
        sms, ctas = int(r["sm_count"]), int(r["ctas_per_sm"])
        tiles = ceil_div(ceil_div(m, tm), cm) * cm * ceil_div(ceil_div(n, tn), cn) * cn * batch
        if int(r["tiles"]) != tiles:
            raise Failure(f"{r['kernel']} {m}x{n}x{k}x{batch}: tiles {r['tiles']}, expected {tiles}")
        cluster = cm * cn
        slots = sms * ctas // cluster * cluster
        waves = float(r["waves"])
        if abs(waves - tiles / slots) > 0.0051 + 1e-12 * tiles / slots:
            raise Failure(f"{r['kernel']} {m}x{n}x{k}x{batch}: waves {r['waves']}, expected {tiles / slots:.4f}")
        last = int(r["last_wave_sms"])
        if not 1 <= last <= sms:
            raise Failure(f"{r['kernel']}: last_wave_sms {last} outside 1..{sms}")
        eff = float(r["tile_efficiency"])
        expected_eff = m * n * batch / (tiles * tm * tn)
        if not 0 < eff <= 1 or abs(eff - expected_eff) > 1e-5 * expected_eff:
            raise Failure(f"{r['kernel']} {m}x{n}x{k}x{batch}: tile efficiency {eff}, expected {expected_eff}")
        for c in ("flops", "bytes", "flops_per_byte", "compute_floor_us", "memory_floor_us", "quantized_floor_us"):
            if r[c] != "" and not (math.isfinite(float(r[c])) and float(r[c]) > 0):
                raise Failure(f"{r['kernel']}: {c} is {r[c]}")
    if expect:
        shapes, tiles = expect
        got = {(int(r["m"]), int(r["n"]), int(r["k"]), int(r["batch"])) for r in rows}
        if got != shapes:
            raise Failure(f"analyzed shapes {sorted(got)[:8]}..., expected {sorted(shapes)[:8]}...")
        got_tiles = {(int(r["tile_m"]), int(r["tile_n"]), int(r["tile_k"])) for r in rows if r["kernel"].startswith("tile ")}
        if got_tiles != tiles:
            raise Failure(f"analyzed tiles {sorted(got_tiles)}, expected {sorted(tiles)}")
        if len(rows) != len(shapes) * len(tiles):
            raise Failure(f"{len(rows)} rows, expected {len(shapes)} shapes x {len(tiles)} tiles")


# ---- Generators ----------------------------------------------------------------------------------

def extent(rng, high=None):
    """A problem extent up to `high` (the largest the kernels take): mostly small and realistic,
    sometimes at the edges."""
    high = high or MAX_EXTENT
    pick = rng.random()
    if pick < 0.15:
        return rng.choice([1, 2, 3, 7, 16, 127, 128, 129, high, high - 1])
    if pick < 0.3:
        return min(high, 2 ** rng.randint(0, 31))
    if pick < 0.4:
        return rng.randint(1, high)
    return rng.randint(1, 16384)


def value_list(rng, count):
    """`count` values written as a value, a list or a range: (text, values)."""
    if count == 1:
        v = extent(rng)
        return str(v), [v]
    if rng.random() < 0.5:
        start = rng.randint(1, 100000)
        step = rng.randint(1, 5000)
        return f"{start}:{start + step * (count - 1) + rng.randint(0, step - 1)}:{step}", \
            [start + i * step for i in range(count)]
    values = [extent(rng) for _ in range(count)]
    return ",".join(map(str, values)), values


def rate(rng):
    """A matrix rate or bandwidth within the limits, at any scale."""
    return min(MAX_RATE, max(MIN_RATE, 10 ** rng.uniform(math.log10(MIN_RATE), math.log10(MAX_RATE))))


def tiles_overflow(expect):
    """Whether a (shape, tile) pair of the expectation has 2^63 output tiles or more."""
    shapes, tiles = expect
    return any(ceil_div(m, tm) * ceil_div(n, tn) * b >= 2**63 for m, n, _, b in shapes for tm, tn, _ in tiles)


def valid_analyze(rng, runner, index):
    """A valid analyze command line, with what it must analyze."""
    args = ["--mode=analyze"]
    shapes = set()
    if rng.random() < 0.3:
        items = [(extent(rng), extent(rng), extent(rng), rng.choice([1, 1, 2, extent(rng, 4096)]))
                 for _ in range(rng.randint(1, 4))]
        def spelled(shape, sep):
            return sep.join(map(str, shape if shape[3] != 1 else shape[:3]))
        if rng.random() < 0.5:
            path = os.path.join(runner.workdir, f"shapes_{index}.txt")
            with open(path, "w") as f:
                f.write("# fuzz shapes\n" + "".join(spelled(s, rng.choice(["x", " "])) + rng.choice(["", "  # c"]) + "\n"
                                                     for s in items))
            args.append(f"--shapes-file={path}")
        else:
            args.append("--shapes=" + ",".join(spelled(s, "x") for s in items))
        shapes = set(items)
    else:
        lists = {}
        for flag in ("--m", "--n", "--k", "--batch"):
            if flag == "--batch" and rng.random() < 0.6:
                lists[flag] = [1]
                continue
            text, values = value_list(rng, rng.choice([1, 1, 2, 3]))
            args.append(f"{flag}={text}")
            lists[flag] = values
        shapes = {(m, n, k, b) for m in lists["--m"] for n in lists["--n"] for k in lists["--k"] for b in lists["--batch"]}
    tiles = set()
    for _ in range(rng.randint(1, 3)):
        t = (rng.choice([1, 64, 128, 256, rng.randint(1, MAX_TILE)]), rng.choice([16, 128, 256, rng.randint(1, MAX_TILE)]),
             rng.choice([0, 32, 64, rng.randint(1, MAX_TILE)]))
        tiles.add(t)
    args.append("--tile=" + ",".join(f"{m}x{n}" + (f"x{k}" if k else "") for m, n, k in tiles))
    if rng.random() < 0.25:
        path = os.path.join(runner.workdir, f"device_{index}.txt")
        with open(path, "w") as f:
            f.write(f"sm_count = {rng.randint(1, MAX_SMS)}\ncopy_bandwidth_gbps = {rate(rng):.3f}\n"
                    f"matrix_tflops_f16 = {rate(rng):.3f}\n")
        args.append(f"--device-profile={path}")
    else:
        args.append(f"--sm-count={rng.choice([1, 108, 132, rng.randint(1, MAX_SMS)])}")
        if rng.random() < 0.5:
            args.append(f"--matrix-tflops={rng.choice([989, rate(rng)])}")
        if rng.random() < 0.5:
            args.append(f"--bandwidth-gbps={rng.choice([4800, rate(rng)])}")
    if rng.random() < 0.3:
        args.append(f"--ctas-per-sm={rng.randint(1, MAX_CTAS)}")
    if rng.random() < 0.2:
        args.append("--beta=1")
    rng.shuffle(args)
    return args, (shapes, tiles)


HOSTILE = [
    "9223372036854775807", "9223372036854775808", "-9223372036854775808", "99999999999999999999999", "2147483647",
    "2147483648", "4294967296", "4294967297", "4294967424x128", "128x128x4294967296", "0", "-1", "", ",", ",,", ":",
    "1:", ":1", "1::", "1:4096", "1:2147483647", "1:2147483647:1", "2147483647:2147483647:9223372036854775807",
    "1e9", "1.5", "nan", "inf", "-inf", "1e308", "1e-308", "-0", "0x10", " ", "\n", "\t1", "1\n2", "\u00fc", "\x01\x1b[31m",
    "x" * 20000, "1," * 5000, "1x" * 3000, "*", "?", "e4m3", "128x", "x128", "1x1", "1x1x1x1x1",
    "/dev/zero", "/dev/urandom", "/dev/null", "/", "/nonexistent/file",
]

FLAGS = ["--m", "--n", "--k", "--batch", "--shapes", "--shapes-file", "--tile", "--sm-count", "--ctas-per-sm",
         "--matrix-tflops", "--bandwidth-gbps", "--device-profile", "--kernels", "--ignore-kernels", "--A", "--B",
         "--D", "--alpha", "--beta", "--raster", "--swizzle", "--mode", "--input", "--output", "--json", "--plot",
         "--markdown", "--emit-best", "--warmup-iterations", "--profiling-iterations", "--seed", "--device",
         "--progress", "--operation"]


def mutate(rng, args):
    """A malformed variant of a command line."""
    args = list(args)
    for _ in range(rng.randint(1, 3)):
        action = rng.random()
        if action < 0.5 and args:
            i = rng.randrange(len(args))
            name = args[i].split("=", 1)[0]
            args[i] = f"{name}={rng.choice(HOSTILE)}"
        elif action < 0.8:
            args.append(f"{rng.choice(FLAGS)}={rng.choice(HOSTILE)}")
        elif action < 0.9 and args:
            i = rng.randrange(len(args))
            args[i] = args[i].split("=", 1)[0]
        else:
            args.append(rng.choice(["--mm=1", "--tile", "-", "--", "gemm", "--m==1", "--help=maybe"]))
    return args


def hostile_file(rng, runner, index, kind):
    """An input file that is broken in one way or another: (path)."""
    pick = rng.random()
    if pick < 0.15:
        return rng.choice(["/dev/zero", "/dev/urandom", "/dev/null", runner.workdir, "/nonexistent/in.txt"])
    path = os.path.join(runner.workdir, f"{kind}_{index}.bin")
    with open(path, "wb") as f:
        if pick < 0.3:
            f.write(os.urandom(rng.randint(1, 4096)))
        elif pick < 0.4:
            f.write(b"1x1x1\n" * 100001 if kind == "shapes" else b"a," * 200000)
        elif pick < 0.5:
            f.write(b"9" * rng.randint(1, 200000))
        else:
            lines = {
                "shapes": ["4096x4096x4096", "1 2 3", "1x1x1x1"],
                "device": ["sm_count = 132", "copy_bandwidth_gbps = 4800", "matrix_tflops_f16 = 989"],
            }[kind]
            out = []
            for line in lines:
                if rng.random() < 0.5:
                    tok = rng.choice(HOSTILE)
                    line = re.sub(r"[0-9]+", lambda _: tok, line, count=1)
                out.append(line)
            f.write(("\n".join(out) + "\n").encode("utf-8", "replace"))
    return path


def hostile_csv(rng, runner, index, sample):
    """The sample profile CSV with one field of one row replaced by a hostile value."""
    with open(sample, newline="") as f:
        records = list(csv.reader(f))
    row = rng.randrange(1, len(records))
    col = rng.randrange(len(records[0]))
    records[row][col] = rng.choice(HOSTILE[:40] + ["-0.19", "0", "-723.4", "1e-400", "abc"])
    path = os.path.join(runner.workdir, f"report_{index}.csv")
    with open(path, "w", newline="") as f:
        csv.writer(f).writerows(records)
    return path


def mode_of(args):
    for a in args:
        if a.startswith("--mode="):
            return a[7:]
    return "profile"


def random_case(rng, runner, index, sample):
    """(args, expectation): expectation is ('valid', shapes and tiles) or ('any', None)."""
    pick = rng.random()
    if pick < 0.35:
        args, expect = valid_analyze(rng, runner, index)
        return args, ("overflow" if tiles_overflow(expect) else "valid", expect)
    if pick < 0.4:
        return ["--mode=enumerate", rng.choice(["--kernels=tessel", "--kernels=_tn", "--kernels=tessel,_tn"])], ("ok", None)
    if pick < 0.45:
        return ["--mode=report", f"--input={sample}"], ("ok", None)
    if pick < 0.55:
        return ["--mode=report", f"--input={hostile_csv(rng, runner, index, sample)}"], ("any", None)
    if pick < 0.65:
        kind = rng.choice(["shapes", "device"])
        base, _ = valid_analyze(rng, runner, index)
        base = [a for a in base if not a.startswith(("--m=", "--n=", "--k=", "--batch=", "--shapes"))] \
            if kind == "shapes" else [a for a in base if not a.startswith(("--sm-count", "--device-profile"))]
        flag = "--shapes-file" if kind == "shapes" else "--device-profile"
        return base + [f"{flag}={hostile_file(rng, runner, index, kind)}"], ("any", None)
    base, _ = valid_analyze(rng, runner, index) if rng.random() < 0.7 else (
        rng.choice([["--mode=enumerate"], ["--mode=report", f"--input={sample}"], ["--m=256", "--n=256", "--k=256"]]), None)
    return mutate(rng, base), ("any", None)


# ---- Fixed cases: the regressions of issue 16 -------------------------------------------------

def fixed_cases(workdir, sample):
    """(name, args, status, stderr regex); every one of these was a wrong result, a crash or a
    hang before the limits."""
    device_bad_sms = os.path.join(workdir, "device_bad_sms.txt")
    device_negative = os.path.join(workdir, "device_negative.txt")
    with open(device_bad_sms, "w") as f:
        f.write("sm_count = 4294967297\n")
    with open(device_negative, "w") as f:
        f.write("sm_count = 132\nmatrix_tflops_f16 = -989\ncopy_bandwidth_gbps = 4800\n")
    with open(sample, newline="") as f:
        records = list(csv.reader(f))
    runtime = records[0].index("runtime_ms")
    bad_csv = {}
    for name, value in (("zero", "0"), ("negative", "-0.19")):
        rows = [list(r) for r in records]
        rows[1][runtime] = value
        bad_csv[name] = os.path.join(workdir, f"report_{name}_runtime.csv")
        with open(bad_csv[name], "w", newline="") as f:
            csv.writer(f).writerows(rows)
    analyze = ["--mode=analyze", "--sm-count=132"]
    out_full = "writing the file failed \\(No space left on device\\); pass a path on a disk with room"
    cases = [
        ("max_int64_m_analyze", analyze + ["--tile=128x128", "--m=9223372036854775807"], 2,
         r"^tessel-prof: --m=9223372036854775807: '9223372036854775807' is out of range; expected values from 1 to 2147483647\n$"),
        ("max_int64_m_enumerate", ["--mode=enumerate", "--m=9223372036854775807"], 2, "is out of range"),
        ("max_int64_m_profile", ["--m=9223372036854775807"], 2, "is out of range"),
        ("cross_product", analyze + ["--tile=128x128", "--m=1:4096", "--n=1:4096"], 2,
         r"^tessel-prof: the sweep has more than 100000 problems \(4096 --m x 4096 --n x 1 --k"),
        ("analysis_rows", analyze + ["--tile=1x1,2x2", "--m=1:4096", "--n=1:24"], 2,
         r"^tessel-prof: the analysis has 196608 rows \(98304 problems x 2 kernels and tiles\), more than the limit"),
        ("shapes_file_urandom", analyze + ["--tile=128x128", "--shapes-file=/dev/urandom"], 2,
         r"^tessel-prof: --shapes-file=/dev/urandom: is not a text file \(byte [0-9]+ is NUL\); pass a text file"),
        ("shapes_file_zero", analyze + ["--tile=128x128", "--shapes-file=/dev/zero"], 2,
         r"--shapes-file=/dev/zero: is not a text file \(byte 0 is NUL\)"),
        ("shapes_file_directory", analyze + ["--tile=128x128", f"--shapes-file={workdir}"], 2, r": is a directory; pass a text file"),
        ("tile_m_past_32_bits", analyze + ["--tile=4294967424x128"], 2,
         r"^tessel-prof: --tile=4294967424x128: M=4294967424: the value must be at most 4096; pass an integer from 1 to 4096\n$"),
        ("tile_k_past_32_bits", analyze + ["--tile=128x128x4294967296"], 2, r"the value must be at most 4096"),
        ("tiles_past_2_63", analyze + ["--tile=1x1", "--m=2147483647", "--n=2147483647", "--k=1", "--batch=2147483647"], 2,
         r"more than 2\^63 output tiles; analyze a smaller problem or a larger tile"),
        ("m_past_int32", analyze + ["--tile=1x1", "--m=2147483648"], 2, r"'2147483648' is out of range"),
        ("device_profile_sm_count", ["--mode=analyze", "--tile=128x128", f"--device-profile={device_bad_sms}"], 2,
         r"device_bad_sms.txt:1: sm_count=4294967297: the value must be at most 4096"),
        ("device_profile_negative_rate", ["--mode=analyze", "--tile=128x128", f"--device-profile={device_negative}"], 2,
         r"matrix_tflops_f16=-989: the value must be from 0.001 to 1e\+06"),
        ("device_profile_directory", ["--mode=analyze", "--tile=128x128", f"--device-profile={workdir}"], 2,
         r": is a directory; pass a device profile"),
        ("sm_count_flag", analyze[:1] + ["--tile=128x128", "--sm-count=4294967297"], 2, r"the value must be at most 4096"),
        ("negative_matrix_rate", analyze + ["--tile=128x128", "--matrix-tflops=-989"], 2, r"must be from 0.001"),
        ("report_zero_runtime", ["--mode=report", f"--input={bad_csv['zero']}"], 2,
         r"report_zero_runtime.csv:2: runtime_ms is '0'; expected a positive number"),
        ("report_negative_runtime", ["--mode=report", f"--input={bad_csv['negative']}"], 2, r"runtime_ms is '-0.19'"),
        ("report_directory", ["--mode=report", f"--input={workdir}"], 2, r": is a directory; pass a CSV"),
        ("kernels_comma", ["--mode=enumerate", "--kernels=,"], 2, r"^tessel-prof: --kernels=,: an empty pattern would match every kernel; pass"),
        ("analyze_output_full", analyze + ["--tile=128x128", "--output=/dev/full"], 2, "--output=/dev/full: " + out_full),
        ("analyze_json_full", analyze + ["--tile=128x128", "--json=/dev/full"], 2, "--json=/dev/full: " + out_full),
        ("analyze_output_directory", analyze + ["--tile=128x128", f"--output={workdir}"], 2, "cannot open the file for writing"),
        ("enumerate_output_full", ["--mode=enumerate", "--output=/dev/full"], 2, "--output=/dev/full: " + out_full),
        ("report_plot_full", ["--mode=report", f"--input={sample}", "--plot=/dev/full"], 2, "--plot=/dev/full: " + out_full),
        ("report_markdown_full", ["--mode=report", f"--input={sample}", "--markdown=/dev/full"], 2, "--markdown=/dev/full: " + out_full),
        ("report_emit_best_full", ["--mode=report", f"--input={sample}", "--emit-best=/dev/full"], 2, "--emit-best=/dev/full: " + out_full),
        ("report_output_full", ["--mode=report", f"--input={sample}", "--output=/dev/full"], 2, "--output=/dev/full: " + out_full),
        ("profile_without_gpu", ["--m=256", "--n=256", "--k=256"], 3, r"^tessel-prof: profile mode needs a CUDA GPU"),
        ("newline_in_value", analyze + ["--tile=128x128", "--m=1\n2"], 2, r"^tessel-prof: --m=1\\x0a2: "),
    ]
    return cases


def check_fixed_case(case, result):
    """The failure of one fixed case, or None."""
    name, args, status, pattern = case
    try:
        rc, out, err = outcome(result)
        check_clean(rc, out, err, mode_of(args))
        if rc != status or not re.search(pattern, err):
            raise Failure(f"exit {rc} (expected {status}), stderr {err!r} does not match {pattern!r}")
    except Failure as e:
        return f"fixed case {name}: {e}\n  args: {args!r}"
    return None


def run_fixed(runner, workdir, sample):
    cases = fixed_cases(workdir, sample)
    # The largest problem that fits is analyzed exactly: (2^31 - 1)^2 tiles of 1x1.
    largest_csv = os.path.join(workdir, "largest.csv")
    largest = ["--mode=analyze", "--sm-count=132", "--tile=1x1", "--m=2147483647", "--n=2147483647", "--k=1",
               f"--output={largest_csv}"]
    results = runner.run_all([(c[1], None) for c in cases] + [(largest, None), (["--mode=enumerate"], "/dev/full")])
    failures = [f for f in (check_fixed_case(c, r) for c, r in zip(cases, results)) if f]
    try:
        rc, out, err = outcome(results[-2])
        check_clean(rc, out, err, "analyze")
        if rc != 0:
            raise Failure(f"exit {rc}: {err}")
        check_analysis_csv(largest_csv, ({(MAX_EXTENT, MAX_EXTENT, 1, 1)}, {(1, 1, 0)}))
    except Failure as e:
        failures.append(f"fixed case largest_problem: {e}\n  args: {largest!r}")
    # Standard output that cannot be written (> /dev/full) is an error too, not exit 0.
    try:
        rc, _, err = outcome(results[-1])
        if rc == 0 or not re.search(r"^tessel-prof: cannot write the output", err):
            raise Failure(f"exit {rc}, stderr {err!r}")
    except Failure as e:
        failures.append(f"fixed case stdout_full: {e}")
    return failures, len(results)


def with_output(index, args, workdir):
    """An analyze command line writes its CSV, for the property checks."""
    if mode_of(args) == "analyze" and not any(a.startswith("--output") for a in args):
        return args + [f"--output={os.path.join(workdir, f'out_{index}.csv')}"]
    return args


def check_random_case(index, args, kind, expect, result, workdir):
    """The failure of one generated command line, or None."""
    csv_path = os.path.join(workdir, f"out_{index}.csv")
    try:
        rc, out, err = outcome(result)
        check_clean(rc, out, err, mode_of(args))
        if kind in ("valid", "ok") and rc != 0:
            raise Failure(f"a valid command line exited {rc}: {err}")
        if kind == "overflow" and (rc != 2 or "more than 2^63 output tiles" not in err):
            raise Failure(f"a problem of 2^63 tiles or more exited {rc}: {err}")
        if rc == 0 and mode_of(args) == "analyze" and os.path.exists(csv_path):
            check_analysis_csv(csv_path, expect if kind == "valid" else None)
    except Failure as e:
        return f"run {index}: {e}\n  args: {[a[:200] for a in args]!r}"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--exe", required=True, help="the tessel-prof binary")
    ap.add_argument("--limits", required=True, help="tools/prof/core/limits.hpp")
    ap.add_argument("--sample", required=True, help="a profile CSV for report mode (tests/host/data/prof_sample.csv)")
    ap.add_argument("--workdir", required=True, help="a scratch directory (emptied first)")
    ap.add_argument("--runs", type=int, default=220, help="random command lines")
    ap.add_argument("--seed", type=int, default=16)
    opts = ap.parse_args()
    read_limits(opts.limits)

    exe = os.path.abspath(opts.exe)
    sample = os.path.abspath(opts.sample)
    workdir = os.path.abspath(opts.workdir)
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    runner = Runner(exe, workdir)
    failures, runs = run_fixed(runner, workdir, sample)
    # The cases come in order from the seed, whatever order the runs finish in.
    rng = random.Random(opts.seed)
    cases = []
    for i in range(opts.runs):
        args, (kind, expect) = random_case(rng, runner, i, sample)
        cases.append((i, with_output(i, args, workdir), kind, expect))
    results = runner.run_all([(c[1], None) for c in cases])
    failures += [f for f in (check_random_case(*c, r, workdir) for c, r in zip(cases, results)) if f]
    runs += len(cases)

    print(f"prof_fuzz: {runs} runs (seed {opts.seed}), {len(failures)} failures")
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
