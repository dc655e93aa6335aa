#!/usr/bin/env bash
# The main job, from a fresh Debian 12 machine: installs what is needed,
# builds what a run starts (dlcbench, dlcbench-worker, dlcbench-probe,
# dlcbench-noop, dlcbench-allreduce; no tests), fetches MNIST, starts a
# Docker Engine if none runs, and measures the default suite on the host and
# in every container runtime found.
#
#   scripts/main-job.sh [--quick] [dlcbench run options]
#
# Extra arguments go to `dlcbench run` (e.g. --runs 5). --quick is the same
# job in small (CI runs it): the host against Docker only, 4 rounds of fewer
# batches; it then checks, from `report --format json`, that every case ends
# with a verdict for Docker. It shares build/ with scripts/test.sh (the same
# build type), so after the tests it builds nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=()
if [ "${1:-}" = "--quick" ]; then
  shift
  quick=(--envs host,docker --runs 4 --warmup 2 --iters 5 --run-id "main-quick-$(date +%Y%m%d-%H%M%S)-$$")
fi
scripts/install-deps.sh
TARGETS=dlcbench scripts/build.sh
build/dlcbench data fetch mnist
scripts/with-docker.sh build/dlcbench run --out results "${quick[@]}" "$@"
if [ ${#quick[@]} -gt 0 ]; then
  run_dir=results/${quick[-1]}
  # Every case has a Docker overhead with a judgement (slower, faster,
  # equivalent, inconclusive or too few runs): the run ended with verdicts.
  build/dlcbench report "$run_dir" --format json | jq -e '
    (.cases | length) > 0 and
    all(.cases[]; any(.overheads[]; .env == "docker" and (.judgement | type) == "string" and .judgement != ""))' \
    >/dev/null || { echo "main-job --quick: $run_dir has no verdict for docker in some case" >&2; exit 1; }
  echo "main-job --quick: every case of $run_dir has a verdict for docker"
fi
