#!/usr/bin/env bash
# Copies what scripts/gpu_check.sh runs out of a build directory into a small one with the same
# layout: the GPU test binaries, the GEMM argument-check test, the two seed examples and the
# benchmark (about 30 MB, where a whole build directory is hundreds). For moving the binaries to
# a GPU machine without the object files; builds nothing.
#
#   scripts/gpu_stage.sh BUILD_DIR STAGE_DIR      then   scripts/gpu_check.sh STAGE_DIR OUT_DIR
set -euo pipefail
[[ $# -eq 2 ]] || { sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
build=$1
stage=$2
mkdir -p "$stage/tests/gpu" "$stage/tests/host" "$stage/examples" "$stage/bench"
n=0
for exe in "$build"/tests/gpu/*; do
  if [[ -f $exe && -x $exe ]]; then cp "$exe" "$stage/tests/gpu/"; n=$((n + 1)); fi
done
[[ $n -gt 0 ]] || { echo "gpu_stage: no test binaries in $build/tests/gpu" >&2; exit 1; }
copy() { if [[ -x $build/$1 ]]; then cp "$build/$1" "$stage/$1"; else echo "gpu_stage: $build/$1 not built" >&2; exit 1; fi; }
copy tests/host/gemm_can_implement
copy examples/gemm_sm75
copy examples/gemm_sm80
copy bench/gemm_bench
du -sh "$stage"
