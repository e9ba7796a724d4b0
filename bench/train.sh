#!/usr/bin/env bash
# Built-in training against its peer, side by side in one run:
#   1. `mptrain run` and shared/bench/torch_hogwild.py (PyTorch Hogwild) with
#      the same model (cnn), M workers of one thread, and epochs: samples/s,
#      test accuracy, and the ratio (the bar: >= 5x at accuracy >= peer - 0.005).
#   2. Scaling: M x T = N workers/threads against one worker of one thread
#      (the bar: >= 0.9 N times the single-thread samples/s).
# Usage: bench/train.sh  (from the repository root; set any variable below to override)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MPTRAIN=${MPTRAIN:-$ROOT/build/mptrain}
PEER=${PEER:-$ROOT/../shared/bench/torch_hogwild.py}
PYTHON=${PYTHON:-/usr/bin/python3}
DATA=${DATA:-/usr/share/datasets/fashion-mnist}
M=${M:-2}                          # workers for the side-by-side comparison
EPOCHS=${EPOCHS:-1}
N=${N:-$(nproc)}                   # CPUs for the scaling runs
SCALING_LIMIT=${SCALING_LIMIT:-0}  # training samples per worker in the scaling runs (0: all)
SCALING_EPOCHS=${SCALING_EPOCHS:-2}  # epochs of the scaling runs (short runs measure start-up, not training)
SKIP_PEER=${SKIP_PEER:-0}
REPEAT=${REPEAT:-5}                # runs of each side in the comparison (seeds 1..REPEAT)

[[ -x "$MPTRAIN" ]] || { echo "bench: no mptrain at $MPTRAIN (build first, or set MPTRAIN)" >&2; exit 1; }
command -v jq >/dev/null || { echo "bench: jq is needed" >&2; exit 1; }
OUT=$(mktemp -d "${TMPDIR:-/tmp}/mptrain-bench.XXXXXX")
trap 'rm -rf "$OUT"' EXIT

# ours NAME ARGS...: runs mptrain run --json, keeps the report as $OUT/NAME.json.
ours() {
  local name=$1
  shift
  "$MPTRAIN" run --data "$DATA" --json "$@" >"$OUT/$name.json" 2>"$OUT/$name.err" ||
    { cat "$OUT/$name.err" >&2; exit 1; }
}
field() { jq -r "$2" "$OUT/$1.json"; }

echo "== built-in training vs PyTorch peer: cnn, $M workers x 1 thread, $EPOCHS epoch(s), $(nproc) CPUs, $REPEAT run(s) each"
# Hogwild runs are not deterministic (updates race by design) and one run's
# accuracy varies by about a point, so each side runs REPEAT times with seeds
# 1..REPEAT, alternating, and the means are compared.
for ((run = 1; run <= REPEAT; run++)); do
  ours "main_$run" -n "$M" -t 1 --epochs "$EPOCHS" --seed "$run"
  printf 'mptrain  run %d  %10.0f samples/s  accuracy %.4f\n' "$run" "$(field "main_$run" .samples_per_second)" \
    "$(field "main_$run" .test_accuracy)"
  if [[ "$SKIP_PEER" != 1 ]]; then
    [[ -f "$PEER" ]] || { echo "bench: no peer at $PEER (set PEER)" >&2; exit 1; }
    "$PYTHON" "$PEER" --data "$DATA" --num-processes "$M" --threads 1 --epochs "$EPOCHS" --seed "$run" \
      >"$OUT/peer_$run.json"
    printf 'peer     run %d  %10.0f samples/s  accuracy %.4f  (torch %s)\n' "$run" \
      "$(field "peer_$run" .samples_per_second)" "$(field "peer_$run" .test_accuracy)" "$(field "peer_$run" .torch)"
  fi
done
mean() { jq -s "map($2) | add / length" "$OUT"/$1_*.json; }
ours_rate=$(mean main .samples_per_second)
ours_acc=$(mean main .test_accuracy)
printf 'mptrain  mean   %10.0f samples/s  accuracy %.4f\n' "$ours_rate" "$ours_acc"
if [[ "$SKIP_PEER" != 1 ]]; then
  peer_rate=$(mean peer .samples_per_second)
  peer_acc=$(mean peer .test_accuracy)
  printf 'peer     mean   %10.0f samples/s  accuracy %.4f\n' "$peer_rate" "$peer_acc"
  awk -v o="$ours_rate" -v p="$peer_rate" -v oa="$ours_acc" -v pa="$peer_acc" 'BEGIN {
    r = o / p; d = (oa - pa) * 100
    printf "ratio    %.1fx the peer'"'"'s samples/s (bar 5x: %s); accuracy %+.2f points (bar -0.5: %s)\n",
      r, (r >= 5 ? "met" : "NOT met"), d, (d >= -0.5 ? "met" : "NOT met") }'
fi

SCALING_REPEAT=${SCALING_REPEAT:-3}
echo "== scaling: M x T = $N against 1 worker x 1 thread, $SCALING_EPOCHS epoch(s) of ${SCALING_LIMIT/#0/all} samples per worker, mean of $SCALING_REPEAT"
scaling=(--epochs "$SCALING_EPOCHS" --train-limit "$SCALING_LIMIT")
shapes=("1 1" "$N 1" "1 $N")
# The shapes alternate within each round, so a burst of outside load hits all alike.
for ((run = 1; run <= SCALING_REPEAT; run++)); do
  for shape in "${shapes[@]}"; do
    read -r m t <<<"$shape"
    ours "scale_${m}_${t}_$run" -n "$m" -t "$t" "${scaling[@]}"
  done
done
single=$(mean scale_1_1 .samples_per_second)
printf '1 x 1    %10.0f samples/s\n' "$single"
for shape in "${shapes[@]:1}"; do
  read -r m t <<<"$shape"
  rate=$(mean "scale_${m}_${t}" .samples_per_second)
  awk -v m="$m" -v t="$t" -v r="$rate" -v s="$single" -v n="$N" 'BEGIN {
    f = r / s; printf "%d x %d    %10.0f samples/s  %.2fx single (%.2f N; bar 0.9 N: %s)\n",
      m, t, r, f, f / n, (f >= 0.9 * n ? "met" : "NOT met") }'
done
