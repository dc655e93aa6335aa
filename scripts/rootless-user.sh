#!/usr/bin/env bash
# Sets up (or removes) the unprivileged user that runs rootless Podman for
# dlcbench's podman:rootless=USER environment, on a machine where dlcbench runs
# as root (a developer's VM, CI). A user running dlcbench as themselves needs
# none of this beyond their own subordinate IDs: their Podman is rootless.
#
#   scripts/rootless-user.sh            # creates dlcbench-rootless, prints its name
#   scripts/rootless-user.sh --remove   # removes the user, its home and its ID ranges
#
# What rootless Podman needs, and what this does:
# - newuidmap and newgidmap (package uidmap), slirp4netns and fuse-overlayfs:
#   installed with apt-get when missing;
# - a user with a home folder (its image store is ~/.local/share/containers);
# - 65,536 subordinate user and group IDs in /etc/subuid and /etc/subgid,
#   for the container's user namespace.
# It is idempotent: a user that exists keeps its home and ranges.
set -euo pipefail

user=${DLCBENCH_ROOTLESS_USER:-dlcbench-rootless}

if [ "$(id -u)" -ne 0 ]; then
  echo "rootless-user: run as root (it adds a user and its subordinate IDs); as yourself, Podman is already rootless" >&2
  exit 1
fi

if [ "${1:-}" = "--remove" ]; then
  if id "$user" >/dev/null 2>&1; then
    # Its containers' storage may hold files owned by its subordinate IDs.
    home=$(getent passwd "$user" | cut -d: -f6)
    uid=$(id -u "$user")
    # Its Podman pause process and any fuse-overlayfs mount helper. userdel
    # refuses a user whose processes still run, and a killed one takes a
    # moment to go: wait for them (up to 10 s).
    for _ in $(seq 1 100); do
      pkill -KILL -u "$user" 2>/dev/null || break
      sleep 0.1
    done
    userdel "$user"
    sed -i "/^$user:/d" /etc/subuid /etc/subgid
    [ -n "$home" ] && [ "$home" != "/" ] && rm -rf "$home"
    # And what its Podman kept outside its home: the runtime folder, the lock.
    rm -rf "/run/user/$uid" "/dev/shm/libpod_rootless_lock_$uid"
    echo "rootless-user: removed $user" >&2
  fi
  exit 0
fi

missing=()
command -v newuidmap >/dev/null 2>&1 || missing+=(uidmap)
command -v slirp4netns >/dev/null 2>&1 || missing+=(slirp4netns)
command -v fuse-overlayfs >/dev/null 2>&1 || missing+=(fuse-overlayfs)
if [ ${#missing[@]} -gt 0 ]; then
  echo "rootless-user: installing ${missing[*]}" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >&2
fi

if ! id "$user" >/dev/null 2>&1; then
  useradd --create-home --shell /usr/sbin/nologin --comment "dlcbench rootless Podman" "$user"
fi
# A range past every other user's, 65,536 IDs long.
for file in /etc/subuid /etc/subgid; do
  touch "$file"
  if ! grep -q "^$user:" "$file"; then
    last=$(awk -F: 'BEGIN {m = 100000} {e = $2 + $3; if (e > m) m = e} END {print m}' "$file")
    echo "$user:$last:65536" >>"$file"
  fi
done
# Its image store on fuse-overlayfs, as rootless Podman is usually set up:
# without it Podman 4.3 falls back to vfs, which copies every layer.
home=$(getent passwd "$user" | cut -d: -f6)
conf="$home/.config/containers/storage.conf"
if [ ! -e "$conf" ]; then
  install -d -o "$user" -g "$(id -gn "$user")" "$home/.config" "$home/.config/containers"
  cat >"$conf" <<'CONF'
[storage]
driver = "overlay"

[storage.options.overlay]
mount_program = "/usr/bin/fuse-overlayfs"
CONF
  chown "$user:" "$conf"
  # A store made before with another driver would be refused.
  rm -rf "$home/.local/share/containers"
fi
echo "$user"
