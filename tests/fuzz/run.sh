#!/usr/bin/env bash
# Fuzzes every target for SECONDS each (default 25), one per CPU at a time,
# starting from its seed corpus. New inputs go to a scratch directory, never into the repository;
# a crash fails the run and leaves its input in the scratch directory
# (copy it into tests/fuzz/corpus/TARGET/ once fixed: CTest then replays it).
#
# Usage: tests/fuzz/run.sh [SECONDS] [BUILD_DIR]   (default build-san, the
# sanitizer tree of scripts/sanitizer_build.sh, which CI's sanitizer stage
# shares). Needs clang and libFuzzer (Debian: clang, libclang-rt-14-dev).
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-25}
build=${2:-build-san}
targets=(cpu_list cgroup procfs maps synthetic_topology cpu_selection node_identity torchrun_args option_values idx checkpoint metric_output)

scripts/sanitizer_build.sh "$build" "${targets[@]/#/fuzz_}"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/mptrain-fuzz.XXXXXX")
# Leaks inside libraries we cannot fix (reasons in the file) are not ours to report.
export LSAN_OPTIONS="suppressions=$PWD/tests/fuzz/lsan.supp:print_suppressions=0"
# fuzz_one TARGET: fuzzes TARGET for $seconds; prints one line, and the log's tail on a crash.
fuzz_one() {
  local target=$1 log="$scratch/$1.log"
  mkdir -p "$scratch/$target"
  if "$build/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=20 \
    -print_final_stats=1 -artifact_prefix="$scratch/$target/crash-" "$scratch/$target" "tests/fuzz/corpus/$target" \
    >"$log" 2>&1; then
    echo "fuzz $target: $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') runs, no crash"
  else
    echo "fuzz $target: FAILED (inputs in $scratch/$target)" >&2
    tail -40 "$log" >&2
    return 1
  fi
}
# One target per CPU at a time: each fuzzer is one process on one CPU.
failed=0
pids=()
for target in "${targets[@]}"; do
  fuzz_one "$target" &
  pids+=($!)
  if ((${#pids[@]} >= $(nproc))); then
    wait "${pids[0]}" || failed=1
    pids=("${pids[@]:1}")
  fi
done
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
[[ $failed == 0 ]] && rm -rf "$scratch"
exit "$failed"
