#!/usr/bin/env bash
# The null experiment: one environment measured twice (`--envs host,host`),
# REPS times with seeds 1..REPS, and how often dlcbench calls the difference
# "no measurable overhead", and in how many its report claims a cause for
# the difference ("explained by"). A correct 5%-level test calls a
# difference in 1 of 20 on average, with binomial spread; a cause should be
# claimed in at most that many.
#
#   bench/null_experiment.sh [REPS] [WORKLOAD] [extra dlcbench run args...]
#   bench/null_experiment.sh 20 startup --starts 5
#   bench/null_experiment.sh 20 fcn5 --data synthetic --batch 16 --iters 5
#   RUNS=20 bench/null_experiment.sh 20 fcn5 --data synthetic --batch 16
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-20}
workload=${2:-startup}
shift $(( $# >= 2 ? 2 : $# ))
out=$(mktemp -d "${TMPDIR:-/tmp}/dlcbench-null.XXXXXX")
trap 'rm -rf "$out"' EXIT
runs=${RUNS:-10}
none=0
claimed=0
for seed in $(seq 1 "$reps"); do
  report=$(build/dlcbench run --workloads "$workload" --envs host,host --runs "$runs" --seed "$seed" --out "$out" "$@" \
             2>/dev/null || true)
  line=$(grep "host#2 vs host:" <<<"$report" | head -1)
  # The comparison's "explained by" line follows it when a cause is claimed.
  cause=$(grep -A1 "host#2 vs host:" <<<"$report" | grep -m1 "explained by" || true)
  echo "seed $seed: ${line#*: }${cause:+ | $cause}"
  case "$line" in *"no measurable overhead"*) none=$((none + 1)) ;; esac
  [ -n "$cause" ] && claimed=$((claimed + 1))
done
echo "no measurable overhead in $none of $reps repetitions ($workload, host vs host, $runs runs a side)"
echo "a cause claimed in $claimed of $reps repetitions"
