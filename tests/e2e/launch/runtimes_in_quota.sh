# Real runtimes that size their pool from the CPUs they see, not from a CPU
# quota: a Go program (golang-go 1.19: GOMAXPROCS from the affinity mask),
# a numba prange loop (python3-numba: NUMBA_NUM_THREADS, default the
# machine's CPU count) and numexpr (python3-numexpr: NUMEXPR_NUM_THREADS,
# default the cores it detects). In a cgroup with a 1-CPU quota, bare, each starts
# a pool of every CPU and the doctor's throttling finding names the
# runtime and its variable (numexpr's from its extension module); under `mptrain run` (no pinning there: bind
# none) each pool is the plan's one thread; under -n 2 pinning, one each.
# ctest: timeout 180
# ctest: lock quiet_cpus (it judges the scheduling of its own load)
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2
command -v go >/dev/null || fail "go is needed (scripts/setup.sh --test installs golang-go)"
/usr/bin/python3 -c 'import numba' 2>/dev/null || fail "numba is needed (scripts/setup.sh --test installs python3-numba)"
/usr/bin/python3 -c 'import numexpr' 2>/dev/null ||
  fail "numexpr is needed (scripts/setup.sh --test installs python3-numexpr)"
numexpr_pool=(/usr/bin/python3 -c 'import numexpr; print("numexpr_threads", numexpr.nthreads)')
n=$("$MPTRAIN" topo --json | jq -r .usable_cpus)

# The programs, built and warmed (numba's compiled loop cached) in $WORK.
cp "$PROGRAMS/gospin.go" "$PROGRAMS/numba_prange.py" "$WORK/"
(cd "$WORK" && GOCACHE=$WORK/gocache GOPATH=$WORK/gopath GO111MODULE=off go build -o gospin gospin.go) ||
  fail "cannot build gospin.go"
NUMBA_CACHE_DIR=$WORK/numba /usr/bin/python3 "$WORK/numba_prange.py" 0 >/dev/null || fail "numba_prange.py fails"
export NUMBA_CACHE_DIR=$WORK/numba

# -n 2: each worker pinned to its own CPU, each pool one thread.
run_mptrain run -n 2 -- "$WORK/gospin" 0
expect_code 0
(($(grep -c '^\[[01]\] gomaxprocs 1$' "$WORK/out") == 2)) || { cat "$WORK/out" >&2; fail "Go's pools under -n 2 are not 1 each"; }
run_mptrain run -n 2 -- /usr/bin/python3 "$WORK/numba_prange.py" 0
expect_code 0
(($(grep -c '^\[[01]\] numba_threads 1$' "$WORK/out") == 2)) || { cat "$WORK/out" >&2; fail "numba's pools under -n 2 are not 1 each"; }
run_mptrain run -n 2 -- "${numexpr_pool[@]}"
(($(grep -c '^\[[01]\] numexpr_threads 1$' "$WORK/out") == 2)) || { cat "$WORK/out" >&2; fail "numexpr's pools under -n 2 are not 1 each"; }

# A cgroup with a 1-CPU quota.
quota_cgroup "mptrain-quota-$$"

# Under mptrain: one thread each, and the monitor finds no pool too large
# for the quota (load from other tests may still earn a warning of its own).
# In a sanitizer build mptrain's own instrumented sampling, which shares the
# quota with the worker, throttles the cgroup: the verdict is judged in the
# Release tree only.
judge_fit() { sanitizer_build || expect_json "$fits"; }
fits='(.monitor.verdict == "healthy" or ([.monitor.findings[] | select(.severity != "info") | .kind] - ["outside_load", "queueing"] | length == 0)) and ([.monitor.findings[].kind] | index("cgroup_throttling") == null and index("thread_pool_too_large") == null)'
in_quota "$MPTRAIN" run --json -- "$WORK/gospin" 2
expect_code 0
expect_json '.plan.bind == "none" and .plan.threads_per_process == 1'
grep -q '^\[0\] gomaxprocs 1$' "$WORK/err" || { cat "$WORK/err" >&2; fail "Go's pool in a 1-CPU quota under mptrain is not 1"; }
judge_fit
in_quota "$MPTRAIN" run --json -- /usr/bin/python3 "$WORK/numba_prange.py" 2
expect_code 0
grep -q '^\[0\] numba_threads 1$' "$WORK/err" || { cat "$WORK/err" >&2; fail "numba's pool in a 1-CPU quota under mptrain is not 1"; }
judge_fit

in_quota "$MPTRAIN" run --json -- /usr/bin/python3 "$PROGRAMS/numexpr_loop.py" 2
expect_code 0
grep -q '^\[0\] numexpr_threads 1$' "$WORK/err" || { cat "$WORK/err" >&2; fail "numexpr's pool in a 1-CPU quota under mptrain is not 1"; }
judge_fit
in_quota "${numexpr_pool[@]}"
(($(sed -n 's/^numexpr_threads //p' "$WORK/out") > 1)) ||
  { cat "$WORK/out" >&2; fail "bare numexpr sized its pool to the quota: this check shows nothing here"; }

# Bare, under the doctor: every CPU's worth of threads against the quota's one; the fixes name the
# runtime's variable (throttling, or the threads that want more CPUs than the quota gives).
in_quota "$MPTRAIN" doctor --json --fail-on never -- "$WORK/gospin" 2
expect_code 0
grep -q "gomaxprocs $n" "$WORK/err" || { cat "$WORK/err" >&2; fail "bare Go did not start $n procs"; }
expect_json '[.findings[].fix] | any(contains("GOMAXPROCS=1"))'
expect_json '[.processes[] | select(.comm == "gospin")][0].runtimes == [{"name": "Go", "library": "gospin", "knob": "GOMAXPROCS"}]'
in_quota "$MPTRAIN" doctor --json --fail-on never -- /usr/bin/python3 "$WORK/numba_prange.py" 2
expect_code 0
expect_json '[.findings[].fix] | any(contains("NUMBA_NUM_THREADS=1"))'
# numexpr is named from its extension module (numexpr/interpreter.*.so), its variable in the fix.
in_quota "$MPTRAIN" doctor --json --fail-on never -- /usr/bin/python3 "$PROGRAMS/numexpr_loop.py" 2
expect_code 0
grep -q "numexpr_threads $n" "$WORK/err" || { cat "$WORK/err" >&2; fail "bare numexpr did not start $n threads"; }
expect_json '[.findings[].fix] | any(contains("NUMEXPR_NUM_THREADS=1"))'
expect_json '[.processes[] | select(.comm == "python3")][0].runtimes | any(.name == "numexpr" and .knob == "NUMEXPR_NUM_THREADS")'
exit 0
