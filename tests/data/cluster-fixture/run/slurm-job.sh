#!/bin/sh
# Written by dlcbench run --slurm: one job step per node of the allocation,
# each running the arguments given to this script, so that one node's step
# can be cancelled (scancel JOB.STEP) while the others go on.
status=0
pids=""
for node in $(scontrol show hostnames "$SLURM_JOB_NODELIST"); do
  srun --nodes=1 --ntasks=1 --nodelist="$node" --job-name="dlcbench-$node" --kill-on-bad-exit=0 "$@" &
  pids="$pids $!"
done
for pid in $pids; do
  wait "$pid" || status=$?
done
exit "$status"
