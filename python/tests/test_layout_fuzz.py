"""Fuzzing tessel.layout: random valid layouts with the algebra's laws checked on them, and every
function given hostile values (None, floats, strings, huge integers, lists that contain
themselves, tuples 40,000 deep). Each run is a child process (layout_fuzz.py) with a fixed seed,
so that a segfault or a hang fails the test, and names the case, instead of ending pytest.

A case passes when the call returns or raises a ValueError or TypeError (LayoutError and
ExpressionError are ValueErrors); anything else, a wrong value on a valid layout, a signal or
more than the time limit fails it.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

DRIVER = Path(__file__).with_name("layout_fuzz.py")
TIME_LIMIT_S = 120  # a hang; the runs take a few seconds


def run_driver(mode: str, seed: int, cases: int) -> dict:
    try:
        p = subprocess.run([sys.executable, str(DRIVER), mode, str(seed), str(cases)], capture_output=True, text=True,
                           timeout=TIME_LIMIT_S)
    except subprocess.TimeoutExpired as e:
        last = (e.stdout or b"").decode(errors="replace").strip().splitlines()[-1:] if e.stdout else ["(no case started)"]
        pytest.fail(f"the {mode} fuzz run (seed {seed}) hung for {TIME_LIMIT_S} s in {last}")
    lines = p.stdout.strip().splitlines()
    if p.returncode != 0 or not lines or not lines[-1].startswith("RESULT "):
        last = lines[-1] if lines else "(no case started)"
        pytest.fail(f"the {mode} fuzz run (seed {seed}) ended with exit status {p.returncode} in {last}\n{p.stderr[-3000:]}")
    return json.loads(lines[-1][len("RESULT "):])


@pytest.mark.parametrize("seed", [16, 1601])
def test_valid_layouts_obey_the_algebra(seed):
    result = run_driver("valid", seed, 300)
    assert not result["failures"], "\n".join(result["failures"][:20])
    assert result["refused"] < 300 * 7 // 2  # most laws were checked, not refused


@pytest.mark.parametrize("seed", [16, 1601])
def test_hostile_values_are_refused_cleanly(seed):
    result = run_driver("malformed", seed, 3000)
    assert not result["failures"], "\n".join(result["failures"][:20])
    assert 0 < result["refused"] < 3000  # both refusals and results happened
