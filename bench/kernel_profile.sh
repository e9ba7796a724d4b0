#!/usr/bin/env bash
# Where the training kernel spends its time, per layer (docs/kernel_profile.md):
#   1. the machine's FMA peak of one thread (build/bench/mptrain_fma_peak);
#   2. build/bench/mptrain_kernel_profile (Network::train_group on random
#      data, one pinned thread) under `perf record` (the cpu-clock software
#      event: hardware counters are often missing in a VM);
#   3. each hot function's share of the samples, its time per sample, and —
#      for the functions named after one layer pass — that pass's FLOPs per
#      sample (hogwild/flops.hpp) and GFLOP/s, against the peak.
# Usage: bench/kernel_profile.sh [SECONDS=4]  (PERF_DATA=FILE keeps the
#   recording for `perf annotate -i FILE -s SYMBOL`, which shows the hot loops.)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
SECONDS_RUN=${1:-4}
require_command perf linux-perf
require_command jq
bench_tmpdir profile
DATA=${PERF_DATA:-$OUT/perf.data}

peak=$("$BENCH/mptrain_fma_peak" --seconds 0.5 --repeat 3 | jq .gflops_one_thread)
perf record -q -e cpu-clock -F 4999 -o "$DATA" -- \
  "$BENCH/mptrain_kernel_profile" --forward no --seconds "$SECONDS_RUN" >"$OUT/run.json"
us_per_sample=$(jq '.us_per_group / 16' "$OUT/run.json")
printf 'kernel: %.0f samples/s, %.1f GFLOP/s (%.2f us per sample); FMA peak of one thread %.1f GFLOP/s\n' \
  "$(jq .samples_per_second "$OUT/run.json")" "$(jq .gflops "$OUT/run.json")" "$us_per_sample" "$peak"
# The cnn's conv2 skips the channels dropout2d removed and the winners without a gradient: what it performs
# is less than the count, so its passes' counted GFLOP/s below can pass the peak.
printf 'performed: %.0f FLOPs per sample of the %d counted, %.1f GFLOP/s (%.1f%% of the peak)\n' \
  "$(jq .executed_flops_per_sample "$OUT/run.json")" "$(jq .flops_per_sample "$OUT/run.json")" \
  "$(jq .executed_gflops "$OUT/run.json")" "$(jq -n --argjson g "$(jq .executed_gflops "$OUT/run.json")" --argjson p "$peak" '100 * $g / $p')"
# The counted FLOPs of each layer pass, as "name flops" lines (conv1.forward 288000, …; fc: all dense passes).
jq -r '.layers[] | select(.layer | startswith("conv")) |
         "\(.layer).forward \(.forward)", "\(.layer).weight_grad \(.weight_grad)", "\(.layer).input_grad \(.input_grad)"' \
  "$OUT/run.json" >"$OUT/flops.txt"
jq -r '[.layers[] | select(.layer | startswith("fc")) | .forward + .weight_grad + .input_grad] | "fc \(add)"' \
  "$OUT/run.json" >>"$OUT/flops.txt"
perf report -i "$DATA" --no-children --sort symbol --percent-limit 0.3 --stdio 2>/dev/null |
  awk '/^ +[0-9.]+%/ { pct = $1; sub(/%/, "", pct); $1 = ""; $2 = ""; sub(/^ +/, ""); sub(/ +- +-? *$/, ""); print pct "\t" $0 }' >"$OUT/symbols.tsv"
# The layer pass a function's name says it computes (the kernel's names in hogwild/conv.cpp; the cnn's dense
# layers are the functions of hogwild/dense.hpp, dense::forward, dense::weight_gradient and dense::input_gradient).
awk -F'\t' -v us="$us_per_sample" -v peak="$peak" '
  FILENAME == ARGV[1] { split($0, f, " "); flops[f[1]] = f[2]; next }
  {
    name = $2; pass = ""
    if (name ~ /conv1_(row_pair|forward|apply)/) pass = "conv1.forward"
    else if (name ~ /conv1_backward|conv1_weight_grad/) pass = "conv1.weight_grad"
    else if (name ~ /conv2_(apply|forward|pool|block|last_block)/) pass = "conv2.forward"
    else if (name ~ /conv2_weight_grad/) pass = "conv2.weight_grad"
    else if (name ~ /conv2_input_grad/) pass = "conv2.input_grad"
    else if (name ~ /dense::/) pass = "fc"
    t = $1 / 100 * us
    short = name; gsub(/\(anonymous namespace\)::|mptrain::hogwild::|Eigen::internal::/, "", short)
    if (length(short) > 58) short = substr(short, 1, 55) "..."
    printf "%6.2f%%  %6.2f us  %-18s %-58s", $1, t, pass, short
    if (pass != "") { time[pass] += t }
    printf "\n"
  }
  END {
    print "\nper layer pass (functions above summed; GFLOP/s of the FLOPs the pass counts):"
    for (p in time) {
      g = flops[p] / (time[p] * 1e3)
      printf "  %-18s %6.2f us/sample  %8d FLOPs  %6.1f GFLOP/s  %5.1f%% of one thread'"'"'s peak\n", p, time[p], flops[p], g, 100 * g / peak
    }
  }' "$OUT/flops.txt" "$OUT/symbols.tsv"
