#!/usr/bin/env bash
# The Python package on a GPU machine, from a wheel built elsewhere (scripts/python-wheel.sh):
# installs it into OUT_DIR/site (nothing system-wide, no network), runs the whole pytest suite
# and the Python benchmark, one log each, and fails if a GPU test was skipped.
#
#   scripts/python-gpu-check.sh WHEEL OUT_DIR [PYTHON]
#
# Needs PyTorch with CUDA in PYTHON (default python3); pytest too, or the wheels of it that
# python-wheel.sh puts beside the wheel (test-deps/). Writes OUT_DIR/pytest.log,
# OUT_DIR/python_gemm.md (bench/python_gemm.py) and OUT_DIR/summary.txt.
set -uo pipefail
[[ $# -ge 2 ]] || { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
wheel=$1
out=$(mkdir -p "$2" && cd "$2" && pwd)
py=${3:-python3}
src=$(cd "$(dirname "$0")/.." && pwd)
site=$out/site
rm -rf "$site"
"$py" -m pip install --disable-pip-version-check --no-deps --no-index --target "$site" "$wheel" > "$out/install.log" 2>&1 ||
  { cat "$out/install.log"; exit 1; }
if ! "$py" -c "import pytest" 2> /dev/null; then
  "$py" -m pip install --disable-pip-version-check --no-index --find-links "$(dirname "$wheel")/test-deps" --target "$site" pytest \
    >> "$out/install.log" 2>&1 || { cat "$out/install.log"; exit 1; }
fi
export PYTHONPATH=$site${PYTHONPATH:+:$PYTHONPATH}
export TESSEL_CACHE_DIR=$out/jit-cache
cd "$out"
status=0
"$py" -m pytest -p no:cacheprovider --rootdir "$src" -c "$src/pyproject.toml" "$src/python/tests" -rs -q > pytest.log 2>&1 || status=1
tail -n 25 pytest.log
# On a GPU machine no GPU test may be skipped (the host tests' own skips are listed by -rs).
if grep -E "^SKIPPED .*test_gemm_gpu" pytest.log; then
  echo "python-gpu-check: GPU tests were skipped" >&2
  status=1
fi
"$py" "$src/bench/python_gemm.py" --out "$out/python_gemm.md" > bench.log 2>&1 || status=1
cat bench.log
{
  echo "pytest: $(tail -n 1 pytest.log)"
  echo "bench: $([[ -s $out/python_gemm.md ]] && echo "$out/python_gemm.md" || echo failed, see bench.log)"
} | tee summary.txt
exit $status
