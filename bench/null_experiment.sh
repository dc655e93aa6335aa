#!/usr/bin/env bash
# The null experiment: one environment measured twice (`--envs host,host`),
# REPS times with seeds 1..REPS, and how often dlcbench calls the difference
# "no measurable overhead". A correct 5%-level test does so in 95% of
# repetitions on average (19 of 20), with binomial spread.
#
#   bench/null_experiment.sh [REPS] [WORKLOAD] [extra dlcbench run args...]
#   bench/null_experiment.sh 20 startup --starts 5
#   bench/null_experiment.sh 20 fcn5 --data synthetic --batch 16 --iters 5
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-20}
workload=${2:-startup}
shift $(( $# >= 2 ? 2 : $# ))
out=$(mktemp -d "${TMPDIR:-/tmp}/dlcbench-null.XXXXXX")
trap 'rm -rf "$out"' EXIT
none=0
for seed in $(seq 1 "$reps"); do
  line=$(build/dlcbench run --workloads "$workload" --envs host,host --runs 10 --seed "$seed" --out "$out" "$@" \
           2>/dev/null | grep "host#2 vs host:" | head -1)
  echo "seed $seed: ${line#*: }"
  case "$line" in *"no measurable overhead"*) none=$((none + 1)) ;; esac
done
echo "no measurable overhead in $none of $reps repetitions ($workload, host vs host)"
