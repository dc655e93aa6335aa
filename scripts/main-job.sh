#!/usr/bin/env bash
# The main job, from a fresh Debian 12 machine: installs what is needed,
# builds, fetches MNIST, starts a Docker Engine if none runs, and measures
# the default suite on the host and in every container runtime found.
# Extra arguments go to `dlcbench run` (e.g. --runs 5).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
BUILD_TYPE=Release scripts/build.sh
build/dlcbench data fetch mnist
scripts/with-docker.sh build/dlcbench run --out results "$@"
