#!/usr/bin/env bash
# The full tier's second half (scripts/test.sh runs it once build/ is built
# and the unit tests pass), under one Docker Engine (scripts/with-docker.sh):
#
#   in front:  the integration and fault tests, three at a time, and beside
#              them the cluster tests on a local two-node Slurm cluster, one
#              at a time;
#   beside:    the sanitizer build and its unit tests (scripts/sanitize.sh),
#              at idle priority; with DLCBENCH_GPU_REHEARSAL=1, then the GPU
#              check rehearsed in its stand-in container
#              (scripts/gpu-rehearsal.sh), which otherwise runs on request
#              before a GPU session (about 270 s and a build of its own).
#
# The tests in front wait on containers for about half of their time; the
# side lane measures nothing and compiles in that idle CPU. The tests use
# fixed rounds (--max-runs equal to --runs), so a busy CPU makes a test
# slower but never changes what it runs or what it asserts. The side lane's
# output goes to build/side-lane.log, printed when it fails.
#
#   scripts/with-docker.sh scripts/test-containers.sh
set -uo pipefail
cd "$(dirname "$0")/.."

if ! docker version --format '{{.Server.Version}}' >/dev/null 2>&1; then
  echo "test-containers: no Docker Engine answers: run it as scripts/with-docker.sh scripts/test-containers.sh" >&2
  exit 2
fi

front_times=build/front.times
if [ "${1:-}" = "--front" ]; then
  # The integration and fault tests, three at a time, and beside them the
  # cluster tests on a local two-node Slurm cluster: munged, slurmctld and
  # two slurmd nodes on this machine, started and stopped by their PIDs by
  # with-slurm.sh. The nodes take turns on the machine, so the cluster
  # tests run one at a time. Both use fixed rounds: the other slows them,
  # never changes what they assert. The cluster tests' output is printed
  # after the integration tests', so the two never interleave.
  cluster_log=build/cluster-tests.log
  lane() {  # lane NAME COMMAND...: its wall time and status into $front_times
    local name=$1 t0 lane_rc=0
    shift
    t0=$(date +%s)
    "$@" || lane_rc=$?
    printf '%6d s    %s%s\n' $(($(date +%s) - t0)) "$name" "$([ $lane_rc -eq 0 ] || echo " (FAILED, exit $lane_rc)")" >>"$front_times"
    return $lane_rc
  }
  : >"$front_times"
  set -m
  DLCBENCH_REQUIRE_SLURM=1 lane "cluster tests (local Slurm, two nodes, one at a time)" \
    scripts/with-slurm.sh ctest --test-dir build -L cluster --output-on-failure --timeout 1800 >"$cluster_log" 2>&1 &
  cluster_pid=$!
  set +m
  trap '[ -n "${cluster_pid:-}" ] && kill -- "-$cluster_pid" 2>/dev/null' EXIT
  front_rc=0
  DLCBENCH_REQUIRE_DOCKER=1 DLCBENCH_REQUIRE_RUNTIMES=1 DLCBENCH_REQUIRE_BROWSER=1 \
    lane "integration and fault tests (3 at a time)" \
    ctest --test-dir build -L 'integration|faults' -j 3 --output-on-failure --timeout 900 || front_rc=1
  wait "$cluster_pid" || front_rc=1
  cluster_pid=""
  echo "== test-containers: the cluster tests' output ($cluster_log):"
  cat "$cluster_log"
  exit $front_rc
fi

started=$(date +%s)
timings=()
timed() {  # timed NAME COMMAND...: runs it, keeps its wall time and status
  local name=$1 t0 rc
  shift
  t0=$(date +%s)
  "$@"
  rc=$?
  timings+=("$(printf '%6d s  %s%s' $(($(date +%s) - t0)) "$name" "$([ $rc -eq 0 ] || echo " (FAILED, exit $rc)")")")
  return $rc
}

# The side lane. SCHED_IDLE: it gets a CPU only when nothing else wants one;
# the rehearsal's container, which dockerd starts and so does not inherit
# that, gets the lowest CPU weight instead.
side_log=build/side-lane.log
side_times=build/side-lane.times
# side_step NAME COMMAND...: runs it, appends its wall time, the CPU seconds
# (user + system) of its processes and its status to $side_times. The CPU
# time is what `times` reports for this shell's finished children, read in
# this shell (a subshell, as in $(...), has none); processes that dockerd
# starts are not among them.
side_step() {
  local name=$1 t0 c0 c1 rc=0
  shift
  t0=$(date +%s)
  times >build/side-lane.cpu
  "$@" || rc=$?
  times >>build/side-lane.cpu
  # Lines 2 and 4: the children's user and system time, as 1m2.345s.
  read -r c0 c1 < <(awk 'NR % 2 == 0 { split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%d ", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' build/side-lane.cpu)
  rm -f build/side-lane.cpu
  printf '%6d s %7d CPU-s  %s%s\n' $(($(date +%s) - t0)) $((c1 - c0)) "$name" "$([ $rc -eq 0 ] || echo " (FAILED, exit $rc)")" >>"$side_times"
  return $rc
}
side_lane() {
  side_step "sanitizer build and unit tests" chrt --idle 0 nice -n 19 scripts/sanitize.sh || return
  [ "${DLCBENCH_GPU_REHEARSAL:-0}" = 1 ] || return 0
  side_step "GPU check rehearsal (without its container)" \
    env REHEARSAL_CPU_SHARES=2 chrt --idle 0 nice -n 19 scripts/gpu-rehearsal.sh build/gpu-rehearsal
}
: >"$side_times"
# In a process group of its own (job control on for the start), so that the
# whole lane, its compilers included, stops with this script.
set -m
side_lane >"$side_log" 2>&1 &
side_pid=$!
set +m
trap '[ -n "${side_pid:-}" ] && kill -- "-$side_pid" 2>/dev/null' EXIT

# Where ctest has no costs yet (a fresh clone), it starts the tests in the
# order they are declared; the longest ones started last would run alone at
# the end. tests/ctest-costs.txt gives it the costs measured last.
costs=build/Testing/Temporary/CTestCostData.txt
if [ ! -s "$costs" ]; then
  mkdir -p "$(dirname "$costs")"
  grep -v '^#' tests/ctest-costs.txt >"$costs"
fi

rc=0
# The worker's image imported once into Docker and Podman for all of them
# (scripts/with-worker-images.sh), not once per run; the front runs in
# there (this script again, with --front).
timed "integration, fault and cluster tests (with the worker's images)" \
  scripts/with-worker-images.sh "$0" --front || rc=1
[ -s "$front_times" ] && timings+=("$(cat "$front_times")")

t0=$(date +%s)
side_rc=0
wait "$side_pid" || side_rc=$?
side_pid=""
timings+=("$(printf '%6d s  waiting for the side lane' $(($(date +%s) - t0)))")
if [ $side_rc -ne 0 ]; then
  echo "== test-containers: the side lane failed (exit $side_rc); its output, $side_log:"
  cat "$side_log"
  rc=1
else
  tail -n 5 "$side_log"
fi

echo "== test-containers: wall time, in front"
printf '%s\n' "${timings[@]}"
echo "== test-containers: wall time and CPU time, beside (at idle priority)"
cat "$side_times"
printf '%6d s  in all\n' $(($(date +%s) - started))
exit $rc
