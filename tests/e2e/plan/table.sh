# Without --json the plan is a readable table: rank, CPUs, package, NUMA node, threads.
source "$(dirname "$0")/../lib.sh"

run_mptrain plan -n 4 --topology-synthetic "package:2 core:8 pu:2"
expect_code 0
grep -Eq '^RANK +CPUS +PACKAGE +NUMA NODE +THREADS' "$WORK/out" || { cat "$WORK/out"; fail "no table header"; }
grep -Eq '^ +0 +0-7 +0 +0 +8$' "$WORK/out" || { cat "$WORK/out"; fail "no row for rank 0"; }
grep -Eq '^ +3 +24-31 +1 +1 +8$' "$WORK/out" || { cat "$WORK/out"; fail "no row for rank 3"; }
grep -q 'bind core' "$WORK/out" || fail "the binding is not shown"
