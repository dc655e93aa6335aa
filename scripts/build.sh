#!/usr/bin/env bash
# Configures and builds dlcbench into build/ (or $BUILD_DIR), with Ninja
# where it is installed.
#   scripts/build.sh [extra cmake options]
# Environment: BUILD_TYPE (default Release), TARGETS (space-separated; default:
# everything, the tests and benchmarks included).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
generator=()
if [ ! -f "$build_dir/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then
  generator=(-G Ninja)
fi
cmake "${generator[@]}" -S . -B "$build_dir" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" "$@" >/dev/null
targets=()
for target in ${TARGETS:-}; do targets+=(--target "$target"); done
cmake --build "$build_dir" -j "$(nproc)" "${targets[@]}"
