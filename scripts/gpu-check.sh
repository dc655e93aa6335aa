#!/usr/bin/env bash
# The GPU check in one call: builds dlcbench with the CUDA plugin, runs the
# GPU unit tests (the cuda back end against the CPU, gpu-gemm and gpu-copy on
# the device), then one run of gpu-gemm (FP32, TF32, BF16, FP16), gpu-copy
# and a training step series of each network with the cuda back end, and
# writes report.md and report.json into OUT_DIR.
#
#   scripts/gpu-check.sh [OUT_DIR]      (default: gpu-check/)
#
# Two kinds of machine:
# - bare: gpu-bundle.tar.gz lies in the repository's root (scripts/gpu-bundle.sh
#   made it on a Debian 12 machine, and it was carried here). Nothing is
#   installed and no network is used: the machine needs a C++20 compiler,
#   CMake, the CUDA toolkit 13 with cuBLAS, and cuDNN 9 beside the toolkit or
#   in a Python wheel's nvidia/cudnn. The torch back end is built too where
#   Python's PyTorch brings a LibTorch that configures.
# - networked: without the bundle, scripts/install-deps.sh (Debian's
#   archive) and scripts/install-cuda.sh (NVIDIA's repository) install what
#   is missing first.
# Without a GPU (scripts/gpu-rehearsal.sh runs it so, in a container) it
# builds and runs everything but the GPU steps, which report "no GPU".
#
# Environment: GPU_BUNDLE (the archive; default gpu-bundle.tar.gz),
# GPU_CHECK_ENVS (default: host,docker,podman,runc,crun; those that cannot
# run here are left out, and the report says why),
# GPU_CHECK_GEMM_N (8192), GPU_CHECK_COPY_SIZE (1g), CUDA_ARCH (CMake CUDA
# architectures; default 90, H100/H200), GPU_CHECK_JOBS (default: all CPUs).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-gpu-check}")
mkdir -p "$out"
started=$(date +%s)
step() { echo "== $(($(date +%s) - started)) s: $*" | tee -a "$out/steps.log"; }
jobs=${GPU_CHECK_JOBS:-$(nproc)}
bundle=${GPU_BUNDLE:-gpu-bundle.tar.gz}
: >"$out/steps.log"

step "GPU and driver"
gpu=yes
if ! nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.sm,clocks.mem,persistence_mode,pcie.link.gen.max,pcie.link.width.max \
    --format=csv >"$out/nvidia-smi.csv" 2>&1; then
  gpu=no
  echo "no GPU: nvidia-smi $(command -v nvidia-smi >/dev/null && echo "failed: $(head -1 "$out/nvidia-smi.csv")" ||
    echo "is not installed"); the GPU steps are left out" | tee "$out/no-gpu.txt"
else
  cat "$out/nvidia-smi.csv"
fi

# GPU_CHECK_OPT: the compiler's optimisation (default -O2, what the GPU
# figures are measured with); scripts/gpu-rehearsal.sh builds at -O0, which
# compiles faster: it checks that the check builds and runs, not its speed.
configure=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=${GPU_CHECK_OPT:--O2} -DNDEBUG"
  -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 -DDLCBENCH_BENCH=OFF
  -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}")
command -v ninja >/dev/null && configure+=(-G Ninja)
if [ -f "$bundle" ]; then
  step "bare machine: building from $bundle, installing nothing"
  rm -rf build-gpu
  mkdir -p build-gpu
  tar -C build-gpu -xzf "$bundle"
  head -1 build-gpu/gpu-bundle/bundle.txt
  configure+=(-DDLCBENCH_BUNDLE="$PWD/build-gpu/gpu-bundle")
  nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  # LibTorch inside the machine's PyTorch, for the torch back end, if any.
  torch_prefix=$(python3 -c 'import torch.utils; print(torch.utils.cmake_prefix_path)' 2>/dev/null || true)
else
  step "packages (no $bundle here: installing from the network)"
  scripts/install-deps.sh >"$out/install-deps.log" 2>&1 ||
    echo "gpu-check: scripts/install-deps.sh failed (see $out/install-deps.log); going on with what is installed" >&2
  if ! nvcc=$(scripts/install-cuda.sh 2>"$out/install-cuda.log"); then
    cat "$out/install-cuda.log" >&2
    echo "gpu-check: the CUDA plugin needs CUDA 13 with cuBLAS and cuDNN 9 (see $out/install-cuda.log)" >&2
    exit 1
  fi
  torch_prefix=""
fi
configure+=(-DCMAKE_CUDA_COMPILER="$nvcc")

step "build with $jobs jobs (dlcbench, the CUDA plugin, the GPU unit tests)"
build_started=$(date +%s)
configured=no
if [ -n "$torch_prefix" ]; then
  if cmake -S . -B build-gpu "${configure[@]}" -DCMAKE_PREFIX_PATH="$torch_prefix" >"$out/configure.log" 2>&1; then
    configured=yes
  else
    echo "gpu-check: PyTorch's LibTorch ($torch_prefix) did not configure (see $out/configure-torch.log): building without the torch back end"
    mv "$out/configure.log" "$out/configure-torch.log"
    rm -rf build-gpu/CMakeCache.txt build-gpu/CMakeFiles
  fi
fi
if [ "$configured" = no ] && ! cmake -S . -B build-gpu "${configure[@]}" -DDLCBENCH_TORCH=OFF >"$out/configure.log" 2>&1; then
  tail -30 "$out/configure.log" >&2
  echo "gpu-check: configuring failed (see $out/configure.log)" >&2
  exit 1
fi
grep -E 'Dependencies:|torch back end:|CUDA plugin:|Tests:' "$out/configure.log" || true
if ! cmake --build build-gpu -j "$jobs" --target dlcbench gpu_unit_tests >"$out/build.log" 2>&1; then
  tail -30 "$out/build.log" >&2
  echo "gpu-check: the build failed (see $out/build.log)" >&2
  exit 1
fi
build_seconds=$(($(date +%s) - build_started))
echo "built in $build_seconds s"
if [ ! -f build-gpu/libdlcbench-cuda.so ]; then
  echo "gpu-check: the CUDA plugin was not built (see $out/configure.log)" >&2
  exit 1
fi
dlcbench=build-gpu/dlcbench
$dlcbench doctor --json >"$out/doctor.json" 2>&1 || true
$dlcbench doctor 2>&1 | sed -n '/^GPU/,$p' | tee "$out/doctor-gpu.txt"

step "GPU unit tests"
tests_rc=0
build-gpu/tests/gpu_unit_tests --gtest_brief=1 2>&1 | tee "$out/unit-tests.log" || tests_rc=$?

step "benchmark run"
# The host, and each container runtime that can run here: one that cannot
# is left out, and the report says why.
envs=${GPU_CHECK_ENVS:-}
left_out=()
if [ -z "$envs" ]; then
  envs=host
  for runtime in docker podman runc crun; do
    if ! command -v "$runtime" >/dev/null; then
      left_out+=("$runtime: not installed on this machine")
    elif [ "$runtime" = docker ] && ! docker info >/dev/null 2>&1; then
      left_out+=("docker: installed, but no Docker Engine answers (start one: scripts/with-docker.sh)")
    elif [ "$runtime" = podman ] && ! podman info >/dev/null 2>&1; then
      left_out+=("podman: installed, but \`podman info\` fails")
    elif { [ "$runtime" = runc ] || [ "$runtime" = crun ]; } && [ "$(id -u)" -ne 0 ]; then
      left_out+=("$runtime: needs root here")
    else
      envs+=",$runtime"
    fi
  done
fi
printf '%s\n' "${left_out[@]}" >"$out/environments-left-out.txt"
[ ${#left_out[@]} -eq 0 ] || printf 'left out: %s\n' "${left_out[@]}"
run_rc=0
if [ "$gpu" = yes ]; then
  $dlcbench run \
    --workloads "gpu-gemm:n=${GPU_CHECK_GEMM_N:-8192},gpu-copy:size=${GPU_CHECK_COPY_SIZE:-1g},fcn5,alexnet,resnet56,lstm" \
    --backends cuda --device gpu --warmup 1 --iters 1 --runs 1 --envs "$envs" --data synthetic \
    --case-timeout 120 --out "$out/results" 2>&1 | tee "$out/run.log" || run_rc=$?
else
  # The binary built here, on the CPU: the reference back end trains, and the
  # reports are written as on a GPU machine.
  $dlcbench run --workloads fcn5 --backends reference --warmup 1 --iters 2 --runs 2 --envs "$envs" \
    --data synthetic --batch 16 --out "$out/results" 2>&1 | tee "$out/run.log" || run_rc=$?
fi
dir=$(ls -d "$out"/results/*/ 2>/dev/null | tail -1)
if [ -n "$dir" ]; then
  $dlcbench report "$dir" --format json -o "$out/report.json"
  $dlcbench report "$dir" --format md -o "$out/report.md"
  # What the driver said before the run (clocks idle, persistence mode, PCIe
  # link), what doctor found, and the CUDA start-up each worker measured.
  if [ "$gpu" = yes ]; then
    { echo; echo "## The GPU, as scripts/gpu-check.sh found it"; echo
      echo "nvidia-smi before the run:"; echo; echo '```'; cat "$out/nvidia-smi.csv"; echo '```'; echo
      echo "dlcbench doctor:"; echo; echo '```'; cat "$out/doctor-gpu.txt"; echo '```'; echo
      echo "CUDA start-up (driver and context) of each GPU worker launch, seconds:"
      grep -ho '"cuda_init_seconds":[0-9.e+-]*' "$dir/results.jsonl" | cut -d: -f2 | sort -g | tr '\n' ' '; echo
    } >>"$out/report.md"
  else
    { echo; echo "## The GPU"; echo; cat "$out/no-gpu.txt"; } >>"$out/report.md"
  fi
  if [ ${#left_out[@]} -gt 0 ]; then
    { echo; echo "## Container runtimes left out by scripts/gpu-check.sh"; echo
      printf -- '- %s\n' "${left_out[@]}"; } >>"$out/report.md"
  fi
  # The figure the check is for: BF16 GEMM against the GPU's estimated peak.
  grep -A9 '^### gpu-gemm/bf16' "$out/report.md" | grep -E 'estimated peak|^\| (env|host|docker|podman|runc)' || true
fi

step "done: GPU $gpu, build $build_seconds s with $jobs jobs, unit tests exit $tests_rc, run exit $run_rc; reports in $out"
[ "$tests_rc" -eq 0 ] && [ "$run_rc" -eq 0 ]
