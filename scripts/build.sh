#!/usr/bin/env bash
# Configures and builds dlcbench into build/ (or $BUILD_DIR).
#   scripts/build.sh [extra cmake options]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${BUILD_DIR:-build}
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} "$@" >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
