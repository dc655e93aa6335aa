#!/usr/bin/env bash
# The test command, from a fresh Debian 12 machine: installs what is needed,
# builds with warnings as errors, and runs the unit tests, the unit tests
# again under ASan+UBSan (scripts/sanitize.sh), then the integration and fault
# tests against a real Docker Engine (started here if none runs, and stopped
# afterwards), Podman, runc, crun and gVisor's runsc (also as Docker's runtime,
# registered by with-docker.sh), and last the GPU check's rehearsal
# (scripts/gpu-rehearsal.sh). There a runtime that cannot start a
# container fails its tests instead of skipping them.
# Not here, for time (minutes on 2 cores, and they must run alone): the
# cleanliness tests (`ctest -L cleanliness` in build/).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# RelWithDebInfo's -O2 without its -g: the same code users build, compiled
# about 30% faster (debug information is most of the cost of the large
# translation units). A unity build (16 sources per compiler run) halves the
# rest: most of a source's compile time is the same headers (nlohmann/json,
# fmt, LibTorch, gtest). Together they keep a fresh machine's CI under 30
# minutes, and the sources free of clashing file-local names.
scripts/build.sh -DDLCBENCH_WERROR=ON -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" \
  -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16
cd build
# The unit tests in one process: ctest starts one per test, and each start
# loads LibTorch (about a second, 350 times).
tests/unit_tests --gtest_brief=1
tests/gpu_unit_tests --gtest_brief=1
# About 7 minutes on 2 cores: 5 of compiling (build-sanitize/), 2 of tests.
../scripts/sanitize.sh
# Integration and fault tests two at a time: each run has its own run id,
# containers and image tag.
DLCBENCH_REQUIRE_DOCKER=1 DLCBENCH_REQUIRE_RUNTIMES=1 DLCBENCH_REQUIRE_BROWSER=1 \
  ../scripts/with-docker.sh ctest -L 'integration|faults' -j 2 --output-on-failure --timeout 900
# run --slurm against a real local cluster: munged, slurmctld and two slurmd
# nodes on this machine, started and stopped by their PIDs by with-slurm.sh
# (about 6 minutes; the nodes take turns on the machine, so alone).
DLCBENCH_REQUIRE_SLURM=1 ../scripts/with-docker.sh ../scripts/with-slurm.sh \
  ctest -L cluster --output-on-failure --timeout 1800
# The GPU check rehearsed in a container that stands in for the bare GPU
# machine (no development packages, no network): it must build from the
# repository and gpu-bundle.tar.gz alone and say "no GPU" cleanly.
cd ..
scripts/with-docker.sh scripts/gpu-rehearsal.sh build/gpu-rehearsal
