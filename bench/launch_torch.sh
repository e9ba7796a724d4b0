#!/usr/bin/env bash
# The launcher's thread placement and allocators on real PyTorch jobs
# started by `mptrain run -- …`, side by side in one run:
#   1. one worker x T=N intra-op threads, OpenMP threads floating over the
#      worker's CPUs (--omp-bind none) against placed one per PU (the
#      default), on two workloads: the peer's Hogwild script
#      (shared/bench/torch_hogwild.py --num-processes 1, which trains in a
#      process it spawns) and bench/torch_intraop.py (the same network
#      trained in the launched process itself);
#   2. N workers x 1 thread of the peer's script with each allocator:
#      default (glibc), jemalloc, tcmalloc (--allocator; one that is not
#      installed is skipped with a note).
# The in-process script times its whole run as "steady" and "start-join" alike.
# Runs alternate between configurations, REPEAT times each (seeds 1..REPEAT),
# and the medians are printed: samples/s summed over the workers, both as the
# workers time it (steady, start-up left out) and start to join, the mean
# test accuracy and mptrain's wall seconds.
# Usage: bench/launch_torch.sh  (set any variable below to override)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
N=${N:-$(nproc)}
LIMIT=${LIMIT:-20000}  # training samples per worker and epoch (0: all 60,000)
REPEAT=${REPEAT:-5}

require_mptrain
require_torch
bench_tmpdir launch-torch

INTRAOP=${INTRAOP:-$ROOT/bench/torch_intraop.py}
names=(floating placed floating-inproc placed-inproc default jemalloc tcmalloc)
declare -A options=(
  [floating]="-n 1 -t $N --omp-bind none"
  [placed]="-n 1 -t $N"
  [floating-inproc]="-n 1 -t $N --omp-bind none"
  [placed-inproc]="-n 1 -t $N"
  [default]="-n $N --allocator default"
  [jemalloc]="-n $N --allocator jemalloc"
  [tcmalloc]="-n $N --allocator tcmalloc"
)
# The program each configuration launches.
program() {
  if [[ $1 == *-inproc ]]; then
    echo "$INTRAOP --peer $PEER"
  else
    echo "$PEER --num-processes 1"
  fi
}
runnable=()
for name in "${names[@]}"; do
  # shellcheck disable=SC2086
  if "$MPTRAIN" run ${options[$name]} --dry-run -- true >/dev/null 2>"$OUT/check.err"; then
    runnable+=("$name")
  else
    echo "note: $name skipped: $(cat "$OUT/check.err")"
  fi
done

# run NAME SEED: one launch; appends "steady wall-rate accuracy seconds" to $OUT/NAME.rows.
run() {
  local name=$1 seed=$2 start end
  start=$(date +%s.%N)
  # shellcheck disable=SC2086
  "$MPTRAIN" run ${options[$name]} --json -- "$PYTHON" $(program "$name") --data "$DATA" \
    --train-limit "$LIMIT" --seed "$seed" >"$OUT/$name.json" 2>"$OUT/$name.err" ||
    { cat "$OUT/$name.err" >&2; exit 1; }
  end=$(date +%s.%N)
  # Each worker prints one JSON line, tagged with its rank, on stderr (stdout holds mptrain's report).
  sed -n 's/^\[[0-9]*\] \({.*\)$/\1/p' "$OUT/$name.err" |
    jq -s --arg seconds "$(echo "$end - $start" | bc)" -r \
      '"\(map(.steady_samples_per_second) | add) \(map(.samples_per_second) | add) \(map(.test_accuracy) | add / length) \($seconds)"' \
      >>"$OUT/$name.rows"
}

for ((seed = 1; seed <= REPEAT; seed++)); do
  for name in "${runnable[@]}"; do run "$name" "$seed"; done
done

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "== PyTorch Hogwild (torch $("$PYTHON" -c 'import torch; print(torch.__version__)')) under mptrain run: $N of $(machine_summary)," \
  "$LIMIT samples per worker, $REPEAT runs each (seeds 1..$REPEAT), medians"
printf '%-15s %-34s %12s %12s %9s %8s\n' config "mptrain run options" "steady/s" "start-join/s" accuracy "wall s"
for name in "${runnable[@]}"; do
  rows="$OUT/$name.rows"
  printf '%-15s %-34s %12.0f %12.0f %9.4f %8.2f\n' "$name" "${options[$name]}" \
    "$(cut -d' ' -f1 "$rows" | median)" "$(cut -d' ' -f2 "$rows" | median)" \
    "$(awk '{ s += $3 } END { print s / NR }' "$rows")" "$(cut -d' ' -f4 "$rows" | median)"
done
