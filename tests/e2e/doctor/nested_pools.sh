# The program's own threads each calling a threaded runtime: 3 pthreads
# each run a GNU OpenMP loop with a team of OMP_NUM_THREADS=2, on 2 CPUs
# (taskset: whatever the machine). The doctor says nested_pools, naming the
# runtime, its pool of 2 and the threads that worked, with the runtime's
# knob at 1 (or threadpoolctl) as the fix, in JSON and text; one pool sized
# to floor(N/M) is not its advice. With the knob at 1 there is no nesting.
# ctest: lock quiet_cpus (it judges the scheduling of its own load)
# ctest: processors 2 (its load keeps two CPUs busy)
# ctest: timeout 60
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/doctor_lib.bash"
use_program threads_calling_openmp threads_calling_openmp
two=$(taskset -c -p $$ | sed 's/.*: //' | tr ',' '\n' |
  awk -F- '{ last = NF > 1 ? $2 : $1; for (c = $1; c <= last; c++) print c }' | head -2 | paste -sd,)
# doctor ARGS...: mptrain doctor ARGS on the two CPUs (N = 2), as run_mptrain.
doctor() {
  taskset -c "$two" "$MPTRAIN" doctor "$@" >"$WORK/out" 2>"$WORK/err"
  code=$?
}
program=("$WORK/threads_calling_openmp" 3 2)

OMP_NUM_THREADS=2 doctor --json --fail-on never --interval 0.25 -- "${program[@]}"
expect_code 0
expect_finding nested_pools
expect_json '.findings[] | select(.kind == "nested_pools") | .message |
  test("[0-9]+ threads worked where the pool of GNU OpenMP \\(libgomp[^)]*\\) holds 2 \\(OMP_NUM_THREADS=2\\)")'
expect_json ".findings[] | select(.kind == \"nested_pools\") | .fix | contains(\"OMP_NUM_THREADS=1 ${program[*]}\") and contains(\"threadpoolctl\")"
expect_json '[.findings[] | select(.kind == "thread_pool_too_large")] | length == 0'

OMP_NUM_THREADS=2 doctor --fail-on never --interval 0.25 -- "${program[@]}"
expect_code 0
grep -Eq '^  \[(warning|oversubscribed)\] nested_pools: pid [0-9]+ \(threads_calling\): ' "$WORK/out" ||
  { cat "$WORK/out" >&2; fail "no nested_pools line in the text"; }

# The knob at 1: the program's own 3 threads, no pool inside them.
OMP_NUM_THREADS=1 doctor --json --fail-on never --interval 0.25 -- "${program[@]}"
expect_code 0
! findings | grep -x nested_pools >/dev/null || { cat "$WORK/out" >&2; fail "nested_pools with the knob at 1"; }
echo PASS
