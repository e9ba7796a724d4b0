#!/usr/bin/env bash
# Built-in training against its peer, side by side in one run (SPEC "Performance bar"):
#   1. `mptrain run` and shared/bench/torch_hogwild.py (PyTorch Hogwild) with
#      the same model (cnn), M workers of one thread, and epochs, seeds 1..REPEAT:
#      samples/s wall and steady, test accuracy per seed and the means, and the
#      ratio (the bar: steady >= 10x the peer's at mean accuracy >= peer - 1 point).
#      Wall: samples over the whole training (`samples_per_second`). Steady:
#      the peer's `steady_samples_per_second` (timed inside its workers);
#      ours, the sum over the workers of each one's samples over its own wall
#      time (fork to exit: no start-up, data loading or evaluation).
#   2. The machine's FMA peak (bench/fma_peak.cpp: a register-only FMA loop on
#      every usable CPU at once) and the kernel's share of it: our steady
#      samples/s times the FLOPs of a sample (`flops_per_sample`, counted as
#      hogwild/flops.hpp counts them: the pooled backward at a quarter of the
#      positions) (the bar: >= 70%); and the same for the FLOPs the kernels
#      performed (`executed_flops_per_sample`: the cnn's kernels skip conv2's
#      channels dropout2d removed and its winners without a gradient).
#   3. Scaling: M x T = N workers/threads against one worker of one thread
#      (the bar: >= 0.95 N times the single-thread samples/s), with a cache
#      line's round trip between the CPUs before and after (bench/core_latency.cpp).
# Usage: bench/train.sh  (from the repository root; set any variable below to override)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
FMA_PEAK=${FMA_PEAK:-$BENCH/mptrain_fma_peak}
CORE_LATENCY=${CORE_LATENCY:-$(dirname "$FMA_PEAK")/mptrain_core_latency}
M=${M:-$(nproc)}                   # workers for the side-by-side comparison (M x 1 = N: the peak's CPUs)
EPOCHS=${EPOCHS:-1}
N=${N:-$(nproc)}                   # CPUs for the scaling runs
SCALING_LIMIT=${SCALING_LIMIT:-0}  # training samples per worker in the scaling runs (0: all)
SCALING_EPOCHS=${SCALING_EPOCHS:-2}  # epochs of the scaling runs (short runs measure start-up, not training)
SKIP_PEER=${SKIP_PEER:-0}
REPEAT=${REPEAT:-5}                # runs of each side in the comparison (seeds 1..REPEAT)
PEAK_SECONDS=${PEAK_SECONDS:-1}    # seconds of each FMA-peak run (best of 3)

require_mptrain
require_command jq
bench_tmpdir train

# ours NAME ARGS...: runs mptrain run --json, keeps the report as $OUT/NAME.json.
ours() {
  local name=$1
  shift
  "$MPTRAIN" run --data "$DATA" --json "$@" >"$OUT/$name.json" 2>"$OUT/$name.err" ||
    { cat "$OUT/$name.err" >&2; exit 1; }
}
field() { jq -r "$2" "$OUT/$1.json"; }
# The steady samples/s of a report: the peer's own figure; ours, the sum of the workers' rates.
steady='(.steady_samples_per_second // ([.workers[].samples_per_second] | add))'

# The FMA peak first, on an otherwise idle machine.
peak_all=0
peak_one=0
if [[ -x "$FMA_PEAK" ]]; then
  "$FMA_PEAK" --seconds "$PEAK_SECONDS" >"$OUT/peak.json"
  peak_all=$(field peak .gflops_all)
  peak_one=$(field peak .gflops_one_thread)
  printf '== FMA peak: %s, %d CPUs (%s): %.1f GFLOP/s all at once (%s per CPU), %.1f GFLOP/s one thread alone\n' \
    "$(field peak .isa)" "$(field peak .cpus)" "$(field peak .cpu_list)" "$peak_all" \
    "$(field peak '.gflops_per_cpu | map(. * 10 | round / 10) | join(" + ")')" "$peak_one"
else
  echo "== FMA peak: no $FMA_PEAK (not built on this CPU, or set FMA_PEAK): no share of the peak below"
fi

echo "== built-in training vs PyTorch peer: cnn, $M workers x 1 thread, $EPOCHS epoch(s), $(machine_summary), $REPEAT run(s) each"
# Hogwild runs are not deterministic (updates race by design) and one run's
# accuracy varies by about a point, so each side runs REPEAT times with seeds
# 1..REPEAT, alternating, and the means are compared.
row='%-8s %-6s %10.0f samples/s wall  %10.0f steady  accuracy %.4f'
for ((run = 1; run <= REPEAT; run++)); do
  ours "main_$run" -n "$M" -t 1 --epochs "$EPOCHS" --seed "$run"
  printf "$row\n" mptrain "seed $run" "$(field "main_$run" .samples_per_second)" "$(field "main_$run" "$steady")" \
    "$(field "main_$run" .test_accuracy)"
  if [[ "$SKIP_PEER" != 1 ]]; then
    [[ -f "$PEER" ]] || { echo "bench: no peer at $PEER (set PEER)" >&2; exit 1; }
    "$PYTHON" "$PEER" --data "$DATA" --num-processes "$M" --threads 1 --epochs "$EPOCHS" --seed "$run" \
      >"$OUT/peer_$run.json"
    printf "$row  (torch %s)\n" peer "seed $run" "$(field "peer_$run" .samples_per_second)" \
      "$(field "peer_$run" "$steady")" "$(field "peer_$run" .test_accuracy)" "$(field "peer_$run" .torch)"
  fi
done
mean() { jq -s "map($2) | add / length" "$OUT"/$1_*.json; }
ours_wall=$(mean main .samples_per_second)
ours_rate=$(mean main "$steady")
ours_acc=$(mean main .test_accuracy)
printf "$row\n" mptrain mean "$ours_wall" "$ours_rate" "$ours_acc"
if [[ "$SKIP_PEER" != 1 ]]; then
  peer_wall=$(mean peer .samples_per_second)
  peer_rate=$(mean peer "$steady")
  peer_acc=$(mean peer .test_accuracy)
  printf "$row\n" peer mean "$peer_wall" "$peer_rate" "$peer_acc"
  awk -v o="$ours_rate" -v p="$peer_rate" -v ow="$ours_wall" -v pw="$peer_wall" -v oa="$ours_acc" -v pa="$peer_acc" \
    'BEGIN {
    r = o / p; d = (oa - pa) * 100
    printf "ratio    %.1fx the peer'"'"'s steady samples/s (bar 10x: %s), %.1fx its wall samples/s; accuracy %+.2f points (bar -1: %s)\n",
      r, (r >= 10 ? "met" : "NOT met"), ow / pw, d, (d >= -1 ? "met" : "NOT met") }'
fi
flops=$(field main_1 .flops_per_sample)
executed=$(mean main .executed_flops_per_sample)
# share LABEL RATE PEAK [FLOPS]: the kernel's GFLOP/s at RATE samples/s of FLOPS (default: the counted
# FLOPs per sample) and its share of PEAK GFLOP/s (bar 70%).
share() {
  awk -v label="$1" -v r="$2" -v peak="$3" -v f="${4:-$flops}" 'BEGIN {
    g = r * f * 1e-9; printf "%s%s%.1f GFLOP/s", label, (label == "" ? "" : " "), g
    if (peak > 0) printf " = %.1f%% of %.1f GFLOP/s (bar 70%%: %s)", 100 * g / peak, peak, (g >= 0.7 * peak ? "met" : "NOT met")
    printf "\n" }'
}
printf 'kernel   %d FLOPs per sample (forward + backward, the pooled backward a quarter of the positions)\n' "$flops"
share "kernel   $M x 1 steady:" "$ours_rate" "$peak_all"
printf 'executed %.0f FLOPs per sample performed (mean of the runs; conv2 skips dropped channels and zero gradients)\n' "$executed"
share "executed $M x 1 steady:" "$ours_rate" "$peak_all" "$executed"

SCALING_REPEAT=${SCALING_REPEAT:-3}
# latency WHEN: how far apart the CPUs are (bench/core_latency.cpp): 1 x N's threads pass
# gradient and parameter lines between their cores every batch; a virtual machine's host
# may move its vCPUs apart between two runs (docs/benchmarks.md).
latency() {
  [[ -x "$CORE_LATENCY" ]] || return 0
  "$CORE_LATENCY" >"$OUT/latency_$1.json"
  printf 'cores    %s: a cache line'"'"'s round trip from CPU %s, %s\n' "$1" "$(field "latency_$1" '.round_trip_ns[0].from // "-"')" \
    "$(field "latency_$1" '[.round_trip_ns[] | "\(.ns) ns to CPU \(.to)"] | join(", ") | if . == "" then "none (one CPU)" else . end')"
}
echo "== scaling: M x T = $N against 1 worker x 1 thread, $SCALING_EPOCHS epoch(s) of ${SCALING_LIMIT/#0/all} samples per worker, mean of $SCALING_REPEAT"
latency before
scaling=(--epochs "$SCALING_EPOCHS" --train-limit "$SCALING_LIMIT")
shapes=("1 1" "$N 1" "1 $N")
# The shapes alternate within each round, so a burst of outside load hits all alike.
for ((run = 1; run <= SCALING_REPEAT; run++)); do
  for shape in "${shapes[@]}"; do
    read -r m t <<<"$shape"
    ours "scale_${m}_${t}_$run" -n "$m" -t "$t" "${scaling[@]}"
  done
done
latency after
single=$(mean scale_1_1 .samples_per_second)
printf '1 x 1    %10.0f samples/s  ' "$single"
share "" "$single" "$peak_one" | sed 's/ of / of one thread'"'"'s /'
for shape in "${shapes[@]:1}"; do
  read -r m t <<<"$shape"
  rate=$(mean "scale_${m}_${t}" .samples_per_second)
  awk -v m="$m" -v t="$t" -v r="$rate" -v s="$single" -v n="$N" 'BEGIN {
    f = r / s; printf "%d x %d    %10.0f samples/s  %.2fx single (%.2f N; bar 0.95 N: %s)  ",
      m, t, r, f, f / n, (f >= 0.95 * n ? "met" : "NOT met") }'
  share "" "$rate" "$peak_all"
done
