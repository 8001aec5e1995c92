#!/usr/bin/env bash
# Runs the standard problem set (bench/shapes.txt) through tessel-prof, every compiled TN kernel
# side by side with cuBLAS in one process, and writes into OUT_DIR:
#
#   standard.csv       one row per (problem, kernel or cuBLAS): runtime, TFLOP/s, GB/s, cuBLAS's
#                      TFLOP/s, the ratio, verification
#   standard.json      the same with the run's metadata (date, GPU, driver, CUDA, cuBLAS)
#   standard.svg/.png  TFLOP/s per problem for each kernel and cuBLAS (PNG when rsvg-convert exists)
#   standard.md        per problem the best verified kernel against cuBLAS, for bench/RESULTS.md
#   best.cmake         the winners: cmake -DTESSEL_PROF_KERNEL_LIST=OUT_DIR/best.cmake builds only them
#   device.txt         measured copy bandwidth and matrix rate, for tessel-prof --mode=analyze
#   log.txt            the GPU's properties, then tessel-prof's full table and messages
#
# and prints the markdown table last (eight files at most, as a remote run returns). The FP8 and
# fused-epilogue kernels (names with e4m3) are left out of it.
#
# With --fp8 first, it runs those instead, with the plain kernels of their tiles beside them
# (tessel_sm90_gemm_bf16_bf16_bf16_128x256x64_*: the fused rows' own plain GEMM), on
# bench/shapes_fp8.txt, and writes the same files named fp8.* (fp8_best.cmake, fp8_device.txt,
# fp8_log.txt).
#
#   bench/profile_standard.sh [--fp8] TESSEL_PROF_OR_BUILD_DIR [OUT_DIR] [extra tessel-prof options...]
#
# Builds nothing. Exit status is tessel-prof's: 0 every row verified, 1 a verification failed
# (the files are still written), 2 a bad option, 3 no GPU.
set -euo pipefail

if [[ $# -lt 1 || "$1" == -h || "$1" == --help ]]; then
  sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
set_name=standard
if [[ $1 == --fp8 ]]; then
  set_name=fp8
  shift
  [[ $# -ge 1 ]] || { echo "profile_standard.sh: --fp8 needs the tessel-prof binary or build directory after it" >&2; exit 2; }
fi
prof=$1
[[ -d $prof ]] && prof=$prof/tools/prof/tessel-prof
out=${2:-.}
shift $(( $# >= 2 ? 2 : 1 ))
here=$(cd "$(dirname "$0")" && pwd)
[[ -x $prof ]] || { echo "profile_standard.sh: $prof is not an executable; build the tessel-prof target first" >&2; exit 2; }
mkdir -p "$out"

if [[ $set_name == fp8 ]]; then
  shapes=$here/shapes_fp8.txt
  select=(--kernels=e4m3)
  plain=tessel_sm90_gemm_bf16_bf16_bf16_128x256x64_
  if "$prof" --mode=enumerate --kernels=$plain > /dev/null 2>&1; then select=(--kernels=e4m3,$plain); fi
  prefix=fp8_
else
  shapes=$here/shapes.txt
  select=(--kernels=_tn)
  # --ignore-kernels must match a compiled kernel, so it is passed only where FP8 ones are compiled in.
  if "$prof" --mode=enumerate --kernels=e4m3 > /dev/null 2>&1; then select+=(--ignore-kernels=e4m3); fi
  prefix=
fi
log=$out/${prefix}log.txt
"$prof" --device-info > "$log" 2>&1 || true

status=0
"$prof" --mode=profile --shapes-file="$shapes" "${select[@]}" --providers=tessel,cublas \
        --verification-providers=cublas --warmup-iterations=10 --profiling-iterations=50 \
        --output="$out/$set_name.csv" --json="$out/$set_name.json" --plot="$out/$set_name.svg" \
        --markdown="$out/$set_name.md" --emit-best="$out/${prefix}best.cmake" --device-profile="$out/${prefix}device.txt" \
        "$@" >> "$log" 2>&1 || status=$?

if [[ -f $out/$set_name.svg ]] && command -v rsvg-convert > /dev/null; then
  rsvg-convert -o "$out/$set_name.png" "$out/$set_name.svg"
fi
# The plot and the table can be regenerated later from the CSV alone:
#   tessel-prof --mode=report --input=OUT_DIR/standard.csv --plot=... --markdown=... --emit-best=...
# The summary last: a remote run's reply keeps only the end of the output.
[[ -f $out/$set_name.md ]] && cat "$out/$set_name.md"
[[ $status -eq 0 ]] || { echo "profile_standard.sh: tessel-prof exited with $status; the end of $log:"; tail -5 "$log"; }
exit $status
