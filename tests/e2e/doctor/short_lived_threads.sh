# Threads that come and go between two samples (each lives 5 ms; the doctor
# samples every 0.5 s) are the job's: their CPU time is counted from the
# process's own (/proc/PID/stat: exited threads included), so the job's
# utilisation is what it used, not what its few sampled threads used, none
# of it is called outside load, and they count in the process's pool.
# ctest: lock quiet_cpus (it judges the scheduling of its own load)
# ctest: processors 2 (its load keeps two CPUs busy)
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/doctor_lib.bash"
churn=$(test_program thread_churn) || exit 1

# Two threads at a time on the two CPUs the test pins it to.
cpus=$("$MPTRAIN" topo --json | jq -r '.usable_cpu_list')
run_mptrain doctor --json --fail-on never -- taskset -c "$cpus" "$churn" 2.5 2
expect_code 0
expect_json '.short_lived_cpu_utilization > 0.3'
# Nearly all the job's CPU is theirs (the main thread only starts and joins them).
expect_json '.short_lived_cpu_utilization >= 0.8 * .cpu_utilization'
expect_json '[.processes[] | select(.comm == "thread_churn")][0] | .pool_threads >= 1 and .cpu_seconds > 0.5'
expect_json '[.findings[].kind] | index("outside_load") == null'
grep -q 'by threads that came and went between samples' <("$MPTRAIN" doctor --fail-on never -- "$churn" 1 2 2>&1) ||
  fail "the text report does not say what threads that came and went used"
exit 0
