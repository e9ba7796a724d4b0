#!/usr/bin/env bash
# `mptrain tune` against measuring every candidate by hand, in the same run
# (issue 39, SPEC "mptrain tune"):
#   1. the seeds' program (shared/bench/torch_hogwild.py) run by a user whose
#      environment exports OMP_NUM_THREADS = every CPU (container images and
#      HPC modules do): whole-run trials;
#   2. a multi-process program with one tqdm bar (bench/tqdm_workers.py:
#      forked numpy/OpenBLAS workers), read with --metric;
#   3. a program no launch speeds up (a sleep-paced ticker, --progress).
# For 1 and 2 tune gets BUDGET seconds; then every candidate it listed is
# timed by hand (REPEAT whole runs each, interleaved; the tqdm program with a
# fixed number of steps, rated by the it/s its bar printed last: the metric
# tune read, without the launcher's own start, which a run of a second would
# weigh 25%), and the launch tune picked is compared with the best found by
# hand (bar: at least 0.95). For 3 tune must find no
# measurable difference.
# Usage: bench/tune.sh  (from the repository root; BUDGET=90 REPEAT=3 TRAIN_LIMIT=… to change)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
N=$(nproc)
BUDGET=${BUDGET:-90}
REPEAT=${REPEAT:-3}
TRAIN_LIMIT=${TRAIN_LIMIT:-1500}   # training samples per worker of the seeds' program
STEPS=${STEPS:-1500}               # steps per worker of the tqdm program, timed by hand
require_mptrain
require_torch
"$PYTHON" -c 'import tqdm' 2>/dev/null || bench_fail "$PYTHON cannot import tqdm (apt-get install python3-tqdm)"
require_command bc
bench_tmpdir tune-bench
echo "== bench/tune.sh: $(machine_summary), budget $BUDGET s, $REPEAT hand runs each"

# seconds COMMAND...: the wall seconds of one run of COMMAND; its output (both streams) in $OUT/hand.out.
seconds() {
  local start end
  start=$(date +%s.%N)
  "$@" >"$OUT/hand.out" 2>&1 || { tail -5 "$OUT/hand.out" >&2; echo "bench: '$*' failed" >&2; exit 1; }
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l
}

# last_rate: the last number before "it/s" in $OUT/hand.out (a tqdm bar's final rate: the program's own
# throughput over the bar's life, the metric tune read, without the launcher's start).
last_rate() { tr '\r' '\n' <"$OUT/hand.out" | grep -oE '[0-9.]+it/s' | tail -1 | tr -d 'it/s'; }

# compare NAME TUNE_JSON RATE_OF: times each candidate of TUNE_JSON by hand
# (its command with ARGS_BY_HAND appended), REPEAT times interleaved; prints
# the table and the ratio of tune's pick to the best. RATE_OF converts
# seconds to throughput (a bc expression of s); RATE_OF "metric": the rate the
# program printed (last_rate), the metric tune itself read.
# median_of FILE: the median of the numbers in FILE, one per line.
median_of() { sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

compare() {
  local name=$1 json=$2 rate_of=$3
  local count pick
  count=$(jq '.candidates | length' "$json")
  pick=$(jq -r '(.winner // .simplest_tied).command' "$json")
  for ((r = 1; r <= REPEAT; r++)); do
    for ((i = 0; i < count; i++)); do
      local words
      read -r -a words <<<"$(jq -r ".candidates[$i].command" "$json")"
      [[ "${words[0]}" == mptrain ]] && words[0]=$MPTRAIN
      seconds "${words[@]}" "${ARGS_BY_HAND[@]}" >>"$OUT/$name.$i"
      [[ $rate_of != metric ]] || last_rate >>"$OUT/$name.$i.rate"
    done
  done
  printf '%-44s %12s %12s  %s\n' "candidate (tune's pick: *)" "tune median" "rate by hand" "hand runs (s, whole)"
  local best=0 picked=0
  for ((i = 0; i < count; i++)); do
    local command rate tuned
    command=$(jq -r ".candidates[$i].command" "$json")
    if [[ $rate_of == metric ]]; then
      rate=$(median_of "$OUT/$name.$i.rate")
    else
      rate=$(echo "s = $(median_of "$OUT/$name.$i"); $rate_of" | bc -l)
    fi
    tuned=$(jq -r "(.candidates[$i].throughput.median // null) as \$m | if \$m == null then \"-\" else (\$m * 1000 | round / 1000 | tostring) end" "$json")
    local mark=" "
    [[ "$command" == "$pick" ]] && { mark="*"; picked=$rate; }
    (($(echo "$rate > $best" | bc -l))) && best=$rate
    printf '%s %-42s %12s %12.5g  %s\n' "$mark" "$(jq -r ".candidates[$i].label" "$json")" \
      "$tuned" "$rate" "$(tr '\n' ' ' <"$OUT/$name.$i")"
  done
  echo "tune: $(jq -r '.decision' "$json")"
  echo "tune's pick by hand against the best by hand: $(echo "$picked / $best" | bc -l | cut -c1-5) (bar 0.95); tune took $(jq '.elapsed_seconds | floor' "$json") s"
}

echo
echo "-- 1. the seeds' program, OMP_NUM_THREADS=$N exported, $TRAIN_LIMIT samples per worker, whole runs"
export OMP_NUM_THREADS=$N
seeds=("$PYTHON" "$PEER" --data "$DATA" --num-processes "$N" --train-limit "$TRAIN_LIMIT")
"$MPTRAIN" tune --json --budget "$BUDGET" -- "${seeds[@]}" >"$OUT/seeds.json" 2>"$OUT/seeds.err" ||
  { tail -20 "$OUT/seeds.err" >&2; exit 1; }
ARGS_BY_HAND=()
compare seeds "$OUT/seeds.json" "1 / s"

echo
echo "-- 2. a multi-process program with a tqdm bar ($N forked numpy workers), --metric it/s"
"$MPTRAIN" tune --json --budget "$BUDGET" --warmup 3 --trial 4 --metric '([0-9.]+) ?(?:[a-z]+/s|s/[a-z]+)' \
  -- "$PYTHON" "$ROOT/bench/tqdm_workers.py" --workers "$N" >"$OUT/tqdm.json" 2>"$OUT/tqdm.err" ||
  { tail -20 "$OUT/tqdm.err" >&2; exit 1; }
ARGS_BY_HAND=(--steps "$STEPS")
compare tqdm "$OUT/tqdm.json" metric
unset OMP_NUM_THREADS

echo
echo "-- 3. a program no launch speeds up (a line every 50 ms), --progress"
printf '#!/bin/sh\nwhile :; do echo tick; sleep 0.05; done\n' >"$OUT/ticker"
chmod +x "$OUT/ticker"
"$MPTRAIN" tune --json --budget 30 --warmup 0.5 --trial 2 --progress '^tick$' -- "$OUT/ticker" >"$OUT/tick.json" 2>"$OUT/tick.err" ||
  { tail -20 "$OUT/tick.err" >&2; exit 1; }
jq -r '"candidates: \(.candidates | length); winner: \(.winner.command // "none"): \(.decision)"' "$OUT/tick.json"
