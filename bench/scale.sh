#!/usr/bin/env bash
# Proof at scale (issue 44): one script that prints, and writes to one file
# ($OUT, default bench-scale.txt), what a bigger machine says: the machine
# (lscpu), `mptrain topo`; the seeds' program (torch_hogwild.py: a copy in
# bench/ where the device gets only the tree, else ../shared/bench/) with
# 4 and 8 processes — bare with torch's own thread default, bare with every
# process sized to the whole machine (OMP_NUM_THREADS = N, the naive
# setting), bare hand-tuned (1 thread), and `mptrain run -n 1 --children P`;
# the built-in training's scaling at 1, 2, 4, 8, 16 threads as -n K -t 1
# and -n 1 -t K (as far as the usable CPUs go); `mptrain doctor` on the naive
# and the cured seed program; and bench/launch.sh. Process counts above the
# usable CPUs are cut to them, so on 2 CPUs it runs, smaller.
# Usage: bench/scale.sh   (TRAIN_LIMIT=… samples per worker, default 6000)
set -uo pipefail
source "$(dirname "$0")/lib.sh"
TRAIN_LIMIT=${TRAIN_LIMIT:-6000}
OUT=${OUT:-$ROOT/bench-scale.txt}
require_mptrain
: >"$OUT"
say() { printf '%s\n' "$*" | tee -a "$OUT"; }
N=$("$MPTRAIN" topo --json | jq -r '.usable_cpus')

say "== machine"
machine_details | tee -a "$OUT"
say "== mptrain topo"
"$MPTRAIN" topo 2>&1 | tee -a "$OUT"

# peer NAME [VAR=VALUE...] COMMAND...: one run of the seeds' program; its samples/s figures (its JSON
# line, tagged "[0] " under mptrain).
peer() {
  local name=$1
  shift
  local line
  line=$(env "$@" 2>/dev/null | grep -o '{.*}' | tail -1)
  say "$(printf '%-34s %s' "$name" "$(jq -r '"samples/s \(.samples_per_second|floor)  steady \(.steady_samples_per_second|floor)  accuracy \(.test_accuracy)"' <<<"$line" 2>/dev/null || echo failed)")"
}
if "$PYTHON" -c 'import torch' 2>/dev/null && [[ -e $PEER ]]; then
  for procs in 4 8; do
    p=$((procs < N ? procs : N))
    say "== the seeds' program, $p processes (asked $procs; $N usable CPUs)"
    program=("$PYTHON" "$PEER" --data "$DATA" --num-processes "$p" --train-limit "$TRAIN_LIMIT")
    peer "bare, torch's default" "${program[@]}"
    peer "bare, naive (OMP_NUM_THREADS=$N)" OMP_NUM_THREADS="$N" "${program[@]}"
    peer "bare, hand-tuned (1 thread)" "${program[@]}" --threads 1
    peer "mptrain run -n 1 --children $p" "$MPTRAIN" run -n 1 --children "$p" -- "${program[@]}"
  done
  say "== mptrain doctor on the naive and the cured program"
  p=$((4 < N ? 4 : N))
  "$MPTRAIN" doctor --quiet -- env OMP_NUM_THREADS="$N" "$PYTHON" "$PEER" --data "$DATA" --num-processes "$p" \
    --train-limit "$TRAIN_LIMIT" 2>/dev/null | grep -v '^{' | tee -a "$OUT"
  "$MPTRAIN" doctor --quiet -- "$PYTHON" "$PEER" --data "$DATA" --num-processes "$p" --threads 1 \
    --train-limit "$TRAIN_LIMIT" 2>/dev/null | grep -v '^{' | tee -a "$OUT"
else
  say "== the seeds' program: skipped ($PYTHON cannot import torch, or no $PEER)"
fi

say "== built-in training, scaling (the report's samples/s; share of K × one thread)"
one=""
for k in 1 2 4 8 16; do
  ((k <= N)) || break
  layouts=("-n $k -t 1" "-n 1 -t $k")
  ((k == 1)) && layouts=("-n 1 -t 1")
  for layout in "${layouts[@]}"; do
    # shellcheck disable=SC2086
    rate=$("$MPTRAIN" run $layout --epochs 1 --json 2>/dev/null | jq -r '.samples_per_second | floor')
    [[ -z $one ]] && one=$rate
    say "$(printf '%-14s %10s samples/s  %s' "$layout" "$rate" \
      "$(awk -v r="$rate" -v o="$one" -v k="$k" 'BEGIN { if (o > 0) printf "%.2f x one thread, %.2f N", r / o, r / o / k }')")"
  done
done

say "== bench/launch.sh"
RUNS=${RUNS:-50} "$ROOT/bench/launch.sh" "$MPTRAIN" 2>&1 | tee -a "$OUT"
say "== written to $OUT"
