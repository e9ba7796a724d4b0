# `doctor --pid PARENT` of a program that forks its workers watches them
# too: a C program (LLVM OpenMP) forks 2 children of 2 busy threads each,
# all on 2 CPUs (taskset: oversubscribed whatever the machine), and the
# doctor, given only the parent's pid, finds the children (JSON processes,
# the text's table) and gives the fix for one program's workers: `mptrain
# run -n 1 --children 2 -- <the parent's own command line>`, never `run -n
# 2`, also when given the workers' pids alone. Children that come and go
# are found and kept in the totals; --no-children watches the parent alone.
# ctest: lock quiet_cpus (it judges the scheduling of its own load)
# ctest: processors 2 (its load keeps two CPUs busy)
# ctest: timeout 90
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/doctor_lib.bash"
use_program omp_children omp_children_llvm
# Two CPUs this process may use: the job and the doctor run on them alone.
two=$(taskset -c -p $$ | sed 's/.*: //' | tr ',' '\n' |
  awk -F- '{ last = NF > 1 ? $2 : $1; for (c = $1; c <= last; c++) print c }' | head -2 | paste -sd,)
parent= children=
trap 'kill $parent $children 2>/dev/null; rm -rf "$WORK"' EXIT

# start_family: starts the program (its children busy for 8 s) on the two CPUs, its pid in $parent,
# its children's in $children, once both run.
start_family() {
  OMP_CHILDREN_SECONDS=8 OMP_NUM_THREADS=2 taskset -c "$two" "$WORK/omp_children" 2 >/dev/null &
  parent=$!
  local tries
  for ((tries = 0; tries < 100; tries++)); do
    children=$(pgrep -P "$parent" | paste -sd' ')
    [[ $(wc -w <<<"$children") == 2 ]] && return 0
    sleep 0.05
  done
  fail "the program's 2 children did not start"
}
# stop_family: ends the program and its children.
stop_family() {
  kill $children "$parent" 2>/dev/null
  wait "$parent" 2>/dev/null
}
# doctor ARGS...: mptrain doctor ARGS on the same two CPUs (N = 2), as run_mptrain.
doctor() {
  taskset -c "$two" "$MPTRAIN" doctor "$@" >"$WORK/out" 2>"$WORK/err"
  code=$?
}
fix="mptrain run -n 1 --children 2 -- $WORK/omp_children 2"

start_family
doctor --json --fail-on never --duration 2 --interval 0.25 --pid "$parent"
stop_family
expect_code 0
for child in $children; do
  expect_json "[.processes[] | select(.pid == $child and .pool_threads >= 2)] | length == 1"
done
expect_json '.verdict != "healthy" and .verdict != "inconclusive"'
expect_json "[.findings[] | select(.kind == \"thread_pool_too_large\")] | length == 1"
expect_json "[.findings[] | select(.fix | contains(\"$fix\"))] | length >= 1"
! grep -Eq 'mptrain run -n 2 ' "$WORK/out" || { cat "$WORK/out" >&2; fail "the fix starts two copies of the program"; }

# The text report: the same fix, and the children in its table.
start_family
doctor --fail-on never --duration 2 --interval 0.25 --pid "$parent"
stop_family
expect_code 0
grep -Fq -- "$fix" "$WORK/out" || { cat "$WORK/out" >&2; fail "the text gives no --children 2 fix with the parent's command"; }
! grep -Eq 'mptrain run -n 2 ' "$WORK/out" || { cat "$WORK/out" >&2; fail "the text's fix starts two copies"; }
for child in $children; do
  grep -Eq "^ +$child +omp_children " "$WORK/out" || { cat "$WORK/out" >&2; fail "child $child is not in the table"; }
done

# --pid of the workers alone: forked copies of their parent, they still get its --children command.
start_family
pid_options=()
for child in $children; do pid_options+=(--pid "$child"); done
doctor --json --fail-on never --duration 2 --interval 0.25 "${pid_options[@]}"
stop_family
expect_code 0
expect_json "[.findings[] | select(.fix | contains(\"$fix\"))] | length >= 1"
! grep -Eq 'mptrain run -n 2 ' "$WORK/out" || { cat "$WORK/out" >&2; fail "the workers' fix starts two copies"; }

# --no-children: the parent alone (it only waits), none of its children.
start_family
doctor --json --fail-on never --duration 1 --interval 0.25 --no-children --pid "$parent"
stop_family
expect_code 0
for child in $children; do
  expect_json "[.processes[] | select(.pid == $child)] | length == 0"
done

# Children that come and go: a shell runs three burners one after another;
# each is found when it starts and kept in the totals after it exits.
bash -c "for i in 1 2 3; do $BURN 1 0.6; done" &
parent=$!
run_mptrain doctor --json --fail-on never --duration 3 --interval 0.2 --pid "$parent"
wait "$parent"
expect_code 0
expect_json '[.processes[] | select(.comm == "mptrain_burn")] | length >= 2'

# The doctor is no descendant it watches: --pid of the shell that started it.
run_mptrain doctor --json --fail-on never --duration 0.5 --interval 0.25 --pid $$
expect_code 0
expect_json '[.processes[] | select(.comm == "mptrain")] | length == 0'

# --no-children without --pid is a usage error.
run_mptrain doctor --no-children --duration 1
expect_usage_error "--no-children applies to --pid"
echo PASS
