# --children under mpirun (--bind-to none: Open MPI binds each rank to one
# core by default, which leaves a worker one CPU): the forked OpenMP
# children still get slices of their own, apart, and floor(T/K) threads.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_mpi
"$MPTRAIN" plan -n 1 -t 2 >/dev/null 2>&1 || skip "fewer than 2 usable CPUs"
use_program omp_children omp_children_llvm

timeout 120 mpirun -n 1 --bind-to none --oversubscribe "$MPTRAIN" run -n 1 -t 2 --children 2 -- "$WORK/omp_children" 2 \
  >"$WORK/out" 2>"$WORK/err"
code=$?
expect_code 0
slice0=$(sed -n 's/^\[0\] child 0 team 1 allowed \([0-9]*\) .*/\1/p' "$WORK/out")
slice1=$(sed -n 's/^\[0\] child 1 team 1 allowed \([0-9]*\) .*/\1/p' "$WORK/out")
[[ -n $slice0 && -n $slice1 ]] || { cat "$WORK/out" "$WORK/err" >&2; fail "the children did not run a team of 1 on one CPU each"; }
[[ $slice0 != "$slice1" ]] || fail "both children run on CPU $slice0"
exit 0
