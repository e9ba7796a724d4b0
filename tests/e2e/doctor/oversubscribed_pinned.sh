# 8 busy threads pinned to one CPU: oversubscribed, run-delay ratio > 1,
# exit 3 by default, and fixes that name the numbers.
# ctest: lock quiet_cpus (it judges the scheduling of its own load)
# ctest: processors 2 (its load keeps two CPUs busy)
# ctest: timeout 60
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/doctor_lib.bash"

run_mptrain doctor --json -- taskset -c "$CPU" "$BURN" 8 2
expect_code 3
expect_json '.verdict == "oversubscribed"'
expect_json '.run_delay_ratio > 1'
expect_json '.runnable_threads_avg > 4'
expect_json '.usable_cpus >= 2'
expect_finding demand_above_capacity
expect_finding thread_pool_too_large
expect_json '[.findings[] | select(.kind == "thread_pool_too_large") | .fix] | any(test("OMP_NUM_THREADS="))'
expect_json '[.processes[] | select(.comm == "mptrain_burn")][0].threads == 9'

# The same load watched by pid, text report on stdout.
taskset -c "$CPU" "$BURN" 8 3 &
burner=$!
run_mptrain doctor --pid "$burner" --duration 1.5
wait "$burner"
expect_code 3
grep -q '^verdict: oversubscribed' "$WORK/out" || { cat "$WORK/out"; fail "no verdict line"; }
grep -q 'fix: ' "$WORK/out" || fail "no fix in the text report"
