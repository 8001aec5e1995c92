#!/usr/bin/env bash
# Everything that needs a GPU, from an existing build: every test labelled gpu, the two seed
# examples and the benchmark. Builds nothing; writes one log per step into OUT_DIR and a summary
# (OUT_DIR/summary.txt). Tests run from a manifest of their commands (scripts/gpu_manifest.py)
# rather than through ctest, so BUILD_DIR may be a build copied from the machine that configured
# it, or the binaries alone as scripts/gpu_stage.sh leaves them.
#
#   scripts/gpu_check.sh BUILD_DIR OUT_DIR [--no-bench] [--sanitize] [--allow-skips]
#
#   --no-bench     skip the benchmark (it takes a few minutes of device time)
#   --sanitize     also run small GEMM sweeps under compute-sanitizer (memcheck; Hopper: also
#                  racecheck and synccheck)
#   --allow-skips  do not count a skipped GPU test as a failure (by default it is one: on a GPU
#                  machine every GPU test should run)
#
# Exit status: 0 every step passed, 1 some step failed (see the summary), 2 bad usage.
set -uo pipefail

usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[[ $# -ge 2 ]] || usage
build=$(cd "$1" 2> /dev/null && pwd) || { echo "gpu_check: no build directory $1" >&2; exit 2; }
out=$2
shift 2
bench=1 sanitize=0 allow_skips=0
for a in "$@"; do
  case $a in
    --no-bench) bench=0 ;;
    --sanitize) sanitize=1 ;;
    --allow-skips) allow_skips=1 ;;
    *) usage ;;
  esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
summary=$out/summary.txt
: > "$summary"
failed=0

note() { printf '%-40s %s\n' "$1" "$2" | tee -a "$summary"; }

# run NAME WORKDIR SKIP_REGEX COMMAND... : log to OUT/NAME.log, record PASS / FAIL / SKIPPED.
# A test is skipped when its output matches SKIP_REGEX (gtest's "[  SKIPPED ]" by default).
run() {
  local name=$1 wd=$2 skip_re=$3
  shift 3
  local log=$out/$name.log start=$SECONDS status=0
  echo "== $name (in $wd): $*" > "$log"
  (cd "$wd" && "$@") >> "$log" 2>&1 || status=$?
  local took=$((SECONDS - start))s
  if [[ $status -ne 0 ]]; then
    note "$name" "FAIL (exit $status, $took)"
    failed=1
  elif [[ -n $skip_re ]] && grep -qE -- "$skip_re" "$log"; then
    if [[ $allow_skips -eq 1 ]]; then
      note "$name" "PASS with skipped tests ($took)"
    else
      note "$name" "FAIL: tests were skipped; on a GPU machine all must run ($took)"
      failed=1
    fi
  else
    note "$name" "PASS ($took)"
  fi
}
gtest_skip='^\[  SKIPPED \]'

{
  echo "build: $build"
  date -u +%Y-%m-%dT%H:%MZ
  if command -v nvidia-smi > /dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1
  else
    echo "nvidia-smi not found: is this the GPU machine?"
  fi
} | tee "$out/device.txt"

# ---- GPU tests: every test labelled gpu, from the build's manifest --------------------------
# A staged build carries gpu_tests.sh (scripts/gpu_stage.sh); an unstaged one is read through
# ctest here; without either, every binary under tests/gpu is taken for a gtest program.
manifest=
if [[ -f $build/gpu_tests.sh ]]; then
  manifest=$build/gpu_tests.sh
elif [[ -f $build/CMakeCache.txt ]] && command -v python3 > /dev/null && command -v ctest > /dev/null &&
     python3 "$here/scripts/gpu_manifest.py" "$build" > "$out/gpu_tests.sh" 2> "$out/gpu_manifest.log"; then
  manifest=$out/gpu_tests.sh
fi
if [[ -n $manifest ]]; then
  BUILD=$build
  SRC=$here
  # shellcheck disable=SC1090
  source "$manifest"
  for t in "${gpu_tests[@]}"; do
    declare -n cmd="gpu_cmd_$t" wd="gpu_wd_$t" skips="gpu_skip_$t"
    # A tool outside the build (cmake) is looked up on PATH when its recorded path is absent.
    prog=${cmd[0]}
    [[ -x $prog ]] || prog=$(command -v "$(basename "$prog")" || echo "$prog")
    skip_re=$(IFS='|'; echo "${skips[*]}")
    run "test_$t" "$wd" "$skip_re" "$prog" "${cmd[@]:1}"
    unset -n cmd wd skips
  done
else
  echo "gpu_check: no test manifest (see $out/gpu_manifest.log); running every binary under tests/gpu" | tee -a "$summary"
  shopt -s nullglob
  for exe in "$build"/tests/gpu/*; do
    [[ -f $exe && -x $exe ]] && run "test_$(basename "$exe")" "$build/tests/gpu" "$gtest_skip" "$exe"
  done
fi
# The argument checks' one device-dependent case (valid arguments reach the arch gate).
if [[ -x $build/tests/host/gemm_can_implement ]]; then
  run "test_gemm_can_implement" "$build" "$gtest_skip" "$build/tests/host/gemm_can_implement"
else
  note "test_gemm_can_implement" "FAIL: not built"
  failed=1
fi

# ---- The seed examples: both must verify on this GPU (an sm_80 or newer device runs both) ----
for ex in gemm_sm75 gemm_sm80; do
  if [[ -x $build/examples/$ex ]]; then
    run "example_$ex" "$build" "" "$build/examples/$ex"
  else
    note "example_$ex" "FAIL: $build/examples/$ex not built"
    failed=1
  fi
done

# ---- Optional: memcheck on small ragged problems (out-of-bounds reads or writes at the edges) ----
if [[ $sanitize -eq 1 ]]; then
  if command -v compute-sanitizer > /dev/null; then
    filter='*ArBcCr__13x17x24*:*AcBrCc__129x127x40*:*AcBcCc_two_stage__200x136x72*:*__8x1x16*'
    run "memcheck_gemm_sm80_gpu" "$build" "$gtest_skip" compute-sanitizer --tool memcheck --error-exitcode 1 \
      "$build/tests/gpu/gemm_sm80_gpu" --gtest_filter="$filter"
    run "memcheck_gemm_sm75_gpu" "$build" "$gtest_skip" compute-sanitizer --tool memcheck --error-exitcode 1 \
      "$build/tests/gpu/gemm_sm75_gpu" --gtest_filter='*ArBcCr__13x17x24*:*AcBrCr__129x127x40*'
    # The Hopper kernels: every tool on the layout, schedule, cluster, epilogue and batch sweep,
    # and on split-K / stream-K (the fixup's atomics and fences).
    for tool in memcheck racecheck synccheck; do
      run "${tool}_gemm_sm90" "$build" "$gtest_skip" compute-sanitizer --tool $tool --error-exitcode 1 \
        "$build/tests/gpu/gemm_sm90" --gtest_filter='*AllLayouts*:*Pingpong*:*Cluster*:*Direct*:*Batched'
      run "${tool}_gemm_sm90_stream_k" "$build" "$gtest_skip" compute-sanitizer --tool $tool --error-exitcode 1 \
        "$build/tests/gpu/gemm_sm90_stream_k" --gtest_filter='*Every*:*Narrow*'
    done
  else
    note "memcheck" "not run: compute-sanitizer not on PATH"
  fi
fi

# ---- The benchmark: bench/run.sh writes the table and a section for bench/RESULTS.md ----
if [[ $bench -eq 1 ]]; then
  run "bench" "$here" "" "$here/bench/run.sh" "$build" "$out/bench"
fi

echo
echo "summary ($summary):"
cat "$summary"
exit $failed
