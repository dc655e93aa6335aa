#!/usr/bin/env bash
# Makes the run folders of tests/data/*-fixture/run with real runs of the
# dlcbench in build/: a user's command, an explain run, a resumed run and a
# Slurm run (report-fixture, the first, came before this script). They are
# kept as they were written, so that a later dlcbench must still report them
# the same (tests/integration/report_cli_test.cpp); run this only to add a
# fixture, never to make a failing test pass. Then write their expected
# reports with
#   DLCBENCH_UPDATE_FIXTURE=1 build/tests/integration_tests --gtest_filter='Report.TheFixtureRuns*'
#
#   scripts/with-docker.sh scripts/with-slurm.sh tests/data/make-fixtures.sh [NAME...]
#
# Needs root, a Docker Engine (explain), runc and a local Slurm cluster
# (scripts/with-slurm.sh). NAME: command, explain, resumed, cluster (default:
# all four).
set -euo pipefail
cd "$(dirname "$0")/../.."
dlcbench=$(realpath build/dlcbench)
steps=$(realpath build/tests/command_steps)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/dlcbench-fixtures.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# keep NAME OUT: the one run folder under OUT becomes tests/data/NAME-fixture/run
keep() {
  local target=tests/data/$1-fixture
  local runs=("$2"/*/)
  [ ${#runs[@]} -eq 1 ] || { echo "make-fixtures: $2 holds ${#runs[@]} run folders, not one" >&2; exit 1; }
  rm -rf "$target/run"
  mkdir -p "$target"
  cp -r "${runs[0]}" "$target/run"
  # Only what the report reads; logs stay out.
  find "$target/run" -name '*.log' -delete
  echo "make-fixtures: $target/run ($(du -sh "$target/run" | cut -f1))"
}

command_fixture() {
  # A static program in the working folder, on the host and in runc (a root
  # file system that holds only the folder's mount point), its step times
  # read with --metric.
  local rootfs=$scratch/rootfs work=$scratch/work
  mkdir -p "$rootfs/work" "$rootfs/tmp" "$work"
  cp "$steps" "$work/steps"
  "$dlcbench" run --envs "host,runc:rootfs=$rootfs" --runs 4 --max-runs 4 --warmup 1 --seed 11 \
    --workdir "$work" --metric 'step [0-9]+ ([0-9.]+) s' --metric-unit s/step --name steps \
    --out "$scratch/command" -- ./steps 6
  keep command "$scratch/command"
}

explain_fixture() {
  "$dlcbench" explain docker:cpus=1 --features limits --workloads fcn5 --data synthetic --runs 3 --iters 3 \
    --seed 11 --out "$scratch/explain"
  keep explain "$scratch/explain"
}

resumed_fixture() {
  # Killed with SIGKILL after its first round, then completed by --resume.
  local out=$scratch/resumed
  "$dlcbench" run --envs host,runc --workloads fcn5 --data synthetic --runs 4 --max-runs 4 --warmup 1 \
    --iters 3 --batch 8 --threads 1 --seed 11 --run-id resumed-fixture --out "$out" >"$scratch/resumed.log" 2>&1 &
  local pid=$!
  until grep -q '"round":2' "$out/resumed-fixture/results.jsonl" 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || { cat "$scratch/resumed.log" >&2; echo "make-fixtures: the run ended before round 2" >&2; exit 1; }
    sleep 0.2
  done
  kill -KILL "$pid"
  wait "$pid" 2>/dev/null || true
  "$dlcbench" run --resume "$out/resumed-fixture"
  keep resumed "$out"
}

cluster_fixture() {
  "$dlcbench" run --slurm --nodes 2 --envs host,runc --workloads fcn5 --data synthetic --runs 2 --warmup 1 \
    --iters 3 --batch 8 --threads 1 --seed 11 --out "$scratch/cluster"
  keep cluster "$scratch/cluster"
}

for name in "${@:-command explain resumed cluster}"; do
  for one in $name; do "${one}_fixture"; done
done
