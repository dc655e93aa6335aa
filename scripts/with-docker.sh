#!/usr/bin/env bash
# Runs a command with a Docker Engine to talk to.
#
# If a daemon already answers (DOCKER_HOST or the default socket), the command
# just runs. Otherwise this starts dockerd under a private state folder, with
# its own socket and with --iptables=false --bridge=none so the host's
# firewall and network are not touched, and with gVisor's runsc registered as
# the runtime "runsc" when it is installed (docker:runtime=runsc), runs the
# command with DOCKER_HOST pointing at it, then stops that dockerd by its PID
# and deletes the folder.
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

# A container whose start failed under gVisor keeps its containerd shim and
# runsc sandbox running after `docker rm` and after dockerd stops (seen with
# runsc 20221219). Every process still naming our folder is stopped by its
# PID, and the cgroups docker made for its containers are removed.
stop_leftovers() {
  local f pid cmd ids=() pids=()
  for f in /proc/[0-9]*/cmdline; do
    pid=${f#/proc/}
    pid=${pid%/cmdline}
    [ "$pid" = "$$" ] && continue
    cmd=$( { tr '\0' '\n' <"$f"; } 2>/dev/null) || continue
    case "$cmd" in *"$state/"*) ;; *) continue ;; esac
    pids+=("$pid")
    ids+=($(printf '%s\n' "$cmd" | awk 'previous == "-id" { print } { previous = $0 }'))
  done
  [ ${#pids[@]} -eq 0 ] && return
  echo "with-docker: stopping ${#pids[@]} process(es) dockerd left (pids ${pids[*]})" >&2
  kill -KILL "${pids[@]}" 2>/dev/null || true
  sleep 0.5
  local id c
  for id in "${ids[@]}"; do
    for c in /sys/fs/cgroup/*/docker/"$id" /sys/fs/cgroup/docker/"$id"; do
      [ -d "$c" ] && rmdir "$c" 2>/dev/null
    done
  done
  return 0
}

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
  stop_leftovers
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

# gVisor: a private daemon knows runsc as a runtime (docker:runtime=runsc)
# when it is installed. `--add-runtime` cannot give it arguments, so the
# runtime goes into a daemon config file in the private folder, with
#  --platform=ptrace: gVisor's KVM platform hangs on VMs without nested
#    virtualisation;
#  --network=none: gVisor's own loopback-only stack, as docker's --network
#    none gives. Debian's runsc (20221219) cannot take over the interfaces of
#    docker's network namespace on current kernels ("cannot run with network
#    enabled in root network namespace", even under --network none).
# The host's /etc/docker/daemon.json, if any, is copied into it first, since
# --config-file replaces it (a runsc runtime it defines is kept as it is).
config_args=()
runsc_path=$(command -v runsc 2>/dev/null || true)
if [ -n "$runsc_path" ]; then
  system_config=/etc/docker/daemon.json
  if [ ! -s "$system_config" ]; then
    printf '{"runtimes": {"runsc": {"path": "%s", "runtimeArgs": ["--platform=ptrace", "--network=none"]}}}\n' \
      "$runsc_path" >"$state/daemon.json"
    config_args=(--config-file "$state/daemon.json")
  elif command -v jq >/dev/null 2>&1; then
    if jq --arg path "$runsc_path" \
        '.runtimes.runsc //= {"path": $path, "runtimeArgs": ["--platform=ptrace", "--network=none"]}' \
        "$system_config" >"$state/daemon.json" 2>/dev/null; then
      config_args=(--config-file "$state/daemon.json")
    else
      echo "with-docker: $system_config is not valid JSON; runsc is not registered with this dockerd" >&2
    fi
  else
    echo "with-docker: jq is not installed, so runsc is not added to $system_config's settings: install jq" \
      "for docker:runtime=runsc" >&2
  fi
fi

dockerd \
  "${config_args[@]}" \
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
