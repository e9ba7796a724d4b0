# A process a worker starts after its OpenMP runtime bound the worker's main
# thread to one PU: by default (--descendants place) it gets the worker's
# CPUs back; with --descendants leave it keeps the one CPU it inherited,
# and mptrain names it; with --omp-bind none nothing was bound.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2

build_program omp_spawn cc -O1 -fopenmp "$PROGRAMS/omp_spawn.c"
cpus=$("$MPTRAIN" plan -n 1 -t 2 --json | jq -r '.workers[0].cpus')
first=$(cut -d, -f1 <<<"${cpus%%-*}")

run_mptrain run -n 1 -t 2 -- "$WORK/omp_spawn"
expect_code 0
grep -qx "\[0\] child allowed $cpus" "$WORK/out" || { cat "$WORK/out" >&2; fail "the child did not get rank 0's CPUs $cpus back"; }
! grep -q 'inherited the CPU' "$WORK/err" || fail "a placed child is still named as stuck on one CPU"

run_mptrain run -n 1 -t 2 --descendants leave -- "$WORK/omp_spawn"
expect_code 0
grep -qx "\[0\] child allowed $first" "$WORK/out" || { cat "$WORK/out" >&2; fail "--descendants leave: the child did not keep CPU $first"; }
expect_stderr "warning: pid [0-9]+ \(omp_spawn\), started by rank 0, ran on CPU $first only though rank 0 has CPUs $cpus.*--descendants place"

run_mptrain run -n 1 -t 2 --omp-bind none --descendants leave -- "$WORK/omp_spawn"
expect_code 0
grep -qx "\[0\] child allowed $cpus" "$WORK/out" || { cat "$WORK/out" >&2; fail "--omp-bind none: the child lost CPUs"; }
! grep -q 'inherited the CPU' "$WORK/err" || fail "--omp-bind none still warns"
exit 0
