#!/usr/bin/env bash
# K copies of the seeds' trainer started together by a shell loop (issue
# 51): shared/bench/torch_hogwild.py --num-processes 1 (one torch worker,
# torch's own thread count), K = 2 and 4 by default. Three launches, side
# by side in the same rounds:
#   bare     the copies as they are (the scheduler spreads them);
#   mptrain  each under a plain `mptrain run -- …` (the runs see each other
#            in the start window and divide the machine);
#   hand     the split by hand: copy I pinned with taskset to its own part
#            of the usable CPUs, OMP_NUM_THREADS = its part's size.
# Prints per round and launch the summed steady samples/s of the K copies
# (each timed inside its worker) and the makespan (the loop's start to the
# last copy's end).
# Usage: bench/share_sweep.sh [K...]  (REPEAT=3 TRAIN_LIMIT=12000 to change)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
require_mptrain
require_torch
require_command taskset util-linux
REPEAT=${REPEAT:-3}
TRAIN_LIMIT=${TRAIN_LIMIT:-12000}
bench_tmpdir share_sweep
export MPTRAIN_RUNS_DIR=$OUT/runs
usable=($("$MPTRAIN" topo --json | jq -r .usable_cpu_list | tr ',' '\n' |
  awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); c++) print c }'))
n=${#usable[@]}
trainer=("$PYTHON" "$PEER" --num-processes 1 --data "$DATA" --train-limit "$TRAIN_LIMIT" --epochs 1)

# part K I: the CPUs of copy I's hand split, as a taskset list.
part() {
  local k=$1 i=$2 first last
  if ((k >= n)); then
    echo "${usable[$((i * n / k))]}"
  else
    first=$((i * n / k)) last=$(((i + 1) * n / k - 1))
    echo "$(printf '%s,' "${usable[@]:first:last-first+1}" | sed 's/,$//')"
  fi
}

# launch MODE K: starts K copies in one loop and waits; prints "SUM MAKESPAN".
launch() {
  local mode=$1 k=$2 i start cpus
  rm -f "$OUT"/copy-*.json
  start=$(date +%s.%N)
  for ((i = 0; i < k; i++)); do
    case $mode in
    bare) "${trainer[@]}" --seed $((i + 1)) >"$OUT/copy-$i.json" 2>/dev/null & ;;
    mptrain) "$MPTRAIN" run --no-tag-output -- "${trainer[@]}" --seed $((i + 1)) >"$OUT/copy-$i.json" 2>/dev/null & ;;
    hand)
      cpus=$(part "$k" "$i")
      OMP_NUM_THREADS=$(($(tr ',' '\n' <<<"$cpus" | wc -l))) taskset -c "$cpus" "${trainer[@]}" --seed $((i + 1)) \
        >"$OUT/copy-$i.json" 2>/dev/null &
      ;;
    esac
  done
  wait
  local end
  end=$(date +%s.%N)
  local sum
  sum=$(cat "$OUT"/copy-*.json | grep '^{' | jq -s 'map(.steady_samples_per_second) | add')
  [[ $(cat "$OUT"/copy-*.json | grep -c '^{') == "$k" ]] || bench_fail "$mode: not every copy of $k reported"
  printf '%.0f %.2f\n' "$sum" "$(echo "$end - $start" | bc)"
}

echo "# $(cpu_model), $n usable CPUs; $REPEAT rounds; trainer: ${trainer[*]}"
ks=("$@")
((${#ks[@]})) || ks=(2 4)
for k in "${ks[@]}"; do
  for ((round = 0; round < REPEAT; round++)); do
    modes=(bare mptrain hand)
    ((round % 2)) && modes=(hand mptrain bare)
    line="K=$k round $round:"
    for mode in "${modes[@]}"; do
      read -r sum makespan < <(launch "$mode" "$k")
      line+="  $mode ${sum} samples/s ${makespan} s"
    done
    echo "$line"
  done
done
