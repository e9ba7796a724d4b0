#!/usr/bin/env bash
# procs.sh COUNT CMD [ARGS...]: runs COUNT copies of CMD at once and waits
# for all of them; fails when any copy fails.
set -euo pipefail
count=$1
shift
pids=()
for ((i = 0; i < count; i++)); do
  "$@" &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
exit $status
