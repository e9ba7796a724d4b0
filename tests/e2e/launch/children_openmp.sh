# --children K with a C program that starts its OpenMP runtime and then
# forks K workers (LLVM's OpenMP): each child gets floor(T/K) threads and
# a slice of floor(T/K) of the worker's CPUs of its own, the slices apart;
# a child started after the others exited finds a slice free again. K > T
# is refused without --allow-oversubscribe, --dry-run shows the slices;
# without --children the run report gives the --children command.
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2
command -v clang >/dev/null || fail "clang is needed (scripts/setup.sh installs it)"
use_program omp_children omp_children_llvm
plan=$("$MPTRAIN" plan -n 1 --json)
cpus=$(jq -r '.workers[0].cpus' <<<"$plan")
threads=$(jq -r '.threads_per_process' <<<"$plan")
per_child=$((threads / 2))

# expand LIST: the CPUs of a kernel list, one per line.
expand() { tr ',' '\n' <<<"$1" | awk -F- '{ last = NF > 1 ? $2 : $1; for (c = $1; c <= last; c++) print c }'; }

run_mptrain run -n 1 --children 2 -- "$WORK/omp_children" 2 again
expect_code 0
grep -q "^\[0\] parent team $per_child$" "$WORK/out" || { cat "$WORK/out" >&2; fail "the parent's team is not floor(T/K) = $per_child"; }
for child in 0 1 2; do
  line=$(grep "^\[0\] child $child " "$WORK/out") || { cat "$WORK/out" "$WORK/err" >&2; fail "child $child did not report"; }
  read -r _ _ _ _ team _ allowed _ <<<"$line"
  [[ $team == "$per_child" ]] || fail "child $child ran a team of $team, not floor(T/K) = $per_child: $line"
  count=$(expand "$allowed" | wc -l)
  [[ $count == "$per_child" ]] || fail "child $child may use $allowed, not a slice of $per_child CPUs: $line"
  expand "$allowed" | while read -r cpu; do expand "$cpus" | grep -x "$cpu" >/dev/null || fail "child $child's CPU $cpu is not rank 0's ($cpus)"; done || exit 1
  eval "slice_$child=\$allowed"
done
# shellcheck disable=SC2154
[[ -z $(comm -12 <(expand "$slice_0" | sort) <(expand "$slice_1" | sort)) ]] ||
  fail "children 0 and 1 share CPUs: $slice_0 and $slice_1"

# More threads per worker than CPUs, on purpose: each child's team is still floor(T/K).
run_mptrain run -n 1 -t 4 --allow-oversubscribe --children 2 -- "$WORK/omp_children" 2
expect_code 0
[[ $(grep -c "^\[0\] child [01] team 2 " "$WORK/out") == 2 ]] || { cat "$WORK/out" >&2; fail "-t 4 --children 2: a child's team is not 2"; }

# More working children than threads: refused, unless oversubscribing on purpose.
run_mptrain run -n 1 -t 1 --children 2 -- "$WORK/omp_children" 2
expect_usage_error "--children 2: each worker has 1 CPU \([0-9]+ usable CPUs?, 1 worker\) and each working child needs one of its own; use --children 1 or fewer"
run_mptrain run -n 1 --children 2 --descendants leave -- "$WORK/omp_children" 2
expect_usage_error "--children places the working children"

# Without --children, the run sees the processes with pools and gives the command.
OMP_CHILDREN_SECONDS=2 run_mptrain run -n 1 -- "$WORK/omp_children" 2
expect_code 0
expect_stderr "each worker's program started 2 processes that each ran a thread pool"
expect_stderr "^  mptrain run -n 1 --children 2 -- $WORK/omp_children 2$"
OMP_CHILDREN_SECONDS=2 run_mptrain run -n 1 --json -- "$WORK/omp_children" 2
expect_code 0
expect_json '.children_advice.children == 2'

# The doctor's fix for the same program, started without mptrain with the
# naive setting, is one worker with --children (KMP_BLOCKTIME=0: the
# parent's own pool sleeps at once after its one region).
KMP_BLOCKTIME=0 OMP_NUM_THREADS=$((2 * threads)) OMP_CHILDREN_SECONDS=3 run_mptrain doctor --json -- "$WORK/omp_children" 2
[[ $code == 0 || $code == 3 ]] || { cat "$WORK/err" >&2; fail "the doctor exited $code"; }
expect_json "[.findings[] | select(.kind == \"thread_pool_too_large\")][0].fix | test(\"mptrain run -n 1 --children 2 -- .*omp_children 2\")"

# The dry run shows the slices.
run_mptrain run -n 1 --children 2 --dry-run -- "$WORK/omp_children" 2
expect_code 0
grep -Eq "^# rank 0: 2 working children, one slice of CPUs each: [0-9,-]+ \| [0-9,-]+$" "$WORK/out" || { cat "$WORK/out" >&2; fail "the dry run shows no slices"; }
run_mptrain run -n 1 --children 2 --dry-run --json -- "$WORK/omp_children" 2
expect_code 0
expect_json '.ranks[0].children_slices | length == 2'
expect_json ".ranks[0].env.MPTRAIN_PLACE_THREADS == \"$per_child\""
exit 0
