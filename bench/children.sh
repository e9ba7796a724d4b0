#!/usr/bin/env bash
# The seeds' own program — PyTorch Hogwild, which starts its workers itself
# with torch.multiprocessing (shared/bench/torch_hogwild.py) — started five
# ways in one run (SPEC "Performance bar", "Process trees"):
#   bare, torch's default threads;  bare naive (OMP_NUM_THREADS = N: every
#   process sized to the whole machine);  bare hand-tuned (--threads 1);
#   under `mptrain run -n 1` (the default placement);  under `mptrain run
#   -n 1 --children P` (P = the program's processes);  under `mptrain
#   torchrun --nproc-per-node 1 --no-python`.
# Prints samples/s start to join (the mean, the median, every run and the median of paired ratios) and steady
# (timed inside the workers), REPEAT runs each, in rounds of alternating order, and mptrain's monitor verdict.
# Usage: bench/children.sh  (from the repository root; P=4 TRAIN_LIMIT=… REPEAT=… ROWS="bare mptrain_children" to change)
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

all_rows=(bare naive hand_tuned mptrain_default mptrain_children mptrain_torchrun)
read -r -a names <<<"${ROWS:-${all_rows[*]}}"  # ROWS="bare mptrain_children": those rows alone
for name in "${names[@]}"; do
  [[ " ${all_rows[*]} " == *" $name "* ]] || { echo "bench: ROWS: no row $name (rows: ${all_rows[*]})" >&2; exit 2; }
done
# one NAME: one run of the row NAME.
one() {
  case $1 in
    bare) run bare "${program[@]}" --threads 0 ;;
    naive) run naive env OMP_NUM_THREADS="$N" "${program[@]}" --threads 0 ;;
    hand_tuned) run hand_tuned "${program[@]}" --threads $((N / P > 0 ? N / P : 1)) ;;
    mptrain_default) run mptrain_default "$MPTRAIN" run -n 1 -- "${program[@]}" --threads 0 ;;
    mptrain_children) run mptrain_children "$MPTRAIN" run -n 1 --children "$P" -- "${program[@]}" --threads 0 ;;
    mptrain_torchrun) run mptrain_torchrun "$MPTRAIN" torchrun --nproc-per-node 1 --no-python "${program[@]}" --threads 0 ;;
  esac
}
# Rounds alternate the order (A B C ..., then ... C B A), so that no row always follows the same one
# and a drift of the host within a round falls on every row alike.
for ((r = 1; r <= REPEAT; r++)); do
  if ((r % 2)); then order=("${names[@]}"); else order=(); for name in "${names[@]}"; do order=("$name" "${order[@]}"); done; fi
  for name in "${order[@]}"; do one "$name"; done
done

echo "== the seeds' program (torch.multiprocessing Hogwild), $P processes, $TRAIN_LIMIT samples each, $(machine_summary), $REPEAT runs each"
printf '%-18s %14s %14s %14s  %-40s %s\n' "started as" "samples/s mean" "median" "steady mean" "every run's samples/s" "monitor"
median='sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end'
for name in "${names[@]}"; do
  wall=$(jq -s 'map(.samples_per_second) | add / length' "$OUT/$name.jsonl")
  middle=$(jq -s "map(.samples_per_second) | $median" "$OUT/$name.jsonl")
  steady=$(jq -s 'map(.steady_samples_per_second) | add / length' "$OUT/$name.jsonl")
  runs=$(jq -r '.samples_per_second | floor' "$OUT/$name.jsonl" | paste -sd' ')
  verdicts=$(sort "$OUT/$name.verdicts" 2>/dev/null | uniq -c | awk '{ printf "%s%s x%d", (NR > 1 ? ", " : ""), $2, $1 }')
  printf '%-18s %14.0f %14.0f %14.0f  %-40s %s\n' "$name" "$wall" "$middle" "$steady" "$runs" "${verdicts:--}"
  declare "wall_$name=$wall" "median_$name=$middle"
done
# ratios NAME-PREFIX: the bars' ratios of the means (wall_) or the medians (median_).
ratios() {
  local n=${1}naive c=${1}mptrain_children h=${1}hand_tuned b=${1}bare d=${1}mptrain_default t=${1}mptrain_torchrun
  awk -v what="$2" -v n="${!n}" -v c="${!c}" -v h="${!h}" -v b="${!b}" -v d="${!d}" -v t="${!t}" 'BEGIN {
    printf "by the %s: --children against naive %.1fx, against hand-tuned %.2fx (bar: at least 0.9, healthy); ", what, c / n, c / h
    printf "against bare: default %.2fx, --children %.2fx, torchrun %.2fx (bar: at least 0.95)\n", d / b, c / b, t / b }'
}
has() { [[ " ${names[*]} " == *" $1 "* ]]; }
if [[ ${#names[@]} == "${#all_rows[@]}" ]]; then
  ratios wall_ means
  ratios median_ medians
fi
# paired A B: the median over rounds of A's run over B's run in the same round (the two ran minutes
# apart at most, so a slow spell of the host falls on both more often than on the means of each).
paired() {
  jq -n --slurpfile a "$OUT/$1.jsonl" --slurpfile b "$OUT/$2.jsonl" \
    "[range([\$a, \$b] | map(length) | min) | \$a[.].samples_per_second / \$b[.].samples_per_second] | $median"
}
line=""
for pair in mptrain_default:bare mptrain_children:bare mptrain_torchrun:bare mptrain_children:hand_tuned; do
  a=${pair%:*} b=${pair#*:}
  has "$a" && has "$b" && line+=$(printf '%s %s/%s %.2fx' "${line:+,}" "$a" "$b" "$(paired "$a" "$b")")
done
[[ -z $line ]] || echo "by the median of paired runs (the same round):$line"
