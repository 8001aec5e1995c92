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
if ! command -v nvcc >/dev/null 2>&1; then
  echo "install-deps: nvcc not found on PATH; CUDA examples and tests will be skipped" >&2
fi
