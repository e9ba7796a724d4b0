#!/usr/bin/env bash
# The monitor's performance bar (SPEC "Performance bar"): sampling costs
# under 1% of one CPU at the default interval watching 200 threads and under
# 3% watching 5,000, and the verdict comes within 2 s of an oversubscription
# starting.
#   bench/monitor.sh [BUILD_DIR=build] [THREADS=200] [SECONDS=10] [SCOPE_SECONDS=4]
# Prints the live monitor's figures (bench/monitor_bench.cpp), the sampler's
# cost by scope (--pid, a tree, the machine) watching 200 and 5,000 threads,
# then the CPU time of a whole `mptrain doctor --pid` run (start-up and
# report included).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
build=${1:-build}
threads=${2:-200}
seconds=${3:-10}
scope_seconds=${4:-4}
cmake --build "$build" --target mptrain mptrain_burn mptrain_monitor_bench >/dev/null
bin=$(find "$build" -name mptrain -type f -perm -u+x | head -1)
burn=$(find "$build" -name mptrain_burn -type f | head -1)
bench=$(find "$build" -name mptrain_monitor_bench -type f | head -1)

echo "== live monitor (LiveMonitor::observe every 100 ms, as from mptrain run)"
"$bench" "$threads" "$seconds"

"$bench" scopes "$scope_seconds" 200 5000

echo "== mptrain doctor --pid (whole command: start-up, ${seconds} s of sampling, report)"
"$burn" "$threads" $((seconds + 3)) idle &
target=$!
trap 'kill $target 2>/dev/null || true' EXIT
sleep 0.3
TIMEFORMAT='%U %S %R'
{ time "$bin" doctor --pid "$target" --duration "$seconds" --fail-on never >/dev/null 2>&1; } 2>"${TMPDIR:-/tmp}/mptrain-bench-time.$$"
read -r user sys real <"${TMPDIR:-/tmp}/mptrain-bench-time.$$"
rm -f "${TMPDIR:-/tmp}/mptrain-bench-time.$$"
awk -v u="$user" -v s="$sys" -v r="$real" -v t="$threads" \
  'BEGIN { printf "doctor: %d sleeping threads for %.1f s: %.3f s CPU (user %.3f, sys %.3f) = %.2f%% of one CPU (target < 1%%)\n", t + 1, r, u + s, u, s, 100 * (u + s) / r }'
