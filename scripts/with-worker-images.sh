#!/usr/bin/env bash
# Runs a command with the worker's image already imported into Docker and
# Podman, and removes that image afterwards.
#
# Every run imports an image of dlcbench-worker and its libraries (about
# 500 MB) into each engine unless one of the same content is there already:
# then it tags that one (runtimes/engine.cpp, ensure_image) and leaves it in
# place at its end. The tests run dozens of such runs, so this imports the
# image once, with one short run and --keep-images, for all of them. Runs
# whose images hold more (the external tools of the micro-benchmarks, the
# CUDA plugin) still import their own.
#
#   scripts/with-docker.sh scripts/with-worker-images.sh ctest -L integration
#
# Needs a Docker Engine that answers (scripts/with-docker.sh) and Podman;
# DLCBENCH (default build/dlcbench) is the binary whose worker is imported.
set -uo pipefail
cd "$(dirname "$0")/.."

if [ $# -eq 0 ]; then
  echo "usage: $0 COMMAND [ARG...]" >&2
  exit 2
fi
dlcbench=${DLCBENCH:-build/dlcbench}
out=$(mktemp -d "${TMPDIR:-/tmp}/dlcbench-warm-images.XXXXXX")
docker_image=""
podman_image=""
cleanup() {
  [ -n "$docker_image" ] && docker rmi --force "$docker_image" >/dev/null 2>&1
  [ -n "$podman_image" ] && podman rmi --force "$podman_image" >/dev/null 2>&1
  rm -rf "$out"
}
trap cleanup EXIT

if ! "$dlcbench" run --workloads fcn5 --envs host,docker,podman --runs 1 --warmup 0 --iters 1 --batch 8 \
  --data synthetic --keep-images --run-id warm-images --out "$out" >"$out/log" 2>&1; then
  cat "$out/log" >&2
  echo "with-worker-images: the run that imports the worker's image failed (above)" >&2
  exit 1
fi
manifest=$out/warm-images/manifest.json
docker_image=$(jq -r '.environments.docker.image // empty' "$manifest")
podman_image=$(jq -r '.environments.podman.image // empty' "$manifest")
echo "with-worker-images: kept $docker_image (docker) and $podman_image (podman) for the command; removed at its end"

"$@"
