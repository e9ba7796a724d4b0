#!/usr/bin/env bash
# Calibration data for the doctor's model: every corpus case and variant run
# REPS times (interleaved) under `mptrain doctor --json --interval 0.25`, one
# Markdown row per run with the evidence the verdict rests on.
#   MPTRAIN=build/mptrain bench/doctor_calibration.sh [--reps 3] [--cases a,b] [--keep DIR]
# --keep DIR keeps every JSON report there (CASE.VARIANT.REP.json).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
source bench/corpus_cases.bash
reps=3 cases= keep=
while [[ $# -gt 0 ]]; do
  case $1 in
    --reps) reps=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    *) echo "usage: doctor_calibration.sh [--reps N] [--cases a,b] [--keep DIR]" >&2; exit 2 ;;
  esac
done
runs=$(corpus_runs "$cases")
dir=${keep:-$(mktemp -d)}
mkdir -p "$dir"
[[ -n $keep ]] || trap 'rm -rf "$dir"' EXIT

echo "| case | variant | rep | verdict | runnable avg | waiting avg | wait/slice ms mean | p95 | run-delay ratio | CPU util | machine util | vol sw/s | nonvol sw/s | processes (comm threads/busy cpu_s wait_s) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for ((rep = 1; rep <= reps; rep++)); do
  while read -r name variant; do
    json="$dir/$name.$variant.$rep.json"
    tests/corpus/run.sh "$name" "$variant" --json-out "$json" </dev/null >&2 || true  # mpirun reads stdin
    [[ -s $json ]] || continue  # skipped
    # The four processes with the most CPU time, then a count of the others.
    jq -r --arg c "$name" --arg v "$variant" --arg r "$rep" '
      def r3: (. * 1000 | round) / 1000;
      (.processes | sort_by(-.cpu_seconds)) as $p
      | ([$p[:4][] | "\(.comm) \(.threads)/\(.busy_threads) \(.cpu_seconds | r3) \(.wait_seconds | r3)"]
         + (if ($p | length) > 4 then ["+\(($p | length) - 4) more: \([$p[4:][].cpu_seconds] | add | r3) s cpu, \([$p[4:][].wait_seconds] | add | r3) s wait"] else [] end)) as $procs
      | "| \($c) | \($v) | \($r) | \(.verdict) | \(.runnable_threads_avg | r3) | \(.waiting_threads_avg | r3) | \(.wait_per_slice_ms.mean | r3) | \(.wait_per_slice_ms.p95 | r3) | \(.run_delay_ratio | r3) | \(.cpu_utilization | r3) | \(.machine_cpu_utilization | r3) | \(.voluntary_switches_per_second | round) | \(.nonvoluntary_switches_per_second | round) | \($procs | join("; ")) |"' "$json"
  done <<<"$runs"
done
