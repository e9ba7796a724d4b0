#!/usr/bin/env bash
# Launcher benchmark (SPEC "Performance bar"): start and reap 4 workers of
# /bin/true with mptrain, side by side with Open MPI's mpirun, in one run.
# Target: mptrain under 10 ms (mpirun takes about 40 ms).
#
# Usage: bench/launch.sh [MPTRAIN]   (default: build/mptrain)
# Uses hyperfine when installed (Debian package `hyperfine`), else a timed loop.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
MPTRAIN=${1:-$MPTRAIN}
runs=${RUNS:-100}
require_mptrain

# 4 workers on any machine: with fewer than 4 CPUs the plan needs --allow-oversubscribe.
ours=("$MPTRAIN" run -n 4 --allow-oversubscribe -- /bin/true)
peer=()
if command -v mpirun >/dev/null; then
  peer=(mpirun -n 4 --oversubscribe)
  [[ $(id -u) == 0 ]] && peer+=(--allow-run-as-root)
  peer+=(/bin/true)
fi

# mean_ms COMMAND...: mean wall time of COMMAND in milliseconds over $runs runs.
mean_ms() {
  if command -v hyperfine >/dev/null; then
    local json
    json=$(mktemp)
    hyperfine --shell=none --warmup 5 --runs "$runs" --export-json "$json" -- "$(printf '%q ' "$@")" >/dev/null
    jq -r '.results[0].mean * 1000 | . * 100 | round / 100' "$json"
    rm -f "$json"
  else
    local start end
    "$@" >/dev/null 2>&1
    start=$(date +%s%N)
    for ((i = 0; i < runs; i++)); do "$@" >/dev/null 2>&1; done
    end=$(date +%s%N)
    echo "scale=2; ($end - $start) / $runs / 1000000" | bc
  fi
}

"${ours[@]}" >/dev/null 2>&1 || { echo "bench/launch.sh: '${ours[*]}' fails" >&2; exit 1; }
echo "start and reap 4 workers of /bin/true, mean of $runs runs on $(machine_summary):"
printf '  %-8s %8s ms   %s\n' mptrain "$(mean_ms "${ours[@]}")" "${ours[*]}"
if ((${#peer[@]})); then
  printf '  %-8s %8s ms   %s\n' mpirun "$(mean_ms "${peer[@]}")" "${peer[*]}"
else
  echo "  mpirun   (not installed: apt-get install openmpi-bin)"
fi
