#!/usr/bin/env bash
# The GPU check, for a machine with an NVIDIA GPU and its driver and nothing
# else set up: installs what dlcbench needs (scripts/install-deps.sh from
# Debian's archive, then scripts/install-cuda.sh: CUDA 13 and cuDNN 9 from
# NVIDIA's repository where they are missing), builds dlcbench with the CUDA
# plugin, runs
# the GPU unit tests (the cuda back end's agreement with LibTorch on the CPU,
# gpu-gemm and gpu-copy on the device), then one run of gpu-gemm, gpu-copy
# and a training step of each network with the cuda back end on the host and
# in every container runtime that starts here, and writes the report as JSON
# and Markdown. Meant to finish in under 8 minutes on a 16-core machine.
#
#   scripts/gpu-check.sh [OUT_DIR]      (default: gpu-check/)
#
# Environment: GPU_CHECK_ENVS (default: host plus docker, podman, runc where
# installed), GPU_CHECK_GEMM_N (8192), GPU_CHECK_COPY_SIZE (1g),
# CUDA_ARCH (CMake CUDA architectures; default 90, H100/H200).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-gpu-check}")
mkdir -p "$out"
started=$(date +%s)
step() { echo "== $(( $(date +%s) - started )) s: $*"; }

step "GPU and driver"
if ! nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv | tee "$out/nvidia-smi.csv"; then
  echo "gpu-check: nvidia-smi failed: no NVIDIA driver or no GPU here; the check needs both" >&2
  exit 2
fi

step "packages"
if ! scripts/install-deps.sh >"$out/install-deps.log" 2>&1; then
  echo "gpu-check: scripts/install-deps.sh failed (see $out/install-deps.log); going on with what is installed" >&2
fi

step "CUDA toolkit and cuDNN"
if ! nvcc=$(scripts/install-cuda.sh 2>"$out/install-cuda.log"); then
  cat "$out/install-cuda.log" >&2
  echo "gpu-check: the CUDA plugin needs CUDA 13 with cuBLAS and cuDNN 9 (see $out/install-cuda.log)" >&2
  exit 1
fi
tail -1 "$out/install-cuda.log"

step "build (dlcbench, the CUDA plugin, unit tests)"
# Configured here, not by scripts/build.sh, to keep CMake's own messages:
# "CUDA plugin: CUDA 13.0, ..." or why it is not built.
{ cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CUDA_COMPILER="$nvcc" \
    -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" -DDLCBENCH_BENCH=OFF &&
  cmake --build build-gpu -j "$(nproc)"; } >"$out/build.log" 2>&1 ||
  { tail -30 "$out/build.log" >&2; echo "gpu-check: build failed (see $out/build.log)" >&2; exit 1; }
grep 'CUDA plugin' "$out/build.log" || true
if [ ! -f build-gpu/libdlcbench-cuda.so ]; then
  echo "gpu-check: the CUDA plugin was not built (see $out/build.log)" >&2
  exit 1
fi
build-gpu/dlcbench doctor --json >"$out/doctor.json" 2>&1 || true
build-gpu/dlcbench doctor 2>&1 | sed -n '/^GPU/,$p' | tee "$out/doctor-gpu.txt"

step "GPU unit tests"
tests_rc=0
build-gpu/tests/unit_tests --gtest_brief=1 --gtest_filter='*Gpu*:*Cuda*:*KernelMath*' 2>&1 | tee "$out/unit-tests.log" ||
  tests_rc=$?

step "benchmark run"
envs=${GPU_CHECK_ENVS:-}
if [ -z "$envs" ]; then
  envs=host
  command -v docker >/dev/null && envs+=",docker"
  command -v podman >/dev/null && envs+=",podman"
  command -v runc >/dev/null && [ "$(id -u)" -eq 0 ] && envs+=",runc"
fi
run=(build-gpu/dlcbench run
  --workloads "gpu-gemm:n=${GPU_CHECK_GEMM_N:-8192},gpu-copy:size=${GPU_CHECK_COPY_SIZE:-1g},fcn5,alexnet,resnet56,lstm"
  --backends cuda --device gpu --warmup 1 --iters 1 --runs 1 --envs "$envs" --data synthetic
  --case-timeout 120 --out "$out/results")
run_rc=0
if [[ "$envs" == *docker* ]] && ! docker info >/dev/null 2>&1; then
  scripts/with-docker.sh "${run[@]}" 2>&1 | tee "$out/run.log" || run_rc=$?
else
  "${run[@]}" 2>&1 | tee "$out/run.log" || run_rc=$?
fi
dir=$(ls -d "$out"/results/*/ 2>/dev/null | tail -1)
if [ -n "$dir" ]; then
  build-gpu/dlcbench report "$dir" --format json -o "$out/report.json"
  build-gpu/dlcbench report "$dir" --format md -o "$out/report.md"
  # The figure the check is for: BF16 GEMM against the GPU's estimated peak.
  grep -A9 '^### gpu-gemm/bf16' "$out/report.md" | grep -E 'estimated peak|^\| (env|host|docker|podman|runc)' || true
fi

step "done: unit tests exit $tests_rc, run exit $run_rc; reports in $out"
[ "$tests_rc" -eq 0 ] && [ "$run_rc" -eq 0 ]
