#!/usr/bin/env bash
# Installs every Debian 12 package dlcbench needs to build, test and run.
# Safe to run again: apt skips what is already there.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config git tar gzip ca-certificates
  libtorch-dev libopenblas-dev
  # oneDNN for the onednn back end; its CMake package needs the OpenCL headers.
  libdnnl-dev ocl-icd-opencl-dev
  libcli11-dev nlohmann-json3-dev libfmt-dev libssl-dev libboost-math-dev
  libgtest-dev libgmock-dev
  # The results store: SQLite by default, a PostgreSQL server through libpq;
  # the store's tests start a real PostgreSQL on a temporary folder and port.
  libsqlite3-dev libpq-dev postgresql
  # scripts/gpu-bundle.sh packs OpenBLAS's static library with the Fortran run
  # time it needs; scripts/gpu-rehearsal.sh makes its stand-in machine's root
  # file system with debootstrap.
  libgfortran-12-dev debootstrap
  # scripts/fuzz.sh and scripts/sanitize.sh: clang with libFuzzer, the
  # sanitizer runtimes and its OpenMP.
  clang libclang-rt-14-dev libomp-14-dev
  docker.io runc
  # Podman and crun run as they are; `dlcbench doctor` says what works here.
  podman crun uidmap slirp4netns fuse-overlayfs rootlesskit
  # gVisor (--envs runsc, docker:runtime=runsc); scripts/with-docker.sh
  # registers it with the dockerd it starts, writing the config with jq.
  runsc jq
  # Charliecloud's ch-run (--envs charliecloud): unprivileged, no daemon.
  charliecloud-runtime
  # run --slurm: the Slurm client commands, and for the tests a local cluster
  # (scripts/with-slurm.sh starts munged, slurmctld and slurmd itself; no
  # service is enabled).
  slurm-wlm slurm-client munge
  # run --slurm --allreduce: dlcbench-allreduce is built against Open MPI
  # (ranks launched by srun --mpi=pmix).
  libopenmpi-dev openmpi-bin
  # The HTML report's test opens it in a real browser, headless.
  chromium
  # The reference tools bench/micro_vs_tools compares the micro-benchmarks with.
  hpcc ioping fio
  # The JSON report's schema test (docs/report.schema.json) validates with it.
  python3-jsonschema
  # Benchmarks only: bench/startup_vs_hyperfine times the same starts with
  # hyperfine -N, the reference for the startup workload's figures.
  hyperfine
)
# npm downloads the data sets (they are published as npm packages). A machine
# that already has Node.js from elsewhere keeps its own npm.
command -v npm >/dev/null 2>&1 || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
