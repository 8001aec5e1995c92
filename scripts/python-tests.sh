#!/usr/bin/env bash
# The Python package's tests, as CTest runs them (tests/python/CMakeLists.txt):
#
#   scripts/python-tests.sh install BUILD_DIR   pip install . into BUILD_DIR/python-site
#   scripts/python-tests.sh test BUILD_DIR [PYTEST_ARGS...]
#
# `install` first installs, by name from PyPI, whichever of nanobind, scikit-build-core and
# pytest the interpreter lacks (into BUILD_DIR/python-deps, nothing system-wide), then builds
# the package with them (no build isolation, so no download of its own) in BUILD_DIR/python-build,
# which makes a rebuild incremental. `test` runs pytest on that installed copy, not on the
# source tree. GPU tests skip themselves without PyTorch and a CUDA device.
#
# Environment: PYTHON (default python3); TESSEL_PYTHON_KERNEL_ARCHS, the prebuilt cubins' SASS
# targets (default 90a; empty: none, every configuration compiled on first use);
# TESSEL_PYTHON_KERNEL_FILTER, a regular expression choosing which prebuilt kernels to build
# (default: all of them, registry.configs()).
set -euo pipefail
[[ $# -ge 2 ]] || { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
mode=$1
build=$(mkdir -p "$2" && cd "$2" && pwd)
shift 2
src=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-python3}
site=$build/python-site
deps=$build/python-deps
export PYTHONPATH=$site:$deps${PYTHONPATH:+:$PYTHONPATH}
export TESSEL_CACHE_DIR=${TESSEL_CACHE_DIR:-$build/python-jit-cache}

case $mode in
  install)
    missing=()
    for pair in nanobind:nanobind scikit_build_core:scikit-build-core pytest:pytest; do
      "$py" -c "import ${pair%%:*}" 2> /dev/null || missing+=("${pair#*:}")
    done
    if ((${#missing[@]})); then
      echo "python-tests: installing ${missing[*]} into $deps"
      "$py" -m pip install --quiet --disable-pip-version-check --target "$deps" "${missing[@]}"
    fi
    archs=${TESSEL_PYTHON_KERNEL_ARCHS-90a}
    kernels=(-Ccmake.define.TESSEL_PYTHON_KERNELS=OFF)
    [[ -n $archs ]] && kernels=(-Ccmake.define.TESSEL_PYTHON_KERNELS=ON "-Ccmake.define.TESSEL_PYTHON_KERNEL_ARCHS=$archs"
                                "-Ccmake.define.TESSEL_PYTHON_KERNEL_FILTER=${TESSEL_PYTHON_KERNEL_FILTER:-.}")
    rm -rf "$site"
    "$py" -m pip install --disable-pip-version-check --no-build-isolation --no-deps --target "$site" \
      "-Cbuild-dir=$build/python-build" "${kernels[@]}" "$src"
    ;;
  test)
    cd "$build"
    # -p no:cacheprovider: write nothing into the source tree.
    exec "$py" -m pytest -p no:cacheprovider --rootdir "$src" -c "$src/pyproject.toml" "$src/python/tests" "$@"
    ;;
  *)
    echo "python-tests: unknown mode $mode (install or test)" >&2
    exit 2
    ;;
esac
