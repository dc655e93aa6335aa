#!/usr/bin/env bash
# A root file system with Debian's PyTorch, built from Debian packages alone
# (no container registry): `debootstrap --variant=minbase` of bookworm, then
# python3-torch installed in it with apt. Packed as a tar file that
# `docker import` and `podman import` take, and kept under the cache
# (about 1.3 GB) with the same files unpacked beside it (the root file
# system of the chroot, runc and crun environments), so that later runs on
# the same machine reuse them; delete the cache folder to build them again.
# Prints the tar file's path; the folder is that path without ".tar".
#
#   scripts/torch-rootfs.sh            # builds it if the cache has none
#   DLCBENCH_DEBIAN_MIRROR=http://... scripts/torch-rootfs.sh
#
# Needs root (debootstrap, chroot) and about 4 GB free while it builds.
# Also installs python3-torch on the host, so that the same script runs on
# both sides of the comparison (tests/heavy/torch_command_test.cpp).
set -euo pipefail

mirror=${DLCBENCH_DEBIAN_MIRROR:-http://deb.debian.org/debian}
suite=bookworm
cache=${XDG_CACHE_HOME:-$HOME/.cache}/dlcbench/torch-rootfs
tar_file=$cache/rootfs-$suite.tar

if [ "$(id -u)" -ne 0 ]; then
  echo "torch-rootfs: debootstrap and chroot need root: run it with sudo" >&2
  exit 1
fi

missing=()
for pkg in debootstrap python3-torch; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "torch-rootfs: installing ${missing[*]} on the host" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >&2
fi

rootfs_dir=${tar_file%.tar}
if [ -s "$tar_file" ]; then
  if [ ! -d "$rootfs_dir" ]; then
    unpack=$(mktemp -d "$cache/unpack.XXXXXX")
    tar -C "$unpack" --numeric-owner -xf "$tar_file"
    chmod 755 "$unpack"
    mv "$unpack" "$rootfs_dir"
  fi
  echo "$tar_file"
  exit 0
fi

mkdir -p "$cache"
work=$(mktemp -d "$cache/build.XXXXXX")
rootfs=$work/rootfs
proc_mounted=""
cleanup() {
  [ -n "$proc_mounted" ] && umount "$rootfs/proc" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

echo "torch-rootfs: debootstrap $suite from $mirror (minutes)" >&2
debootstrap --variant=minbase "$suite" "$rootfs" "$mirror" >&2
# Package scripts read /proc; nothing else of the host goes in.
mount -t proc proc "$rootfs/proc"
proc_mounted=1
echo "torch-rootfs: apt-get install python3-torch in it (minutes)" >&2
chroot "$rootfs" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
  apt-get install -y --no-install-recommends python3-torch >&2
chroot "$rootfs" /usr/bin/apt-get clean
umount "$rootfs/proc"
proc_mounted=""
rm -rf "$rootfs"/var/lib/apt/lists/*
tar -C "$rootfs" --numeric-owner -cf "$work/rootfs.tar" .
mv "$work/rootfs.tar" "$tar_file"
mv "$rootfs" "$rootfs_dir"
echo "$tar_file"
