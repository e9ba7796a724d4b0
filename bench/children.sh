#!/usr/bin/env bash
# The seeds' own program — PyTorch Hogwild, which starts its workers itself
# with torch.multiprocessing (shared/bench/torch_hogwild.py) — started five
# ways in one run (SPEC "Performance bar", "Process trees"):
#   bare, torch's default threads;  bare naive (OMP_NUM_THREADS = N: every
#   process sized to the whole machine);  bare hand-tuned (--threads 1);
#   under `mptrain run -n 1` (the default placement);  under `mptrain run
#   -n 1 --children P` (P = the program's processes);  under `mptrain
#   torchrun --nproc-per-node 1 --no-python`.
# Prints samples/s start to join and steady (timed inside the workers), the
# mean of REPEAT runs each, alternating, and mptrain's monitor verdict.
# Usage: bench/children.sh  (from the repository root; P=4 TRAIN_LIMIT=… to change)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
N=$(nproc)
P=${P:-$N}                          # the program's worker processes (--num-processes)
TRAIN_LIMIT=${TRAIN_LIMIT:-20000}   # training samples per worker
REPEAT=${REPEAT:-3}
require_mptrain
require_torch
bench_tmpdir children
program=("$PYTHON" "$PEER" --data "$DATA" --num-processes "$P" --train-limit "$TRAIN_LIMIT")

# run NAME COMMAND...: one run; its JSON line to $OUT/NAME.jsonl, mptrain's verdict to $OUT/NAME.verdicts.
run() {
  local name=$1
  shift
  "$@" >"$OUT/line" 2>"$OUT/err" || { cat "$OUT/err" >&2; echo "bench: $name failed" >&2; exit 1; }
  sed 's/^\[0\] //' "$OUT/line" | grep '^{' | tail -1 >>"$OUT/$name.jsonl"
  sed -n 's/^monitor verdict: \([a-z]*\).*/\1/p' "$OUT/err" >>"$OUT/$name.verdicts"
}

names=(bare naive hand_tuned mptrain_default mptrain_children mptrain_torchrun)
for ((r = 1; r <= REPEAT; r++)); do
  run bare "${program[@]}" --threads 0
  run naive env OMP_NUM_THREADS="$N" "${program[@]}" --threads 0
  run hand_tuned "${program[@]}" --threads $((N / P > 0 ? N / P : 1))
  run mptrain_default "$MPTRAIN" run -n 1 -- "${program[@]}" --threads 0
  run mptrain_children "$MPTRAIN" run -n 1 --children "$P" -- "${program[@]}" --threads 0
  run mptrain_torchrun "$MPTRAIN" torchrun --nproc-per-node 1 --no-python "${program[@]}" --threads 0
done

echo "== the seeds' program (torch.multiprocessing Hogwild), $P processes, $TRAIN_LIMIT samples each, $(machine_summary), mean of $REPEAT"
printf '%-18s %14s %14s  %s\n' "started as" "samples/s" "steady" "monitor"
for name in "${names[@]}"; do
  wall=$(jq -s 'map(.samples_per_second) | add / length' "$OUT/$name.jsonl")
  steady=$(jq -s 'map(.steady_samples_per_second) | add / length' "$OUT/$name.jsonl")
  verdicts=$(sort "$OUT/$name.verdicts" 2>/dev/null | uniq -c | awk '{ printf "%s%s x%d", (NR > 1 ? ", " : ""), $2, $1 }')
  printf '%-18s %14.0f %14.0f  %s\n' "$name" "$wall" "$steady" "${verdicts:--}"
  declare "wall_$name=$wall"
done
awk -v n="$wall_naive" -v c="$wall_mptrain_children" -v h="$wall_hand_tuned" -v b="$wall_bare" \
  -v d="$wall_mptrain_default" -v t="$wall_mptrain_torchrun" 'BEGIN {
  printf "--children against naive: %.1fx; against hand-tuned: %.2fx (bar: at least 0.9, healthy)\n", c / n, c / h
  printf "against bare: default %.2fx, --children %.2fx, torchrun %.2fx (bar: at least 0.95)\n", d / b, c / b, t / b }'
