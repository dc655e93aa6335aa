#!/usr/bin/env bash
# Less noise at the source: which setting lowers the run-to-run noise on
# this machine? Each variant is a `dlcbench calibrate` (the host against a
# copy of itself, interleaved, ROUNDS rounds), and the variants take turns,
# REPS times, so drift of the machine spreads over all of them. Printed per
# variant: the A/A noise floor (the paired interval's half-width) and the
# CV of run values, each the median over the repetitions.
#
#   bench/noise_sources.sh [REPS=3] [ROUNDS=12] [extra dlcbench calibrate args...]
#   bench/noise_sources.sh 3 12 --workloads fcn5
#
# Variants: neither setting (--no-pin-threads --no-hold-samples); pinning
# alone (OpenMP threads one per CPU); held samples alone (no sample line read
# or written while batches are timed); both (the defaults since they were
# measured here); and both with one thread fewer than the CPUs (a different
# workload: a thread count is part of it, so that row is a recommendation to
# measure, never a default).
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-3}
rounds=${2:-12}
shift $(( $# >= 2 ? 2 : $# ))
extra=("$@")
[ ${#extra[@]} -eq 0 ] && extra=(--workloads fcn5)
out=$(mktemp -d "${TMPDIR:-/tmp}/dlcbench-noise.XXXXXX")
trap 'rm -rf "$out"' EXIT
cpus=$(nproc)
fewer=$(( cpus > 1 ? cpus - 1 : 1 ))
variants=("neither" "pin" "hold" "pin+hold" "threads=$fewer")
args_of() {
  case "$1" in
    neither) echo --no-pin-threads --no-hold-samples ;;
    pin) echo --pin-threads --no-hold-samples ;;
    hold) echo --no-pin-threads --hold-samples ;;
    pin+hold) echo --pin-threads --hold-samples ;;
    threads=*) echo --threads "${1#threads=}" ;;
  esac
}
declare -A floors cvs
for rep in $(seq 1 "$reps"); do
  for v in "${variants[@]}"; do
    # shellcheck disable=SC2046
    log=$(build/dlcbench calibrate "${extra[@]}" --runs "$rounds" --seed "$rep" --out "$out" $(args_of "$v") 2>&1 || true)
    dir=$(sed -n 's/^results: //p' <<<"$log" | tail -1)
    if [ -z "$dir" ]; then
      # A failed calibration is a set-up problem (no data, no build) that
      # every other variant would repeat: stop with its message.
      echo "rep $rep, $v: the calibration failed:" >&2
      tail -5 <<<"$log" >&2
      exit 1
    fi
    read -r floor cv < <(build/dlcbench report "$dir" --format json | python3 -c '
import json, sys
n = json.load(sys.stdin).get("noise_floors", [])
print(n[0]["half_width_percent"] if n and n[0]["half_width_percent"] is not None else "nan",
      100 * n[0]["run_cv"] if n and n[0]["run_cv"] is not None else "nan")')
    echo "rep $rep, $v: noise floor +-$floor%, run CV $cv%"
    floors[$v]+="$floor "
    cvs[$v]+="$cv "
    rm -rf "$dir"
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {if (NR == 0) print "nan"; else if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
echo
echo "median over $reps repetitions of $rounds rounds (${extra[*]}):"
for v in "${variants[@]}"; do
  printf '  %-12s noise floor +-%.2f%%   run CV %.2f%%\n' "$v" "$(median <<<"${floors[$v]:-}")" "$(median <<<"${cvs[$v]:-}")"
done
