#!/usr/bin/env bash
# The unit tests (framework-free, back ends, GPU) built with AddressSanitizer
# and UndefinedBehaviorSanitizer (build-sanitize/), where any report fails
# them. scripts/test.sh (CI) runs it.
#   scripts/sanitize.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# Clang, not GCC: with both sanitizers GCC 12 takes about twice as long per
# source as Clang 14 (43.6 s against 21.8 s for one unity batch of the
# library; the whole build about 7-8 minutes against 3.5 on 2 cores). The
# plain build in build/ stays GCC, so both compilers check the code.
export CC=clang CXX=clang++
# A build folder configured for another compiler is started again: CMake
# keeps the first compiler it found.
if [ -f build-sanitize/CMakeCache.txt ] &&
   ! grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang++' build-sanitize/CMakeCache.txt; then
  rm -rf build-sanitize
fi
generator=()
if [ ! -f build-sanitize/CMakeCache.txt ] && command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
# -O0 -g1: reports with file and line, and nothing is optimised away from
# the checks. A unity build (16 sources per compiler run) parses the shared
# headers once per 16; scripts/test.sh's plain build is the one that checks
# each source alone.
cmake "${generator[@]}" -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O0 -g1" -DDLCBENCH_SANITIZE=ON -DDLCBENCH_WERROR=ON -DDLCBENCH_BENCH=OFF \
  -DDLCBENCH_CUDA=OFF -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 >/dev/null
cmake --build build-sanitize -j "$(nproc)" --target unit_tests backend_unit_tests gpu_unit_tests
# Each binary in one process (each ctest start of the back ends' tests would
# load LibTorch).
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Left out here: NullExperiment.*, 2000 seeded repetitions of the analysis
# (74 s here, 17 s in the plain build's run, which has it) through code the
# other statistics tests cover once each.
build-sanitize/tests/unit_tests --gtest_brief=1 --gtest_filter='-NullExperiment.*'
for tests in backend_unit_tests gpu_unit_tests; do
  build-sanitize/tests/$tests --gtest_brief=1
done
