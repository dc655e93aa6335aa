#!/usr/bin/env bash
# The test command, from a fresh Debian 12 machine: installs what is needed,
# builds with warnings as errors, and runs the unit and integration tests,
# the integration tests against a real Docker Engine (started here if none
# runs, and stopped afterwards), Podman, runc and crun. There a runtime that
# cannot start a container fails its tests instead of skipping them.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# RelWithDebInfo's -O2 without its -g: the same code users build, compiled
# about 30% faster (debug information is most of the cost of the large
# translation units), which keeps a fresh machine's CI under 30 minutes.
scripts/build.sh -DDLCBENCH_WERROR=ON -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG"
cd build
# The unit tests in one process: ctest starts one per test, and each start
# loads LibTorch (about a second, 267 times).
tests/unit_tests --gtest_brief=1
DLCBENCH_REQUIRE_DOCKER=1 DLCBENCH_REQUIRE_RUNTIMES=1 DLCBENCH_REQUIRE_BROWSER=1 \
  ../scripts/with-docker.sh ctest -L integration --output-on-failure --timeout 900
