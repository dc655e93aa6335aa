#!/usr/bin/env bash
# Runs a command with a rootless Docker daemon of the unprivileged user
# dlcbench-rootless (docker:rootless=dlcbench-rootless), as root.
#
# Rootless Docker is dockerd run by a user, inside rootlesskit's user and
# network namespaces (Docker's dockerd-rootless.sh, shipped by Debian's
# docker.io under /usr/share/docker.io/contrib): its containers map root to
# the user, their packets go through slirp4netns, their layers through
# overlay2 in the user namespace. This makes the user if missing
# (scripts/rootless-user.sh), starts that daemon as the user with its socket
# at /run/user/UID/docker.sock, runs the command, then stops the daemon by
# its PID. The user's image store stays in its home until
# `scripts/rootless-user.sh --remove`.
#
#   scripts/with-rootless-docker.sh build/dlcbench run --envs host,docker,docker:rootless=dlcbench-rootless
set -uo pipefail

if [ $# -eq 0 ]; then
  echo "usage: $0 COMMAND [ARG...]" >&2
  exit 2
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "with-rootless-docker: run as root (it starts the daemon as dlcbench-rootless); as yourself, run dockerd-rootless.sh" >&2
  exit 1
fi
here=$(cd "$(dirname "$0")" && pwd)
user=${DLCBENCH_ROOTLESS_USER:-dlcbench-rootless}
contrib=/usr/share/docker.io/contrib
if [ ! -x "$contrib/dockerd-rootless.sh" ] || ! command -v rootlesskit >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q docker.io rootlesskit >/dev/null || {
    echo "with-rootless-docker: dockerd-rootless.sh (docker.io) or rootlesskit is missing and apt-get could not install them" >&2
    exit 1
  }
fi
"$here/rootless-user.sh" >/dev/null || exit 1
uid=$(id -u "$user")
gid=$(id -g "$user")
home=$(getent passwd "$user" | cut -d: -f6)
runtime_dir=/run/user/$uid
mkdir -p "$runtime_dir" && chown "$user:" "$runtime_dir" && chmod 700 "$runtime_dir"
socket=$runtime_dir/docker.sock
log=$(mktemp "${TMPDIR:-/tmp}/dlcbench-rootless-dockerd.XXXXXX")

# A daemon of the user's already answering is used as it is.
if [ -S "$socket" ] && DOCKER_HOST=unix://$socket timeout 20 docker version >/dev/null 2>&1; then
  rm -f "$log"
  "$@"
  exit $?
fi

# dockerd-rootless.sh execs rootlesskit, which starts dockerd inside its
# namespaces: this PID is rootlesskit's, and stopping it stops the daemon.
setpriv --reuid="$uid" --regid="$gid" --init-groups -- /usr/bin/env -i HOME="$home" USER="$user" LOGNAME="$user" \
  XDG_RUNTIME_DIR="$runtime_dir" PATH="/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin:$contrib" \
  "$contrib/dockerd-rootless.sh" --data-root "$home/.local/share/docker" >"$log" 2>&1 &
daemon=$!

stop() {
  kill -TERM "$daemon" 2>/dev/null
  for _ in $(seq 1 100); do kill -0 "$daemon" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$daemon" 2>/dev/null
  wait "$daemon" 2>/dev/null
  # Its containerd and shims, should any outlive it (they run as the user).
  pkill -KILL -u "$user" -f 'containerd|dockerd|rootlesskit|slirp4netns' 2>/dev/null || true
  rm -rf "$runtime_dir/docker" "$runtime_dir/docker.sock" "$runtime_dir/docker.pid" "$runtime_dir/dockerd-rootless"
  rm -f "$log"
}
trap stop EXIT
trap 'exit 130' INT TERM

for _ in $(seq 1 120); do
  DOCKER_HOST=unix://$socket docker version >/dev/null 2>&1 && break
  if ! kill -0 "$daemon" 2>/dev/null; then
    echo "with-rootless-docker: the rootless dockerd of $user stopped at start; its log:" >&2
    tail -20 "$log" >&2
    exit 1
  fi
  sleep 0.5
done
if ! DOCKER_HOST=unix://$socket docker version >/dev/null 2>&1; then
  echo "with-rootless-docker: the rootless dockerd of $user did not answer at $socket within 60 s; its log:" >&2
  tail -20 "$log" >&2
  exit 1
fi
echo "with-rootless-docker: started the rootless dockerd of $user (pid $daemon) at unix://$socket; it stops when the command ends" >&2
"$@"
