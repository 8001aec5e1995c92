#!/usr/bin/env bash
# Copies what scripts/gpu_check.sh runs out of a build directory into a small one with the same
# layout: the files the GPU-labelled tests name inside the build (their binaries, tools they
# drive), the GEMM argument-check test, the two seed examples and the benchmark, plus
# gpu_tests.sh, the tests' commands with the build and source directories as variables
# (scripts/gpu_manifest.py). Tens of MB where a build directory is hundreds; for moving the
# binaries to a GPU machine without the object files. Builds nothing; run it where the build was
# configured.
#
#   scripts/gpu_stage.sh BUILD_DIR STAGE_DIR      then   scripts/gpu_check.sh STAGE_DIR OUT_DIR
set -euo pipefail
[[ $# -eq 2 ]] || { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
build=$(cd "$1" && pwd)
stage=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$stage"
copy() {
  if [[ -f $build/$1 ]]; then
    mkdir -p "$stage/$(dirname "$1")"
    cp -p "$build/$1" "$stage/$1"
  else
    echo "gpu_stage: $build/$1 not built" >&2
    exit 1
  fi
}
files=$("$here/gpu_manifest.py" "$build" --files)
[[ -n $files ]] || { echo "gpu_stage: the build has no GPU-labelled tests" >&2; exit 1; }
while IFS= read -r f; do copy "$f"; done <<< "$files"
"$here/gpu_manifest.py" "$build" > "$stage/gpu_tests.sh"
copy tests/host/gemm_can_implement
copy examples/gemm_sm75
copy examples/gemm_sm80
copy bench/gemm_bench
echo "gpu_stage: $(grep -c '^gpu_tests+=' "$stage/gpu_tests.sh") GPU tests, $(du -sh "$stage" | cut -f1) in $stage"
