#!/usr/bin/env bash
# Compile time of one Hopper kernel configuration with its host code: the seed's example
# (examples/hopper_gemm, one GemmUniversalAdapter instantiation plus the host flow), compiled to an
# object with the flags the build uses, RUNS times; prints each wall time and nvcc's own per-phase
# times (--time) of the last run. Issue 4's budget is 24 s on the 2-core development machine.
#
#   bench/compile_time.sh BUILD_DIR [RUNS]     (BUILD_DIR configured with Hopper enabled)
set -euo pipefail
[[ $# -ge 1 ]] || { sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
build=$(cd "$1" 2> /dev/null && pwd) || { echo "compile_time: no build directory $1 (configure one with cmake first)" >&2; exit 1; }
runs=${2:-3}
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "compile_time: RUNS must be a positive integer, got '$runs'" >&2; exit 2; }
src=$(cd "$(dirname "$0")/.." && pwd)
dir=$build/examples
flags=$dir/CMakeFiles/hopper_gemm.dir/flags.make
[[ -f $flags ]] || { echo "compile_time: $build has no hopper_gemm target (configure with an sm_90a architecture)" >&2; exit 1; }
nvcc=$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
cuda_flags=$(sed -n 's/^CUDA_FLAGS = //p' "$flags")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$dir"
for i in $(seq 1 "$runs"); do
  rm -f "$tmp/phases.csv"  # nvcc --time appends
  start=$(date +%s%N)
  # shellcheck disable=SC2086  # the flags are a list
  "$nvcc" -forward-unknown-to-host-compiler --options-file CMakeFiles/hopper_gemm.dir/includes_CUDA.rsp $cuda_flags \
    -x cu -c "$src/examples/hopper_gemm/hopper_gemm.cu" -o "$tmp/hopper_gemm.o" --time "$tmp/phases.csv"
  ms=$((($(date +%s%N) - start) / 1000000))
  printf 'run %d: %d.%02d s\n' "$i" $((ms / 1000)) $((ms % 1000 / 10))
done
echo "phases of the last run (ms):"
awk -F' , ' 'NR > 1 && $2 != "" { printf "  %-22s %8.0f\n", $2, $(NF - 1) }' "$tmp/phases.csv"
