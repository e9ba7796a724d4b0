#!/usr/bin/env bash
# Two runs started together on one machine (issue 51): K = 2 copies of a
# fixed single-threaded loop, started 50 ms apart, bare (the scheduler
# spreads them), and each under `mptrain run -n 1 -t 1` (each run pins one
# worker to one CPU: before runs knew of each other both went to the same
# CPU). Prints the pair's wall seconds, REPEAT rounds in alternating order.
# Set OTHER=/path/to/an/older/mptrain to time it in the same rounds.
# Usage: bench/share_pair.sh  (from the repository root; REPEAT=… LOOP=… to change)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
require_mptrain
REPEAT=${REPEAT:-5}
LOOP=${LOOP:-400000}
bench_tmpdir share_pair
export MPTRAIN_RUNS_DIR=$OUT/runs
loop="i=0; while [ \$i -lt $LOOP ]; do i=\$((i+1)); done"

# pair BINARY|bare: the wall seconds of the two copies, started together.
pair() {
  local start
  start=$(date +%s.%N)
  if [[ $1 == bare ]]; then
    sh -c "$loop" & sleep 0.05; sh -c "$loop" & wait
  else
    "$1" run -n 1 -t 1 -- sh -c "$loop" >/dev/null 2>&1 & sleep 0.05
    "$1" run -n 1 -t 1 -- sh -c "$loop" >/dev/null 2>&1 & wait
  fi
  echo "$(date +%s.%N) - $start" | bc
}

rows=(bare "$MPTRAIN")
[[ -n ${OTHER:-} ]] && rows+=("$OTHER")
for ((round = 0; round < REPEAT; ++round)); do
  line="round $round:"
  order=("${rows[@]}")
  ((round % 2)) && order=($(printf '%s\n' "${rows[@]}" | tac))
  for row in "${order[@]}"; do line+=" $row=$(pair "$row")"; done
  echo "$line"
done
