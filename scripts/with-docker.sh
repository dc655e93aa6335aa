#!/usr/bin/env bash
# Runs a command with a Docker Engine to talk to.
#
# If a daemon already answers (DOCKER_HOST or the default socket), the command
# just runs. Otherwise this starts dockerd under a private state folder, with
# its own socket and with --iptables=false --bridge=none so the host's
# firewall and network are not touched, runs the command with DOCKER_HOST
# pointing at it, then stops that dockerd by its PID and deletes the folder.
#
#   scripts/with-docker.sh build/dlcbench run --envs host,docker
set -uo pipefail

if [ $# -eq 0 ]; then
  echo "usage: $0 COMMAND [ARG...]" >&2
  exit 2
fi

if docker version --format '{{.Server.Version}}' >/dev/null 2>&1; then
  "$@"
  exit $?
fi

if ! command -v dockerd >/dev/null 2>&1; then
  echo "with-docker: no Docker daemon answers and dockerd is not installed: run scripts/install-deps.sh" >&2
  exit 1
fi

state=$(mktemp -d "${TMPDIR:-/tmp}/dlcbench-dockerd.XXXXXX")
dockerd_pid=""

stop_dockerd() {
  if [ -n "$dockerd_pid" ] && kill -0 "$dockerd_pid" 2>/dev/null; then
    kill -TERM "$dockerd_pid" 2>/dev/null
    for _ in $(seq 1 100); do
      kill -0 "$dockerd_pid" 2>/dev/null || break
      sleep 0.2
    done
    kill -KILL "$dockerd_pid" 2>/dev/null || true
    wait "$dockerd_pid" 2>/dev/null || true
  fi
  # The daemon unmounts its layers when it stops; anything still mounted
  # under our folder (after a KILL) is unmounted before the folder goes, so
  # rm never reaches through a mount.
  if command -v findmnt >/dev/null 2>&1; then
    findmnt -rn -o TARGET | grep -F "$state/" | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
  fi
  rm -rf --one-file-system "$state"
}
trap stop_dockerd EXIT
trap 'exit 130' INT TERM

dockerd \
  --data-root "$state/data" \
  --exec-root "$state/exec" \
  --pidfile "$state/dockerd.pid" \
  --host "unix://$state/docker.sock" \
  --iptables=false --ip6tables=false --bridge=none \
  --log-level warn >"$state/dockerd.log" 2>&1 &
dockerd_pid=$!
export DOCKER_HOST="unix://$state/docker.sock"

for _ in $(seq 1 120); do
  docker version --format '{{.Server.Version}}' >/dev/null 2>&1 && break
  if ! kill -0 "$dockerd_pid" 2>/dev/null; then
    echo "with-docker: dockerd exited while starting; its log:" >&2
    cat "$state/dockerd.log" >&2
    exit 1
  fi
  sleep 0.5
done
if ! docker version >/dev/null 2>&1; then
  echo "with-docker: dockerd did not answer within 60 s; its log:" >&2
  tail -n 30 "$state/dockerd.log" >&2
  exit 1
fi
echo "with-docker: started dockerd (pid $dockerd_pid) at $DOCKER_HOST; it stops when the command ends" >&2

"$@"
rc=$?
exit $rc
