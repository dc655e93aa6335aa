#!/usr/bin/env bash
# Installs what the CUDA plugin is built from, where it is missing: nvcc, the
# CUDA runtime, cuBLAS and NVRTC of CUDA ${CUDA_SERIES:-13-0}, and cuDNN 9
# for that CUDA, from NVIDIA's apt repository (Debian's own archive has no
# CUDA 13 and no cuDNN). Needs the NVIDIA driver (CUDA 13 needs driver 580 or
# later) and a network that reaches developer.download.nvidia.com. Safe to
# run again: it installs nothing when nvcc and cuDNN are already there.
#
#   scripts/install-cuda.sh              prints the nvcc it found or installed
#
# Environment: CUDA_SERIES (13-0: NVIDIA's package suffix for CUDA 13.0).
set -euo pipefail

series=${CUDA_SERIES:-13-0}
dotted=${series/-/.}
major=${series%%-*}

find_nvcc() {
  local candidate
  for candidate in "${CUDACXX:-}" /usr/local/cuda/bin/nvcc /usr/local/cuda-"$dotted"/bin/nvcc; do
    [ -n "$candidate" ] && [ -x "$candidate" ] || continue
    "$candidate" --version | grep -q "release $major\." && { echo "$candidate"; return 0; }
  done
  return 1
}

# cuDNN 9 from NVIDIA's packages goes to the multiarch folders; a tarball
# install usually goes beside the toolkit.
have_cudnn() {
  local folder
  for folder in /usr/include /usr/include/x86_64-linux-gnu /usr/include/aarch64-linux-gnu /usr/local/cuda/include; do
    [ -f "$folder/cudnn.h" ] && grep -q '#define CUDNN_MAJOR 9' "$folder/cudnn_version.h" 2>/dev/null && return 0
  done
  return 1
}

if nvcc=$(find_nvcc) && have_cudnn; then
  echo "install-cuda: CUDA $dotted and cuDNN 9 present ($nvcc)" >&2
  echo "$nvcc"
  exit 0
fi

# The driver decides the newest CUDA that can run here.
if ! driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1) || [ -z "$driver" ]; then
  echo "install-cuda: nvidia-smi does not answer: install the NVIDIA driver (580 or later for CUDA 13) first" >&2
  exit 2
fi
if [ "$major" -ge 13 ] && [ "${driver%%.*}" -lt 580 ]; then
  echo "install-cuda: the NVIDIA driver is $driver; CUDA $dotted needs 580 or later: update the driver" >&2
  exit 2
fi

. /etc/os-release
case "$ID$VERSION_ID" in
  debian12) distro=debian12 ;;
  ubuntu22.04) distro=ubuntu2204 ;;
  ubuntu24.04) distro=ubuntu2404 ;;
  *) echo "install-cuda: no NVIDIA repository is known here for $PRETTY_NAME: install CUDA $dotted with cuBLAS and cuDNN 9 under /usr/local/cuda by hand" >&2
     exit 2 ;;
esac
case "$(uname -m)" in
  x86_64) arch=x86_64 ;;
  aarch64) arch=sbsa ;;
  *) echo "install-cuda: NVIDIA publishes no CUDA packages for $(uname -m)" >&2; exit 2 ;;
esac

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
if ! dpkg-query -W -f='${Status}' cuda-keyring 2>/dev/null | grep -q "install ok installed"; then
  # Standard output carries only the nvcc path (gpu-check.sh reads it).
  command -v curl >/dev/null || { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq curl ca-certificates; } >&2
  keyring=$(mktemp --suffix=.deb)
  trap 'rm -f "$keyring"' EXIT
  url=https://developer.download.nvidia.com/compute/cuda/repos/$distro/$arch/cuda-keyring_1.1-1_all.deb
  echo "install-cuda: adding NVIDIA's repository ($url)" >&2
  curl -fsSL --retry 3 -o "$keyring" "$url" ||
    { echo "install-cuda: cannot download $url: is developer.download.nvidia.com reachable?" >&2; exit 1; }
  $SUDO dpkg -i "$keyring" >&2
fi
$SUDO apt-get update -qq >&2
# cuda-cccl: the headers cuda_fp16.h and cuda_bf16.h include.
packages=(cuda-nvcc-"$series" cuda-cudart-dev-"$series" cuda-cccl-"$series" libcublas-dev-"$series"
  cuda-nvrtc-"$series" cudnn9-cuda-"$major")
echo "install-cuda: installing ${packages[*]}" >&2
$SUDO apt-get install -y -qq "${packages[@]}" >&2

if ! nvcc=$(find_nvcc); then
  echo "install-cuda: the packages are installed but no nvcc of CUDA $dotted is at /usr/local/cuda-$dotted/bin" >&2
  exit 1
fi
have_cudnn || { echo "install-cuda: the packages are installed but cudnn.h of cuDNN 9 is not found" >&2; exit 1; }
echo "$nvcc"
