#!/usr/bin/env bash
# Builds the Python package as a wheel, for installing on another machine (one without a
# compiler or network, such as a GPU host that only runs tests):
#
#   scripts/python-wheel.sh PYTHON OUT_DIR [ARCHS]
#
# PYTHON is the interpreter the wheel is for (its version is the wheel's: python3.12 gives a
# cp312 wheel); nanobind and scikit-build-core must be importable by it. ARCHS are the prebuilt
# cubins' SASS targets (default "90a"; "80;90a" for both, "" for none). The wheel goes to OUT_DIR,
# alone (a folder small enough to copy); the build tree to OUT_DIR.build beside it, so that a
# second run is incremental. Install it where it runs with
#   PYTHON -m pip install --no-deps --no-index --target SITE OUT_DIR/tessel-*.whl
# pytest and what it needs are downloaded beside it (OUT_DIR/test-deps, pure-Python wheels) for
# a machine whose Python lacks pytest and has no network (scripts/python-gpu-check.sh uses them).
set -euo pipefail
[[ $# -ge 2 ]] || { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
py=$1
out=$(mkdir -p "$2" && cd "$2" && pwd)
archs=${3-90a}
src=$(cd "$(dirname "$0")/.." && pwd)
kernels=(-Ccmake.define.TESSEL_PYTHON_KERNELS=OFF)
[[ -n $archs ]] && kernels=(-Ccmake.define.TESSEL_PYTHON_KERNELS=ON "-Ccmake.define.TESSEL_PYTHON_KERNEL_ARCHS=$archs")
rm -f "$out"/tessel-*.whl
"$py" -m pip wheel --disable-pip-version-check --no-build-isolation --no-deps -w "$out" "-Cbuild-dir=$out.build" "${kernels[@]}" "$src"
"$py" -m pip download --disable-pip-version-check --quiet --only-binary=:all: -d "$out/test-deps" pytest
ls -l "$out"/tessel-*.whl "$out"/test-deps
