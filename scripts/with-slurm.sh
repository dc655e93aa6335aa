#!/usr/bin/env bash
# Runs a command against a local Slurm cluster started for it.
#
# If a Slurm controller already answers (SLURM_CONF or the default
# configuration), the command just runs. Otherwise this starts, all under
# one temporary folder: munged with its own key and socket, slurmctld, and
# NODES slurmd "nodes" on this one machine (`slurmd -N NAME`, each with its
# own port, spool and log), runs the command with SLURM_CONF pointing at
# that cluster, then stops every daemon by its PID and deletes the folder.
# Nothing is written outside the folder; no system service is touched.
#
#   scripts/with-slurm.sh [--nodes N] [--keep-logs DIR] COMMAND [ARG...]
#
# The nodes are named dlcnode1..dlcnodeN, in the partition "dlcbench"
# (the default). Each claims every CPU of the machine: the nodes share it,
# as the nodes of a test cluster do.
set -uo pipefail

nodes=2
keep_logs=""
while [ $# -gt 0 ]; do
  case "$1" in
    --nodes) nodes=$2; shift 2 ;;
    --keep-logs) keep_logs=$2; shift 2 ;;
    --) shift; break ;;
    *) break ;;
  esac
done
if [ $# -eq 0 ]; then
  echo "usage: $0 [--nodes N] [--keep-logs DIR] COMMAND [ARG...]" >&2
  exit 2
fi

if scontrol ping 2>/dev/null | grep -q "is UP"; then
  "$@"
  exit $?
fi

for program in munged slurmctld slurmd sbatch; do
  if ! command -v "$program" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$program" ]; then
    echo "with-slurm: $program is not installed: run scripts/install-deps.sh (Debian's slurm-wlm and munge)" >&2
    exit 1
  fi
done
PATH=$PATH:/usr/sbin

state=$(mktemp -d "${TMPDIR:-/tmp}/dlcbench-slurm.XXXXXX")
chmod 755 "$state"
pids=()

stop_all() {
  local pid
  # slurmd first (they end their job steps), then the controller, then munged.
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    pid=${pids[$i]}
    kill -TERM "$pid" 2>/dev/null || continue
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  # Job steps whose slurmstepd outlived its slurmd (none normally).
  local f p cmd
  for f in /proc/[0-9]*/cmdline; do
    p=${f#/proc/}; p=${p%/cmdline}
    cmd=$( (tr '\0' ' ' <"$f") 2>/dev/null) || continue
    case "$cmd" in *"$state/"*) kill -KILL "$p" 2>/dev/null ;; esac
  done
  if [ -n "$keep_logs" ]; then
    mkdir -p "$keep_logs" && cp "$state"/*.log "$keep_logs"/ 2>/dev/null
  fi
  rm -rf "$state"
}
trap stop_all EXIT
trap 'exit 130' INT TERM

# A free TCP port on the loopback, from a random start.
free_port() {
  local p=$((20000 + RANDOM % 30000))
  while (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || [[ " ${used_ports[*]:-} " == *" $p "* ]]; do
    p=$((p + 1))
  done
  used_ports+=("$p")
  echo "$p"
}
used_ports=()

# munge: its own key and socket; Slurm is pointed at the socket (AuthInfo).
mkdir -p "$state/munge"
chmod 700 "$state/munge"
dd if=/dev/urandom of="$state/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$state/munge/munge.key"
munged --key-file="$state/munge/munge.key" --socket="$state/munge/munge.socket" \
  --pid-file="$state/munge/munged.pid" --log-file="$state/munged.log" --seed-file="$state/munge/munged.seed" \
  --force 2>"$state/munged.start.log"
for _ in $(seq 50); do [ -s "$state/munge/munged.pid" ] && break; sleep 0.1; done
if [ ! -s "$state/munge/munged.pid" ]; then
  echo "with-slurm: munged did not start:" >&2
  cat "$state/munged.start.log" "$state/munged.log" >&2 2>/dev/null
  exit 1
fi
pids+=("$(cat "$state/munge/munged.pid")")
chmod 755 "$state/munge"  # the socket is for every user (jobs of unprivileged users too)

host=$(hostname)
cpus=$(nproc)
memory=$(awk '/MemTotal/ { print int($2 / 1024 / 2) }' /proc/meminfo)
ctld_port=$(free_port)
node_names=()
node_lines=""
for i in $(seq "$nodes"); do
  name="dlcnode$i"
  node_names+=("$name")
  node_lines+="NodeName=$name NodeHostname=$host NodeAddr=127.0.0.1 Port=$(free_port) CPUs=$cpus RealMemory=$memory State=UNKNOWN"$'\n'
  mkdir -p "$state/spool/$name"
done
mkdir -p "$state/ctld"
cat >"$state/slurm.conf" <<EOF
# A local test cluster of with-slurm.sh: every daemon and file under $state.
ClusterName=dlcbench
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$state/munge/munge.socket
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool/%n
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd-%n.pid
SlurmctldLogFile=$state/slurmctld.log
SlurmdLogFile=$state/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MailProg=/bin/true
MinJobAge=3600
KillWait=5
InactiveLimit=0
$node_lines
PartitionName=dlcbench Nodes=$(IFS=,; echo "${node_names[*]}") Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF
export SLURM_CONF="$state/slurm.conf"

slurmctld -f "$SLURM_CONF" -i 2>"$state/slurmctld.start.log"
for _ in $(seq 100); do [ -s "$state/slurmctld.pid" ] && break; sleep 0.1; done
if [ ! -s "$state/slurmctld.pid" ]; then
  echo "with-slurm: slurmctld did not start:" >&2
  cat "$state/slurmctld.start.log" "$state/slurmctld.log" >&2 2>/dev/null
  exit 1
fi
pids+=("$(cat "$state/slurmctld.pid")")
for name in "${node_names[@]}"; do
  # Each node reads slurm.conf (the same file's copy) from a folder of its
  # own, beside an mpi.conf of its own: srun --mpi=pmix makes a folder named
  # by the job step alone under PMIxCliTmpDirBase, which the nodes of one
  # machine must not share.
  mkdir -p "$state/conf/$name" "$state/pmix/$name"
  cp "$SLURM_CONF" "$state/conf/$name/slurm.conf"
  echo "PMIxCliTmpDirBase=$state/pmix/$name" >"$state/conf/$name/mpi.conf"
  slurmd -f "$state/conf/$name/slurm.conf" -N "$name" 2>"$state/slurmd-$name.start.log"
  for _ in $(seq 100); do [ -s "$state/slurmd-$name.pid" ] && break; sleep 0.1; done
  if [ ! -s "$state/slurmd-$name.pid" ]; then
    echo "with-slurm: slurmd -N $name did not start:" >&2
    cat "$state/slurmd-$name.start.log" "$state/slurmd-$name.log" >&2 2>/dev/null
    exit 1
  fi
  pids+=("$(cat "$state/slurmd-$name.pid")")
done

# Ready when every node is idle.
ready=""
for _ in $(seq 150); do
  if [ "$(sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)" -ge "$nodes" ]; then ready=1; break; fi
  sleep 0.2
done
if [ -z "$ready" ]; then
  echo "with-slurm: the nodes did not become idle:" >&2
  sinfo -N -l >&2
  tail -n 20 "$state"/*.log >&2
  exit 1
fi
echo "with-slurm: cluster up: ${node_names[*]} (SLURM_CONF=$SLURM_CONF)" >&2

"$@"
exit $?
