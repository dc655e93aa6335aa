#!/usr/bin/env bash
# The null experiment: one environment measured twice (`--envs host,host`),
# REPS times with seeds 1..REPS: how often dlcbench calls the difference
# significant (a false alarm: a correct 5%-level test makes about 1 in 20,
# with binomial spread), how often it says "no overhead above M"
# (equivalence, which needs narrow intervals), and in how many its report
# claims a cause for the difference ("explained by").
#
#   bench/null_experiment.sh [REPS] [WORKLOAD] [extra dlcbench run args...]
#   bench/null_experiment.sh 20 startup --starts 5
#   bench/null_experiment.sh 20 fcn5 --data synthetic --batch 16 --iters 5
#   RUNS=20 bench/null_experiment.sh 20 fcn5 --data synthetic --batch 16
#   RUNS=20 KEEP=/work/null bench/null_experiment.sh 20 fcn5
#   FIRST_SEED=11 RUNS=20 bench/null_experiment.sh 10 fcn5   (seeds 11..20)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-20}
workload=${2:-startup}
shift $(( $# >= 2 ? 2 : $# ))
# KEEP=FOLDER keeps the run folders there (for bench/estimators); by
# default they are scratch, deleted at the end.
if [ -n "${KEEP:-}" ]; then
  out=$KEEP
  mkdir -p "$out"
else
  out=$(mktemp -d "${TMPDIR:-/tmp}/dlcbench-null.XXXXXX")
  trap 'rm -rf "$out"' EXIT
fi
runs=${RUNS:-10}
none=0
equivalent=0
alarms=0
claimed=0
first_seed=${FIRST_SEED:-1}
for seed in $(seq "$first_seed" $((first_seed + reps - 1))); do
  report=$(build/dlcbench run --workloads "$workload" --envs host,host --runs "$runs" --seed "$seed" --out "$out" "$@" \
             2>/dev/null || true)
  line=$(grep "host#2 vs host:" <<<"$report" | head -1)
  # The comparison's "explained by" line follows it when a cause is claimed.
  cause=$(grep -A1 "host#2 vs host:" <<<"$report" | grep -m1 "explained by" || true)
  echo "seed $seed: ${line#*: }${cause:+ | $cause}"
  case "$line" in
    *", no overhead above"*) equivalent=$((equivalent + 1)) ;;
    *", slower by"* | *", faster by"*) alarms=$((alarms + 1)) ;;
    *", no measurable overhead"*) none=$((none + 1)) ;;
  esac
  [ -n "$cause" ] && claimed=$((claimed + 1))
done
echo "$workload, host vs host, $runs runs a side, $reps repetitions: significant (false alarms) in $alarms," \
     "no overhead above the margin (equivalence) in $equivalent, none measurable but not ruled out in $none"
echo "a cause claimed in $claimed of $reps repetitions"
