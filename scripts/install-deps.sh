#!/usr/bin/env bash
# Install, by Debian package name, what building and testing tessel needs. Packages already
# present are left alone, so this is quick (and offline) on a machine that has them.
# The CUDA toolkit (nvcc 13) is expected on PATH; without it the CUDA examples and tests are
# skipped at configure time and everything else still builds.
set -euo pipefail
packages=(cmake g++ make libgtest-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
# The SASS audit disassembles with cuobjdump. Toolkits installed without it get it from PyPI
# (the 13.2 disassembler reads nvcc 13.0 objects); CMake finds it under site-packages.
if ! command -v cuobjdump >/dev/null 2>&1 && ! python3 - <<'PY' >/dev/null 2>&1
import os, sys, nvidia
sys.exit(0 if any(os.path.exists(os.path.join(p, "cu13", "bin", "cuobjdump")) for p in nvidia.__path__) else 1)
PY
then
  python3 -m pip install --quiet 'nvidia-cuda-cuobjdump>=13.2,<14' 'nvidia-cuda-nvdisasm>=13.2,<14' ||
    echo "install-deps: could not install cuobjdump from PyPI; the SASS tests will fail" >&2
fi
if ! command -v nvcc >/dev/null 2>&1; then
  echo "install-deps: nvcc not found on PATH; CUDA examples and tests will be skipped" >&2
fi
