#!/usr/bin/env bash
# Runs gemm_bench from an existing build and prints what bench/RESULTS.md records next to the
# numbers: date, GPU, driver, CUDA version, clocks and power state. Builds nothing.
#
#   bench/run.sh BUILD_DIR [OUT_DIR] [gemm_bench options...]
#
# Writes OUT_DIR/device.txt (the device summary), OUT_DIR/gemm_bench.md (the table) and
# OUT_DIR/results_entry.md (both, as one section to paste into bench/RESULTS.md). Exit status is
# gemm_bench's: 0 all verified and timed, 1 a verification failed, 2 no GPU, 3 a CUDA error.
set -euo pipefail

if [[ $# -lt 1 || "$1" == -h || "$1" == --help ]]; then
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
build=$1
out=${2:-.}
shift $(( $# >= 2 ? 2 : 1 ))
exe=$build/bench/gemm_bench
[[ -x $exe ]] || { echo "run.sh: $exe not found; build the gemm_bench target first" >&2; exit 2; }
mkdir -p "$out"

{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  if command -v nvidia-smi > /dev/null; then
    nvidia-smi --query-gpu=name,pci.bus_id,driver_version,memory.total,power.limit,clocks.max.sm,clocks.max.mem,clocks.sm,temperature.gpu,persistence_mode,mig.mode.current \
               --format=csv
    # CUDA version the driver supports, and the state that moves performance numbers.
    nvidia-smi -q | grep -E '^\s*(Product Name|Driver Version|CUDA Version|Compute Mode|Persistence Mode|Performance State|Power Limit|Current Power Limit|ECC Mode|Clocks Event Reasons Active|Clocks Throttle Reasons Active)' || true
  else
    echo "nvidia-smi not found"
  fi
  command -v nvcc > /dev/null && nvcc --version | tail -n 2 || echo "nvcc: not on PATH (not needed to run)"
  echo "cuBLAS linked: $(ldd "$exe" | grep -o 'libcublas\.so[^ ]* => [^ ]*' | head -n 1 || echo unknown)"
} | tee "$out/device.txt"

status=0
"$exe" --out "$out/gemm_bench.md" "$@" || status=$?

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -n 1 || echo "unknown GPU")
{
  echo "## $(date -u +%Y-%m-%d), ${gpu}"
  echo
  echo '```'
  cat "$out/device.txt"
  echo '```'
  echo
  [[ -f $out/gemm_bench.md ]] && cat "$out/gemm_bench.md"
} > "$out/results_entry.md"
echo "run.sh: wrote $out/results_entry.md (paste it into bench/RESULTS.md); gemm_bench exit status $status"
exit $status
