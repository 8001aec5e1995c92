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
# and prints the markdown table last (eight files at most, as a remote run returns).
#
#   bench/profile_standard.sh TESSEL_PROF_OR_BUILD_DIR [OUT_DIR] [extra tessel-prof options...]
#
# Builds nothing. Exit status is tessel-prof's: 0 every row verified, 1 a verification failed
# (the files are still written), 2 a bad option, 3 no GPU.
set -euo pipefail

if [[ $# -lt 1 || "$1" == -h || "$1" == --help ]]; then
  sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
prof=$1
[[ -d $prof ]] && prof=$prof/tools/prof/tessel-prof
out=${2:-.}
shift $(( $# >= 2 ? 2 : 1 ))
here=$(cd "$(dirname "$0")" && pwd)
[[ -x $prof ]] || { echo "profile_standard.sh: $prof is not an executable; build the tessel-prof target first" >&2; exit 2; }
mkdir -p "$out"

"$prof" --device-info > "$out/log.txt" 2>&1 || true

status=0
"$prof" --mode=profile --shapes-file="$here/shapes.txt" --kernels=_tn --providers=tessel,cublas \
        --verification-providers=cublas --warmup-iterations=10 --profiling-iterations=50 \
        --output="$out/standard.csv" --json="$out/standard.json" --plot="$out/standard.svg" \
        --markdown="$out/standard.md" --emit-best="$out/best.cmake" --device-profile="$out/device.txt" \
        "$@" >> "$out/log.txt" 2>&1 || status=$?

if [[ -f $out/standard.svg ]] && command -v rsvg-convert > /dev/null; then
  rsvg-convert -o "$out/standard.png" "$out/standard.svg"
fi
# The plot and the table can be regenerated later from the CSV alone:
#   tessel-prof --mode=report --input=OUT_DIR/standard.csv --plot=... --markdown=... --emit-best=...
# The summary last: a remote run's reply keeps only the end of the output.
[[ -f $out/standard.md ]] && cat "$out/standard.md"
[[ $status -eq 0 ]] || { echo "profile_standard.sh: tessel-prof exited with $status; the end of $out/log.txt:"; tail -5 "$out/log.txt"; }
exit $status
