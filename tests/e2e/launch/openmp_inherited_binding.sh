# The price of placed OpenMP threads, and mptrain saying so: OpenMP binds a
# worker's main thread to its first PU, so a process the worker starts after
# its OpenMP runtime inherits that one CPU. mptrain names such a process and
# --omp-bind none; with --omp-bind none the child gets the worker's CPUs.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2

cc -O1 -fopenmp "$(dirname "$0")/programs/omp_spawn.c" -o "$WORK/omp_spawn" || fail "cannot build the OpenMP program"
cpus=$("$MPTRAIN" plan -n 1 -t 2 --json | jq -r '.workers[0].cpus')
first=$(cut -d, -f1 <<<"${cpus%%-*}")

run_mptrain run -n 1 -t 2 -- "$WORK/omp_spawn"
expect_code 0
grep -qx "\[0\] child allowed $first" "$WORK/out" || { cat "$WORK/out" >&2; fail "the child did not inherit CPU $first"; }
expect_stderr "warning: pid [0-9]+ \(omp_spawn\), started by rank 0, ran on CPU $first only though rank 0 has CPUs $cpus.*--omp-bind none"

run_mptrain run -n 1 -t 2 --omp-bind none -- "$WORK/omp_spawn"
expect_code 0
grep -qx "\[0\] child allowed $cpus" "$WORK/out" || { cat "$WORK/out" >&2; fail "--omp-bind none: the child lost CPUs"; }
! grep -q 'inherited the CPU' "$WORK/err" || fail "--omp-bind none still warns"
