#!/usr/bin/env bash
# Built-in training across nodes (issue 12): 2 mptrain under mpirun, one per
# CPU ("node"), one worker each, against 1 mptrain with 2 workers on both
# CPUs, same data, for --sync-every 0.1, 0.5 and 2 s: samples/s (all nodes'
# samples over the slowest node's time), node 0's test accuracy, the time
# node 0 spent averaging, and whether both nodes ended with the same model.
# The nodes run twice: with the same epochs (each node passes over its half
# of the data, so they train half the samples the single node's two workers
# do) and with twice the epochs (the same samples). Seeds 1..REPEAT
# alternate between the configurations; means.
# Usage: bench/nodes.sh  (set any variable below to override)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
EPOCHS=${EPOCHS:-1}
REPEAT=${REPEAT:-3}
SYNCS=${SYNCS:-"0.1 0.5 2"}
require_command mpirun openmpi-bin
require_mptrain
[[ -f "$(dirname "$MPTRAIN")/libmptrain_mpi.so" ]] || bench_fail "$MPTRAIN has no MPI plugin"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bench_tmpdir nodes

# nodes SYNC SEED EPOCHS: appends "samples/s accuracy averaging-seconds same-model" to $OUT/nodes-SYNC-EPOCHS.rows.
nodes() {
  mpirun -n 2 sh -c '"$0" run -n 1 --data "$1" --epochs "$2" --seed "$3" --sync-every "$4" --json \
      >"$5.$OMPI_COMM_WORLD_RANK" 2>/dev/null' "$MPTRAIN" "$DATA" "$3" "$2" "$1" "$OUT/node"
  jq -s -r '"\((map(.samples) | add) / (map(.train_seconds) | max)) \(.[0].test_accuracy) \(.[0].nodes.averaging_seconds) \(.[0].model_checksum == .[1].model_checksum)"' \
    "$OUT/node.0" "$OUT/node.1" >>"$OUT/nodes-$1-$3.rows"
}
# one SEED: appends "samples/s accuracy" of 1 mptrain x 2 workers to $OUT/one.rows.
one() {
  "$MPTRAIN" run -n 2 --data "$DATA" --epochs "$EPOCHS" --seed "$1" --json 2>/dev/null |
    jq -r '"\(.samples_per_second) \(.test_accuracy)"' >>"$OUT/one.rows"
}

for ((seed = 1; seed <= REPEAT; seed++)); do
  one "$seed"
  for sync in $SYNCS; do
    nodes "$sync" "$seed" "$EPOCHS"
    nodes "$sync" "$seed" $((2 * EPOCHS))
  done
done
mean() { awk -v c="$1" '{ s += $c } END { printf "%.4f", s / NR }' "$2"; }
echo "== built-in training: 2 nodes (mpirun, 1 worker each) vs 1 node x 2 workers, $EPOCHS epoch(s), $(machine_summary), seeds 1..$REPEAT, means"
printf '%-40s %12s %9s %14s %10s\n' configuration samples/s accuracy "averaging s" "same model"
printf '%-40s %12.0f %9s %14s %10s\n' "1 node x 2 workers, $EPOCHS epoch(s)" "$(mean 1 "$OUT/one.rows")" "$(mean 2 "$OUT/one.rows")" - -
for sync in $SYNCS; do
  for epochs in "$EPOCHS" $((2 * EPOCHS)); do
    rows="$OUT/nodes-$sync-$epochs.rows"
    printf '%-40s %12.0f %9s %14s %10s\n' "2 nodes, $epochs epoch(s), --sync-every $sync" "$(mean 1 "$rows")" \
      "$(mean 2 "$rows")" "$(mean 3 "$rows")" "$(awk '{ print $4 }' "$rows" | sort -u | paste -sd/)"
  done
done
