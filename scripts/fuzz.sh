#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ in build-fuzz with clang and runs each
# for SECONDS (default 60), FUZZ_JOBS at a time (default: one per CPU), then
# prints what each did: executions, coverage, corpus and crashes.
#
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET]
#
# A crash, leak, timeout or out-of-memory input is written to
# fuzz/regressions/<target>/ (committed: tests/unit/fuzz_regressions_test.cpp
# replays every file there). The corpus grows in build-fuzz/corpus/<target>/
# and each run's log is build-fuzz/logs/<target>.log. Exit status 1 if any
# target found something.
set -euo pipefail

seconds=${1:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-fuzz
jobs=${FUZZ_JOBS:-$(nproc)}
targets=(mnist_idx cifar10 ptb results_jsonl manifest environment_options)

command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ not found: run scripts/install-deps.sh" >&2; exit 2; }
cmake -S "$root/fuzz" -B "$build" -DDLCBENCH_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE="" >/dev/null
cmake --build "$build" -j"$jobs"
"$build/write_seeds" "$build/corpus"
mkdir -p "$build/logs"

# One target: its run's log, and a marker to tell its new findings from old.
run_target() {
  local t=$1
  mkdir -p "$root/fuzz/regressions/$t" "$build/corpus/$t"
  touch "$build/logs/$t.start"
  local started=$SECONDS
  # -timeout: an input that takes 10 s is a hang; -rss_limit_mb: one that
  # needs 2 GiB is an out-of-memory finding. Both land as artifacts.
  "$build/${t}_fuzzer" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
    -max_len=4096 -artifact_prefix="$root/fuzz/regressions/$t/" "$build/corpus/$t" >"$build/logs/$t.log" 2>&1 || true
  echo $((SECONDS - started)) >"$build/logs/$t.seconds"
}

for t in "${targets[@]}"; do
  run_target "$t" &
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
done
wait

# The last value libFuzzer printed for a field ("cov: 123"), or "-".
last_field() { grep -o "$2: [0-9]*" "$1" | tail -1 | awk '{print $2}' || true; }
stat_value() { grep "^stat::$2:" "$1" | tail -1 | awk '{print $2}' || true; }

found_any=0
printf '%-20s %8s %12s %8s %6s %8s %7s %8s\n' target seconds executions exec/s cov features corpus crashes
for t in "${targets[@]}"; do
  log=$build/logs/$t.log
  crashes=$(find "$root/fuzz/regressions/$t" -type f -newer "$build/logs/$t.start" \
    \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  [ "$crashes" -eq 0 ] || found_any=1
  printf '%-20s %8s %12s %8s %6s %8s %7s %8s\n' "$t" "$(cat "$build/logs/$t.seconds")" \
    "$(stat_value "$log" number_of_executed_units)" "$(stat_value "$log" average_exec_per_sec)" \
    "$(last_field "$log" cov)" "$(last_field "$log" ft)" "$(find "$build/corpus/$t" -type f | wc -l)" "$crashes"
done
[ "$found_any" -eq 0 ] || echo "fuzz.sh: findings in fuzz/regressions/ (logs in $build/logs/)" >&2
exit "$found_any"
