# One busy thread on its own CPU is not oversubscribed. Other engineers' load
# may share that CPU: the doctor may then warn about outside load, but never
# blames the job itself, and --fail-on oversubscribed does not trip.
# ctest: lock quiet_cpus (it judges the scheduling of its own load)
# ctest: processors 2 (its load keeps two CPUs busy)
# ctest: timeout 60
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/doctor_lib.bash"

run_mptrain doctor --json -- taskset -c "$CPU" "$BURN" 1 2
expect_code 0
expect_json '.verdict == "healthy" or .verdict == "warning"'
for kind in demand_above_capacity thread_pool_too_large overlapping_affinity cgroup_throttling; do
  findings | grep -x "$kind" >/dev/null && { cat "$WORK/out" >&2; fail "a busy thread alone got a $kind finding"; }
done
expect_json '[.findings[] | select(.severity == "oversubscribed")] | length == 0'
expect_json '.runnable_threads_avg <= 1.05'
expect_json '[.processes[] | select(.comm == "mptrain_burn")][0].pool_threads == 1'
