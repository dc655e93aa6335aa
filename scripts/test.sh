#!/usr/bin/env bash
# The test command, from a fresh Debian 12 machine: installs what is needed,
# builds with warnings as errors, and runs
#   - the unit tests, built with AddressSanitizer and UndefinedBehaviorSanitizer
#     (build-sanitize/);
#   - the integration, fault and cleanliness tests against the release build
#     (build/), a real Docker Engine (started here if none runs, and stopped
#     afterwards), Podman, runc and crun. There a runtime that cannot start a
#     container fails its tests instead of skipping them.
# The sanitizer build compiles at the lowest CPU priority while the
# integration tests run, which mostly wait on containers: the two together
# take little more than the tests alone.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=$(nproc)

# Both builds are unity builds (16 sources per compiler run): most of a
# source's compile time is spent on the same headers (nlohmann/json, fmt,
# LibTorch, gtest), so this halves the compile time on a fresh machine, which
# keeps CI under 30 minutes. It also keeps the sources free of clashing
# file-local names.
unity=(-DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16)

# RelWithDebInfo's -O2 without its -g: the same code users build, compiled
# about 30% faster (debug information is most of the cost of the large
# translation units).
scripts/build.sh -DDLCBENCH_WERROR=ON -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" -DDLCBENCH_UNIT_TESTS=OFF "${unity[@]}"

sanitize_log=$(mktemp "${TMPDIR:-/tmp}/dlcbench-ci-sanitize.XXXXXX")
sanitize_pid=""
stop_sanitize_build() {
  if [ -n "$sanitize_pid" ] && kill -0 "$sanitize_pid" 2>/dev/null; then
    kill -TERM -- "-$sanitize_pid" 2>/dev/null || kill -TERM "$sanitize_pid" 2>/dev/null || true
    wait "$sanitize_pid" 2>/dev/null || true
  fi
  rm -f "$sanitize_log"
}
trap stop_sanitize_build EXIT
# -O1 -g1: sanitizer reports with file and line, at half the -O2 compile time.
# Its own process group (set -m), so the trap stops every compiler with it.
set -m
nice -n 19 bash -c '
  jobs=$1; shift
  cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1" \
    -DDLCBENCH_SANITIZE=ON -DDLCBENCH_WERROR=ON -DDLCBENCH_BENCH=OFF -DDLCBENCH_CUDA=OFF "$@" >/dev/null &&
  cmake --build build-sanitize -j "$jobs" --target unit_tests' _ "$jobs" "${unity[@]}" >"$sanitize_log" 2>&1 &
sanitize_pid=$!
set +m

# Integration and fault tests side by side (each run has its own run id,
# containers and image tag); the cleanliness tests compare the whole machine
# before and after, so ctest runs each of them alone (RUN_SERIAL).
(cd build && DLCBENCH_REQUIRE_DOCKER=1 DLCBENCH_REQUIRE_RUNTIMES=1 DLCBENCH_REQUIRE_BROWSER=1 \
  ../scripts/with-docker.sh ctest -L 'integration|faults' -j 2 --output-on-failure --timeout 900)

if ! wait "$sanitize_pid"; then
  sanitize_pid=""
  echo "test: the sanitizer build failed:" >&2
  tail -n 60 "$sanitize_log" >&2
  exit 1
fi
sanitize_pid=""
# The unit tests in one process: ctest starts one per test, and each start
# loads LibTorch (about a second, 350 times). Any sanitizer report fails them.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  build-sanitize/tests/unit_tests --gtest_brief=1
