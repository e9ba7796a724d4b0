# A process a worker starts after its OpenMP runtime bound the worker's main
# thread to one PU: by default (--descendants place) it gets the worker's
# CPUs back, and its own runtime's threads float over them (linked in, or
# loaded later as torch does); with --descendants leave it keeps the one CPU it inherited,
# and mptrain names it; with --omp-bind none nothing was bound.
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2

use_program omp_spawn omp_spawn
cpus=$("$MPTRAIN" plan -n 1 -t 2 --json | jq -r '.workers[0].cpus')
first=$(cut -d, -f1 <<<"${cpus%%-*}")

run_mptrain run -n 1 -t 2 -- "$WORK/omp_spawn"
expect_code 0
grep -qx "\[0\] child allowed $cpus" "$WORK/out" || { cat "$WORK/out" >&2; fail "the child did not get rank 0's CPUs $cpus back"; }
! grep -q 'inherited the CPU' "$WORK/err" || fail "a placed child is still named as stuck on one CPU"
# The child's own runtime read the worker's places before mptrain's library ran in it (it is linked
# in): the threads it places float over the CPUs the child shares, none held on the first place.
[[ $(grep -c "^\[0\] child thread [01] allowed " "$WORK/out") == 2 ]] || { cat "$WORK/out" >&2; fail "the child's team did not report"; }
! grep "^\[0\] child thread" "$WORK/out" | grep -vqx "\[0\] child thread [01] allowed $cpus" ||
  { cat "$WORK/out" >&2; fail "a thread of the child's team was held off rank 0's CPUs $cpus"; }

# A Python program that loads the runtime as torch does (dlopen, after the library's constructor) and
# starts itself again: the child keeps rank 0's CPUs after its own runtime loads.
python=/usr/bin/python3
run_mptrain run -n 1 -t 2 -- "$python" "$PROGRAMS/gomp_spawn.py"
expect_code 0
grep -qx "\[0\] parent after $first" "$WORK/out" || { cat "$WORK/out" >&2; fail "the parent's runtime did not bind its main thread to CPU $first"; }
grep -qx "\[0\] child before $cpus" "$WORK/out" || { cat "$WORK/out" >&2; fail "the spawned child did not get rank 0's CPUs"; }
grep -qx "\[0\] child after $cpus" "$WORK/out" || { cat "$WORK/out" >&2; fail "the spawned child's runtime bound it to one CPU"; }

# The same program under a shell and timeout (wrappers that only run it): it still stands for the
# worker, its runtime binding its main thread to the first place; what it spawns floats again.
run_mptrain run -n 1 -t 2 -- sh -c 'timeout 120 "$0" "$1"; true' "$python" "$PROGRAMS/gomp_spawn.py"
expect_code 0
grep -qx "\[0\] parent after $first" "$WORK/out" || { cat "$WORK/out" >&2; fail "under wrappers, the program lost the worker's OpenMP places"; }
grep -qx "\[0\] child after $cpus" "$WORK/out" || { cat "$WORK/out" >&2; fail "under wrappers, the spawned child's runtime bound it to one CPU"; }

run_mptrain run -n 1 -t 2 --descendants leave -- "$WORK/omp_spawn"
expect_code 0
grep -qx "\[0\] child allowed $first" "$WORK/out" || { cat "$WORK/out" >&2; fail "--descendants leave: the child did not keep CPU $first"; }
expect_stderr "warning: pid [0-9]+ \(omp_spawn\), started by rank 0, ran on CPU $first only though rank 0 has CPUs $cpus.*--descendants place"

run_mptrain run -n 1 -t 2 --omp-bind none --descendants leave -- "$WORK/omp_spawn"
expect_code 0
grep -qx "\[0\] child allowed $cpus" "$WORK/out" || { cat "$WORK/out" >&2; fail "--omp-bind none: the child lost CPUs"; }
! grep -q 'inherited the CPU' "$WORK/err" || fail "--omp-bind none still warns"
exit 0
