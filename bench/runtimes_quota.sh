#!/usr/bin/env bash
# Runtimes that size their pool from the CPUs they see, in a cgroup with a
# 1-CPU quota (issue 52): a Go program (golang-go; GOMAXPROCS from the
# affinity mask) whose steps split a fixed amount of work among GOMAXPROCS
# goroutines and wait for all of them, and a numba prange loop
# (python3-numba; NUMBA_NUM_THREADS, default the machine's CPU count), and
# a C program that sizes its BLIS pool itself to every online CPU
# (libblis4-pthread, bli_thread_set_num_threads: no variable helps; under
# mptrain the placement library caps the call to the plan, unpinned too).
# Bare (a pool of every CPU, throttled) and under `mptrain run` (the
# plan's one thread), side by side in the same rounds: steps/s, loops/s
# and 256x256 dgemm products/s.
# Needs root and a writable cgroup cpu controller.
# Usage: bench/runtimes_quota.sh  (REPEAT=3 SECONDS_EACH=5 to change)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
require_mptrain
require_command go golang-go
"$PYTHON" -c 'import numba' 2>/dev/null || bench_fail "$PYTHON cannot import numba (apt-get install python3-numba)"
REPEAT=${REPEAT:-3}
SECONDS_EACH=${SECONDS_EACH:-5}
bench_tmpdir runtimes_quota
programs=$ROOT/tests/e2e/launch/programs
cp "$programs/gospin.go" "$programs/numba_prange.py" "$OUT/"
(cd "$OUT" && GOCACHE=$OUT/gocache GOPATH=$OUT/gopath GO111MODULE=off go build -o gospin gospin.go)
export NUMBA_CACHE_DIR=$OUT/numba
"$PYTHON" "$OUT/numba_prange.py" 0 >/dev/null
blis=/usr/lib/x86_64-linux-gnu/blis-pthread/libblis.so.4
[[ -f $blis ]] || bench_fail "$blis is missing (apt-get install libblis4-pthread)"
gcc -O2 -I"$programs" "$programs/blis_pool.c" "$blis" -Wl,-rpath,"$(dirname "$blis")" -lpthread -o "$OUT/blis_pool"
group=/sys/fs/cgroup/cpu/mptrain-bench-$$
mkdir "$group" || bench_fail "cannot create $group (root and cgroup v1's cpu controller are needed)"
trap 'rmdir "$group" 2>/dev/null; rm -rf "$OUT"' EXIT
echo 100000 >"$group/cpu.cfs_period_us"
echo 100000 >"$group/cpu.cfs_quota_us"
# rate LAUNCH KEY PROGRAM...: the KEY figure PROGRAM prints, bare or under mptrain, in the cgroup.
rate() {
  local launch=$1 key=$2
  shift 2
  local prefix=()
  [[ $launch == mptrain ]] && prefix=("$MPTRAIN" run --no-tag-output --)
  bash -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$group" "${prefix[@]}" "$@" 2>/dev/null | sed -n "s/^$key //p"
}
echo "# $(cpu_model), $(nproc) CPUs, a 1-CPU quota; $REPEAT rounds of ${SECONDS_EACH} s each"
for ((round = 0; round < REPEAT; round++)); do
  launches=(bare mptrain)
  ((round % 2)) && launches=(mptrain bare)
  line="round $round:"
  for launch in "${launches[@]}"; do
    line+=" go $launch $(rate "$launch" steps_per_second "$OUT/gospin" "$SECONDS_EACH") steps/s;"
    line+=" numba $launch $(rate "$launch" loops_per_second "$PYTHON" "$OUT/numba_prange.py" "$SECONDS_EACH") loops/s;"
    line+=" blis $launch $(rate "$launch" products_per_second "$OUT/blis_pool" "$SECONDS_EACH" self | cut -d' ' -f1) products/s;"
  done
  echo "$line"
done
