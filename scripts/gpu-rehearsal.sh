#!/usr/bin/env bash
# The GPU check rehearsed here, before any GPU time is spent: a container
# stands in for the bare GPU machine, and scripts/gpu-check.sh runs in it
# exactly as it would run there.
#
# The stand-in: a Debian 12 root file system made by debootstrap (minbase
# with a compiler, CMake, ninja and Python; no development packages), the
# network off, the CUDA toolkit 13 mounted without cuBLAS and cuDNN, and
# those two laid out as NVIDIA's Python wheels lay them out
# (site-packages/nvidia/{cublas,cudnn}/{include,lib}, only the versioned
# .so.N), where Python finds them. Into it go the repository's files (what
# git tracks, and untracked files it does not ignore) and gpu-bundle.tar.gz:
# what is carried to the GPU machine. The check builds from those alone,
# compiles and links the CUDA plugin with nvcc, and runs everything but the
# GPU steps, which must say "no GPU". Its report lands in OUT_DIR.
#
#   scripts/gpu-rehearsal.sh [OUT_DIR]     (default: gpu-rehearsal/)
#
# Needs root, a running Docker Engine (scripts/with-docker.sh starts one),
# debootstrap, and the CUDA toolkit 13 at CUDA_HOME (default
# /usr/local/cuda). The root file system is kept in
# ~/.cache/dlcbench/rehearsal-rootfs-<hash>.tar, made again when its package
# list changes; the image made from it is removed at the end.
# Environment: REHEARSAL_JOBS (build jobs in the container; default: all
# CPUs), DEBIAN_MIRROR (default http://deb.debian.org/debian),
# REHEARSAL_KEEP=1 (keep the scratch folder: the carried files, the toolkit
# and the wheels, to look into a failure).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-gpu-rehearsal}")
cuda=$(realpath "${CUDA_HOME:-/usr/local/cuda}")
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
packages="g++,cmake,ninja-build,python3-minimal,ca-certificates"
fail() { echo "gpu-rehearsal: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "needs root (debootstrap, and the container's mounts): run it with sudo"
command -v debootstrap >/dev/null || fail "debootstrap is missing: apt-get install debootstrap (scripts/install-deps.sh)"
docker info >/dev/null 2>&1 || fail "no Docker Engine answers: run it through scripts/with-docker.sh"
[ -x "$cuda/bin/nvcc" ] || fail "no nvcc at $cuda/bin/nvcc: set CUDA_HOME to the CUDA toolkit 13"
ls "$cuda"/lib*/libcudnn.so.9 "$cuda"/lib*/libcublas.so.* >/dev/null 2>&1 ||
  fail "cuDNN 9 and cuBLAS are not in $cuda/lib: the rehearsal lays them out as wheels from there"

rm -rf "$out"
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/dlcbench-rehearsal.XXXXXX")
image=""
cleanup() {
  [ -n "$image" ] && docker rmi -f "$image" >/dev/null 2>&1
  if [ -n "${REHEARSAL_KEEP:-}" ]; then echo "gpu-rehearsal: kept $work (REHEARSAL_KEEP)"; else rm -rf "$work"; fi
}
trap cleanup EXIT
started=$(date +%s)
step() { echo "== rehearsal $(($(date +%s) - started)) s: $*"; }

step "root file system (debootstrap minbase + $packages)"
cache=${XDG_CACHE_HOME:-$HOME/.cache}/dlcbench
hash=$(echo "bookworm $packages" | sha256sum | cut -c1-12)
rootfs_tar=$cache/rehearsal-rootfs-$hash.tar
if [ ! -f "$rootfs_tar" ]; then
  mkdir -p "$cache"
  debootstrap --variant=minbase --include="$packages" bookworm "$work/rootfs" "$mirror" >"$out/debootstrap.log" 2>&1 ||
    { tail -20 "$out/debootstrap.log" >&2; fail "debootstrap failed (see $out/debootstrap.log)"; }
  # No development packages beyond the compiler's own: the machine has none.
  rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb
  tar -C "$work/rootfs" -cf "$rootfs_tar.partial" . && mv "$rootfs_tar.partial" "$rootfs_tar"
  rm -rf "$work/rootfs"
fi
image=dlcbench-rehearsal:$hash-$$
docker import "$rootfs_tar" "$image" >/dev/null

step "what is carried: the repository's files and the bundle"
mkdir -p "$work/repo"
git ls-files -z --cached --others --exclude-standard |
  tar --null --files-from=- --ignore-failed-read -cf - | tar -C "$work/repo" -xf -
scripts/gpu-bundle.sh "$work/repo/gpu-bundle.tar.gz"
carried=$(du -sb "$work/repo" | cut -f1)
echo "carried: $((carried / 1048576)) MiB (the limit is 64 MiB)"
[ "$carried" -lt $((64 * 1048576)) ] || fail "what would be carried is $((carried / 1048576)) MiB, over 64 MiB"

step "the toolkit without cuBLAS and cuDNN; those two as wheels"
# The toolkit's compiler, headers and runtime, copied (nvcc finds its
# headers through its own real path, so a mount of the whole toolkit would
# show cuDNN beside it).
toolkit=$work/cuda
mkdir -p "$toolkit/lib" "$toolkit/targets/x86_64-linux"
cp -a "$cuda/bin" "$cuda/nvvm" "$toolkit/"
cp -a "$cuda/include" "$toolkit/include"
rm -f "$toolkit/include/"cudnn*.h "$toolkit/include/"cublas*.h
cp -a "$cuda/lib/"libcudart* "$cuda/lib/"libcudadevrt.a "$cuda/lib/"libculibos.a "$cuda/lib/stubs" \
  "$cuda/lib/cmake" "$toolkit/lib/"
ln -s ../../include "$toolkit/targets/x86_64-linux/include"
ln -s ../../lib "$toolkit/targets/x86_64-linux/lib"
ln -s lib "$toolkit/lib64"
# The wheels: headers copied, the versioned libraries as links into the real
# toolkit's lib/, mounted at /opt/cuda-libraries (nobody searches there).
wheels=$work/nvidia
mkdir -p "$wheels/cudnn/include" "$wheels/cudnn/lib" "$wheels/cublas/include" "$wheels/cublas/lib"
touch "$wheels/cudnn/__init__.py" "$wheels/cublas/__init__.py"
cp "$cuda/include/"cudnn*.h "$wheels/cudnn/include/"
cp "$cuda/include/"cublas*.h "$wheels/cublas/include/"
for library in "$cuda/lib/"libcudnn*.so.9 "$cuda/lib/"libcublas*.so.[0-9]*; do
  name=$(basename "$library")
  case $name in libcudnn*) folder=cudnn ;; *) folder=cublas ;; esac
  ln -s "/opt/cuda-libraries/$name" "$wheels/$folder/lib/$name"
done

step "the check, in the container (network off)"
rc=0
# REHEARSAL_CPU_SHARES (for example 2): the container's CPU weight, so that
# scripts/test-containers.sh can run it beside the integration tests without
# taking their CPU (a container does not inherit the caller's priority).
docker run --rm --network none --cpu-shares "${REHEARSAL_CPU_SHARES:-1024}" \
  -e GPU_CHECK_JOBS="${REHEARSAL_JOBS:-$(nproc)}" -e GPU_CHECK_OPT=-O0 -e PATH=/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  -v "$work/repo:/work/repo" -v "$out:/out" \
  -v "$toolkit:/usr/local/cuda-13.0:ro" -v "$(realpath "$cuda/lib"):/opt/cuda-libraries:ro" \
  -v "$wheels:/usr/local/lib/python3.11/dist-packages/nvidia:ro" \
  "$image" bash -c 'ln -sfn /usr/local/cuda-13.0 /usr/local/cuda && cd /work/repo && scripts/gpu-check.sh /out' \
  2>&1 | tee "$out/rehearsal.log" || rc=$?
[ "$rc" -eq 0 ] || fail "the check exited $rc (see $out/rehearsal.log)"
# What the rehearsal is for, read from the check's own files.
grep -q "Dependencies: from the bundle" "$out/configure.log" || fail "the build did not use the bundle ($out/configure.log)"
grep -q "CUDA plugin: CUDA 13" "$out/configure.log" || fail "the CUDA plugin was not configured ($out/configure.log)"
grep -q "/nvidia/cudnn/lib/libcudnn.so.9" "$out/configure.log" ||
  fail "cuDNN was not found in the wheel's folder ($out/configure.log)"
grep -q "no GPU" "$out/no-gpu.txt" "$out/unit-tests.log" || fail "the GPU steps did not say \"no GPU\""
[ -s "$out/report.md" ] && [ -s "$out/report.json" ] || fail "the check wrote no report.md and report.json"
grep -q "docker: not installed on this machine" "$out/report.md" ||
  fail "the report does not say why the container runtimes were left out"
grep -q "Machine:\*\* .*; a virtual machine\|Machine:\*\* .*; on bare metal\|Machine:\*\* .*gVisor" "$out/report.md" ||
  fail "the report does not say what kind of machine measured the \"host\" figures"
# The static OpenBLAS still tells the fingerprint which kernel it runs.
grep -q '"library":"OpenBLAS"' "$out"/results/*/results.jsonl ||
  fail "the worker's fingerprint does not name OpenBLAS: the bundle build hides its identity from dlsym"
step "done: the check built from the carried files alone and ran; its files are in $out"
