#!/usr/bin/env bash
# The test command, from a fresh Debian 12 machine, in two tiers.
#
#   scripts/test.sh           the full tier (what .ci/run runs)
#   scripts/test.sh --quick   the developer's loop: about 5 minutes once built
#
# Both install what is missing and build build/ (Release, Ninja, warnings as
# errors, every target: the library, the programs, the unit, integration and
# fault tests and the benchmarks). The build is plain, one compiler run per
# source, never unity batches: a source that does not include what it uses
# fails here, as it would in a user's build. scripts/main-job.sh uses the same
# build/ and build type, so its run below builds nothing more.
#
# --quick: the unit tests of everything (framework-free, back ends, GPU: the
# last skip without a GPU), then the main job in small
# (scripts/main-job.sh --quick: host against Docker, checked for verdicts).
#
# The full tier adds, after those, under one Docker Engine (started here if
# none runs, and stopped afterwards; scripts/test-containers.sh): the
# integration and fault tests against Docker, Podman, runc, crun, gVisor's
# runsc and Charliecloud, three at a time (each run has its own run id,
# containers and image tag), where a runtime that cannot start a container
# fails its tests instead of skipping them; beside them, one at a time, the
# cluster tests on a local two-node Slurm cluster. Beside those, at idle
# priority in the CPU the tests leave while they wait on containers: the
# unit tests built with Clang's AddressSanitizer and
# UndefinedBehaviorSanitizer (scripts/sanitize.sh). The GPU check's
# rehearsal in a stand-in container (scripts/gpu-rehearsal.sh) runs on
# request before a GPU session, or here with DLCBENCH_GPU_REHEARSAL=1.
# Each stage's wall time is printed at the end.
# Not here, on request (see the README): `ctest -L heavy`, and the
# cleanliness tests (`ctest -L cleanliness`: minutes, and alone).
set -euo pipefail
cd "$(dirname "$0")/.."
tier=full
if [ "${1:-}" = "--quick" ]; then tier=quick; shift; fi

# The machine's busy CPU time in seconds, all processes (dockerd and the
# containers included): with the wall time it says whether a stage waits or
# computes, and what cutting it would save on a machine with other cores.
cpu_busy() { awk -v hz="$(getconf CLK_TCK)" '/^cpu /{print int(($2 + $3 + $4 + $7 + $8) / hz); exit}' /proc/stat; }
started=$(date +%s)
started_cpu=$(cpu_busy)
stage_started=$started
stage_cpu=$started_cpu
stage_name=""
timings=()
stage() {
  local now now_cpu
  now=$(date +%s)
  now_cpu=$(cpu_busy)
  [ -n "$stage_name" ] &&
    timings+=("$(printf '%6d s %7d CPU-s  %s' $((now - stage_started)) $((now_cpu - stage_cpu)) "$stage_name")")
  stage_name=$1
  stage_started=$now
  stage_cpu=$now_cpu
  [ -n "$stage_name" ] && echo "== test.sh ($tier): $stage_name"
  return 0
}
report_timings() {
  stage ""
  echo "== test.sh ($tier): wall time and the machine's busy CPU time per stage ($(nproc) CPUs)"
  printf '%s\n' "${timings[@]}"
  printf '%6d s %7d CPU-s  in all\n' $(($(date +%s) - started)) $(($(cpu_busy) - started_cpu))
}
trap report_timings EXIT

stage "install"
scripts/install-deps.sh

stage "build (plain, -Werror, every target)"
# -Og rather than Release's -O3: the same code paths and the same NDEBUG,
# compiled in about three quarters of -O2's CPU time (the library and the
# programs; the test sources are -O0 anyway). What the tests run is the
# orchestration and the containers; the figures they check are LibTorch's,
# oneDNN's and OpenBLAS's, which come optimised, and the probe and
# dlcbench-allreduce, which keep -O2 (CMakeLists.txt) because they time.
scripts/build.sh -DDLCBENCH_WERROR=ON "-DCMAKE_CXX_FLAGS_RELEASE=-Og -DNDEBUG"

stage "unit tests"
# The layering of src/ and the architecture page first (tests/check_layers.py,
# tests/check_architecture_doc.py, the docs and their commands:
# tests/check_docs.py, a few seconds), then each
# binary in one process: the framework-free tests start in
# milliseconds, the back ends' load LibTorch once.
python3 tests/check_layers.py
python3 tests/check_architecture_doc.py
python3 tests/check_docs.py --dlcbench build/dlcbench
build/tests/unit_tests --gtest_brief=1
build/tests/backend_unit_tests --gtest_brief=1
build/tests/gpu_unit_tests --gtest_brief=1

stage "main job, quick (host against docker)"
scripts/main-job.sh --quick

[ "$tier" = quick ] && exit 0

stage "integration, fault and cluster tests; beside them the sanitizer build"
# One Docker Engine for all of them (started here if none runs, and stopped
# afterwards); scripts/test-containers.sh prints the time of each part.
scripts/with-docker.sh scripts/test-containers.sh
